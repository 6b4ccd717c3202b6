"""Bots called on the match's own thread, and the watch that cuts them off.

Handing each decision to a bot's worker thread and back costs two thread switches
(more than the engine's own work for a decision). A bot in the arena's process is
instead called on the thread that runs the match loop, and the loop runs on a
thread of its own, ``supervise``\\ d by the thread that asked for the match: the
supervisor sleeps until the call in progress reaches its cut-off (by the same
rule as a waiting caller: the fair clock's window, or the timeout), and if the bot
has not answered by then:

* the call is *abandoned*: ``supervise`` ends the match with the verdict a waiting
  caller would have given (``Window.verdict``: TIMEOUT, or ``ArenaOverload`` if the
  bot was starved), and the match thread never touches the match again;
* a bot running Python code is interrupted: ``CutOff`` is raised in its thread
  (``PyThreadState_SetAsyncExc``, at the next bytecode), so a bot that spins
  forever does not keep a core busy. A bot blocked in C (``time.sleep`` of an
  hour, a lock) cannot be interrupted: its verdict comes at the cut-off all the
  same, and its thread ends when the call returns, as a worker thread did.

A call and its abandonment exclude each other (one lock): either the bot's answer
is taken, or the verdict, never both.
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Callable
from typing import Final, NamedTuple, TypeVar

from arena.core.faults import BotFault, FaultKind
from arena.match.fair_clock import TimedStep

T = TypeVar("T")

IDLE_CHECK_S: Final = 1.0
"""The longest the supervisor sleeps: a call's cut-off is at least the decision
deadline after it starts, so one that starts meanwhile is seen before its cut-off
as long as this is at most that deadline (``play_match`` passes the smaller)."""


class CutOff(BaseException):
    """Raised in a bot's code when its call was abandoned at the cut-off. Not an
    ``Exception``: a bot's ``except Exception`` does not swallow it."""


class Abandoned(BaseException):
    """Ends a match thread whose call was abandoned (the match was ended for it)."""


class _Call(NamedTuple):
    """A call in progress (a tuple: made at every decision, and set in one store)."""

    what: str
    step: TimedStep
    thread_id: int


class CallGuard:
    """One bot's inline calls, as its connection makes them and the supervisor
    watches them (see the module)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._call: _Call | None = None
        self.abandoned = False
        """True once a call was abandoned: the bot is stuck in it (or was)."""
        self.watched = False
        """True while a supervisor watches: only then may the bot be called inline
        (else its connection hands the call to a thread it can stop waiting for)."""

    def call(self, what: str, function: Callable[[], T], step: TimedStep) -> T:
        """``function()`` on this thread, watched, cut off when ``step`` has no time
        left; raises ``Abandoned`` if the supervisor gave up on it meanwhile (the
        caller must then do nothing more)."""
        # tuple.__new__: the named tuple without its Python-level constructor (a call a decision)
        self._call = tuple.__new__(_Call, (what, step, threading.get_ident()))
        try:
            return function()
        except CutOff:
            if not self.abandoned:  # not the supervisor's: the bot raised it itself
                raise BotFault(FaultKind.CRASH, f"the bot failed {what}: CutOff") from None
            raise Abandoned from None
        finally:
            self._end()

    def _end(self) -> None:
        with self._lock:
            self._call = None
            if self.abandoned:
                _clear_pending(threading.get_ident())
                raise Abandoned

    def remaining(self) -> float | None:
        """How long the call in progress may still run (None: no call)."""
        with self._lock:
            call = self._call
            if call is None:
                return None
            return call.step.remaining()

    def abandon_if_over(self) -> Exception | None:
        """The verdict on the call in progress if it is past its cut-off (it is then
        abandoned, and the bot interrupted), else None."""
        with self._lock:
            call = self._call
            if call is None or call.step.remaining() > 0.0:
                return None
            self.abandoned = True
            self._call = None
            _interrupt(call.thread_id)
            return call.step.verdict(FaultKind.TIMEOUT, f"no answer to {call.what}")


def _interrupt(thread_id: int) -> None:
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id),
                                               ctypes.py_object(CutOff))


def _clear_pending(thread_id: int) -> None:
    """Drop a ``CutOff`` set for this thread that has not fired yet (the bot returned
    first): the thread must leave by ``Abandoned``, not by an exception at random."""
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id), None)


def supervise(run: Callable[[], T], guards: tuple[CallGuard, ...],
              on_stuck: Callable[[int, Exception], T], idle_check_s: float = IDLE_CHECK_S,
              name: str = "match") -> T:
    """``run()`` on a thread of its own, watched: if the call of ``guards[i]`` in
    progress passes its cut-off, it is abandoned and ``on_stuck(i, verdict)`` ends
    the match on this thread instead. ``run``'s exceptions are raised here."""
    done = threading.Event()
    result: list[T] = []
    error: list[BaseException] = []

    def body() -> None:
        try:
            result.append(run())
        except (Abandoned, CutOff):  # the match was ended without this thread
            return
        except BaseException as raised:  # handed to the supervisor, which raises it
            error.append(raised)
        done.set()

    for guard in guards:
        guard.watched = True
    try:
        threading.Thread(target=body, name=name, daemon=True).start()
        while not done.wait(next_check(guards, idle_check_s)):
            for index, guard in enumerate(guards):
                verdict = guard.abandon_if_over()
                if verdict is not None:
                    return on_stuck(index, verdict)
    except BaseException:  # e.g. Ctrl-C here: the match thread stops at its next answer
        for guard in guards:
            guard.abandoned = True
        raise
    finally:
        for guard in guards:
            guard.watched = False
    if error:
        raise error[0]
    return result[0]


def next_check(guards: tuple[CallGuard, ...], idle_check_s: float) -> float:
    """How long the supervisor may sleep: until the call in progress may reach its
    cut-off, and never more than ``idle_check_s`` (the shortest cut-off there can
    be): the next call, perhaps the other seat's with less reserve, is seen before
    its own cut-off."""
    for guard in guards:
        remaining = guard.remaining()
        if remaining is not None:
            return min(max(remaining, 0.0) + 0.0005, idle_check_s)
    return idle_check_s
