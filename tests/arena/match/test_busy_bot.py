"""A bot whose gRPC server refuses a Decide as busy (RESOURCE_EXHAUSTED, as grpc-ruby's
"No free threads" does under load) is asked again within the same decision's time:
one refusal costs nothing; a server that stays busy for the whole decision is a
TIMEOUT saying so. A reply over the size limit (RESOURCE_EXHAUSTED on the arena's
side) is still OVERSIZED, never retried."""

from __future__ import annotations

import threading
from typing import Any

import grpc
import pytest
from hollywood.bot.v1 import bot_pb2

from arena.core.faults import BotFault, FaultKind
from arena.match.botclient import BotClient
from arena.match.fair_clock import meter_for
from arena.sandbox.schedstat import no_source
from engine.actions import Action
from engine.cards import Card
from tests.arena.match.test_protocol_faults import LEGAL, REQUEST, ScriptedBot, fault_of
from tests.helpers.bot_processes import serve_bot_servicer


class BusyFirst:
    """Answers RESOURCE_EXHAUSTED to the first ``refusals`` Decide calls, then
    discards Kd; counts the calls."""

    def __init__(self, refusals: int) -> None:
        self.refusals = refusals
        self.calls = 0
        self._lock = threading.Lock()

    def __call__(self, request: Any, context: grpc.ServicerContext) -> bot_pb2.DecideResponse:
        with self._lock:
            self.calls += 1
            busy = self.calls <= self.refusals
        if busy:
            context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, "No free threads in thread pool")
        return bot_pb2.DecideResponse(action=bot_pb2.Action(kind=bot_pb2.ACTION_KIND_DISCARD,
                                                            card="Kd"))


@pytest.mark.parametrize("fair", [False, True], ids=["wall-clock", "fair-clock"])
def test_one_busy_refusal_is_retried_within_the_decision(socket_dir: str, fair: bool) -> None:
    decide = BusyFirst(refusals=1)
    server, target = serve_bot_servicer(ScriptedBot(decide), socket_dir)
    try:
        with BotClient.connect(target, startup_timeout=5) as client:
            window = meter_for(no_source).window(10.0) if fair else None
            action = client.decide(REQUEST, LEGAL, allowed_s=10.0, window=window)
    finally:
        server.stop(None)
    assert action == Action.discard(Card.parse("Kd"))
    assert decide.calls == 2


def test_a_server_busy_for_the_whole_decision_is_a_timeout_saying_so(socket_dir: str) -> None:
    decide = BusyFirst(refusals=10**9)
    # 1 s, not less: on a loaded machine one refused call may take a few tenths.
    fault = fault_of(socket_dir, decide, timeout=1.0)
    assert fault.kind is FaultKind.TIMEOUT
    assert fault.message.startswith("no answer to Decide within 1.000 s: the bot's gRPC "
                                    "server refused it as busy ")
    assert "(RESOURCE_EXHAUSTED: No free threads in thread pool)" in fault.message
    # Asked again while the decision had time; the message counts every refusal.
    assert decide.calls >= 2
    assert f"refused it as busy {decide.calls} time(s)" in fault.message


def test_other_errors_are_not_retried(socket_dir: str) -> None:
    calls = []

    def fail(request: Any, context: grpc.ServicerContext) -> bot_pb2.DecideResponse:
        calls.append(request)
        context.abort(grpc.StatusCode.UNKNOWN, "bot error")
        raise AssertionError

    fault = fault_of(socket_dir, fail)
    assert fault.kind is FaultKind.CRASH and len(calls) == 1


def test_an_oversized_reply_is_not_taken_for_a_busy_server(socket_dir: str) -> None:
    calls = []

    def huge(request: Any, context: grpc.ServicerContext) -> bot_pb2.DecideResponse:
        calls.append(request)
        return bot_pb2.DecideResponse(action=bot_pb2.Action(
            kind=bot_pb2.ACTION_KIND_DISCARD, card="Kd" * 40_000))

    fault = fault_of(socket_dir, huge)
    assert isinstance(fault, BotFault) and fault.kind is FaultKind.OVERSIZED
    assert len(calls) == 1
