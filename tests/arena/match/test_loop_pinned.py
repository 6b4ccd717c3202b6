"""What the match loop sends and returns, pinned with recording stand-ins for the bot
clients (no gRPC): the series id, the rule profile with the hand cap, the decision
numbers, deadline and reserve of every request, and the engine's own result in the
PlayedMatch (docs/testing.md, "Mutation testing"). Expected values are written by
hand; the engine's result object is compared by identity, not recomputed."""

from __future__ import annotations

import random
from typing import Any

from hollywood.bot.v1 import bot_pb2

from arena.core.faults import BotFault, FaultKind
from arena.core.limits import TimeLimits
from arena.match.loop import play_match
from engine import Series
from engine.actions import Action
from tests.helpers.deal_helpers import greedy_choice


class RecordingClient:
    """Plays the first legal action, taking ``think`` seconds of the fake clock."""

    def __init__(self, clock: list[float], think: float) -> None:
        self.clock, self.think = clock, think
        self.decisions: list[bot_pb2.DecideRequest] = []
        self.cutoffs: list[float] = []
        self.notifications: list[Any] = []

    def decide(self, request: bot_pb2.DecideRequest, legal: list[Action],
               allowed_s: float) -> Action:
        self.decisions.append(request)
        self.cutoffs.append(allowed_s)
        self.clock[0] += self.think
        return legal[0]

    def hand_ended(self, request: Any, timeout: float) -> bool:
        self.notifications.append(("hand_ended", request.series_id, timeout))
        return True

    def series_ended(self, request: Any, timeout: float) -> bool:
        self.notifications.append(("series_ended", request.series_id, timeout))
        self.series_end = request
        return True


class CrashesInHandTwo(RecordingClient):
    def decide(self, request: bot_pb2.DecideRequest, legal: list[Action],
               allowed_s: float) -> Action:
        if request.hand_number == 2:
            raise BotFault(FaultKind.CRASH, "gone")
        return super().decide(request, legal, allowed_s)


def test_requests_carry_the_series_id_profile_numbers_and_times() -> None:
    clock = [50.0]
    clients = (RecordingClient(clock, think=0.25), RecordingClient(clock, think=1.625))
    series = Series(seed=3, max_hands=1)
    result = play_match(clients, series, TimeLimits(decision_s=1.5, reserve_s=4.0),  # type: ignore[arg-type]
                        clock=lambda: clock[0])
    assert result.outcome.fault is None
    assert series.result is not None and result.outcome.result is series.result
    assert result.outcome.winner == series.result.winner
    assert result.outcome.hands_played == 1
    numbers = sorted(r.decision_number for c in clients for r in c.decisions)
    assert numbers == list(range(1, result.decisions + 1))
    for client in clients:
        assert {r.series_id for r in client.decisions} == {"series"}
        assert {(r.profile.name, r.profile.max_hands) for r in client.decisions} == {
            ("friendly", 1)}
        assert {r.deadline_ms for r in client.decisions} == {1500}
        assert client.notifications == [("hand_ended", "series", 1.5),
                                        ("series_ended", "series", 1.5)]
    # Seat 0 answers within its deadline; seat 1 overruns it by 0.125 s a decision,
    # drawn from its 4 s reserve: 4000, 3875, 3750, ... ms left as it decides.
    assert {r.reserve_ms for r in clients[0].decisions} == {4000}
    seat1 = clients[1].decisions
    assert [r.reserve_ms for r in seat1] == [4000 - 125 * n for n in range(len(seat1))]
    assert clients[1].cutoffs == [1.5 + 4.0 - 0.125 * n for n in range(len(seat1))]
    moves = len(clients[0].decisions), len(seat1)
    assert moves[1] >= 3  # enough decisions for the reserve to fall step by step
    assert result.outcome.think_seconds == (0.25 * moves[0], 1.625 * moves[1])
    assert result.reserve_left == (4.0, 4.0 - 0.125 * moves[1])
    assert result.outcome.wall_seconds == 0.25 * moves[0] + 1.625 * moves[1]


def test_after_a_forfeit_both_bots_learn_the_hands_played_and_who_faulted() -> None:
    clock = [0.0]
    clients = (RecordingClient(clock, think=0.0), CrashesInHandTwo(clock, think=0.0))
    series = Series(seed=3, max_hands=5)
    result = play_match(clients, series,  # type: ignore[arg-type]
                        TimeLimits(decision_s=2.0, reserve_s=1.0), series_id="pinned",
                        clock=lambda: clock[0])
    fault = result.outcome.fault
    assert fault is not None and fault.seat == 1 and result.outcome.winner == 0
    # The score as it stood: one hand finished, the series not (no engine result).
    assert result.outcome.hands_played == 1 and series.result is None
    for seat, client in enumerate(clients):
        end = client.series_end
        assert (end.series_id, end.seat, end.hands_played) == ("pinned", seat, 1)
        assert (end.end, end.fault_seat, end.winner, end.fault_kind) == (
            bot_pb2.SERIES_END_FORFEIT, 1, 0, "crash")
        assert client.notifications == [("hand_ended", "pinned", 2.0),
                                        ("series_ended", "pinned", 2.0)]


class GreedyClient(RecordingClient):
    """Knocks when it can, else keeps its deadwood low (tests/helpers/deal_helpers.py)."""

    def __init__(self, clock: list[float], series: Series, seat: int) -> None:
        super().__init__(clock, think=0.0)
        self.series, self.seat, self.rng = series, seat, random.Random(seat)

    def decide(self, request: bot_pb2.DecideRequest, legal: list[Action],
               allowed_s: float) -> Action:
        self.decisions.append(request)
        return greedy_choice(list(self.series.observation(self.seat).hand), legal, self.rng)


# Seed 2 with three hands: a capped series that seat 1 leads (found by playing it
# once; the engine's own result is checked to be that too, the loop must follow it).
SEED, WINNER = 2, 1


def test_a_series_played_out_is_won_by_the_engines_winner() -> None:
    clock = [0.0]
    series = Series(seed=SEED, max_hands=3)
    clients = (GreedyClient(clock, series, 0), GreedyClient(clock, series, 1))
    result = play_match(clients, series, TimeLimits(decision_s=1.0, reserve_s=1.0),  # type: ignore[arg-type]
                        clock=lambda: clock[0])
    assert series.result is not None and series.result.winner == WINNER
    assert result.outcome.fault is None and result.outcome.winner == WINNER
