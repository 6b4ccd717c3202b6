"""The hand-end notification before it is a message (issue 29): a bot called directly
that keeps the SDK's hook is told nothing and no message is built for it; one with
its own hook gets the SDK's view of the message the gRPC path sends, made before
the series goes on; the gRPC client sends that message."""

from __future__ import annotations

import random
from typing import Any

import hollywood_sdk as hs
import pytest
from hollywood.bot.v1 import bot_pb2

from arena.match import protocol
from arena.match.decision import HandEnd, hand_end_message
from arena.match.direct import DirectConnection
from arena.sandbox.base import InProcessTarget
from engine.hand_result import HandResult
from engine.profiles import get_profile
from engine.series import Series


def finished_hand() -> tuple[Series, HandResult]:
    """A series just after its first hand ended (random legal play)."""
    series = Series(5, get_profile("friendly"), max_hands=3)
    choices = random.Random(5)
    while True:
        events = series.apply(choices.choice(series.legal_actions()))
        if any(event["type"] == "hand_end" for event in events):
            result = series.hands[0].result
            assert result is not None
            return series, result


class Quiet(hs.Bot):
    name, version = "quiet", "1.0.0"

    def decide(self, observation: hs.Observation) -> hs.Action:
        return observation.legal_actions[0]


class Listens(Quiet):
    def __init__(self) -> None:
        self.results: list[hs.HandResult] = []

    def on_hand_end(self, result: hs.HandResult) -> None:
        self.results.append(result)


def counted_builds(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    builds: list[int] = []
    original = protocol.hand_ended_request

    def build(*args: Any) -> bot_pb2.HandEndedRequest:
        builds.append(1)
        return original(*args)

    monkeypatch.setattr(protocol, "hand_ended_request", build)
    return builds


def test_a_bot_without_its_own_hook_gets_no_message_built(
        monkeypatch: pytest.MonkeyPatch) -> None:
    builds = counted_builds(monkeypatch)
    series, result = finished_hand()
    with DirectConnection(InProcessTarget(Quiet(), "quiet", "1.0.0", "")) as connection:
        assert connection.hand_ended(HandEnd(result, 0, "s", series.sheet), timeout=5.0)
    assert builds == []


def test_a_bot_with_a_hook_gets_the_view_of_the_grpc_message(
        monkeypatch: pytest.MonkeyPatch) -> None:
    builds = counted_builds(monkeypatch)
    series, result = finished_hand()
    bot = Listens()
    with DirectConnection(InProcessTarget(bot, "listens", "1.0.0", "")) as connection:
        for seat in (0, 1):
            assert connection.hand_ended(HandEnd(result, seat, "s", series.sheet), 5.0)
    assert builds == [1, 1]
    expected = [hs.HandResult.from_proto(protocol.hand_ended_request(result, seat, "s",
                                                                     series.sheet))
                for seat in (0, 1)]
    assert bot.results == expected
    assert bot.results[0].hand_number == 1 and bot.results[0].series_id == "s"


def test_the_message_is_built_once_and_as_the_protocol_builds_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    builds = counted_builds(monkeypatch)
    series, result = finished_hand()
    hand_end = HandEnd(result, 1, "series-9", series.sheet)
    message = hand_end.message()
    assert hand_end_message(hand_end) is message and builds == [1]
    assert message == protocol.hand_ended_request(result, 1, "series-9", series.sheet)
    assert message.series_id == "series-9" and message.seat == 1
    plain = bot_pb2.HandEndedRequest(series_id="x")
    assert hand_end_message(plain) is plain
