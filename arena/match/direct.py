"""A bot in the arena's own process, called directly (the ``inprocess`` sandbox).

``DirectConnection`` is the match's connection to a ``hollywood_sdk.Bot`` object
(``arena.sandbox.base.InProcessTarget``): the same methods, answers and faults as
``BotClient`` gives over gRPC, without the transport or the serialisation: the
bot gets the SDK's views rendered from the engine's ``SeatView`` of the loop's
``Decision`` (``arena.match.direct_views``: equal to what its gRPC server would
build from the message), and its action is checked by the same code as a gRPC
reply. Notifications are handed over as messages, in memory (once a hand; not at
all to a hook the bot leaves as the SDK's, which does nothing).

The rules kept from the gRPC path, so that both give the same verdicts:

* ``decide`` is timed as a gRPC call is: up to the cut-off by the wall clock, or
  while a fair clock's window has time left, so a bot sleeping past its deadline
  or never returning is a TIMEOUT at the same moment, and the series goes on
  without it. Inside a match (``play_match`` watches the connection's
  ``call_guard``) the bot is called on the match's own thread and the supervisor
  cuts it off (``arena.match.inline_calls``); otherwise, and for the handshake and
  the notifications, the call is handed to the bot's one worker thread and waited
  for (bots need not be thread-safe: one call at a time either way). A stuck bot's
  thread stays busy until the bot returns, as a gRPC server's thread did;
* an exception in ``decide`` (or a non-``Action`` answer) is a CRASH with the
  message a gRPC call would carry, its traceback printed to stderr as the SDK does;
* an answer not in the legal list is ILLEGAL_ACTION, a malformed one MALFORMED, one
  over ``MAX_REPLY_BYTES`` OVERSIZED (all from ``protocol.action_from_reply``);
* notifications are best effort: a bot that raises is logged by the SDK's rule and
  the call counts as answered; one that does not answer in time is logged and
  ignored, and later notifications are skipped while the bot is still busy.
"""

from __future__ import annotations

import logging
import queue
import sys
import threading
import traceback
from collections.abc import Callable, Sequence
from functools import partial
from itertools import repeat
from operator import is_
from typing import Any, Final

from hollywood.bot.v1 import bot_pb2

from arena.core.faults import BotFault, FaultKind
from arena.core.sizes import human_size
from arena.match import protocol
from arena.match.botclient import MAX_REPLY_BYTES, BotInfo
from arena.match.decision import Decision, HandEnd, hand_end_message
from arena.match.direct_views import ViewBuilder
from arena.match.fair_clock import WallWindow, Window, wait_within
from arena.match.inline_calls import CallGuard, CutOff
from arena.sandbox.base import InProcessTarget
from engine.actions import Action

log = logging.getLogger(__name__)

_Reply = tuple[bool, Any]
"""(answered, value): the call's result, or the exception it raised."""
_STOP: Final = None


