"""The bot client's handshake and notifications pinned by in-process gRPC bots that
record what the arena sends (kills the mutants tests/arena/match/test_protocol_faults.py lets
through: docs/testing.md, "Mutation testing"). Expected values are written by hand
from proto/hollywood/bot/v1 and the client's documented messages."""

from __future__ import annotations

import logging
import threading
from typing import Any

import grpc
import pytest
from hollywood.bot.v1 import bot_pb2, bot_pb2_grpc

from arena.core.faults import BotFault, FaultKind
from arena.match.botclient import BotClient, BotInfo, fault_from_rpc_error
from tests.helpers.bot_processes import serve_bot_servicer

# Long enough to outlast any call the arena cuts off, short enough to keep a test
# that fails (the cut-off missing) quick; the server stops waiting at the end.
_HANG_BOUND_S = 5.0


class RecordingBot(bot_pb2_grpc.BotServiceServicer):
    """Answers the handshake, records every request, and hangs in notifications
    when told to (until the test ends)."""

    def __init__(self, *, hang_notifications: bool = False) -> None:
        self.requests: list[Any] = []
        self.hang = hang_notifications
        self.released = threading.Event()

    def Handshake(self, request: Any, context: Any) -> bot_pb2.HandshakeResponse:
        self.requests.append(request)
        return bot_pb2.HandshakeResponse(name="recorder", version="2.5", protocol_version=1,
                                         author="Ada")

    def _notified(self, request: Any) -> None:
        self.requests.append(request)
        if self.hang:
            self.released.wait(_HANG_BOUND_S)

    def HandEnded(self, request: Any, context: Any) -> bot_pb2.HandEndedResponse:
        self._notified(request)
        return bot_pb2.HandEndedResponse()

    def SeriesEnded(self, request: Any, context: Any) -> bot_pb2.SeriesEndedResponse:
        self._notified(request)
        return bot_pb2.SeriesEndedResponse()


def client_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage() for record in caplog.records
            if record.name == "arena.match.botclient"]


def test_the_handshake_names_the_arena_and_returns_what_the_bot_said(socket_dir: str) -> None:
    bot = RecordingBot()
    server, target = serve_bot_servicer(bot, socket_dir)
    try:
        with BotClient.connect(target, startup_timeout=5) as client:
            info = client.handshake(timeout=5)
    finally:
        server.stop(None)
    assert info == BotInfo(name="recorder", version="2.5", protocol_version=1, author="Ada")
    [sent] = bot.requests
    assert (sent.protocol_version, sent.arena_name, sent.arena_version) == (
        1, "hollywood-gin-arena", "0.1.0")


def test_answered_notifications_report_success(socket_dir: str) -> None:
    bot = RecordingBot()
    server, target = serve_bot_servicer(bot, socket_dir)
    try:
        with BotClient.connect(target, startup_timeout=5) as client:
            assert client.hand_ended(bot_pb2.HandEndedRequest(series_id="h"), timeout=5) is True
            assert client.series_ended(bot_pb2.SeriesEndedRequest(series_id="s"), timeout=5)
    finally:
        server.stop(None)
    assert [request.series_id for request in bot.requests] == ["h", "s"]


def test_a_notification_nobody_answers_is_cut_off_at_its_timeout_and_logged(
    socket_dir: str, caplog: pytest.LogCaptureFixture
) -> None:
    bot = RecordingBot(hang_notifications=True)
    server, target = serve_bot_servicer(bot, socket_dir)
    caplog.set_level(logging.WARNING, logger="arena.match.botclient")
    try:
        with BotClient.connect(target, startup_timeout=5) as client:
            assert client.hand_ended(bot_pb2.HandEndedRequest(), timeout=0.2) is False
            assert client.series_ended(bot_pb2.SeriesEndedRequest(), timeout=0.25) is False
    finally:
        bot.released.set()
        server.stop(None)
    assert client_warnings(caplog) == [
        f"bot at {target}: HandEnded notification failed (ignored): "
        "no answer to HandEnded within 0.200 s",
        f"bot at {target}: SeriesEnded notification failed (ignored): "
        "no answer to SeriesEnded within 0.250 s",
    ]


def test_an_unimplemented_notification_is_logged_naming_the_method(
    socket_dir: str, caplog: pytest.LogCaptureFixture
) -> None:
    server, target = serve_bot_servicer(bot_pb2_grpc.BotServiceServicer(), socket_dir)
    caplog.set_level(logging.WARNING, logger="arena.match.botclient")
    try:
        with BotClient.connect(target, startup_timeout=5) as client:
            assert client.hand_ended(bot_pb2.HandEndedRequest(), timeout=5) is False
            assert client.series_ended(bot_pb2.SeriesEndedRequest(), timeout=5) is False
    finally:
        server.stop(None)
    assert client_warnings(caplog) == [
        f"bot at {target}: HandEnded notification failed (ignored): "
        "the bot does not implement hollywood.bot.v1.BotService/HandEnded",
        f"bot at {target}: SeriesEnded notification failed (ignored): "
        "the bot does not implement hollywood.bot.v1.BotService/SeriesEnded",
    ]


