"""The bot client turns every kind of misbehaviour into a specific BotFault."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator
from concurrent import futures
from typing import Any

import grpc
import pytest
from hollywood.bot.v1 import bot_pb2, bot_pb2_grpc

from arena.core.faults import BotFault, FaultKind
from arena.match.botclient import MAX_REPLY_BYTES, BotClient
from engine.actions import Action
from engine.cards import Card
from tests.helpers.bot_processes import serve_bot_servicer

LEGAL = [Action.discard(Card.parse(text)) for text in ("7c", "Kd", "2h")] + [
    Action.knock(Card.parse("Kd"))
]
REQUEST = bot_pb2.DecideRequest(series_id="s", hand_number=1, decision_number=1)

Reply = Callable[[bot_pb2.DecideRequest, grpc.ServicerContext], bot_pb2.DecideResponse]


class ScriptedBot(bot_pb2_grpc.BotServiceServicer):
    def __init__(self, decide: Reply, protocol_version: int = 1, name: str = "scripted") -> None:
        self._decide = decide
        self._protocol_version = protocol_version
        self._name = name

    def Handshake(self, request: Any, context: Any) -> bot_pb2.HandshakeResponse:
        return bot_pb2.HandshakeResponse(name=self._name, version="1",
                                         protocol_version=self._protocol_version)

    def Decide(self, request: Any, context: Any) -> bot_pb2.DecideResponse:
        return self._decide(request, context)


def fault_of(socket_dir: str, decide: Reply, timeout: float = 5.0) -> BotFault:
    server, target = serve_bot_servicer(ScriptedBot(decide), socket_dir)
    try:
        with BotClient.connect(target, startup_timeout=5) as client:
            with pytest.raises(BotFault) as caught:
                client.decide(REQUEST, LEGAL, allowed_s=timeout)
            return caught.value
    finally:
        server.stop(None)


def reply(**action: Any) -> Reply:
    return lambda request, context: bot_pb2.DecideResponse(action=bot_pb2.Action(**action))


def test_a_legal_reply_becomes_the_engine_action_with_its_melds(socket_dir: str) -> None:
    melds = [bot_pb2.Meld(cards=["As", "2s", "3s"])]
    server, target = serve_bot_servicer(
        ScriptedBot(reply(kind=bot_pb2.ACTION_KIND_KNOCK, card="kD", melds=melds)), socket_dir)
    try:
        with BotClient.connect(target, startup_timeout=5) as client:
            info = client.handshake(timeout=5)
            action = client.decide(REQUEST, LEGAL, allowed_s=5)
    finally:
        server.stop(None)
    assert (info.name, info.protocol_version) == ("scripted", 1)
    assert action == Action.knock(Card.parse("Kd"))
    assert action.melds == ((Card.parse("As"), Card.parse("2s"), Card.parse("3s")),)


def test_unknown_protocol_version_is_a_protocol_mismatch(socket_dir: str) -> None:
    server, target = serve_bot_servicer(ScriptedBot(reply(), protocol_version=7), socket_dir)
    try:
        with BotClient.connect(target, startup_timeout=5) as client, pytest.raises(
            BotFault
        ) as caught:
            client.handshake(timeout=5)
    finally:
        server.stop(None)
    assert caught.value.kind is FaultKind.PROTOCOL_MISMATCH
    assert "protocol version 7" in caught.value.message and "speaks 1" in caught.value.message


def test_empty_name_in_handshake_is_malformed(socket_dir: str) -> None:
    server, target = serve_bot_servicer(ScriptedBot(reply(), name=""), socket_dir)
    try:
        with BotClient.connect(target, startup_timeout=5) as client, pytest.raises(
            BotFault
        ) as caught:
            client.handshake(timeout=5)
    finally:
        server.stop(None)
    assert caught.value.kind is FaultKind.MALFORMED
    assert caught.value.message == "HandshakeResponse.name is empty"


def test_an_action_not_in_the_legal_list_is_illegal_and_lists_the_legal_ones(
    socket_dir: str,
) -> None:
    fault = fault_of(socket_dir, reply(kind=bot_pb2.ACTION_KIND_DISCARD, card="As"))
    assert fault.kind is FaultKind.ILLEGAL_ACTION
    assert fault.message == (
        "'discard As' is not legal here; legal: discard 7c, discard Kd, discard 2h, knock Kd"
    )


@pytest.mark.parametrize(
    ("decide", "message"),
    [
        (lambda r, c: bot_pb2.DecideResponse(), "DecideResponse.action is missing"),
        (reply(card="Kd"), "DecideResponse.action.kind is missing (ACTION_KIND_UNSPECIFIED)"),
        (reply(kind=bot_pb2.ACTION_KIND_DISCARD),
         "DecideResponse.action.card is missing for a discard"),
        (reply(kind=bot_pb2.ACTION_KIND_DISCARD, card="Zz"),
         "DecideResponse.action.card 'Zz' is not a card (expected e.g. 'As', 'Td')"),
        (reply(kind=bot_pb2.ACTION_KIND_DRAW_STOCK, card="Kd"),
         "DecideResponse.action.card must be empty for a draw stock"),
        (reply(kind=bot_pb2.ACTION_KIND_DISCARD, card="Kd",
               melds=[bot_pb2.Meld(cards=["As", "2s", "3s"])]),
         "DecideResponse.action.melds is only allowed on a knock"),
        (reply(kind=bot_pb2.ACTION_KIND_KNOCK, card="Kd",
               melds=[bot_pb2.Meld(cards=["As", "2s", "3x"])]),
         "DecideResponse.action.melds[0].cards[2] '3x' is not a card (expected e.g. 'As', 'Td')"),
        (reply(kind=42), "DecideResponse.action.kind 42 is not an ActionKind"),
    ],
)
def test_missing_or_invalid_fields_are_malformed_naming_the_field(
    socket_dir: str, decide: Reply, message: str
) -> None:
    fault = fault_of(socket_dir, decide)
    assert fault.kind is FaultKind.MALFORMED
    assert fault.message == message


def test_an_oversized_reply_is_rejected(socket_dir: str) -> None:
    huge = [bot_pb2.Meld(cards=["As" * 1000]) for _ in range(40)]  # about 80 KB
    fault = fault_of(socket_dir, reply(kind=bot_pb2.ACTION_KIND_KNOCK, card="Kd", melds=huge))
    assert fault.kind is FaultKind.OVERSIZED
    assert MAX_REPLY_BYTES == 64 * 1024
    assert "larger than the 64 KiB allowed" in fault.message


def test_a_reply_that_is_not_a_decide_response_is_malformed(socket_dir: str) -> None:
    garbage = grpc.method_handlers_generic_handler("hollywood.bot.v1.BotService", {
        "Decide": grpc.unary_unary_rpc_method_handler(
            lambda request, context: b"\xff\xff\xff", lambda b: b, lambda b: b),
    })
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    server.add_generic_rpc_handlers((garbage,))
    target = f"unix:{socket_dir}/bot.sock"
    server.add_insecure_port(target)
    server.start()
    try:
        with BotClient.connect(target, startup_timeout=5) as client:
            with pytest.raises(BotFault) as caught:
                client.decide(REQUEST, LEGAL, allowed_s=5)
            with pytest.raises(BotFault) as unimplemented:
                client.handshake(timeout=5)
    finally:
        server.stop(None)
    assert caught.value.kind is FaultKind.MALFORMED
    assert "could not be decoded" in caught.value.message
    assert unimplemented.value.kind is FaultKind.PROTOCOL_MISMATCH
    assert "does not implement hollywood.bot.v1.BotService/Handshake" in unimplemented.value.message


def test_a_bot_that_never_answers_times_out_at_the_cutoff(socket_dir: str) -> None:
    release = threading.Event()

    def hang(request: Any, context: Any) -> bot_pb2.DecideResponse:
        release.wait(10)
        return bot_pb2.DecideResponse()

    try:
        fault = fault_of(socket_dir, hang, timeout=0.3)
    finally:
        release.set()
    # Had the cut-off not fired, the empty reply would arrive after 10 s as MALFORMED.
    assert fault.kind is FaultKind.TIMEOUT
    assert fault.message == "no answer to Decide within 0.300 s"


def test_a_bot_error_status_is_a_crash_with_its_details(socket_dir: str) -> None:
    def fail(request: Any, context: grpc.ServicerContext) -> bot_pb2.DecideResponse:
        context.abort(grpc.StatusCode.UNKNOWN, "bot error: KeyError: 'x'")
        raise AssertionError

    fault = fault_of(socket_dir, fail)
    assert fault.kind is FaultKind.CRASH
    # The arena's words for everyone, the bot's own for its owner (issue 36).
    assert fault.message == "the bot failed Decide with status UNKNOWN"
    assert fault.bot_words == "bot error: KeyError: 'x'"
    assert fault.full_message == ("the bot failed Decide with status UNKNOWN: "
                                  "bot error: KeyError: 'x'")


def test_a_vanished_bot_is_a_crash(socket_dir: str) -> None:
    server, target = serve_bot_servicer(ScriptedBot(reply()), socket_dir)
    client = BotClient.connect(target, startup_timeout=5)
    server.stop(None)
    with pytest.raises(BotFault) as caught:
        client.decide(REQUEST, LEGAL, allowed_s=2)
    client.close()
    assert caught.value.kind is FaultKind.CRASH
    assert caught.value.message.startswith("lost the connection during Decide")


class StepClock:
    """A fake clock that moves ``step`` seconds each time it is read."""

    def __init__(self, step: float) -> None:
        self.now, self.step, self.reads = 0.0, step, 0

    def __call__(self) -> float:
        self.now += self.step
        self.reads += 1
        return self.now


def test_no_socket_is_a_startup_fault_within_the_startup_timeout(socket_dir: str) -> None:
    clock = StepClock(0.25)
    with pytest.raises(BotFault) as caught:
        BotClient.connect(f"unix:{socket_dir}/never.sock", startup_timeout=1.0, clock=clock)
    assert caught.value.kind is FaultKind.STARTUP
    assert caught.value.message == (
        f"the bot did not create its socket {socket_dir}/never.sock within 1.0 s")
    # Read at 0.25 (give up at 1.25), then 0.5, 0.75, 1.0 (keep waiting), 1.25 (give up).
    assert clock.reads == 5


@pytest.fixture
def deaf_targets(socket_dir: str) -> Iterator[dict[str, str]]:
    """Targets where a socket exists but nothing ever accepts a connection: a Unix
    socket file and a TCP port, each bound without listening."""
    unix_path = f"{socket_dir}/deaf.sock"
    unix_socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    unix_socket.bind(unix_path)
    tcp_socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    tcp_socket.bind(("127.0.0.1", 0))  # held, so no one else gets the port meanwhile
    try:
        yield {"unix": f"unix:{unix_path}", "tcp": f"127.0.0.1:{tcp_socket.getsockname()[1]}"}
    finally:
        unix_socket.close()
        tcp_socket.close()


@pytest.mark.parametrize("family", ["unix", "tcp"])
def test_a_connection_that_never_becomes_ready_is_a_startup_fault(
    deaf_targets: dict[str, str], family: str,
) -> None:
    target = deaf_targets[family]
    with pytest.raises(BotFault) as caught:
        BotClient.connect(target, startup_timeout=0.3)
    assert caught.value.kind is FaultKind.STARTUP
    assert caught.value.message == (
        f"the bot did not accept a connection on {target} within 0.3 s")


class HangingHandshake(ScriptedBot):
    """Accepts connections, then never answers the handshake (until released)."""

    def __init__(self) -> None:
        super().__init__(reply())
        self.release = threading.Event()

    def Handshake(self, request: Any, context: Any) -> bot_pb2.HandshakeResponse:
        self.release.wait(10)
        return super().Handshake(request, context)


def test_a_bot_that_hangs_in_handshake_is_a_startup_fault_not_a_timeout(
    socket_dir: str,
) -> None:
    # The handshake is part of start-up: a bot silent there never started the series
    # (STARTUP, as when both seats fail to start and the series is drawn); TIMEOUT is
    # for decisions in play.
    bot = HangingHandshake()
    server, target = serve_bot_servicer(bot, socket_dir)
    try:
        with BotClient.connect(target, startup_timeout=5) as client, pytest.raises(
            BotFault
        ) as caught:
            client.handshake(timeout=0.3)
    finally:
        bot.release.set()
        server.stop(None)
    assert caught.value.kind is FaultKind.STARTUP
    assert caught.value.message == "no answer to Handshake within 0.300 s"


def test_notifications_are_best_effort(socket_dir: str) -> None:
    server, target = serve_bot_servicer(ScriptedBot(reply()), socket_dir)  # HandEnded unimplemented
    try:
        with BotClient.connect(target, startup_timeout=5) as client:
            assert client.hand_ended(bot_pb2.HandEndedRequest(), timeout=1) is False
            assert client.series_ended(bot_pb2.SeriesEndedRequest(), timeout=1) is False
    finally:
        server.stop(None)