class _Worker:
    """The one thread that runs a bot's methods, one call at a time."""

    def __init__(self, name: str) -> None:
        self._calls: queue.SimpleQueue[tuple[Callable[[], Any], queue.SimpleQueue[_Reply]]
                                       | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def submit(self, call: Callable[[], Any]) -> queue.SimpleQueue[_Reply]:
        replies: queue.SimpleQueue[_Reply] = queue.SimpleQueue()
        self._calls.put((call, replies))
        return replies

    def stop(self) -> None:
        """The thread ends after the call it is in (if any)."""
        self._calls.put(_STOP)

    def _run(self) -> None:
        while (job := self._calls.get()) is not _STOP:
            call, replies = job
            try:
                replies.put((True, call()))
            except BaseException as error:  # a bot's SystemExit must not end the worker
                replies.put((False, error))


class DirectConnection:
    """The match's connection to a bot object in the arena (see the module)."""

    def __init__(self, target: InProcessTarget) -> None:
        import hollywood_sdk
        import hollywood_sdk.results
        import hollywood_sdk.server
        import hollywood_sdk.views

        self._views = hollywood_sdk.views
        self._results = hollywood_sdk.results
        self._builder = ViewBuilder()
        self._sdk_protocol_version = hollywood_sdk.server.PROTOCOL_VERSION
        self._target = target
        self._bot: Any = target.bot
        self.target = f"in-process:{target.name}@{target.version}"
        self._worker = _Worker(f"bot-{target.name}")
        self._abandoned: queue.SimpleQueue[_Reply] | None = None
        # A hook the bot leaves as the SDK's does nothing: it is not called (saves the
        # view and the hand-off to the worker thread at every hand's end).
        base = hollywood_sdk.Bot
        self._hooks = {hook for hook in ("on_hand_end", "on_series_end")
                       if getattr(type(self._bot), hook, None) is not getattr(base, hook)
                       or hook in getattr(self._bot, "__dict__", {})}
        take = getattr(self._bot, "take_debug_note", None)
        self._take: Callable[[], object] | None = take if callable(take) else None
        """The bot's ``take_debug_note``, looked up once (it is called twice a decision)."""
        self.last_note = ""
        """The debug note the bot attached to its last answered decision (``Bot.debug``)."""
        self.call_guard = CallGuard()
        """Watched by the match loop's supervisor: then ``decide`` calls the bot on
        the match's own thread (``arena.match.inline_calls``)."""

    def handshake(self, timeout: float, *, series_id: str = "",
                  series_number: int = 1) -> BotInfo:
        """The bot's identity, checked as a gRPC handshake is, after the bot's
        ``on_series_start`` (as the SDK's server calls it; an exception is a CRASH,
        no answer in time STARTUP)."""
        if self._sdk_protocol_version != protocol.PROTOCOL_VERSION:
            raise BotFault(
                FaultKind.PROTOCOL_MISMATCH,
                f"the bot speaks protocol version {self._sdk_protocol_version}, "
                f"the arena speaks {protocol.PROTOCOL_VERSION}",
            )
        for field in ("name", "version"):
            if not getattr(self._target, field).strip():
                raise BotFault(FaultKind.MALFORMED, f"HandshakeResponse.{field} is empty")
        start = self._views.SeriesStart(series_id=series_id, series_number=series_number)
        try:
            answered, value = self._wait("Handshake", self._worker.submit(
                lambda: self._bot.on_series_start(start)), timeout, None)
        except BotFault as fault:
            raise BotFault(FaultKind.STARTUP, fault.message, bot_words=fault.bot_words) from None
        if not answered:
            raise BotFault(FaultKind.CRASH, "the bot failed Handshake with status UNKNOWN",
                           bot_words=f"bot error: {type(value).__name__}: {value}")
        return BotInfo(self._target.name, self._target.version, self._sdk_protocol_version,
                       self._target.author)

    def decide(
        self,
        request: Decision | bot_pb2.DecideRequest,
        legal_actions: Sequence[Action],
        allowed_s: float,
        window: Window | None = None,
    ) -> Action:
        """As ``BotClient.decide``: the bot's action from ``legal_actions``."""
        self.last_note = ""
        take = self._take
        if take is not None:
            take()  # a note left by a decision that raised is not this one's
        guard = self.call_guard
        if guard.watched:
            answered, value = guard.call("Decide", partial(self._answer, request),
                                         window if window is not None else WallWindow(allowed_s))
        else:
            answered, value = self._wait("Decide", self._worker.submit(
                lambda: self._decide_in_worker(request)), allowed_s, window)
        if not answered:
            if isinstance(value, BotFault):
                raise value
            raise BotFault(FaultKind.CRASH, "the bot failed Decide",
                           bot_words=f"{type(value).__name__}: {value}")
        self.last_note = self._take_note()
        if isinstance(value, Action):  # one of the legal views, as given
            return value
        reply = bot_pb2.DecideResponse(action=value)
        if value.melds and reply.ByteSize() > MAX_REPLY_BYTES:  # only melds make it big
            raise BotFault(
                FaultKind.OVERSIZED,
                f"the Decide reply is larger than the {human_size(MAX_REPLY_BYTES)} allowed "
                f"(Received message larger than max ({reply.ByteSize()} vs. "
                f"{MAX_REPLY_BYTES}))")
        return protocol.action_from_reply(reply, legal_actions)

    def _take_note(self) -> str:
        note = self._take() if self._take is not None else ""
        return note if isinstance(note, str) else ""

    def _answer(self, request: Decision | bot_pb2.DecideRequest) -> _Reply:
        """The bot's answer, called on this thread, as the worker would give it."""
        try:
            return True, self._decide_in_worker(request)
        except CutOff:
            raise
        except BaseException as error:  # a bot's SystemExit is its crash, as in the worker
            return False, error

    def _decide_in_worker(
        self, request: Decision | bot_pb2.DecideRequest
    ) -> Action | bot_pb2.Action:
        """The engine action when the bot answered with one of the legal actions it was
        given, untouched (the common case: nothing to decode or check); else the
        answer as a message, checked as a gRPC reply is."""
        views = self._views
        try:
            if isinstance(request, Decision):
                observation = self._builder.observation(request)
            else:
                observation = views.Observation.from_proto(request)
            action = self._bot.decide(observation)
            if not isinstance(action, views.Action):
                raise TypeError(f"decide() must return an Action, got {type(action).__name__}")
            if isinstance(request, Decision) and not action.melds:
                # Which offered view it is, by identity, in C (a view's == is Python's).
                found = tuple(map(is_, observation.legal_actions, repeat(action)))
                if True in found:
                    return request.legal[found.index(True)]
            proto: bot_pb2.Action = action.to_proto()
        except Exception as error:
            print(f"hollywood_sdk: decide failed at hand {request.hand_number}, "
                  f"decision {request.decision_number}:", file=sys.stderr)
            traceback.print_exc(file=sys.stderr)
            # The message the SDK's server aborts the call with, as the client reports it.
            raise BotFault(FaultKind.CRASH, "the bot failed Decide with status UNKNOWN",
                           bot_words=f"bot error: {type(error).__name__}: {error}") from None
        return proto

    def hand_ended(self, request: HandEnd | bot_pb2.HandEndedRequest, timeout: float) -> bool:
        """Tell the bot how a hand ended (best effort, as ``BotClient.hand_ended``);
        the message is built only for a bot with its own hook, before the call (the
        series goes on meanwhile if the bot does not answer in time)."""
        message = hand_end_message(request) if "on_hand_end" in self._hooks else None
        return self._notify("HandEnded", "on_hand_end",
                            lambda: self._results.HandResult.from_proto(message), timeout)

    def series_ended(self, request: bot_pb2.SeriesEndedRequest, timeout: float) -> bool:
        """Tell the bot the series result (best effort)."""
        return self._notify("SeriesEnded", "on_series_end",
                            lambda: self._results.SeriesResult.from_proto(request), timeout)

    def close(self) -> None:
        """Let the worker thread end (idempotent)."""
        self._worker.stop()

    def __enter__(self) -> DirectConnection:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _notify(self, method: str, hook: str, view: Callable[[], Any], timeout: float) -> bool:
        if self._busy():
            log.warning("bot %s: %s notification skipped (ignored): still busy with a "
                        "call it did not answer in time", self.target, method)
            return False
        if hook not in self._hooks:
            return True

        def call() -> None:
            try:
                getattr(self._bot, hook)(view())
            except Exception:  # the SDK's rule: logged, and the call is answered
                print(f"hollywood_sdk: {hook} failed:", file=sys.stderr)
                traceback.print_exc(file=sys.stderr)

        try:
            self._wait(method, self._worker.submit(call), timeout, None)
        except BotFault as fault:
            log.warning("bot %s: %s notification failed (ignored): %s",
                        self.target, method, fault.message)
            return False
        return True

    def _busy(self) -> bool:
        """Whether the worker is still in a call the match stopped waiting for."""
        if self._abandoned is not None and not self._abandoned.empty():
            self._abandoned = None
        return self._abandoned is not None or self.call_guard.abandoned

    def _wait(self, method: str, replies: queue.SimpleQueue[_Reply], allowed_s: float,
              window: Window | None) -> _Reply:
        """The call's reply, waited for as ``BotClient`` waits for a gRPC reply."""
        try:
            return wait_within(window if window is not None else WallWindow(allowed_s),
                               lambda left: replies.get(timeout=left),
                               f"no answer to {method}", not_yet=(queue.Empty,))
        except BaseException:
            self._abandoned = replies
            raise
