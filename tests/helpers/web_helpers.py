"""Helpers for the website tests: a stored season of chosen bot names played by the
fake runner (tests/helpers/fake_runner.py), with chosen series turned into forfeits."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from arena.core.faults import BotFault, FaultKind
from arena.core.manifest import BotManifest, content_hash, iter_bot_files
from arena.core.series import SeriesOutcome, SeriesSpec, outcome_of
from arena.core.settings import SeasonConfig
from arena.season.formats import plan_season
from arena.storage import PlannedSeries, Storage
from engine import Series
from tests.helpers.arena_helpers import made_up_outcome, make_bot_folder
from tests.helpers.deal_helpers import play_series
from tests.helpers.fake_runner import run_fake_series

SAMPLE_BOTS = Path(__file__).resolve().parents[2] / "sample_bots"
HOSTILE_NAME = "<script>alert(1)</script>"
TERMINAL_NAME = "evil\x1b[31mred\x1b[0m"
STDERR_TAIL = "Traceback: <img src=x onerror=alert(2)>\x1b[2J"


def register(storage: Storage, root: Path, name: str, *, version: str = "1.0.0",
             author: str = "", description: str = "") -> str:
    """Store a bot of any name (the storage layer does not check names, so hostile
    ones reach the pages as they could from an old or hand-edited database); its
    folder holds a valid bot named "random-N" or "bot-N" (the fake runner's policy
    follows the stored name's "random")."""
    number = len(storage.list_bots())
    folder = make_bot_folder(root, f"{'random' if 'random' in name else 'bot'}-{number}")
    record, _ = storage.register_bot(
        name=name, version=version, language="python", author=author,
        description=description, content_hash=f"hash-{number}-{version}",
        source_folder=folder, files=list(iter_bot_files(folder)))
    return record.id


def create_season(storage: Storage, bot_ids: Sequence[str], *, seed: int = 5,
                  name: str = "web season", series_per_pair: int = 1, max_hands: int = 6
                  ) -> int:
    """A season of ``bot_ids`` (in-process sandbox), planned, not started."""
    config = SeasonConfig.build(sandbox="inprocess", concurrency=1, seed=seed,
                                series_per_pair=series_per_pair, max_hands=max_hands)
    plan = plan_season(list(bot_ids), config.series_per_pair, config.seed)
    season = storage.create_season(name=name, config=config.to_dict(),
                                   profile=config.profile(), bot_ids=list(bot_ids),
                                   plan=[entry.as_row() for entry in plan])
    return season.id


def sample_season(storage: Storage, *, series_per_pair: int = 4, max_hands: int = 12,
                  name: str = "sample season") -> int:
    """A season of the sample bots random, greedy and shark (in-process), not started."""
    ids = []
    for bot in ("random", "greedy", "shark"):
        folder = SAMPLE_BOTS / bot
        manifest = BotManifest.load(folder)
        record, _ = storage.register_bot(
            name=manifest.name, version=manifest.version, language=manifest.language,
            author=manifest.author, description=manifest.description,
            content_hash=content_hash(folder), source_folder=folder,
            files=list(iter_bot_files(folder)))
        ids.append(record.id)
    return create_season(storage, ids, seed=11, name=name, series_per_pair=series_per_pair,
                         max_hands=max_hands)


def forfeiting(faulty_series: set[str], seat: int = 1) -> Callable[[SeriesSpec], SeriesOutcome]:
    """The fake runner, except that the listed series end with ``seat`` timing out."""

    def run(spec: SeriesSpec) -> SeriesOutcome:
        if spec.series_id not in faulty_series:
            return run_fake_series(spec)
        # A forfeit its log bears out (the season verifies every outcome): the first
        # line of play after which ``seat`` makes decision 4 of hand 1.
        series = _line_to(Series(spec.seed, spec.profile, max_hands=spec.max_hands,
                                 swap_seats=spec.swap_seats), seat, 3)
        assert series is not None, "no line of play gives that seat decision 4"
        fault = BotFault(FaultKind.TIMEOUT, "decision took 3.2 s <b>late</b>", seat=seat,
                         hand_number=1, decision_number=4, stderr_tail=STDERR_TAIL)
        return outcome_of(spec.series_id, series, 1 - seat, fault, (0.0, 0.0), 0.0)

    return run


def _line_to(series: Series, seat: int, actions: int) -> Series | None:
    """``series`` after ``actions`` more actions leaving ``seat`` to act, or None."""
    if actions == 0:
        return series if series.current_player == seat else None
    for action in series.legal_actions():
        trial = Series.replay(series.log)
        trial.apply(action)
        found = _line_to(trial, seat, actions - 1)
        if found is not None:
            return found
    return None


KNOCK_SEED = 1620
"""A series whose three hands end in a knock with a layoff, an undercut with a
layoff and a dead hand (worked out by hand in tests/arena/web/test_web_replay.py)."""


def store_knock_series(storage: Storage, root: Path, names: Sequence[str] = ("ann", "bob")
                       ) -> tuple[PlannedSeries, list[dict[str, Any]]]:
    """A season of two bots whose first series is stored as the fixed-seed series
    ``KNOCK_SEED`` (three hands, greedy play): its plan entry and its event log."""
    ids = [register(storage, root, name) for name in names]
    planned = storage.planned_series(create_season(storage, ids, max_hands=3))[0]
    series = Series(KNOCK_SEED, max_hands=3)
    play_series(series, random.Random(KNOCK_SEED))
    outcome = made_up_outcome(planned.series_id, winner=1, hands_played=3, log=list(series.log))
    storage.store_result(planned, outcome, {})  # type: ignore[arg-type]
    return planned, series.log
