"""The warm pool: a version's next bot is started while the current series plays and
handed to exactly one later series; spares are bounded per version and in all; a
spare that died while waiting is discarded (never charged to the bot); idle spares
expire; a stop returns at once and is finished before anything is read after it;
closing stops every spare. A fake sandbox counts starts and stops; waits for the
background starter poll with a bound."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from arena.core.faults import BotFault, FaultKind
from arena.core.series import BotRef
from arena.sandbox.admission import Admission
from arena.sandbox.base import RunningBot, Sandbox
from arena.sandbox.warm import WARM_SERIES_ID, WarmPool
from tests.helpers.arena_helpers import make_bot_folder


class FakeBot(RunningBot):
    def __init__(self, number: int, bot: str, series_id: str) -> None:
        self.number, self.bot, self.series_id = number, bot, series_id
        self.dead = False
        self.stopped = threading.Event()
        self.release_stop = threading.Event()
        self.release_stop.set()

    @property
    def target(self) -> str:
        return f"unix:/fake/{self.number}"

    def wait_ready(self, timeout: float) -> None:
        pass

    def stderr_tail(self) -> str:
        return "stopped" if self.stopped.is_set() else "running"

    def fault_if_dead(self, wait_s: float = 0.0) -> BotFault | None:
        return BotFault(FaultKind.CRASH, "gone") if self.dead else None

    def stop(self) -> None:
        self.release_stop.wait(30)
        self.stopped.set()


class FakeSandbox(Sandbox):
    name = "fake"
    description = "fake"

    def __init__(self) -> None:
        self.started: list[FakeBot] = []
        self.lock = threading.Lock()
        self.spares_may_start = threading.Event()
        self.spares_may_start.set()

    def prepare(self, bot: BotRef) -> None:
        pass

    def start(self, bot: BotRef, *, series_id: str = "", seat: int | None = None,
              deal: str = "") -> FakeBot:
        if series_id == WARM_SERIES_ID:
            self.spares_may_start.wait(30)
        with self.lock:
            running = FakeBot(len(self.started), bot.name, series_id)
            self.started.append(running)
            return running


def poll(condition, what: str) -> None:  # type: ignore[no-untyped-def]
    give_up_at = time.monotonic() + 30
    while not condition():
        assert time.monotonic() < give_up_at, f"timed out waiting for {what}"
        time.sleep(0.002)


def bots(tmp_path: Path, *names: str) -> list[BotRef]:
    return [BotRef.from_folder(make_bot_folder(tmp_path, name)) for name in names]


def inner_of(handed: object) -> FakeBot:
    return handed._bot  # type: ignore[attr-defined,no-any-return]


def test_the_next_series_takes_a_spare_started_while_the_first_played(tmp_path: Path) -> None:
    (alpha,) = bots(tmp_path, "alpha")
    inner = FakeSandbox()
    pool = WarmPool(inner, per_version=1, janitor=False, admission=Admission(8))
    first = pool.start(alpha, series_id="1-0", seat=0)
    assert inner_of(first).series_id == "1-0"  # nothing was warm: started now
    poll(lambda: pool.spares() == 1, "a spare of alpha")
    assert inner.started[1].series_id == WARM_SERIES_ID
    second = pool.start(alpha, series_id="1-1", seat=0)
    assert inner_of(second) is inner.started[1]  # the spare, handed once
    poll(lambda: pool.spares() == 1, "the next spare")
    third = pool.start(alpha, series_id="1-2", seat=0)
    assert inner_of(third) is inner.started[2]
    assert len({id(inner_of(b)) for b in (first, second, third)}) == 3  # never shared
    assert (pool.counters.warm, pool.counters.cold) == (2, 1)
    pool.close()


def test_spares_are_bounded_per_version_and_in_all(tmp_path: Path) -> None:
    alpha, beta, gamma = bots(tmp_path, "alpha", "beta", "gamma")
    inner = FakeSandbox()
    inner.spares_may_start.clear()  # spares asked for pile up while none is up yet
    # No waiting for a spare on its way (the next test waits).
    pool = WarmPool(inner, per_version=2, total=3, janitor=False,
                    admission=Admission(8), spare_wait_s=0.0)
    for _ in range(3):  # three series of alpha at once: all cold, 2 spares asked for
        pool.start(alpha, series_id="s", seat=0)
    inner.spares_may_start.set()
    poll(lambda: pool.spares() == 2, "alpha's 2 spares")
    pool.start(beta, series_id="s", seat=0)
    poll(lambda: pool.spares() == 3, "beta's spare")
    pool.start(gamma, series_id="s", seat=0)  # 3 in all: no spare for gamma
    assert pool.spares() == 3
    assert sorted(b.bot for b in inner.started if b.series_id == WARM_SERIES_ID) == [
        "alpha", "alpha", "beta"]
    pool.close()
    assert all(b.stopped.is_set() for b in inner.started if b.series_id == WARM_SERIES_ID)


class WaitSignal(threading.Condition):
    """The pool's condition, saying when a series has begun to wait on it."""

    def __init__(self, lock: threading.Lock) -> None:
        super().__init__(lock)
        self.waiting = threading.Event()

    def wait(self, timeout: float | None = None) -> bool:
        self.waiting.set()
        return super().wait(timeout)


