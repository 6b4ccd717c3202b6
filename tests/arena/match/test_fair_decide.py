"""``Decide`` on a fair clock, over real gRPC (issue 25, point 1): a bot that hangs
is charged at its limit with the real figures; a bot the machine starves is given its
time until the wall cap, and then the series is void, not its fault."""

from __future__ import annotations

import threading
import time
from typing import Any

import hollywood_sdk as hs
import pytest

from arena.core.faults import ArenaOverload, BotFault, FaultKind
from arena.core.limits import TimeLimits
from arena.match.fair_clock import Meter, Window
from arena.match.loop import play_match
from arena.sandbox.schedstat import TaskTimes
from engine import Series
from tests.arena.match.test_fair_clock import Machine
from tests.arena.match.test_match import FirstLegal, in_process

LIMIT_S = 0.2


class Hangs(FirstLegal):
    """Never answers a decision (until the test ends)."""

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()

    def decide(self, observation: hs.Observation) -> hs.Action:
        self.release.wait(30)
        return observation.legal_actions[0]


def idle_bot() -> dict[int, TaskTimes]:
    """The kernel's figures for a bot that sleeps: it never waits for a core."""
    return {1: (0.0, 0.0)}


class StarvedBot:
    """The kernel's figures for a bot that was runnable all along and never ran."""

    def __init__(self) -> None:
        self.since = time.monotonic()

    def __call__(self) -> dict[int, TaskTimes]:
        return {1: (0.0, time.monotonic() - self.since)}


def no_arena_delay() -> dict[int, TaskTimes]:
    return {}


def meters(seat0_source: object) -> tuple[Meter, Meter]:
    """Seat 0's figures as given; seat 1 (a quick bot, not under test) is told it
    waited for a core all along, so a loaded machine slowing its first decision
    (the SDK builds its tables then) past the 0.2 s limit never charges it."""
    return (Meter(seat0_source, arena=lambda: no_arena_delay),  # type: ignore[arg-type]
            Meter(StarvedBot(), arena=lambda: no_arena_delay))  # type: ignore[arg-type]


def test_a_bot_that_hangs_in_decide_is_charged_at_its_limit_with_the_figures() -> None:
    hangs = Hangs()
    series = Series(seed=3, max_hands=1)
    try:
        with in_process(hangs, FirstLegal()) as clients:
            begun = time.monotonic()
            result = play_match(clients, series, TimeLimits(decision_s=LIMIT_S, reserve_s=0.0),
                                meters=meters(idle_bot))
            waited = time.monotonic() - begun
    finally:
        hangs.release.set()
    fault = result.outcome.fault
    assert isinstance(fault, BotFault) and fault.kind is FaultKind.TIMEOUT
    assert fault.seat == 0
    assert fault.message == ("no answer to Decide within 0.20 s "
                             "(bot CPU 0.00 s, waited for a core 0.00 s)")
    assert waited >= LIMIT_S  # never charged before its limit


def test_a_bot_starved_through_its_decision_voids_the_series() -> None:
    hangs = Hangs()
    series = Series(seed=3, max_hands=1)
    starved = StarvedBot()
    try:
        with in_process(hangs, FirstLegal()) as clients, \
                pytest.raises(ArenaOverload) as raised:
            play_match(clients, series, TimeLimits(decision_s=LIMIT_S, reserve_s=0.0),
                       meters=meters(starved))
    finally:
        hangs.release.set()
    message = raised.value.message
    assert message.startswith("the bot: no answer to Decide within 0.20 s of its own time, "
                              "but in 2.")  # the cap: 0.2 s + 2 s
    assert "bot CPU 0.00 s, waited for a core 2." in message


class StarvedClient:
    """Stands in for a ``BotClient`` on a fake machine: each decision takes ``wall``
    seconds of which the bot spent ``starved`` waiting for a core."""

    def __init__(self, machine: Machine, tid: int, wall: float, starved: float) -> None:
        self.machine, self.tid, self.wall, self.starved = machine, tid, wall, starved
        self.decisions = 0

    def decide(self, request: object, legal: list[Any], allowed_s: float,
               window: Window | None = None) -> Any:
        assert window is not None
        self.decisions += 1
        self.machine.run(self.wall, bot={self.tid: (self.wall - self.starved, self.starved)})
        return legal[0]

    def hand_ended(self, request: object, timeout: float) -> bool:
        return True

    def series_ended(self, request: object, timeout: float) -> bool:
        return True


def test_the_reserve_pays_only_for_the_bots_own_time() -> None:
    # Each of seat 0's decisions takes 1.5 s by the wall, 1 s of it in a run queue:
    # 0.5 s of its own, within its 1 s deadline, so its reserve is untouched.
    machine = Machine()
    starved, quick = StarvedClient(machine, 7, 1.5, 1.0), StarvedClient(machine, 8, 0.0, 0.0)
    meters = (Meter(lambda: {7: machine.bot.get(7, (0.0, 0.0))}, clock=machine,
                    arena=lambda: lambda: {}),
              Meter(lambda: {8: machine.bot.get(8, (0.0, 0.0))}, clock=machine,
                    arena=lambda: lambda: {}))
    result = play_match((starved, quick), Series(seed=3, max_hands=1),  # type: ignore[arg-type]
                        TimeLimits(decision_s=1.0, reserve_s=3.0), clock=machine, meters=meters)
    assert result.outcome.fault is None and starved.decisions > 0
    assert result.reserve_left == (3.0, 3.0)
    assert result.outcome.think_seconds[0] == pytest.approx(0.5 * starved.decisions)
