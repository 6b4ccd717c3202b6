"""The arena's gRPC caller of one bot (``hollywood.bot.v1.BotService``).

Every failure becomes a :class:`~arena.core.faults.BotFault` with the matching
:class:`~arena.core.faults.FaultKind` and a message that says what went wrong, so a
misbehaving bot can never crash the arena. Seat, hand and decision numbers are
filled in by the match loop.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, TypeVar

import grpc
from google.protobuf.message import Message
from hollywood.bot.v1 import bot_pb2, bot_pb2_grpc

from arena.core.faults import BotFault, FaultKind
from arena.core.sizes import human_size
from arena.match import protocol
from arena.match.decision import Decision, HandEnd, hand_end_message, request_message
from arena.match.fair_clock import TimedStep, WallWindow, Window, wait_within
from engine.actions import Action

log = logging.getLogger(__name__)

MAX_REPLY_BYTES: Final = 64 * 1024
"""Largest reply the arena accepts; anything bigger is an OVERSIZED fault."""
ARENA_NAME: Final = "hollywood-gin-arena"
ARENA_VERSION: Final = "0.1.0"

_CHANNEL_OPTIONS: Final = (
    ("grpc.max_receive_message_length", MAX_REPLY_BYTES),
    # Proxies from the environment must never see bot traffic.
    ("grpc.enable_http_proxy", 0),
    # The socket exists before we connect, so retries are rare; keep them quick.
    ("grpc.initial_reconnect_backoff_ms", 50),
    ("grpc.min_reconnect_backoff_ms", 50),
    ("grpc.max_reconnect_backoff_ms", 500),
)
_SOCKET_POLL_S: Final = 0.01
_BUSY_BACKOFF_S: Final = 0.002
"""The first wait before a ``Decide`` the bot's server refused as busy is sent again
(doubled on each refusal, up to ``_BUSY_BACKOFF_MAX_S``)."""
_BUSY_BACKOFF_MAX_S: Final = 0.05


class _Resent(Exception):
    """A call the bot's server refused as busy was sent again: wait for it."""

Reply = TypeVar("Reply", bound=Message)


@dataclass(frozen=True)
class BotInfo:
    """What a bot said about itself in the handshake."""

    name: str
    version: str
    protocol_version: int
    author: str


