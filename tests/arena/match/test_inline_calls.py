"""Bots called on the match's own thread (issue 29): the supervisor cuts off a call
at the same moment a waiting caller would, interrupts a bot that spins in Python,
and still ends the match at the cut-off for a bot blocked in C."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import hollywood_sdk as hs
import pytest

from arena.core.faults import BotFault, FaultKind
from arena.core.limits import TimeLimits
from arena.core.series import BotRef
from arena.match.fair_clock import WallWindow
from arena.match.inline_calls import CallGuard, CutOff, supervise
from arena.match.runner import run_series
from arena.sandbox.base import InProcessTarget
from arena.sandbox.inprocess import InProcessBot, InProcessSandbox
from tests.arena.match.test_inprocess_direct import equal_spec, sample, sdk_bot


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def poll(condition: Callable[[], bool], bound_s: float = 10.0) -> bool:
    """Whether ``condition`` came true within the bound (polled, no fixed sleep)."""
    event = threading.Event()
    for _ in range(int(bound_s / 0.01)):
        if condition():
            return True
        event.wait(0.01)
    return condition()


def test_a_call_within_its_time_is_never_abandoned() -> None:
    clock = FakeClock()
    guard = CallGuard()
    seen: list[Any] = []

    def answer() -> str:
        clock.now += 0.9  # within the 1 s allowed
        seen.append(guard.abandon_if_over())
        return "answer"

    assert guard.call("Decide", answer, WallWindow(1.0, clock)) == "answer"
    assert seen == [None] and not guard.abandoned
    assert guard.remaining() is None  # no call in progress


def test_the_guard_gives_the_verdict_exactly_at_the_cut_off() -> None:
    clock = FakeClock()
    guard = CallGuard()
    entered, proceed = threading.Event(), threading.Event()
    ended: list[str] = []

    def slow() -> str:
        entered.set()
        proceed.wait(10)
        return "late answer"

    def match_thread() -> None:
        try:
            ended.append(guard.call("Decide", slow, WallWindow(1.0, clock)))
        except BaseException as error:  # what the match thread leaves by
            ended.append(type(error).__name__)

    thread = threading.Thread(target=match_thread)
    thread.start()
    assert entered.wait(10)
    clock.now += 0.999
    assert guard.abandon_if_over() is None  # 1 ms before the cut-off: not yet
    assert guard.remaining() == pytest.approx(0.001)
    clock.now += 0.001
    fault = guard.abandon_if_over()  # at the cut-off: abandoned
    proceed.set()
    thread.join(10)
    assert isinstance(fault, BotFault) and fault.kind is FaultKind.TIMEOUT
    assert fault.message == "no answer to Decide within 1.000 s"
    assert guard.abandoned
    assert ended in (["Abandoned"], ["CutOff"])  # never the late answer


def test_the_supervisor_interrupts_a_bot_spinning_in_python_at_the_cut_off() -> None:
    """The bot advances the (injected) clock as it spins; it is cut off at 0.05 s of
    that clock, never before, and its thread stops spinning."""
    clock = FakeClock()
    guard = CallGuard()
    cut_at: list[float] = []
    ended_spinning: list[bool] = []

    def spin() -> str:
        begun = clock.now
        try:
            while clock.now - begun < 1000.0:  # would answer after 1000 s
                clock.now += 0.00001
            return "late answer"
        except CutOff:
            cut_at.append(clock.now - begun)
            raise
        finally:
            ended_spinning.append(True)

    ended: list[tuple[int, Exception]] = []

    def on_stuck(index: int, verdict: Exception) -> str:
        ended.append((index, verdict))
        return "stuck"

    result = supervise(lambda: guard.call("Decide", spin, WallWindow(0.05, clock)), (guard,),
                       on_stuck, idle_check_s=0.05)
    assert result == "stuck"
    assert len(ended) == 1 and ended[0][0] == 0
    assert isinstance(ended[0][1], BotFault) and ended[0][1].kind is FaultKind.TIMEOUT
    assert poll(lambda: ended_spinning == [True])
    assert len(cut_at) == 1 and cut_at[0] >= 0.05  # never before the cut-off


def test_a_bot_blocked_in_c_is_abandoned_at_the_cut_off() -> None:
    """A lock wait (as ``time.sleep``: C code, which no exception interrupts) cannot
    be stopped, but the match ends at the cut-off and the late answer is dropped."""
    release = threading.Event()
    returned: list[str] = []

    def blocked() -> str:
        try:
            release.wait(60)
        finally:
            returned.append("returned")
        return "late answer"

    guard = CallGuard()
    ended: list[Exception] = []

    def on_stuck(index: int, verdict: Exception) -> str:
        ended.append(verdict)
        return "stuck"

    try:
        result = supervise(lambda: guard.call("Decide", blocked, WallWindow(0.02)), (guard,),
                           on_stuck, idle_check_s=0.02)
        assert result == "stuck" and not returned
        assert isinstance(ended[0], BotFault) and ended[0].kind is FaultKind.TIMEOUT
    finally:
        release.set()
    # It comes back (then stopped by the CutOff waiting for it), and nothing took it.
    assert poll(lambda: returned == ["returned"])


def test_the_match_threads_errors_reach_the_caller() -> None:
    def fails() -> str:
        raise RuntimeError("arena bug")

    with pytest.raises(RuntimeError, match="arena bug"):
        supervise(fails, (CallGuard(),), lambda index, verdict: "stuck")


def test_an_unwatched_guard_is_not_called_inline() -> None:
    guard = CallGuard()
    assert not guard.watched
    seen: list[bool] = []
    supervise(lambda: seen.append(guard.watched), (guard,), lambda index, verdict: None)
    assert seen == [True] and not guard.watched


SPINS = (
    "import hollywood_sdk as hs\n"
    "STATE = {'spinning': False, 'stopped': False}\n"
    "class Spins(hs.Bot):\n"
    "    def decide(self, observation):\n"
    "        if observation.decision_number >= 3:\n"
    "            STATE['spinning'] = True\n"
    "            try:\n"
    "                while True:\n"
    "                    try:\n"
    "                        pass\n"
    "                    except Exception:\n"
    "                        pass\n"
    "            finally:\n"
    "                STATE['stopped'] = True\n"
    "        return observation.legal_actions[0]\n")


def test_an_in_process_bot_that_spins_is_a_timeout_and_is_stopped(tmp_path: Path) -> None:
    spins = sdk_bot(tmp_path, "spins", SPINS, "spins:Spins")
    limits = TimeLimits(startup_s=20.0, decision_s=0.05, reserve_s=0.0)
    chosen = equal_spec(spins, sample("greedy"), 4, max_hands=2, swap_seats=False, limits=limits)
    sandbox = InProcessSandbox()
    outcome = run_series(chosen, sandbox)
    assert outcome.fault is not None
    assert (outcome.fault.kind, outcome.fault.seat, outcome.fault.hand_number) == (
        FaultKind.TIMEOUT, 0, 1)
    assert outcome.fault.decision_number is not None and outcome.fault.decision_number >= 3
    assert "no answer to Decide within 0.05 s" in outcome.fault.message
    assert outcome.winner == 1
    module = sys.modules[type(sandbox.start(spins).in_process_target.bot).__module__]
    assert poll(lambda: module.STATE["stopped"])  # its thread no longer spins


class SleepsAnHour(hs.Bot):
    name, version = "sleeps", "1.0.0"

    def __init__(self, release: threading.Event) -> None:
        self.release = release
        self.decisions = 0

    def decide(self, observation: hs.Observation) -> hs.Action:
        self.decisions += 1
        if self.decisions == 2:
            self.release.wait(3600)  # blocked in C, like time.sleep(3600)
        return observation.legal_actions[0]


class _Sandbox(InProcessSandbox):
    def __init__(self, bot: hs.Bot) -> None:
        super().__init__()
        self.bot = bot

    def start(self, ref: BotRef, *, series_id: str = "", seat: int | None = None,
              deal: str = "") -> Any:
        if ref.name == "greedy":
            return super().start(ref, series_id=series_id, seat=seat, deal=deal)
        return InProcessBot(InProcessTarget(self.bot, "sleeps", "1.0.0", ""))


def test_an_in_process_bot_blocked_in_c_is_a_timeout_at_the_cut_off(tmp_path: Path) -> None:
    release = threading.Event()
    sleeper = SleepsAnHour(release)
    limits = TimeLimits(startup_s=20.0, decision_s=0.05, reserve_s=0.1)
    chosen = equal_spec(sample("random"), sample("greedy"), 4, max_hands=2, swap_seats=False,
                  limits=limits)
    events: list[dict[str, Any]] = []
    try:
        outcome = run_series(chosen, _Sandbox(sleeper), on_event=events.append)
    finally:
        release.set()
    assert outcome.fault is not None
    assert (outcome.fault.kind, outcome.fault.seat) == (FaultKind.TIMEOUT, 0)
    assert outcome.fault.message.startswith("no answer to Decide within 0.15 s")
    assert events[-1]["type"] == "fault"
    assert sleeper.decisions == 2  # asked nothing more once it was cut off


def test_a_hook_left_as_the_sdks_is_answered_and_an_own_hook_is_called() -> None:
    from hollywood.bot.v1 import bot_pb2

    from arena.match.direct import DirectConnection

    class Plain(hs.Bot):
        def decide(self, observation: hs.Observation) -> hs.Action:
            return observation.legal_actions[0]

    plain, with_hook = Plain(), Plain()
    ended: list[Any] = []
    with_hook.on_hand_end = ended.append  # type: ignore[method-assign]
    for bot in (plain, with_hook):
        connection = DirectConnection(InProcessTarget(bot, "plain", "1.0.0", ""))
        try:
            assert connection.hand_ended(bot_pb2.HandEndedRequest(series_id="s"), 5.0)
        finally:
            connection.close()
    assert len(ended) == 1 and isinstance(ended[0], hs.HandResult)


def test_the_supervisor_never_sleeps_past_the_shortest_cut_off() -> None:
    """While one seat's call has 30 s left, the other seat's next call may have 1 s:
    the supervisor wakes within the idle bound, not at the first call's cut-off."""
    from arena.match.inline_calls import next_check

    clock = FakeClock()
    long_call, idle = CallGuard(), CallGuard()
    seen: list[float] = []

    def answer() -> None:
        clock.now += 1.0
        seen.append(next_check((long_call, idle), 0.5))
        seen.append(next_check((long_call, idle), 60.0))

    long_call.call("Decide", answer, WallWindow(31.0, clock))
    assert seen == [0.5, pytest.approx(30.0005)]
    assert next_check((long_call, idle), 0.5) == 0.5  # no call in progress
