"""The reuse pool (arena/sandbox/reuse.py) with a fake sandbox: a bot handed back
clean serves its version's next series (its series number counts up); a stopped one
(a fault) never does; a container is replaced after N series, above the memory
threshold, when found dead, when idle too long and when the pool closes; never
across versions or code; a reused bot takes no start slot; ``run_series`` hands back
only the seats that were not at fault; spares are started ahead only until a
version has two containers (one per half of a duplicate pair). Waits for the pool's
threads poll with a bound."""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path

import pytest

from arena.core.faults import BotFault, FaultKind
from arena.core.series import BotRef
from arena.sandbox import registry
from arena.sandbox.base import RunningBot, Sandbox
from arena.sandbox.reuse import ReusePool
from tests.helpers.arena_helpers import make_bot_folder
from tests.helpers.polling import wait_until


class FakeBot(RunningBot):
    def __init__(self, number: int, bot: str) -> None:
        self.number, self.bot = number, bot
        self.dead = False
        self.memory = 1000
        self.stopped = threading.Event()

    @property
    def target(self) -> str:
        return f"unix:/fake/{self.number}"

    def wait_ready(self, timeout: float) -> None:
        pass

    def stderr_tail(self) -> str:
        return ""

    def fault_if_dead(self, wait_s: float = 0.0) -> BotFault | None:
        return BotFault(FaultKind.CRASH, "gone") if self.dead else None

    def memory_bytes(self) -> int:
        return self.memory

    def stop(self) -> None:
        self.stopped.set()


class FakeSandbox(Sandbox):
    name = "fake"
    description = "fake"

    def __init__(self) -> None:
        self.started: list[FakeBot] = []
        self.closed = False

    def prepare(self, bot: BotRef) -> None:
        pass

    def start(self, bot: BotRef, *, series_id: str = "", seat: int | None = None,
              deal: str = "") -> FakeBot:
        running = FakeBot(len(self.started), bot.name)
        self.started.append(running)
        return running

    def close(self) -> None:
        self.closed = True


def inner_of(lease: object) -> FakeBot:
    bot = lease._bot  # type: ignore[attr-defined]
    assert isinstance(bot, FakeBot)
    return bot


def bots(tmp_path: Path, *names: str) -> list[BotRef]:
    return [BotRef.from_folder(make_bot_folder(tmp_path, name)) for name in names]


def settled(pool: ReusePool, idle: int) -> None:
    wait_until(lambda: pool.idle() == idle, what=f"{idle} idle container(s)")


@pytest.fixture
def pool() -> ReusePool:
    made = ReusePool(FakeSandbox(), series_per_container=3, memory_limit_bytes=5000,
                     janitor=False)
    yield made  # type: ignore[misc]
    made.close()


def test_a_bot_handed_back_clean_serves_its_versions_next_series(
        tmp_path: Path, pool: ReusePool) -> None:
    (alpha,) = bots(tmp_path, "alpha")
    first = pool.start(alpha, series_id="1", seat=0)
    assert first.series_number == 1
    first.release()
    settled(pool, 1)
    second = pool.start(alpha, series_id="2", seat=1)
    assert inner_of(second) is inner_of(first) and second.series_number == 2
    assert pool.counters.reused == 1 and pool.counters.started == 1
    assert not inner_of(first).stopped.is_set()


def test_a_stopped_bot_is_never_reused(tmp_path: Path, pool: ReusePool) -> None:
    (alpha,) = bots(tmp_path, "alpha")
    first = pool.start(alpha, series_id="1", seat=0)
    first.stop()  # the runner stops a bot that faulted
    wait_until(inner_of(first).stopped.is_set, what="the faulty bot stopped")
    second = pool.start(alpha, series_id="2", seat=0)
    assert inner_of(second) is not inner_of(first) and second.series_number == 1
    first.release()  # a late release of a stopped lease changes nothing
    assert pool.idle() == 0


def test_replaced_after_its_series_limit(tmp_path: Path, pool: ReusePool) -> None:
    (alpha,) = bots(tmp_path, "alpha")
    served = []
    for series in range(4):
        lease = pool.start(alpha, series_id=str(series), seat=0)
        served.append((inner_of(lease).number, lease.series_number))
        lease.release()
        if series < 2:
            settled(pool, 1)
    wait_until(lambda: pool.counters.retired_series == 1, what="the third series' retirement")
    assert served[:3] == [(0, 1), (0, 2), (0, 3)]
    assert served[3] == (1, 1)  # three series, then a fresh container
    assert pool.inner.started[0].stopped.is_set()  # type: ignore[attr-defined]


