"""Start-up on a fair clock and under admission (issue 25, point 1): a seat's clock
starts once its bot runs (never during the sandbox's own work), a starved start-up
voids the series instead of charging a bot, and never more bots start at once than
there are start slots; warm spares yield to playing bots."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from arena.core.faults import ArenaOverload, BotFault, FaultKind
from arena.core.series import BotRef
from arena.match.fair_clock import Meter
from arena.match.startup import start_both
from arena.sandbox.admission import Admission
from arena.sandbox.schedstat import TaskTimes
from arena.sandbox.warm import WarmPool
from tests.arena.match.test_startup import Behaviour, FakeBot, FakeSandbox, SeatClocks, make_spec
from tests.arena.sandbox.test_warm_pool import FakeSandbox as SpareSandbox
from tests.helpers.arena_helpers import make_bot_folder
from tests.helpers.polling import wait_until


class SlowToCreate(FakeSandbox):
    """Creating the bot's container takes ``create_s`` (virtual) seconds of the
    arena's time before the bot's process exists."""

    def __init__(self, seats: tuple[Behaviour, Behaviour], clock: SeatClocks,
                 create_s: float) -> None:
        super().__init__(seats, clock)
        self.create_s = create_s

    def start(self, bot: BotRef, *, series_id: str = "", seat: int | None = None,
              deal: str = "") -> FakeBot:
        self.clock.advance(self.create_s)
        return super().start(bot, series_id=series_id, seat=seat, deal=deal)


def bring_up(sandbox: FakeSandbox, clock: SeatClocks, **options: Any) -> list[BotFault | None]:
    running: list[Any] = [None, None]
    clients: list[Any] = [None, None]
    return start_both(make_spec(), sandbox, running, clients, clock=clock,
                      connect=sandbox.connect, **options)


def test_the_sandboxs_own_work_is_not_charged_to_the_bot() -> None:
    # 30 s creating each container, then 4.5 s of the bot's own 5 s: no fault.
    clock = SeatClocks()
    first, second = Behaviour(ready_s=4.0, handshake_s=0.5), Behaviour(ready_s=4.5)
    assert bring_up(SlowToCreate((first, second), clock, create_s=30.0), clock) == [None, None]
    assert first.seen["wait_ready"] == 5.0 and second.seen["wait_ready"] == 5.0


def test_a_bot_that_hangs_at_start_is_charged_at_its_limit() -> None:
    clock = SeatClocks()
    hanging = Behaviour(hang=True)
    faults = bring_up(SlowToCreate((hanging, Behaviour()), clock, create_s=30.0), clock)
    fault = faults[0]
    assert fault is not None and fault.kind is FaultKind.STARTUP and faults[1] is None
    assert fault.message == ("did not create its socket within 5.00 s (5.00 s by the wall "
                             "clock; the kernel gave no CPU figures)")


def test_a_start_up_starved_by_the_machine_voids_the_series() -> None:
    clock = SeatClocks()

    def starved_all_along() -> dict[int, TaskTimes]:
        return {1: (0.0, clock() - 100.0)}  # the seat's virtual time, all in a run queue

    def meter(handle: Any) -> Meter:
        source = starved_all_along if handle.target == "fake:0" else (lambda: {})
        return Meter(source, clock=clock, arena=lambda: lambda: {})

    sandbox = FakeSandbox((Behaviour(hang=True), Behaviour()), clock)
    running: list[Any] = [None, None]
    clients: list[Any] = [None, None]
    with pytest.raises(ArenaOverload) as raised:
        start_both(make_spec(), sandbox, running, clients, clock=clock,
                   connect=sandbox.connect, meter=meter)
    assert raised.value.message == (
        "random@1.0.0 (seat 0): did not create its socket within 5.00 s of its own time, "
        "but in 40.00 s the machine gave it only 0.00 s (bot CPU 0.00 s, waited for a "
        "core 40.00 s)")
    assert all(handle is not None for handle in running)  # both stopped by the caller


class CountsStarts(FakeSandbox):
    """Records how many bots were between their start and their handshake at once."""

    def __init__(self, clock: SeatClocks, admission: Admission) -> None:
        super().__init__((Behaviour(), Behaviour()), clock)
        self.admission = admission
        self.lock = threading.Lock()
        self.starting = 0
        self.most = 0
        self.slots_taken: set[int] = set()

    def start(self, bot: BotRef, *, series_id: str = "", seat: int | None = None,
              deal: str = "") -> FakeBot:
        with self.lock:
            self.starting += 1
            self.most = max(self.most, self.starting)
            self.slots_taken.add(self.admission.in_use)  # this start's slot included
        return super().start(bot, series_id=series_id, seat=seat, deal=deal)

    def connect(self, target: str, timeout: float) -> Any:
        connection = super().connect(target, timeout)
        sandbox = self

        class Done(type(connection)):  # type: ignore[misc]
            def handshake(self, timeout: float, **series: Any) -> Any:
                info = super().handshake(timeout, **series)
                with sandbox.lock:
                    sandbox.starting -= 1
                return info

        return Done(connection.behaviour, connection.clock)


@pytest.mark.parametrize(("slots", "most"), [(1, 1), (2, 2)])
def test_never_more_bots_start_at_once_than_there_are_slots(slots: int, most: int) -> None:
    clock = SeatClocks()
    admission = Admission(slots)
    sandbox = CountsStarts(clock, admission)
    for _ in range(5):
        assert bring_up(sandbox, clock, admission=admission) == [None, None]
    assert sandbox.most <= most and admission.in_use == 0
    assert sandbox.slots_taken <= set(range(1, slots + 1)) and sandbox.slots_taken


def test_a_spare_does_not_take_a_slot_a_playing_bot_waits_for() -> None:
    admission = Admission(1)
    admission.acquire()  # a playing bot is starting
    waiter = threading.Thread(target=admission.acquire)  # and another waits
    waiter.start()
    wait_until(lambda: admission._waiting == 1, what="the second bot waiting")
    assert not admission.try_acquire()
    admission.release()
    waiter.join(30)
    assert admission.in_use == 1 and not admission.try_acquire()  # the playing bot got it
    admission.release()
    assert admission.try_acquire()  # nobody waiting: a spare may start
    admission.release()


def test_warm_spares_yield_to_playing_bots(tmp_path: Path) -> None:
    alpha = BotRef.from_folder(make_bot_folder(tmp_path, "alpha"))
    admission = Admission(1)
    pool = WarmPool(SpareSandbox(), per_version=1, janitor=False, admission=admission,
                    spare_wait_s=0.0)
    try:
        admission.acquire()  # the slot is a playing bot's
        pool.start(alpha, series_id="1-0", seat=0)
        wait_until(lambda: pool.counters.yielded == 1, what="the spare yielding")
        assert pool.spares() == 0
        admission.release()
        pool.start(alpha, series_id="1-1", seat=0)  # cold again; now the spare starts
        wait_until(lambda: pool.spares() == 1, what="a spare once the slot is free")
        assert admission.in_use == 0
    finally:
        pool.close()
