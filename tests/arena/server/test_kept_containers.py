"""Containers that outlive their season (arena/sandbox/shelf.py, wired by
``arena.server.app.sandbox_runner_factory``): the next season of the same server
gets a version's kept container back, opened by a fresh Handshake; another version
never gets it; ``--fresh-container-per-series`` (one series per container) and the
backends that start a bot per series keep a sandbox of the season's own, closed with
the season."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from arena.core.limits import TimeLimits
from arena.core.series import BotRef, SeriesSpec
from arena.core.settings import SeasonConfig
from arena.sandbox.admission import Admission
from arena.sandbox.reuse import ReusePool
from arena.sandbox.shelf import SandboxShelf
from arena.sandbox.warm import WarmPool
from arena.server.app import SandboxRunner, sandbox_runner_factory
from engine.profiles import get_profile
from tests.helpers.polling import wait_until
from tests.helpers.sandboxes import HOSTILE_BOTS, REPO_ROOT
from tests.helpers.seat_recorder import SeatRecorder, container_of


class Made:
    """A stand-in for the registry's ``create``: records each sandbox it makes."""

    def __init__(self) -> None:
        self.made: list[tuple[str, int | None]] = []
        self.closed: list[int] = []

    def __call__(self, backend: str, *, series_per_container: int | None = None) -> Any:
        number = len(self.made)
        self.made.append((backend, series_per_container))
        made = self

        class Kept:
            name, description = backend, "fake"

            def close(self) -> None:
                made.closed.append(number)

        return Kept()


def config(sandbox: str, series_per_container: int) -> SeasonConfig:
    return SeasonConfig.build(sandbox=sandbox, series_per_container=series_per_container)


def test_a_reusing_backend_is_lent_to_every_season_and_closed_with_the_server() -> None:
    made = Made()
    shelf = SandboxShelf(made)
    first = sandbox_runner_factory(config("docker", 10), shelf=shelf)
    assert isinstance(first, SandboxRunner)
    first.close()  # the season is over: the sandbox stays
    second = sandbox_runner_factory(config("docker", 10), shelf=shelf)
    assert isinstance(second, SandboxRunner)
    assert second.sandbox is first.sandbox and made.made == [("docker", 10)]
    assert made.closed == []
    other = sandbox_runner_factory(config("docker", 5), shelf=shelf)  # other pool rules
    assert isinstance(other, SandboxRunner) and other.sandbox is not first.sandbox
    shelf.close()
    assert sorted(made.closed) == [0, 1]


@pytest.mark.parametrize(("backend", "per_container"), [("docker", 1), ("process", 10)])
def test_strict_mode_and_bots_per_series_keep_a_sandbox_per_season(
        backend: str, per_container: int) -> None:
    made = Made()
    shelf = SandboxShelf(made)
    runners = [sandbox_runner_factory(config(backend, per_container), shelf=shelf)
               for _ in range(2)]
    assert len(made.made) == 2
    for runner in runners:
        runner.close()  # type: ignore[attr-defined]
    assert sorted(made.closed) == [0, 1]  # closed with their seasons, not the server
    shelf.close()
    assert sorted(made.closed) == [0, 1]


def test_a_closed_shelf_lends_a_season_its_own() -> None:
    made = Made()
    shelf = SandboxShelf(made)
    shelf.close()
    _, kept = shelf.lend("docker", 10)
    assert not kept and made.made == [("docker", 10)]


# ---------------------------------------------------------------- in Docker

PROBE = BotRef.from_folder(HOSTILE_BOTS / "series_probe")
RANDOM = BotRef.from_folder(REPO_ROOT / "sample_bots" / "random")
LIMITS = TimeLimits(startup_s=30.0, decision_s=2.0, reserve_s=10.0)
START = re.compile(r"series-probe: start series_id=([0-9a-f]{16}) series_number=(\d+) "
                   r"handshakes=(\d+)")


def spec(first: BotRef, second: BotRef, series_id: str) -> SeriesSpec:
    return SeriesSpec(series_id=series_id, seed=int.from_bytes(series_id.encode(), "big"),
                      profile=get_profile("friendly"), max_hands=3, swap_seats=False,
                      bots=(first, second), limits=LIMITS)


def play_season(shelf: SandboxShelf, series: SeriesSpec) -> SeatRecorder:
    """One season of one series, as the server plays it: a runner from the factory,
    closed when the season is over."""
    runner = sandbox_runner_factory(config("docker", 10), shelf=shelf)
    assert isinstance(runner, SandboxRunner)
    seen = SeatRecorder(runner.sandbox)
    runner.sandbox = seen
    try:
        outcome = runner(series)
        assert outcome.fault is None, outcome.fault
    finally:
        runner.sandbox = seen.inner
        runner.close()
    return seen


@pytest.mark.docker
@pytest.mark.timeout(600)
def test_a_kept_container_serves_the_next_season_and_no_other_version(
        docker_sandbox: Any, tmp_path: Path) -> None:
    pools: list[ReusePool] = []

    def create(backend: str, *, series_per_container: int | None = None) -> ReusePool:
        warm = WarmPool(docker_sandbox, per_version=0, janitor=False, admission=Admission(2))
        pools.append(ReusePool(warm, series_per_container=series_per_container or 10,
                               janitor=False))
        return pools[-1]

    shelf = SandboxShelf(create)
    newer = tmp_path / "series_probe"
    shutil.copytree(HOSTILE_BOTS / "series_probe", newer)
    toml = newer / "bot.toml"
    toml.write_text(toml.read_text().replace('version = "1.0.0"', 'version = "1.0.1"'))
    probe_next = BotRef.from_folder(newer)
    try:
        first = play_season(shelf, spec(PROBE, RANDOM, "season-1"))
        (pool,) = pools
        wait_until(lambda: pool.idle() == 2, what="both containers kept after season 1")
        second = play_season(shelf, spec(PROBE, RANDOM, "season-2"))
        assert len(pools) == 1 and pool.counters.started == 2 and pool.counters.reused == 2
        kept = second.got[("season-2", 0)]
        assert container_of(kept) == container_of(first.got[("season-1", 0)])
        starts = START.findall(kept.stderr_tail())
        assert [(number, handshakes) for _, number, handshakes in starts] == [
            ("1", "1"), ("2", "2")]  # season 2 opened by its own Handshake
        assert starts[0][0] != starts[1][0]  # a new opaque series id
        wait_until(lambda: pool.idle() == 2, what="both containers kept after season 2")
        third = play_season(shelf, spec(probe_next, RANDOM, "season-3"))
        assert container_of(third.got[("season-3", 0)]) != container_of(kept)
        assert pool.counters.started == 3  # the new version got a container of its own
        assert [n for _, n, _ in START.findall(third.got[("season-3", 0)].stderr_tail())] \
            == ["1"]
    finally:
        shelf.close()


def test_the_server_keeps_a_shelf_and_closes_it_when_it_stops(tmp_path: Path) -> None:
    from arena.server.app import start_server

    running = start_server(tmp_path / "arena.db", port=0, http=None)
    shelf = running.shelf
    assert isinstance(shelf, SandboxShelf)
    made = Made()
    shelf._create = made  # what the shelf makes, seen (no Docker here)
    kept = sandbox_runner_factory(config("docker", 10), shelf=shelf)
    assert isinstance(kept, SandboxRunner) and not kept.owned
    running.stop(grace=None)
    assert made.closed == [0]  # closed with the server
    _, still_kept = shelf.lend("docker", 10)
    assert not still_kept  # a season after the stop gets its own