class BotClient:
    """A connection to one bot. Build with :meth:`connect`; always :meth:`close`."""

    def __init__(self, channel: grpc.Channel, target: str) -> None:
        self._channel = channel
        self._stub = bot_pb2_grpc.BotServiceStub(channel)
        self.last_note = ""
        """The debug note of the last ``Decide`` answered (``DecideResponse.debug``)."""
        self.target = target

    @classmethod
    def connect(
        cls,
        target: str,
        *,
        startup_timeout: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> BotClient:
        """Connect to ``target`` (``"unix:/path"`` or ``"host:port"``).

        For a Unix socket, waits until the socket file exists before dialling, so the
        first connection attempt succeeds instead of entering gRPC's reconnect backoff.
        Raises ``BotFault(STARTUP)`` if the bot is not reachable within
        ``startup_timeout`` seconds of ``clock`` (tests pass a fake one).
        """
        give_up_at = clock() + startup_timeout
        if target.startswith("unix:"):
            socket_path = Path(target.removeprefix("unix:").removeprefix("//"))
            while not socket_path.exists():
                if clock() >= give_up_at:
                    raise BotFault(
                        FaultKind.STARTUP,
                        f"the bot did not create its socket {socket_path} "
                        f"within {startup_timeout:.1f} s",
                    )
                time.sleep(_SOCKET_POLL_S)
        channel = grpc.insecure_channel(target, options=_CHANNEL_OPTIONS)
        try:
            grpc.channel_ready_future(channel).result(
                timeout=max(0.0, give_up_at - clock())
            )
        except grpc.FutureTimeoutError:
            channel.close()
            raise BotFault(
                FaultKind.STARTUP,
                f"the bot did not accept a connection on {target} within {startup_timeout:.1f} s",
            ) from None
        return cls(channel, target)

    def handshake(self, timeout: float, *, series_id: str = "",
                  series_number: int = 1) -> BotInfo:
        """Exchange protocol versions and identities, starting the series
        ``series_id``, the ``series_number``-th of the bot's process.

        Raises ``BotFault``: PROTOCOL_MISMATCH for another protocol version,
        MALFORMED for an empty name or version, STARTUP when there is no answer in
        time, or the kind matching a transport failure.
        """
        request = bot_pb2.HandshakeRequest(
            protocol_version=protocol.PROTOCOL_VERSION,
            arena_name=ARENA_NAME,
            arena_version=ARENA_VERSION,
            series_id=series_id,
            series_number=series_number,
        )
        reply = self._call("Handshake", self._stub.Handshake, request, timeout,
                           timeout_kind=FaultKind.STARTUP)
        if reply.protocol_version != protocol.PROTOCOL_VERSION:
            raise BotFault(
                FaultKind.PROTOCOL_MISMATCH,
                f"the bot speaks protocol version {reply.protocol_version}, "
                f"the arena speaks {protocol.PROTOCOL_VERSION}",
            )
        for field in ("name", "version"):
            if not getattr(reply, field).strip():
                raise BotFault(FaultKind.MALFORMED, f"HandshakeResponse.{field} is empty")
        return BotInfo(reply.name, reply.version, reply.protocol_version, reply.author)

    def decide(
        self,
        request: Decision | bot_pb2.DecideRequest,
        legal_actions: Sequence[Action],
        allowed_s: float,
        window: Window | None = None,
    ) -> Action:
        """Ask for one decision and return it as an engine action from ``legal_actions``
        (a knock keeps the melds the bot declared).

        ``request`` is the loop's ``Decision`` or a message from
        :func:`arena.match.protocol.decide_request`; the call is cut off (TIMEOUT)
        after ``allowed_s`` seconds by the wall clock, or, given a fair clock's
        ``window`` (of ``allowed_s`` seconds), once the bot was charged that much
        (``ArenaOverload`` if the window's cap came first). Any invalid answer
        raises ``BotFault``.
        """
        message = request_message(request)
        self.last_note = ""
        reply = self._call_fairly("Decide", self._stub.Decide, message,
                                  window if window is not None else WallWindow(allowed_s))
        action = protocol.action_from_reply(reply, legal_actions)
        self.last_note = reply.debug
        return action

    def _call_fairly(self, method: str, call: Any, request: Message, step: TimedStep) -> Any:
        """The call, waited for while ``step`` has time left (``wait_within``): a
        starved bot's deadline stretches, up to the window's wall cap, a hanging
        one's does not. A call the bot's server refuses as busy is sent again while
        time is left."""
        future = call.future(request, timeout=step.cap_s)
        refusals = 0

        def wait(left: float) -> Any:
            nonlocal future, refusals
            try:
                return future.result(timeout=left)
            except grpc.RpcError as error:
                if (isinstance(error, grpc.Call)
                        and error.code() is grpc.StatusCode.DEADLINE_EXCEEDED):
                    raise step.verdict(FaultKind.TIMEOUT, f"no answer to {method}") from None
                if not is_busy(error):
                    raise fault_from_rpc_error(method, error, step.allowed_s,
                                               FaultKind.TIMEOUT) from None
                refusals += 1
                pause = _busy_pause(refusals)
                cap_left = step.cap_s - step.wall_s() - pause
                if step.remaining() <= pause or cap_left <= 0.0:
                    raise busy_fault(error, step.allowed_s, refusals) from None
                time.sleep(pause)
                future = call.future(request, timeout=cap_left)
                raise _Resent from None

        try:
            return wait_within(step, wait, f"no answer to {method}",
                               not_yet=(grpc.FutureTimeoutError, _Resent))
        finally:
            future.cancel()  # a no-op once it is done

    def hand_ended(self, request: HandEnd | bot_pb2.HandEndedRequest, timeout: float) -> bool:
        """Tell the bot how a hand ended. Best effort: a failure is logged and
        ``False`` returned, never raised."""
        return self._notify("HandEnded", self._stub.HandEnded, hand_end_message(request),
                            timeout)

    def series_ended(self, request: bot_pb2.SeriesEndedRequest, timeout: float) -> bool:
        """Tell the bot the series result. Best effort like :meth:`hand_ended`."""
        return self._notify("SeriesEnded", self._stub.SeriesEnded, request, timeout)

    def close(self) -> None:
        """Close the channel (idempotent)."""
        self._channel.close()

    def __enter__(self) -> BotClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _notify(
        self, method: str, call: Callable[..., Message], request: Message, timeout: float
    ) -> bool:
        try:
            self._call(method, call, request, timeout, timeout_kind=FaultKind.TIMEOUT)
        except BotFault as fault:
            log.warning("bot at %s: %s notification failed (ignored): %s",
                        self.target, method, fault.message)
            return False
        return True

    def _call(
        self,
        method: str,
        call: Callable[..., Reply],
        request: Message,
        timeout: float,
        *,
        timeout_kind: FaultKind,
    ) -> Reply:
        try:
            return call(request, timeout=timeout)
        except grpc.RpcError as error:
            raise fault_from_rpc_error(method, error, timeout, timeout_kind) from None


def is_busy(error: grpc.RpcError) -> bool:
    """Whether the bot's gRPC server refused the call as busy (RESOURCE_EXHAUSTED,
    e.g. grpc-ruby's "No free threads" when its thread pool is taken): it did not run
    the call, so sending it again is safe. A reply over the size limit is
    RESOURCE_EXHAUSTED too (on the arena's side), and is no such refusal."""
    if not isinstance(error, grpc.Call) or error.code() is not grpc.StatusCode.RESOURCE_EXHAUSTED:
        return False
    return "larger than max" not in (error.details() or "")


def _busy_pause(refusals: int) -> float:
    return float(min(_BUSY_BACKOFF_S * 2 ** (refusals - 1), _BUSY_BACKOFF_MAX_S))


def busy_fault(error: grpc.RpcError, timeout: float, refusals: int) -> BotFault:
    """The TIMEOUT of a decision whose every attempt the bot's server refused as busy."""
    details = (error.details() if isinstance(error, grpc.Call) else None) or ""
    return BotFault(FaultKind.TIMEOUT, f"no answer to Decide within {timeout:.3f} s: the "
                    f"bot's gRPC server refused it as busy {refusals} time(s) "
                    f"(RESOURCE_EXHAUSTED: {details}); give its server more threads "
                    "(docs/bot-guide.md)")


def fault_from_rpc_error(
    method: str, error: grpc.RpcError, timeout: float, timeout_kind: FaultKind
) -> BotFault:
    """Translate a failed call into the fault it means."""
    code = error.code() if isinstance(error, grpc.Call) else grpc.StatusCode.UNKNOWN
    details = (error.details() if isinstance(error, grpc.Call) else None) or ""
    if code is grpc.StatusCode.DEADLINE_EXCEEDED:
        return BotFault(timeout_kind, f"no answer to {method} within {timeout:.3f} s")
    if code is grpc.StatusCode.RESOURCE_EXHAUSTED and "larger than max" in details:
        return BotFault(
            FaultKind.OVERSIZED,
            f"the {method} reply is larger than the {human_size(MAX_REPLY_BYTES)} allowed "
            f"({details})",
        )
    if code is grpc.StatusCode.INTERNAL and ("deserializ" in details or "parse" in details):
        return BotFault(FaultKind.MALFORMED, f"the {method} reply could not be decoded ({details})")
    if code is grpc.StatusCode.UNIMPLEMENTED:
        return BotFault(
            FaultKind.PROTOCOL_MISMATCH,
            f"the bot does not implement hollywood.bot.v1.BotService/{method}",
        )
    if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED):
        return BotFault(FaultKind.CRASH, f"lost the connection during {method}: {details}")
    # The details are the bot's own words (its exception): kept apart for its owner.
    return BotFault(FaultKind.CRASH, f"the bot failed {method} with status {code.name}",
                    bot_words=details)