def test_a_series_waits_for_the_spare_on_its_way_instead_of_starting_another(
        tmp_path: Path) -> None:
    (alpha,) = bots(tmp_path, "alpha")
    inner = FakeSandbox()
    inner.spares_may_start.clear()
    pool = WarmPool(inner, per_version=1, janitor=False,
                    admission=Admission(8), spare_wait_s=30.0)
    signal = pool._spare_done = WaitSignal(pool._lock)
    pool.prepare(alpha)  # alpha's spare is on its way, held up
    handed: list[object] = []
    series = threading.Thread(target=lambda: handed.append(
        pool.start(alpha, series_id="1-0", seat=0)))
    series.start()
    assert signal.waiting.wait(30)
    assert not handed and len(inner.started) == 0  # waiting: nothing started beside it
    inner.spares_may_start.set()
    series.join(30)
    assert inner_of(handed[0]) is inner.started[0]
    assert inner.started[0].series_id == WARM_SERIES_ID
    assert (pool.counters.warm, pool.counters.cold) == (1, 0)
    pool.close()


def test_a_series_whose_spare_fails_to_start_starts_its_bot_itself(tmp_path: Path) -> None:
    (alpha,) = bots(tmp_path, "alpha")

    class FailingSpares(FakeSandbox):
        def start(self, bot: BotRef, *, series_id: str = "",
                  seat: int | None = None, deal: str = "") -> FakeBot:
            if series_id == WARM_SERIES_ID:
                self.spares_may_start.wait(30)
                raise BotFault(FaultKind.STARTUP, "no socket")
            return super().start(bot, series_id=series_id, seat=seat, deal=deal)

    inner = FailingSpares()
    inner.spares_may_start.clear()
    pool = WarmPool(inner, per_version=1, janitor=False,
                    admission=Admission(8), spare_wait_s=30.0)
    pool.prepare(alpha)
    handed: list[object] = []
    series = threading.Thread(target=lambda: handed.append(
        pool.start(alpha, series_id="1-0", seat=0)))
    series.start()
    inner.spares_may_start.set()
    series.join(30)
    # The failed spare is not waited for: the series' own start (which would see
    # the fault where it belongs) runs at once.
    assert inner_of(handed[0]).series_id == "1-0"
    assert (pool.counters.warm, pool.counters.cold) == (0, 1)
    pool.close()


