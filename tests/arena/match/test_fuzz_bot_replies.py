"""Fuzz the bot protocol from the arena's side (issue 18, point 2): whatever a bot
answers to Handshake and Decide (a generated hollywood.bot.v1 message, or bytes
that are no valid message at all) ends in a legal action or a classified fault of
that bot, never an arena exception; fault texts are neutralised and bounded."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from concurrent import futures
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
from hollywood.bot.v1 import bot_pb2
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.core.faults import MAX_FAULT_MESSAGE_CHARS, BotFault, FaultKind
from arena.core.text import first_forbidden
from arena.match.botclient import MAX_REPLY_BYTES, BotClient
from engine.actions import Action
from engine.cards import Card
from tests.helpers.proto_strategies import FUZZ_EXAMPLES, messages

LEGAL = [Action.draw_stock(), Action.discard(Card.parse("7c")),
         Action.discard(Card.parse("Kd")), Action.knock(Card.parse("Kd"))]
REQUEST = bot_pb2.DecideRequest(series_id="s", hand_number=1, decision_number=1)
CARDS = ("As", "2s", "3s", "7c", "Kd", "kD", "Td", "10d", "Zz", "")


@dataclass
class RawBot:
    """A bot whose every answer is ``reply``: raw bytes sent as they are."""

    reply: bytes = b""

    def answer(self, request: bytes, context: grpc.ServicerContext) -> bytes:
        return self.reply


@pytest.fixture(scope="module")
def raw_bot() -> Iterator[tuple[RawBot, BotClient]]:
    bot = RawBot()
    handler = grpc.unary_unary_rpc_method_handler(bot.answer)  # no (de)serializers: bytes
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2),
                         options=[("grpc.max_send_message_length", 4 * MAX_REPLY_BYTES)])
    server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler(
        "hollywood.bot.v1.BotService", {"Handshake": handler, "Decide": handler})])
    with tempfile.TemporaryDirectory(prefix="hgz-", dir="/tmp") as folder:
        target = f"unix:{folder}/bot.sock"
        server.add_insecure_port(target)
        server.start()
        with BotClient.connect(target, startup_timeout=10) as client:
            yield bot, client
        server.stop(None)


def replies(message_class: Any, known: tuple[str, ...]) -> st.SearchStrategy[bytes]:
    generated = messages(message_class.DESCRIPTOR, message_class, known_texts=known).map(
        lambda message: message.SerializeToString())
    return st.one_of(generated, st.binary(max_size=300),
                     st.integers(MAX_REPLY_BYTES - 10, 2 * MAX_REPLY_BYTES).map(
                         lambda size: b"\x12" + b"\xff" * size))


def assert_classified(fault: BotFault) -> None:
    assert isinstance(fault.kind, FaultKind)
    assert len(fault.message) <= MAX_FAULT_MESSAGE_CHARS + 40
    assert first_forbidden(fault.message) is None, fault.message


FUZZ = settings(max_examples=FUZZ_EXAMPLES * 3, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow, HealthCheck.data_too_large])


@FUZZ
@given(reply=replies(bot_pb2.DecideResponse, CARDS))
def test_any_decide_reply_is_a_legal_action_or_a_fault_of_the_bot(
    raw_bot: tuple[RawBot, BotClient], reply: bytes
) -> None:
    bot, client = raw_bot
    bot.reply = reply
    try:
        action = client.decide(REQUEST, LEGAL, allowed_s=10)
    except BotFault as fault:
        assert_classified(fault)
        assert fault.kind is not FaultKind.TIMEOUT, fault
    else:
        assert action in LEGAL


@FUZZ
@given(reply=replies(bot_pb2.HandshakeResponse, ("bot", "1.0.0", "\u202ebot")))
def test_any_handshake_reply_is_an_identity_or_a_fault_of_the_bot(
    raw_bot: tuple[RawBot, BotClient], reply: bytes
) -> None:
    bot, client = raw_bot
    bot.reply = reply
    try:
        info = client.handshake(timeout=10)
    except BotFault as fault:
        assert_classified(fault)
    else:
        assert info.protocol_version == 1 and info.name.strip() and info.version.strip()


def test_a_known_kind_for_every_transport_failure() -> None:
    # The classification above relies on every code mapping to a kind.
    from arena.match.botclient import fault_from_rpc_error

    class Failed(grpc.RpcError, grpc.Call):
        def __init__(self, code: grpc.StatusCode) -> None:
            self._code = code

        def code(self) -> grpc.StatusCode:
            return self._code

        def details(self) -> str:
            return "x\x1b[2J" * 5000

    for code in grpc.StatusCode:
        fault = fault_from_rpc_error("Decide", Failed(code), 1.0, FaultKind.TIMEOUT)
        assert_classified(fault)
