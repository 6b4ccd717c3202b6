"""The first series' bots handed to the executor to start while the season gets ready
(arena/season/start_ahead.py), through the local executor to the server's runner,
which prepares each in the background (the warm pool then starts its container
within the admission limits)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import Future
from pathlib import Path

from arena.core.series import BotRef, SeriesOutcome, SeriesSpec
from arena.core.settings import SeasonConfig
from arena.execution import LocalExecutor
from arena.season.formats import plan_season
from arena.season.start_ahead import start_first_series
from arena.server.app import SandboxRunner
from arena.storage import Storage
from tests.helpers.arena_helpers import register_bots
from tests.helpers.fake_runner import run_fake_series
from tests.helpers.polling import wait_until


def make_season(storage: Storage, root: Path, concurrency: int) -> tuple[int, list[str]]:
    ids = register_bots(storage, root, ("alpha", "beta", "gamma", "delta"))
    config = SeasonConfig.build(sandbox="process", concurrency=concurrency, seed=5)
    plan = plan_season(ids, config.series_per_pair, config.seed)
    season = storage.create_season(name="", config=config.to_dict(),
                                   profile=config.profile(), bot_ids=ids,
                                   plan=[e.as_row() for e in plan])
    return season.id, ids


class Ahead:
    """An executor that records what it was asked to start ahead."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.asked: list[list[str]] = []

    def submit(self, spec: SeriesSpec) -> Future[SeriesOutcome]:
        raise AssertionError("nothing is played here")

    def start_ahead(self, bots: Sequence[BotRef]) -> None:
        self.asked.append([f"{bot.name}@{bot.version}" for bot in bots])

    def close(self) -> None:
        pass


def test_the_bots_of_the_first_series_are_started_ahead(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "arena.db")
    season_id, _ = make_season(storage, tmp_path, concurrency=2)
    first = storage.pending_series(season_id)[:2]
    expected = list(dict.fromkeys(f"{bot.split('@')[0]}@1.0.0" for planned in first
                                  for bot in (planned.seat0_bot, planned.seat1_bot)))
    executor = Ahead(capacity=2)
    assert start_first_series(storage, storage.get_season(season_id), executor) == expected
    assert executor.asked == [expected]
    assert 2 <= len(expected) <= 4  # two series' bots, each version once


class Plain:
    """An executor without ``start_ahead`` (as a cluster's)."""

    capacity = 2

    def submit(self, spec: SeriesSpec) -> Future[SeriesOutcome]:
        raise AssertionError("nothing is played here")

    def close(self) -> None:
        pass


def test_an_executor_that_cannot_start_ahead_is_left_alone(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "arena.db")
    season_id, _ = make_season(storage, tmp_path, concurrency=1)
    assert start_first_series(storage, storage.get_season(season_id), Plain()) == []
    local = LocalExecutor(run_fake_series, 1)  # a plain function: forwarded to nothing
    try:
        assert len(start_first_series(storage, storage.get_season(season_id), local)) == 2
    finally:
        local.close()


class Preparing:
    """A sandbox that records the bots it prepared."""

    name, description = "fake", "records prepare"

    def __init__(self) -> None:
        self.prepared: list[str] = []
        self.lock = threading.Lock()

    def prepare(self, bot: BotRef) -> None:
        with self.lock:
            self.prepared.append(bot.name)

    def start(self, bot: BotRef, **_: object) -> object:
        raise AssertionError("nothing is started here")


def test_the_servers_runner_prepares_each_bot_in_the_background(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "arena.db")
    season_id, _ = make_season(storage, tmp_path, concurrency=1)
    sandbox = Preparing()
    executor = LocalExecutor(SandboxRunner(sandbox, owned=False), 1)  # type: ignore[arg-type]
    try:
        started = start_first_series(storage, storage.get_season(season_id), executor)
        assert len(started) == 2
        wait_until(lambda: len(sandbox.prepared) == 2, what="both bots prepared")
        assert sorted(sandbox.prepared) == sorted(name.split("@")[0] for name in started)
    finally:
        executor.close()