def test_a_spare_that_died_waiting_is_discarded_not_charged(tmp_path: Path) -> None:
    (alpha,) = bots(tmp_path, "alpha")
    inner = FakeSandbox()
    pool = WarmPool(inner, per_version=1, janitor=False, admission=Admission(8))
    pool.start(alpha, series_id="1-0", seat=0)
    poll(lambda: pool.spares() == 1, "a spare")
    spare = inner.started[1]
    spare.dead = True
    handed = pool.start(alpha, series_id="1-1", seat=0)
    assert inner_of(handed) is not spare and inner_of(handed).series_id == "1-1"
    assert spare.stopped.is_set() and pool.counters.discarded == 1
    pool.close()


def test_idle_spares_expire(tmp_path: Path) -> None:
    alpha, beta = bots(tmp_path, "alpha", "beta")
    now = [100.0]
    inner = FakeSandbox()
    pool = WarmPool(inner, per_version=1, idle_s=30.0, clock=lambda: now[0], janitor=False,
                    admission=Admission(8))
    pool.start(alpha, series_id="1-0", seat=0)
    poll(lambda: pool.spares() == 1, "a spare")
    now[0] += 30.0
    pool.start(beta, series_id="1-1", seat=0)  # any start sweeps the idle ones
    assert inner.started[1].stopped.is_set() and pool.counters.expired == 1
    pool.close()


def test_stop_returns_at_once_and_reads_after_it_wait_for_it(tmp_path: Path) -> None:
    (alpha,) = bots(tmp_path, "alpha")
    inner = FakeSandbox()
    pool = WarmPool(inner, per_version=0, janitor=False, admission=Admission(8))
    handed = pool.start(alpha, series_id="1-0", seat=0)
    fake = inner_of(handed)
    fake.release_stop.clear()
    handed.stop()  # returns although the removal is held
    assert not fake.stopped.is_set()
    threading.Timer(0.05, fake.release_stop.set).start()
    assert handed.stderr_tail() == "stopped"
    pool.close()


def test_bounds_must_not_be_negative() -> None:
    with pytest.raises(ValueError, match="bounds must be >= 0"):
        WarmPool(FakeSandbox(), per_version=-1, janitor=False, admission=Admission(8))


def test_preparing_a_version_tops_its_spares_up_to_the_bound(tmp_path: Path) -> None:
    (alpha,) = bots(tmp_path, "alpha")
    inner = FakeSandbox()
    pool = WarmPool(inner, per_version=2, janitor=False, admission=Admission(8))
    pool.prepare(alpha)  # before the season's first series of alpha starts
    poll(lambda: pool.spares() == 2, "alpha's 2 spares")
    first, second = (pool.start(alpha, series_id=f"1-{i}", seat=0) for i in range(2))
    assert [inner_of(first), inner_of(second)] == inner.started[:2]  # both warm, oldest first
    poll(lambda: pool.spares() == 2, "alpha topped up again")
    assert len(inner.started) == 4 and pool.counters.cold == 0
    pool.close()


def test_a_spare_still_queued_is_dropped_when_its_series_started_without_it(
        tmp_path: Path) -> None:
    """A series that started its bot itself (its spare not up in time) and asks for no
    spare after it (``start_spare=False``: the reuse pool keeps its containers) drops
    the spare still waiting for a starter: it would only be stopped unused."""
    beta, gamma, alpha = bots(tmp_path, "beta", "gamma", "alpha")
    inner = FakeSandbox()
    inner.spares_may_start.clear()  # beta's and gamma's spares hold both starter threads
    pool = WarmPool(inner, per_version=1, spare_wait_s=0.0, janitor=False,
                    admission=Admission(8))
    try:
        pool.prepare(beta)
        pool.prepare(gamma)
        pool.prepare(alpha)  # queued behind them
        pool.start(alpha, series_id="1", seat=0, start_spare=False)  # cold: no wait
        inner.spares_may_start.set()
    finally:
        pool.close()  # waits for the starters
    started = [(bot.bot, bot.series_id) for bot in inner.started]
    assert sorted(started) == [("alpha", "1"), ("beta", WARM_SERIES_ID),
                               ("gamma", WARM_SERIES_ID)]