def test_replaced_above_the_memory_threshold(tmp_path: Path, pool: ReusePool) -> None:
    (alpha,) = bots(tmp_path, "alpha")
    first = pool.start(alpha, series_id="1", seat=0)
    inner_of(first).memory = 5001
    first.release()
    wait_until(inner_of(first).stopped.is_set, what="the big container stopped")
    assert pool.counters.retired_memory == 1 and pool.idle() == 0
    assert inner_of(pool.start(alpha, series_id="2", seat=0)) is not inner_of(first)


def test_a_bot_that_died_between_series_is_replaced_not_charged(
        tmp_path: Path, pool: ReusePool) -> None:
    (alpha,) = bots(tmp_path, "alpha")
    first = pool.start(alpha, series_id="1", seat=0)
    first.release()
    settled(pool, 1)
    inner_of(first).dead = True
    second = pool.start(alpha, series_id="2", seat=0)  # no fault: a fresh one
    assert inner_of(second) is not inner_of(first) and second.series_number == 1
    assert pool.counters.retired_dead == 1


def test_never_across_versions_or_code(tmp_path: Path, pool: ReusePool) -> None:
    alpha, beta = bots(tmp_path, "alpha", "beta")
    first = pool.start(alpha, series_id="1", seat=0)
    first.release()
    settled(pool, 1)
    assert inner_of(pool.start(beta, series_id="2", seat=0)) is not inner_of(first)
    (alpha.folder / "extra.py").write_text("CHANGED = True\n")  # new code, same version
    assert inner_of(pool.start(alpha, series_id="3", seat=0)) is not inner_of(first)
    newer = replace(alpha, version="2.0.0")
    assert pool.reuse(newer, series_id="4", seat=0, deal="") is None


def test_one_series_at_a_time(tmp_path: Path, pool: ReusePool) -> None:
    (alpha,) = bots(tmp_path, "alpha")
    first = pool.start(alpha, series_id="1", seat=0)
    second = pool.start(alpha, series_id="1", seat=1)  # the same version in both seats
    assert inner_of(second) is not inner_of(first)
    first.release()
    second.release()
    settled(pool, 2)
    third, fourth = (pool.start(alpha, series_id="2", seat=seat) for seat in (0, 1))
    assert {inner_of(third).number, inner_of(fourth).number} == {0, 1}


def test_idle_containers_expire_and_close_stops_them(tmp_path: Path) -> None:
    now = [0.0]
    inner = FakeSandbox()
    pool = ReusePool(inner, idle_s=60.0, clock=lambda: now[0], janitor=False)
    alpha, beta = bots(tmp_path, "alpha", "beta")
    old, kept = pool.start(alpha, series_id="1", seat=0), pool.start(beta, series_id="1", seat=1)
    old.release()
    settled(pool, 1)
    now[0] = 30.0
    kept.release()
    settled(pool, 2)
    now[0] = 61.0
    assert pool.reuse(beta, series_id="2", seat=0) is not None  # expires alpha's, not beta's
    wait_until(inner_of(old).stopped.is_set, what="the expired container stopped")
    assert pool.counters.expired == 1
    pool.close()
    assert inner.closed and not inner_of(kept).stopped.is_set()  # beta's is leased
    (pool_lease := pool.start(alpha, series_id="3", seat=0)).release()
    assert inner_of(pool_lease).stopped.is_set()  # handed back after the close: stopped


def test_the_docker_backend_reuses_unless_told_fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.sandbox import warm

    made: list[warm.WarmPool] = []

    def fake_warm() -> warm.WarmPool:
        made.append(warm.WarmPool(FakeSandbox(), janitor=False))
        return made[-1]

    monkeypatch.setattr(warm, "warm_docker_sandbox", fake_warm)
    assert registry.backend("docker").capabilities.reuses_bots
    reusing = registry.create("docker", series_per_container=7)
    assert isinstance(reusing, ReusePool) and reusing.series_per_container == 7
    assert reusing.inner is made[-1]
    fresh = registry.create("docker", series_per_container=1)
    assert fresh is made[-1] and not isinstance(fresh, ReusePool)
    assert isinstance(registry.create("docker"), ReusePool)  # reuse is the default
    for sandbox in (reusing, fresh):
        sandbox.close()
    assert not registry.backend("process").capabilities.reuses_bots
    assert not isinstance(registry.create("process", series_per_container=7), ReusePool)


