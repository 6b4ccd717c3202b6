"""arena.match.loop.play_match: timing, reserve, faults and forfeits, notifications."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import textwrap
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import grpc
import hollywood_sdk as hs
import pytest
from hollywood.bot.v1 import bot_pb2

from arena.core.faults import BotFault, FaultKind
from arena.core.limits import TimeLimits
from arena.match.botclient import BotClient
from arena.match.loop import PlayedMatch, play_match
from engine import Series
from engine.actions import Action

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "sample_bots" / "greedy"))
from greedy_bot import GreedyBot  # noqa: E402


class FirstLegal(hs.Bot):
    name, version = "first-legal", "1"

    def __init__(self) -> None:
        self.hand_results: list[hs.HandResult] = []
        self.series_results: list[hs.SeriesResult] = []

    def decide(self, observation: hs.Observation) -> hs.Action:
        return observation.legal_actions[0]

    def on_hand_end(self, result: hs.HandResult) -> None:
        self.hand_results.append(result)

    def on_series_end(self, result: hs.SeriesResult) -> None:
        self.series_results.append(result)


class Slow(FirstLegal):
    """Takes ``delay`` seconds for every decision from ``after`` on."""

    def __init__(self, delay: float, after: int = 0) -> None:
        super().__init__()
        self.delay, self.after = delay, after
        self.calls = 0
        self.decision_numbers: list[int] = []
        self.release = threading.Event()

    def decide(self, observation: hs.Observation) -> hs.Action:
        self.calls += 1
        self.decision_numbers.append(observation.decision_number)
        if self.calls > self.after:
            self.release.wait(self.delay)
        return super().decide(observation)


class BadKnock(GreedyBot):
    """Plays greedy, but declares a nonsense arrangement when it knocks."""

    name, version = "bad-knock", "1"

    def decide(self, observation: hs.Observation) -> hs.Action:
        action = super().decide(observation)
        if action.kind is hs.ActionKind.KNOCK:
            rest = [card for card in observation.hand if card != action.card]
            return hs.Action.knock(action.card, (tuple(rest[:3]), tuple(rest[:3])))
        return action


@contextmanager
def in_process(*bots: hs.Bot) -> Iterator[tuple[BotClient, BotClient]]:
    with tempfile.TemporaryDirectory(prefix="hgm-", dir="/tmp") as tmp:
        servers: list[grpc.Server] = []
        clients: list[BotClient] = []
        try:
            for seat, bot in enumerate(bots):
                target = f"unix:{tmp}/{seat}.sock"
                servers.append(hs.start_server(bot, target))
                clients.append(BotClient.connect(target, startup_timeout=5))
            yield clients[0], clients[1]
        finally:
            for client in clients:
                client.close()
            for server in servers:
                server.stop(None)


def play(bots: tuple[hs.Bot, hs.Bot], limits: TimeLimits, seed: int = 3,
         max_hands: int = 200, clock: Callable[[], float] = lambda: 0.0,
         ) -> tuple[PlayedMatch, list[dict[str, object]], Series]:
    """Play over real gRPC; the loop's clock stands still unless ``clock`` is given,
    so scheduling delays on a loaded machine never touch the reserve."""
    events: list[dict[str, object]] = []
    series = Series(seed=seed, max_hands=max_hands)
    with in_process(*bots) as clients:
        result = play_match(clients, series, limits, events.append, series_id="t",
                            clock=clock)
    return result, events, series


class FakeClock:
    """A clock that moves only when told; the match loop reads it for think time."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class TimedBot:
    """Stands in for a :class:`BotClient`: each decision takes the next of
    ``think_times`` seconds on ``clock`` (0 once they run out) and picks the first
    legal action. A think time past the cut-off the loop passes stops there
    with the TIMEOUT the real client's gRPC deadline raises, unless
    ``answers_late`` (the reply then arrives after the cut-off anyway)."""

    def __init__(self, clock: FakeClock, think_times: list[float] = (),  # type: ignore[assignment]
                 *, answers_late: bool = False) -> None:
        self.clock = clock
        self.think_times = list(think_times)
        self.answers_late = answers_late
        self.cutoffs: list[float] = []
        self.reserves_ms: list[int] = []
        self.series_ended_count = 0

    def decide(self, request: bot_pb2.DecideRequest, legal: list[Action],
               allowed_s: float) -> Action:
        self.cutoffs.append(allowed_s)
        self.reserves_ms.append(request.reserve_ms)
        think = self.think_times.pop(0) if self.think_times else 0.0
        if think > allowed_s and not self.answers_late:
            self.clock.now += allowed_s
            raise BotFault(FaultKind.TIMEOUT, f"no answer to Decide within {allowed_s:.3f} s")
        self.clock.now += think
        return legal[0]

    def hand_ended(self, request: object, timeout: float) -> bool:
        return True

    def series_ended(self, request: object, timeout: float) -> bool:
        self.series_ended_count += 1
        return True


