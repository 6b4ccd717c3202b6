"""The order the season runner submits pending series in (arena/season/play_order.py):
the first series whose bots are free, else the one with the fewest bots playing;
with a reuse pool (arena/sandbox/reuse.py) over a fake sandbox, a 4-bot round robin
at 2 at once starts 8 containers, two per bot, the fewest that keep each bot from
being dealt a duplicate pair's cards twice, and no container is; and the order
changes no series' spec nor result."""

from __future__ import annotations

import threading
from concurrent.futures import Future
from functools import partial
from pathlib import Path

import pytest

from arena.core.series import BotRef, SeriesOutcome, SeriesSpec
from arena.core.settings import SeasonConfig
from arena.sandbox.base import RunningBot, Sandbox
from arena.sandbox.reuse import ReusePool
from arena.season.formats import plan_season
from arena.season.play_order import LOOK_AHEAD, next_to_play
from arena.season.runner import SeasonRunner
from arena.storage import PlannedSeries, Storage
from tests.helpers.arena_helpers import made_up_outcome, register_bots, trust_outcome
from tests.helpers.fake_sandbox import IdleBot
from tests.helpers.polling import wait_until


def series(seat0: str, seat1: str, index: int = 0) -> PlannedSeries:
    return PlannedSeries(f"s{index}", 1, index, index, False, seat0, seat1)


def test_nothing_playing_takes_the_first() -> None:
    assert next_to_play([series("a", "b"), series("c", "d")], []) == 0


def test_the_first_series_whose_bots_are_free() -> None:
    waiting = [series("b", "a"), series("a", "c"), series("c", "d"), series("d", "c")]
    assert next_to_play(waiting, [series("a", "b")]) == 2


def test_no_free_series_takes_the_first_with_fewest_bots_playing() -> None:
    waiting = [series("b", "a"), series("a", "b"), series("c", "a"), series("b", "c")]
    assert next_to_play(waiting, [series("a", "b")]) == 2


def test_every_bot_playing_takes_the_first() -> None:
    waiting = [series("b", "a"), series("c", "d")]
    assert next_to_play(waiting, [series("a", "b"), series("c", "d")]) == 0


def test_looks_no_further_than_its_bound() -> None:
    waiting = [series("b", "a", n) for n in range(LOOK_AHEAD)] + [series("c", "d")]
    assert next_to_play(waiting, [series("a", "b")]) == 0
    assert next_to_play(waiting[1:], [series("a", "b")]) == LOOK_AHEAD - 1


def test_nothing_waiting_is_an_error() -> None:
    with pytest.raises(ValueError, match="no series"):
        next_to_play([], [])


# ------------------------------------------------ a season through a reuse pool


class FakeSandbox(Sandbox):
    name = "fake"
    description = "fake"

    def prepare(self, bot: BotRef) -> None:
        pass

    def start(self, bot: BotRef, *, series_id: str = "", seat: int | None = None,
              deal: str = "") -> IdleBot:
        return IdleBot()


class OldestFirst:
    """An executor of 2 slots whose series the test ends one at a time, the oldest
    in flight first; each takes its bots from ``sandbox`` and hands them back clean."""

    capacity = 2

    def __init__(self, sandbox: ReusePool) -> None:
        self.sandbox = sandbox
        self.submitted: list[SeriesSpec] = []
        self.dealt: list[tuple[object, str]] = []
        """(the container, the deal) of each seat of each series."""
        self._in_flight: list[tuple[SeriesSpec, list[RunningBot], Future[SeriesOutcome]]] = []
        self._lock = threading.Lock()

    def submit(self, spec: SeriesSpec) -> Future[SeriesOutcome]:
        bots = [self.sandbox.start(bot, series_id=spec.series_id, seat=seat, deal=spec.deal)
                for seat, bot in enumerate(spec.bots)]
        future: Future[SeriesOutcome] = Future()
        with self._lock:
            self.submitted.append(spec)
            self.dealt += [(bot._bot, spec.deal) for bot in bots]  # type: ignore[attr-defined]
            self._in_flight.append((spec, bots, future))
        return future

    def end_oldest(self) -> None:
        with self._lock:
            spec, bots, future = self._in_flight.pop(0)
        for bot in bots:
            bot.release()
        future.set_result(made_up_outcome(spec.series_id, winner=spec.seed % 2,
                                          games_won=(2, 1)))

    def close(self) -> None:
        pass


