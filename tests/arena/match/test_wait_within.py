"""``fair_clock.wait_within``, the one wait for a timed step (issue 37, point 5): each
wait is given exactly the step's time left, a wait that ends early for want of time
is made again while the step still has time (a starved bot's window stretches),
and the step's own verdict ends it. Fake clocks and kernel figures: every figure is
exact."""

from __future__ import annotations

import pytest

from arena.core.faults import ArenaOverload, BotFault, FaultKind
from arena.match.fair_clock import WallWindow, wait_within
from tests.arena.match.test_fair_clock import Machine, window


class NotYet(Exception):
    pass


def test_a_wall_window_gives_each_wait_what_is_left_then_its_verdict() -> None:
    clock = Machine()
    step = WallWindow(1.0, clock)
    asked: list[float] = []

    def wait(left: float) -> str:
        asked.append(left)
        clock.now += 0.4  # ends early (a spurious wake-up): made again with the rest
        raise NotYet

    with pytest.raises(BotFault) as caught:
        wait_within(step, wait, "no answer to Decide", not_yet=(NotYet,))
    assert asked == pytest.approx([1.0, 0.6, 0.2])
    assert caught.value.kind is FaultKind.TIMEOUT
    assert caught.value.message == "no answer to Decide within 1.000 s"


def test_the_answer_within_the_time_is_returned_and_other_errors_pass() -> None:
    clock = Machine()
    answers = iter([NotYet(), "move"])

    def wait(left: float) -> str:
        clock.now += 0.1
        answer = next(answers)
        if isinstance(answer, Exception):
            raise answer
        return answer

    assert wait_within(WallWindow(1.0, clock), wait, "x", not_yet=(NotYet,)) == "move"

    def crashes(left: float) -> str:
        raise BotFault(FaultKind.CRASH, "gone")

    with pytest.raises(BotFault, match="gone"):
        wait_within(WallWindow(1.0, clock), crashes, "x", not_yet=(NotYet,))


def test_a_starved_bot_is_waited_for_past_its_limit_on_a_fair_window() -> None:
    """0.5 s allowed: the bot waited for a core all along, so each wait ending finds
    the window stretched, until the wall cap (limit + 2 s) voids the step."""
    machine = Machine()
    step = window(machine, 0.5)
    asked: list[float] = []

    def wait(left: float) -> str:
        asked.append(left)
        machine.run(left, bot={7: (0.0, left)})  # runnable, never given a core
        raise NotYet

    with pytest.raises(ArenaOverload):
        wait_within(step, wait, "no answer to Decide", not_yet=(NotYet,))
    assert asked[0] == pytest.approx(0.5) and len(asked) >= 2
    assert sum(asked) == pytest.approx(step.cap_s)


def test_a_step_with_no_time_left_is_never_waited_for() -> None:
    machine = Machine()
    step = window(machine, 0.5)
    machine.run(0.5, bot={7: (0.5, 0.0)})  # it spun its whole limit already
    with pytest.raises(BotFault) as caught:
        wait_within(step, lambda left: pytest.fail("waited"), "did not start",
                    kind=FaultKind.STARTUP, who="seat 0")
    assert caught.value.kind is FaultKind.STARTUP
    assert caught.value.message.startswith("did not start within 0.50 s")