def play_timed(first: TimedBot, second: TimedBot, limits: TimeLimits,
               clock: FakeClock) -> tuple[PlayedMatch, list[dict[str, object]]]:
    events: list[dict[str, object]] = []
    result = play_match((first, second), Series(seed=3), limits,  # type: ignore[arg-type]
                        events.append, series_id="t", clock=clock)
    return result, events


def test_a_played_out_series_notifies_both_bots_of_every_hand_and_the_end() -> None:
    bots = (FirstLegal(), FirstLegal())
    result, events, series = play(bots, TimeLimits(decision_s=1.0, reserve_s=1.0), max_hands=3)
    assert result.outcome.fault is None and result.outcome.fault is None
    assert series.result is not None and series.result.capped and result.outcome.hands_played == 3
    for seat, bot in enumerate(bots):
        assert [r.hand_number for r in bot.hand_results] == [1, 2, 3]
        assert all(r.seat == seat for r in bot.hand_results)
        (end,) = bot.series_results
        assert end.end == "hand_cap" and end.hands_played == 3 and end.seat == seat
        assert end.winner == series.result.winner
    assert result.decisions == sum(1 for e in events if e["type"] == "action")
    # The loop's clock stands still: no think time, the reserve untouched.
    assert result.reserve_left == (1.0, 1.0) and result.outcome.think_seconds == (0.0, 0.0)


def test_overruns_drain_the_reserve_until_the_bot_times_out() -> None:
    # Deadline 1 s, reserve 3 s. Seat 1 thinks 2 s a decision: each overruns by 1 s,
    # so the reserve goes 3 -> 2 -> 1 -> 0 and the 4th call is cut off at 1 s
    # (deadline + nothing left). Seat 0 answers in 0.5 s and keeps its reserve.
    clock = FakeClock()
    quick, slow = TimedBot(clock, [0.5] * 10), TimedBot(clock, [2.0] * 10)
    result, events = play_timed(quick, slow, TimeLimits(decision_s=1.0, reserve_s=3.0), clock)
    fault = result.outcome.fault
    assert fault is not None and fault.kind is FaultKind.TIMEOUT and fault.seat == 1
    assert result.outcome.winner == 0 and result.outcome.fault is not None
    assert slow.cutoffs == [4.0, 3.0, 2.0, 1.0]
    assert slow.reserves_ms == [3000, 2000, 1000, 0]
    assert result.reserve_left == (3.0, 0.0)
    assert result.outcome.think_seconds == (0.5 * len(quick.cutoffs), 2.0 * 3 + 1.0)
    assert result.outcome.wall_seconds == sum(result.outcome.think_seconds)
    assert fault.hand_number == 1 and fault.decision_number == result.decisions
    assert events[-1]["type"] == "fault" and events[-1]["kind"] == "timeout"
    assert events[-1]["decision_number"] == fault.decision_number
    assert quick.series_ended_count == slow.series_ended_count == 1


def test_an_answer_after_the_cutoff_is_a_timeout() -> None:
    # gRPC let the reply through, but the loop's clock says it came 0.25 s after the
    # cut-off (deadline 1 s + reserve 0.5 s): it is not accepted.
    clock = FakeClock()
    late = TimedBot(clock, [0.0, 0.0, 1.75], answers_late=True)
    result, events = play_timed(late, TimedBot(clock), TimeLimits(decision_s=1.0, reserve_s=0.5),
                                clock)
    fault = result.outcome.fault
    assert fault is not None and fault.kind is FaultKind.TIMEOUT and fault.seat == 0
    assert fault.message == "answered after 1.750 s; 1.500 s allowed (deadline + reserve left)"
    assert result.outcome.winner == 1 and result.reserve_left == (0.0, 0.5)
    assert late.cutoffs == [1.5, 1.5, 1.5]
    assert [e["type"] for e in events].count("action") == result.decisions - 1


