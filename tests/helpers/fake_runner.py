"""A fake series runner for the fast scheduling tests: plays a series with
built-in policies, no bots.

It has the ``RunSeries`` shape of the real runner (``arena.match.runner.run_series``
bound to a sandbox) but never starts a bot: each seat plays a simple seeded policy
(knock as soon as legal, else a seeded random choice), chosen by the bot's name.
It exists for tests of the scheduling, storage and API parts, where bots would only
add time. (Real bots without containers: the ``inprocess`` sandbox.)
"""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from arena.core.series import SeriesOutcome, SeriesSpec
from engine import Action, ActionKind, Series

if TYPE_CHECKING:
    from arena.server.app import RunningServer


def _choose(legal: list[Action], rng: random.Random, greedy: bool) -> Action:
    knocks = [action for action in legal if action.kind is ActionKind.KNOCK]
    if greedy and knocks:
        return knocks[0]
    return rng.choice(legal)


def run_fake_series(spec: SeriesSpec, delay_s: float = 0.0) -> SeriesOutcome:
    """Play ``spec`` with built-in policies: a bot whose name contains "random" plays
    random legal actions, any other knocks whenever it can (seeded by the series)."""
    started = time.monotonic()
    series = Series(spec.seed, spec.profile, max_hands=spec.max_hands,
                    swap_seats=spec.swap_seats)
    rngs = [random.Random(f"{spec.seed}:{spec.swap_seats}:{seat}") for seat in (0, 1)]
    greedy = ["random" not in bot.name for bot in spec.bots]
    while not series.is_over:
        seat = series.current_player
        assert seat is not None
        series.apply(_choose(series.legal_actions(), rngs[seat], greedy[seat]))
    if delay_s > 0:
        time.sleep(delay_s)
    result = series.result
    assert result is not None
    return SeriesOutcome(
        series_id=spec.series_id, result=result, fault=None, think_seconds=(0.0, 0.0),
        wall_seconds=time.monotonic() - started, log=list(series.log),
    )


@contextlib.contextmanager
def fake_season_server(tmp_path: Path, bot_names: tuple[str, ...] = ("greedy", "random"),
                       runner: Callable[[SeriesSpec], SeriesOutcome] | None = None
                       ) -> Iterator[RunningServer]:
    """A server on a fresh database in ``tmp_path`` whose seasons play with ``runner``
    (``run_fake_series`` by default), with small bot folders of ``bot_names``
    registered (``tests.helpers.servers``: the same without a ``with`` block is
    ``with_bots(serve(runner=...), tmp_path, bot_names)``)."""
    from tests.helpers.servers import servers, with_bots

    with servers(tmp_path) as serve:
        yield with_bots(serve(runner=runner or run_fake_series), tmp_path, bot_names)
