"""arena.match.play_match: timing, reserve, faults and forfeits, notifications."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import grpc
import hollywood_sdk as hs
import pytest

from arena.core.faults import FaultKind
from arena.core.limits import TimeLimits
from arena.match.botclient import BotClient
from arena.match.loop import MatchResult, play_match
from engine import Series

REPO = Path(__file__).resolve().parent.parent
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
         max_hands: int = 200) -> tuple[MatchResult, list[dict[str, object]], Series]:
    events: list[dict[str, object]] = []
    series = Series(seed=seed, max_hands=max_hands)
    with in_process(*bots) as clients:
        result = play_match(clients, series, limits, events.append, series_id="t")
    return result, events, series


def test_a_played_out_series_notifies_both_bots_of_every_hand_and_the_end() -> None:
    bots = (FirstLegal(), FirstLegal())
    result, events, series = play(bots, TimeLimits(decision_s=1.0, reserve_s=1.0), max_hands=3)
    assert result.fault is None and not result.forfeit
    assert series.result is not None and series.result.capped and result.hands_played == 3
    for seat, bot in enumerate(bots):
        assert [r.hand_number for r in bot.hand_results] == [1, 2, 3]
        assert all(r.seat == seat for r in bot.hand_results)
        (end,) = bot.series_results
        assert end.end == "hand_cap" and end.hands_played == 3 and end.seat == seat
        assert end.winner == series.result.winner
    assert result.decisions == sum(1 for e in events if e["type"] == "action")
    assert result.reserve_left == [1.0, 1.0]


def test_overruns_drain_the_reserve_until_the_bot_times_out() -> None:
    slow = Slow(delay=0.4)
    limits = TimeLimits(decision_s=0.05, reserve_s=0.8)
    begun = time.monotonic()
    result, events, _ = play((FirstLegal(), slow), limits)
    wall = time.monotonic() - begun
    fault = result.fault
    assert fault is not None and fault.kind is FaultKind.TIMEOUT and fault.seat == 1
    assert result.winner == 0 and result.forfeit
    # Each call overruns by 0.35 s: the reserve of 0.8 s covers two (with room for
    # scheduling jitter); the third is cut off after 0.05 + 0.1 s.
    assert slow.calls == 3
    assert fault.hand_number == 1 and fault.decision_number == slow.decision_numbers[-1]
    assert events[-1]["type"] == "fault" and events[-1]["kind"] == "timeout"
    assert events[-1]["decision_number"] == fault.decision_number
    assert result.reserve_left[1] == 0.0
    assert wall < 0.05 * 3 + 0.8 + 1.5  # deadlines + reserve, plus slack


def test_a_bot_that_never_answers_costs_at_most_deadline_plus_reserve() -> None:
    hanging = Slow(delay=30.0, after=2)
    limits = TimeLimits(decision_s=0.2, reserve_s=0.3)
    begun = time.monotonic()
    try:
        result, _, _ = play((hanging, FirstLegal()), limits)
    finally:
        hanging.release.set()
    wall = time.monotonic() - begun
    assert result.fault is not None and result.fault.kind is FaultKind.TIMEOUT
    assert result.fault.seat == 0 and result.winner == 1
    assert hanging.calls == 3
    assert result.fault.decision_number == hanging.decision_numbers[-1]
    assert "within 0.500 s" in result.fault.message
    assert wall < 0.5 + 1.5


def test_an_invalid_declared_arrangement_is_an_illegal_action() -> None:
    result, _, _ = play((BadKnock(), GreedyBot()), TimeLimits(decision_s=5, reserve_s=5))
    fault = result.fault
    assert fault is not None and fault.kind is FaultKind.ILLEGAL_ACTION and fault.seat == 0
    assert fault.message.startswith("'knock ")
    assert "rejected:" in fault.message
    assert result.winner == 1


def test_the_opponent_learns_of_the_forfeit() -> None:
    healthy = FirstLegal()
    result, _, _ = play((healthy, BadKnock()), TimeLimits(decision_s=5, reserve_s=5))
    assert result.fault is not None and result.fault.seat == 1
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
    fault = result.fault
    assert fault is not None and fault.kind is FaultKind.CRASH and fault.seat == 1
    assert f"dying at {fault.decision_number}\n" in stderr and fault.hand_number is not None
    assert result.winner == 0
    assert healthy.series_results[0].end == "forfeit"


def test_time_limits_reject_nonsense() -> None:
    with pytest.raises(ValueError, match="decision_s"):
        TimeLimits(decision_s=0)
    with pytest.raises(ValueError, match="reserve_s"):
        TimeLimits(reserve_s=-1)
