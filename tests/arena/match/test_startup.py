"""Each seat has its own start-up clock: both bots are started and handshaken at
once, the time spent waiting on one bot never counts against the other, and a bot
that fails to start forfeits alone (issue 18, point 3)."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

import pytest

from arena.core.faults import BotFault, FaultKind
from arena.core.limits import TimeLimits
from arena.core.series import BotRef, SeriesSpec
from arena.match.botclient import BotInfo
from arena.match.runner import run_series
from arena.match.startup import start_both
from arena.sandbox.base import RunningBot, Sandbox
from arena.sandbox.process import ProcessSandbox
from engine.profiles import get_profile
from tests.helpers.sandboxes import HOSTILE_BOTS, SAMPLE_BOTS, arena_leftovers, bot_ref

STARTUP_S = 5.0


class SeatClocks:
    """Virtual time per thread: a seat's thread sees only the time its own steps
    took, which is what running the two seats side by side means."""

    def __init__(self) -> None:
        self._local = threading.local()

    def __call__(self) -> float:
        return float(getattr(self._local, "now", 100.0))

    def advance(self, seconds: float) -> None:
        self._local.now = self() + seconds


@dataclass
class Behaviour:
    """How long (virtual seconds) each start-up step of a fake bot takes;
    ``hang`` makes it never create its socket."""

    ready_s: float = 0.0
    connect_s: float = 0.0
    handshake_s: float = 0.0
    hang: bool = False
    seen: dict[str, float] = field(default_factory=dict)


class FakeBot(RunningBot):
    def __init__(self, behaviour: Behaviour, clock: SeatClocks, target: str) -> None:
        self.behaviour, self.clock, self._target = behaviour, clock, target
        self.stopped = False

    @property
    def target(self) -> str:
        return self._target

    def wait_ready(self, timeout: float) -> None:
        self.behaviour.seen["wait_ready"] = timeout
        if self.behaviour.hang:
            self.clock.advance(timeout)
            raise BotFault(FaultKind.STARTUP, f"no socket within {timeout:.2f} s")
        self.clock.advance(self.behaviour.ready_s)

    def stderr_tail(self) -> str:
        return ""

    def fault_if_dead(self, wait_s: float = 0.0) -> BotFault | None:
        return None

    def stop(self) -> None:
        self.stopped = True


class FakeConnection:
    def __init__(self, behaviour: Behaviour, clock: SeatClocks) -> None:
        self.behaviour, self.clock = behaviour, clock

    def handshake(self, timeout: float, *, series_id: str = "",
                  series_number: int = 1) -> BotInfo:
        self.behaviour.seen["handshake"] = timeout
        self.clock.advance(self.behaviour.handshake_s)
        if self.behaviour.handshake_s > timeout:
            raise BotFault(FaultKind.STARTUP, f"no answer to Handshake within {timeout:.2f} s")
        return BotInfo("fake", "1", 1, "")

    def close(self) -> None:
        pass


class FakeSandbox(Sandbox):
    name = "fake"
    description = "fake bots with virtual start-up times"

    def __init__(self, seats: tuple[Behaviour, Behaviour], clock: SeatClocks) -> None:
        self.seats, self.clock = seats, clock
        self.by_target: dict[str, Behaviour] = {}

    def prepare(self, bot: BotRef) -> None:
        pass

    def start(self, bot: BotRef, *, series_id: str = "", seat: int | None = None,
              deal: str = "") -> FakeBot:
        assert seat is not None
        target = f"fake:{seat}"
        self.by_target[target] = self.seats[seat]
        return FakeBot(self.seats[seat], self.clock, target)

    def connect(self, target: str, timeout: float) -> FakeConnection:
        behaviour = self.by_target[target]
        behaviour.seen["connect"] = timeout
        self.clock.advance(behaviour.connect_s)
        return FakeConnection(behaviour, self.clock)


def make_spec(startup_s: float = STARTUP_S) -> SeriesSpec:
    bot = bot_ref(SAMPLE_BOTS / "random")
    return SeriesSpec("startup", 7, get_profile("friendly"), 10, False, (bot, bot),
                      TimeLimits(startup_s=startup_s, decision_s=1.0, reserve_s=2.0))


def bring_up(first: Behaviour, second: Behaviour) -> list[BotFault | None]:
    clock = SeatClocks()
    sandbox = FakeSandbox((first, second), clock)
    running: list[Any] = [None, None]
    clients: list[Any] = [None, None]
    return start_both(make_spec(), sandbox, running, clients, clock=clock,
                      connect=sandbox.connect)


@pytest.mark.parametrize("hanging_seat", [0, 1])
def test_a_hanging_bot_does_not_eat_the_other_seats_start_up_time(hanging_seat: int) -> None:
    # The example: one bot hangs through its whole 5 s, the other answers
    # its handshake after 1.5 s of its own 5 s.
    honest = Behaviour(ready_s=0.5, connect_s=0.5, handshake_s=0.5)
    hanging = Behaviour(hang=True)
    seats = (hanging, honest) if hanging_seat == 0 else (honest, hanging)
    faults = bring_up(*seats)
    hung = faults[hanging_seat]
    assert hung is not None and hung.kind is FaultKind.STARTUP and hung.seat == hanging_seat
    assert faults[1 - hanging_seat] is None
    assert hanging.seen == {"wait_ready": 5.0}
    assert honest.seen == {"wait_ready": 5.0, "connect": 4.5, "handshake": 4.0}


def test_two_slow_bots_within_their_limits_both_come_up() -> None:
    # 3 s each of 5 s: 6 s in all, which only fits when the seats run side by side.
    first = Behaviour(ready_s=1.0, connect_s=1.0, handshake_s=1.0)
    second = Behaviour(ready_s=2.0, connect_s=0.5, handshake_s=0.5)
    assert bring_up(first, second) == [None, None]
    assert first.seen == {"wait_ready": 5.0, "connect": 4.0, "handshake": 3.0}
    assert second.seen == {"wait_ready": 5.0, "connect": 3.0, "handshake": 2.5}


def test_a_bot_too_slow_for_its_own_limit_forfeits_alone() -> None:
    slow = Behaviour(ready_s=2.0, connect_s=1.0, handshake_s=2.5)
    quick = Behaviour(handshake_s=0.1)
    faults = bring_up(quick, slow)
    assert faults[0] is None
    assert faults[1] is not None and faults[1].kind is FaultKind.STARTUP
    # The message gives the seat's whole limit and what the clock saw, never the
    # 2 s that happened to be left for the handshake.
    assert faults[1].seat == 1
    assert faults[1].message == ("did not answer the Handshake within 5.00 s (5.50 s by "
                                 "the wall clock; the kernel gave no CPU figures)")


class BlockingSandbox(FakeSandbox):
    """Seat 0 stays 'not ready' until seat 1 has finished its handshake: only a
    concurrent start-up lets seat 0 ever see it (the bounded wait is a safety net)."""

    def __init__(self, clock: SeatClocks) -> None:
        super().__init__((Behaviour(), Behaviour()), clock)
        self.seat_one_up = threading.Event()
        self.order: list[str] = []

    def start(self, bot: BotRef, *, series_id: str = "", seat: int | None = None,
              deal: str = "") -> FakeBot:
        handle = super().start(bot, series_id=series_id, seat=seat, deal=deal)
        if seat == 0:
            sandbox = self

            class Waits(FakeBot):
                def wait_ready(self, timeout: float) -> None:
                    saw_it = sandbox.seat_one_up.wait(timeout=10.0)
                    sandbox.order.append(f"seat 0 ready, saw seat 1 up: {saw_it}")

            return Waits(handle.behaviour, handle.clock, handle.target)
        return handle

    def connect(self, target: str, timeout: float) -> FakeConnection:
        connection = super().connect(target, timeout)
        if target == "fake:1":
            self.order.append("seat 1 up")
            self.seat_one_up.set()
        return connection


def test_both_seats_are_brought_up_at_the_same_time() -> None:
    clock = SeatClocks()
    sandbox = BlockingSandbox(clock)
    running: list[Any] = [None, None]
    clients: list[Any] = [None, None]
    faults = start_both(make_spec(), sandbox, running, clients, clock=clock,
                        connect=sandbox.connect)
    assert faults == [None, None]
    assert sandbox.order == ["seat 1 up", "seat 0 ready, saw seat 1 up: True"]
    assert all(handle is not None for handle in running)


@pytest.mark.parametrize("hanging_seat", [0, 1])
def test_real_bot_hanging_at_start_forfeits_alone(hanging_seat: int) -> None:
    hanging = bot_ref(HOSTILE_BOTS / "hangs_at_start")
    honest = bot_ref(SAMPLE_BOTS / "random")
    bots = (hanging, honest) if hanging_seat == 0 else (honest, hanging)
    spec = SeriesSpec(f"hang-{hanging_seat}", 3, get_profile("friendly"), 1, False, bots,
                      TimeLimits(startup_s=4.0, decision_s=1.0, reserve_s=2.0))
    outcome = run_series(spec, ProcessSandbox())
    fault = outcome.fault
    assert fault is not None and fault.seat == hanging_seat, fault
    assert fault.kind is FaultKind.STARTUP
    assert fault.other_seat_fault is None and "failed to start too" not in fault.message
    assert outcome.winner == 1 - hanging_seat
    assert "not binding, ever" in fault.stderr_tail
    assert arena_leftovers() == []


@pytest.mark.docker
@pytest.mark.parametrize("hanging_seat", [0, 1])
def test_docker_bot_hanging_at_start_forfeits_alone(docker_sandbox: Any, docker_client: Any,
                                                    hanging_seat: int) -> None:
    hanging = bot_ref(HOSTILE_BOTS / "hangs_at_start")
    honest = bot_ref(SAMPLE_BOTS / "random")
    bots = (hanging, honest) if hanging_seat == 0 else (honest, hanging)
    spec = SeriesSpec(f"dhang-{hanging_seat}", 3, get_profile("friendly"), 1, False, bots,
                      TimeLimits(startup_s=8.0, decision_s=1.0, reserve_s=2.0))
    outcome = run_series(spec, docker_sandbox)
    fault = outcome.fault
    assert fault is not None and fault.seat == hanging_seat, fault
    assert fault.kind is FaultKind.STARTUP and fault.other_seat_fault is None
    assert outcome.winner == 1 - hanging_seat
    assert arena_leftovers(docker_client) == []