class FailedCall(grpc.RpcError, grpc.Call):  # type: ignore[misc]
    """A failed call as grpc raises it: a status code and details."""

    def __init__(self, code: grpc.StatusCode, details: str | None) -> None:
        self._code, self._details = code, details

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str | None:
        return self._details

    def initial_metadata(self) -> None:
        return None

    def trailing_metadata(self) -> None:
        return None

    def is_active(self) -> bool:
        return False

    def time_remaining(self) -> None:
        return None

    def cancel(self) -> bool:
        return False

    def add_callback(self, callback: Any) -> bool:
        return False


S = grpc.StatusCode


@pytest.mark.parametrize(("error", "kind", "message"), [
    (grpc.RpcError(), FaultKind.CRASH, "the bot failed Decide with status UNKNOWN"),
    (FailedCall(S.UNKNOWN, None), FaultKind.CRASH, "the bot failed Decide with status UNKNOWN"),
    (FailedCall(S.DEADLINE_EXCEEDED, "Deadline Exceeded"), FaultKind.STARTUP,
     "no answer to Decide within 0.300 s"),
    (FailedCall(S.RESOURCE_EXHAUSTED, "Received message larger than max (70000 vs. 65536)"),
     FaultKind.OVERSIZED, "the Decide reply is larger than the 64 KiB allowed "
     "(Received message larger than max (70000 vs. 65536))"),
    (FailedCall(S.RESOURCE_EXHAUSTED, "quota used up"), FaultKind.CRASH,
     "the bot failed Decide with status RESOURCE_EXHAUSTED: quota used up"),
    (FailedCall(S.UNKNOWN, "larger than max"), FaultKind.CRASH,
     "the bot failed Decide with status UNKNOWN: larger than max"),
    (FailedCall(S.INTERNAL, "Failed to parse server response"), FaultKind.MALFORMED,
     "the Decide reply could not be decoded (Failed to parse server response)"),
    (FailedCall(S.INTERNAL, "Error deserializing response"), FaultKind.MALFORMED,
     "the Decide reply could not be decoded (Error deserializing response)"),
    (FailedCall(S.INTERNAL, "stream reset"), FaultKind.CRASH,
     "the bot failed Decide with status INTERNAL: stream reset"),
    (FailedCall(S.UNKNOWN, "could not parse my notes"), FaultKind.CRASH,
     "the bot failed Decide with status UNKNOWN: could not parse my notes"),
    (FailedCall(S.UNIMPLEMENTED, "Method not found!"), FaultKind.PROTOCOL_MISMATCH,
     "the bot does not implement hollywood.bot.v1.BotService/Decide"),
    (FailedCall(S.UNAVAILABLE, "Socket closed"), FaultKind.CRASH,
     "lost the connection during Decide: Socket closed"),
    (FailedCall(S.CANCELLED, "Cancelled"), FaultKind.CRASH,
     "lost the connection during Decide: Cancelled"),
    (FailedCall(S.PERMISSION_DENIED, "no"), FaultKind.CRASH,
     "the bot failed Decide with status PERMISSION_DENIED: no"),
])
def test_each_failed_call_becomes_the_fault_it_means(
    error: grpc.RpcError, kind: FaultKind, message: str
) -> None:
    fault = fault_from_rpc_error("Decide", error, 0.3, FaultKind.STARTUP)
    # The bot's status details are its own words: apart from the arena's (issue 36).
    assert (fault.kind, fault.full_message) == (kind, message)
    if fault.bot_words:
        assert fault.message == message.removesuffix(f": {fault.bot_words}")


def test_connecting_waits_only_for_the_startup_time_left(
    socket_dir: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The wait for a ready channel is what is left of the startup timeout on the
    injected clock, and nothing once it is used up."""
    waits: list[float] = []

    class NeverReady:
        def __init__(self, channel: object) -> None:
            pass

        def result(self, timeout: float) -> None:
            waits.append(timeout)
            raise grpc.FutureTimeoutError()

    monkeypatch.setattr(grpc, "channel_ready_future", NeverReady)
    socket_file = f"{socket_dir}/bot.sock"
    open(socket_file, "w").close()  # the socket "exists"; the channel never becomes ready
    for readings, expected_wait in (([10.0, 10.5], 1.5), ([10.0, 13.0], 0.0)):
        with pytest.raises(BotFault) as caught:
            BotClient.connect(f"unix://{socket_file}", startup_timeout=2.0,
                              clock=iter(readings).__next__)
        assert waits.pop() == expected_wait
        assert caught.value.kind is FaultKind.STARTUP
        assert caught.value.message == (
            f"the bot did not accept a connection on unix://{socket_file} within 2.0 s")