def test_a_version_with_a_kept_container_starts_no_spare(tmp_path: Path) -> None:
    from arena.sandbox.admission import Admission
    from arena.sandbox.warm import WarmPool

    (alpha,) = bots(tmp_path, "alpha")
    warm = WarmPool(FakeSandbox(), per_version=1, janitor=False, admission=Admission(8))
    pool = ReusePool(warm, janitor=False)
    try:
        pool.prepare(alpha)  # nothing kept: a spare starts ahead for the first series
        wait_until(lambda: warm.spares() == 1, what="a spare of alpha")
        lease = pool.start(alpha, series_id="1", seat=0)  # takes it; another is asked for
        wait_until(lambda: warm.spares() == 1, what="alpha's next spare")
        lease.release()
        settled(pool, 1)
        started = len(warm.inner.started)  # type: ignore[attr-defined]
        pool.prepare(alpha)  # kept: the image only
        assert pool.start(alpha, series_id="2", seat=0).series_number == 2
        assert len(warm.inner.started) == started  # type: ignore[attr-defined]
        assert pool.counters.reused == 1 and warm.spares() == 1
    finally:
        pool.close()


def test_what_the_host_shows_of_a_container(tmp_path: Path) -> None:
    import os

    from arena.sandbox.container_health import cgroup_memory, process_running

    assert cgroup_memory("abc", tmp_path) is None
    counter = tmp_path / "system.slice" / "docker-abc.scope" / "memory.current"
    counter.parent.mkdir(parents=True)
    counter.write_text("123456\n")
    assert cgroup_memory("abc", tmp_path) == 123456
    v1 = tmp_path / "memory" / "docker" / "abc" / "memory.usage_in_bytes"
    v1.parent.mkdir(parents=True)
    v1.write_text("777\n")
    assert cgroup_memory("abc", tmp_path) == 777  # cgroup v1 first
    assert process_running(os.getpid())
    assert not process_running(2**22 + 12345)  # above pid_max: never a process


def test_a_bot_that_computes_between_series_is_replaced(tmp_path: Path, pool: ReusePool) -> None:
    (alpha,) = bots(tmp_path, "alpha")
    cpu = {1: (2.0, 0.0)}

    def busy_source() -> dict[int, tuple[float, float]]:
        return dict(cpu)

    first = pool.start(alpha, series_id="1", seat=0)
    inner_of(first).sched_source = lambda: busy_source  # type: ignore[attr-defined]
    first.release()
    settled(pool, 1)
    cpu[1] = (2.2, 0.0)  # its server's housekeeping: kept
    second = pool.start(alpha, series_id="2", seat=0)
    assert inner_of(second) is inner_of(first)
    second.release()
    settled(pool, 1)
    cpu[1] = (2.2 + 0.3, 0.0)  # it computed while no series was playing
    third = pool.start(alpha, series_id="3", seat=0)
    assert inner_of(third) is not inner_of(first) and pool.counters.retired_busy == 1
    wait_until(inner_of(first).stopped.is_set, what="the busy container stopped")


def test_spares_stop_at_one_container_per_half_of_a_duplicate_pair(tmp_path: Path) -> None:
    from arena.sandbox.admission import Admission
    from arena.sandbox.warm import WarmPool

    alpha, beta = bots(tmp_path, "alpha", "beta")
    inner = FakeSandbox()
    warm = WarmPool(inner, per_version=1, janitor=False, admission=Admission(8))
    pool = ReusePool(warm, janitor=False)
    try:
        pool.prepare(alpha)  # nothing kept: the first series' spare
        wait_until(lambda: warm.spares() == 1, what="alpha's first spare")
        first = pool.start(alpha, series_id="1", seat=0, deal="d1")
        wait_until(lambda: warm.spares() == 1, what="a spare for the pair's other half")
        twin = pool.start(alpha, series_id="2", seat=1, deal="d1")  # alpha's second container
        for lease in (first, twin):
            lease.release()
        settled(pool, 2)
        for series, deal in (("3", "d2"), ("4", "d2"), ("5", "d3")):
            lease = pool.start(alpha, series_id=series, seat=0, deal=deal)
            lease.release()
            settled(pool, 2)
        pool.start(beta, series_id="6", seat=1)  # another version: its own spare
    finally:
        pool.close()  # waits for every spare being started
    assert [bot.bot for bot in inner.started] == ["alpha", "alpha", "beta", "beta"]
    assert pool.counters.reused == 3
    assert warm.counters.warm == 2 and warm.counters.cold == 1
