"""``Decide`` on a fair clock, over real gRPC (issue 25, point 1): a bot that hangs
is charged at its limit with the real figures; a bot the machine starves is given its
time until the wall cap, and then the series is void, not its fault."""

from __future__ import annotations

import threading
import time

import hollywood_sdk as hs
import pytest

from arena.core.faults import ArenaOverload, BotFault, FaultKind
from arena.core.limits import TimeLimits
from arena.match.fair_clock import Meter
from arena.match.loop import play_match
from arena.sandbox.schedstat import TaskTimes
from engine import Series
from tests.test_match import FirstLegal, in_process

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
    return (Meter(seat0_source, arena=lambda: no_arena_delay),  # type: ignore[arg-type]
            Meter(idle_bot, arena=lambda: no_arena_delay))


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
    fault = result.fault
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