def test_an_answer_within_the_reserve_is_accepted() -> None:
    # 1.5 s against a 1 s deadline: 0.5 s of the 0.5 s reserve, exactly all of it.
    clock = FakeClock()
    bot = TimedBot(clock, [1.5])
    result, _ = play_timed(bot, TimedBot(clock), TimeLimits(decision_s=1.0, reserve_s=0.5),
                           clock)
    assert result.outcome.fault is None
    assert result.reserve_left == (0.0, 0.5)
    assert bot.cutoffs[:2] == [1.5, 1.0]  # the second decision has only the deadline


def test_a_bot_that_never_answers_is_cut_off_at_deadline_plus_reserve() -> None:
    # Real gRPC with the loop's clock frozen: the first two answers cost nothing, so
    # the third call's cut-off is exactly deadline + the whole reserve (0.5 s), and
    # the bot's own hang ends at gRPC's deadline.
    hanging = Slow(delay=30.0, after=2)
    try:
        result, _, _ = play((hanging, FirstLegal()), TimeLimits(decision_s=0.2, reserve_s=0.3),
                            clock=lambda: 0.0)
    finally:
        hanging.release.set()
    assert result.outcome.fault is not None and result.outcome.fault.kind is FaultKind.TIMEOUT
    assert result.outcome.fault.seat == 0 and result.outcome.winner == 1
    assert hanging.calls == 3
    assert result.outcome.fault.decision_number == hanging.decision_numbers[-1]
    assert result.outcome.fault.message == "no answer to Decide within 0.500 s"


def test_an_invalid_declared_arrangement_is_an_illegal_action() -> None:
    result, _, _ = play((BadKnock(), GreedyBot()), TimeLimits(decision_s=5, reserve_s=5))
    fault = result.outcome.fault
    assert fault is not None and fault.kind is FaultKind.ILLEGAL_ACTION and fault.seat == 0
    assert fault.message.startswith("'knock ")
    assert "rejected:" in fault.message
    assert result.outcome.winner == 1


def test_the_opponent_learns_of_the_forfeit() -> None:
    healthy = FirstLegal()
    result, _, _ = play((healthy, BadKnock()), TimeLimits(decision_s=5, reserve_s=5))
    assert result.outcome.fault is not None and result.outcome.fault.seat == 1
    (end,) = healthy.series_results
    assert (end.end, end.winner, end.fault_seat, end.fault_kind) == (
        "forfeit", 0, 1, "illegal_action")


DYING_BOT = textwrap.dedent(
    """
    import os, sys
    sys.path.insert(0, sys.argv[1])
    import hollywood_sdk as hs
    from greedy_bot import GreedyBot

    class Dying(GreedyBot):
        name, version = "dying", "1"
        calls = 0
        def decide(self, observation):
            self.calls += 1
            if self.calls == 12:
                print("dying at", observation.decision_number, file=sys.stderr, flush=True)
                os._exit(3)
            return super().decide(observation)

    hs.serve(Dying())
    """
)


def test_a_bot_that_dies_mid_series_is_a_crash_at_that_decision() -> None:
    with tempfile.TemporaryDirectory(prefix="hgd-", dir="/tmp") as tmp:
        socket_path = f"{tmp}/d.sock"
        process = subprocess.Popen(
            [sys.executable, "-c", DYING_BOT, str(REPO / "sample_bots" / "greedy")],
            env={**os.environ, "HOLLYWOOD_BOT_SOCKET": socket_path},
            stderr=subprocess.PIPE, text=True,
        )
        try:
            healthy = FirstLegal()
            server = hs.start_server(healthy, f"unix:{tmp}/h.sock")
            clients = (BotClient.connect(f"unix:{tmp}/h.sock", startup_timeout=5),
                       BotClient.connect(f"unix:{socket_path}", startup_timeout=20))
            result = play_match(clients, Series(seed=3), TimeLimits(decision_s=5, reserve_s=5))
            for client in clients:
                client.close()
            server.stop(None)
        finally:
            process.kill()
            _, stderr = process.communicate()
    fault = result.outcome.fault
    assert fault is not None and fault.kind is FaultKind.CRASH and fault.seat == 1
    assert f"dying at {fault.decision_number}\n" in stderr and fault.hand_number is not None
    assert result.outcome.winner == 0
    assert healthy.series_results[0].end == "forfeit"


def test_time_limits_reject_nonsense() -> None:
    with pytest.raises(ValueError, match="decision_s"):
        TimeLimits(decision_s=0)
    with pytest.raises(ValueError, match="reserve_s"):
        TimeLimits(reserve_s=-1)