def _season(storage: Storage, root: Path) -> int:
    ids = register_bots(storage, root, ["a", "b", "c", "d"])
    config = SeasonConfig.build(sandbox="process", concurrency=2, seed=3)
    plan = plan_season(ids, config.series_per_pair, config.seed)
    return storage.create_season(name="", config=config.to_dict(),
                                 profile=config.profile(), bot_ids=ids,
                                 plan=[e.as_row() for e in plan]).id


def _submitted(executor: OldestFirst, count: int) -> bool:
    return len(executor.submitted) == count


def _play_oldest_first(tmp_path: Path) -> tuple[Storage, int, OldestFirst, ReusePool]:
    storage = Storage(tmp_path / "a.db")
    season_id = _season(storage, tmp_path)
    pool = ReusePool(FakeSandbox(), janitor=False)
    executor = OldestFirst(pool)
    runner = SeasonRunner(storage, season_id, executor, verify=trust_outcome)
    status: list[str] = []
    thread = threading.Thread(target=lambda: status.append(runner.run()))
    thread.start()
    try:
        for ended in range(12):  # once ``ended`` are done, the runner submits up to 2 more
            expected = min(ended + 2, 12)
            wait_until(partial(_submitted, executor, expected),
                       what=f"{expected} series submitted")
            executor.end_oldest()
    finally:
        thread.join(timeout=30)
    assert status == ["finished"]
    pool.close()
    return storage, season_id, executor, pool


def test_a_four_bot_season_at_two_at_once_starts_two_containers_a_bot(tmp_path: Path) -> None:
    """The plan (circle method, duplicate pairs side by side) is da ad bc cb ac ca bd
    db ab ba cd dc. Free bots first, worked out by hand with the oldest series
    ending first: da bc | ad | cb | ac (no series has both bots free: c doubles) |
    bd | ca | db | ab (b doubles) | cd | ba | dc. Without the deal rule that was 6
    containers; with it each bot's second container starts for its first mirrored
    half (ad, cb), and from then on each bot's two containers take turns over the
    halves: 8 containers (the fewest: a bot plays both halves of a pair), 24 bots'
    starts served by them, no container dealt one deal twice."""
    _, _, executor, pool = _play_oldest_first(tmp_path)
    order = ["".join(bot.name for bot in spec.bots) for spec in executor.submitted]
    assert order == ["da", "bc", "ad", "cb", "ac", "bd", "ca", "db", "ab", "cd", "ba", "dc"]
    assert pool.counters.started == 8
    assert pool.counters.reused == 24 - 8
    assert len(set(executor.dealt)) == len(executor.dealt) == 24


def test_the_order_changes_no_spec_nor_result(tmp_path: Path) -> None:
    """The same season played in the plan's order (one at a time) and reordered:
    each series gets the same seed and seats, and the same result is stored."""
    storage, season_id, executor, _ = _play_oldest_first(tmp_path / "reordered")
    reordered = {spec.series_id: spec for spec in executor.submitted}
    in_order = Storage(tmp_path / "b.db")
    plain_id = _season(in_order, tmp_path / "plain")
    specs: list[SeriesSpec] = []

    class OneAtATime:
        capacity = 1

        def submit(self, spec: SeriesSpec) -> Future[SeriesOutcome]:
            specs.append(spec)
            future: Future[SeriesOutcome] = Future()
            future.set_result(made_up_outcome(spec.series_id, winner=spec.seed % 2,
                                              games_won=(2, 1)))
            return future

        def close(self) -> None:
            pass

    SeasonRunner(in_order, plain_id, OneAtATime(), verify=trust_outcome).run()
    assert [s.series_id for s in specs] == [p.series_id for p in in_order.planned_series(plain_id)]
    assert [s.series_id for s in executor.submitted] != [s.series_id for s in specs]
    for spec in specs:
        other = reordered[spec.series_id]
        assert (other.seed, other.swap_seats) == (spec.seed, spec.swap_seats)
        assert [b.name for b in other.bots] == [b.name for b in spec.bots]
    assert [(r.series_id, r.winner, r.games_won) for r in storage.results(season_id)] == [
        (r.series_id, r.winner, r.games_won) for r in in_order.results(plain_id)]
