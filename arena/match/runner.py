"""Play one series between two sandboxed bots (see docs/design.md, "Match runner").

``run_series`` prepares both bots (``Sandbox.prepare``: e.g. builds an image;
not charged to the start-up deadline), starts, connects and handshakes both at
once, each seat on its own start-up clock (``arena.match.startup``), plays the
series with ``arena.match.loop.play_match``, and on every path stops both bots, or
hands a bot that finished the series without fault back to its sandbox, which may
keep it for its version's next series (``arena.sandbox.reuse``). A
bot's misbehaviour never raises out of it: it returns a ``SeriesOutcome`` whose
``fault`` names the bot's seat, the kind, the hand and decision, the bot's stderr
tail and, where the sandbox knows better (an out-of-memory kill), the sandbox's
verdict. Arena-side failures raise ``SandboxError`` (e.g. Docker unavailable), and
a bot starved of its time by the machine raises ``ArenaOverload`` (the series is
void; ``arena.match.fair_clock``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from arena.core.faults import BotFault, FaultKind
from arena.core.limits import TimeLimits
from arena.core.seat_logs import SERIES_STDERR_BYTES, DecisionRecorder, SeatLog, stderr_text
from arena.core.series import BotRef, SeriesOutcome, SeriesSpec, opaque_series_id, outcome_of
from arena.match.connection import BotConnection, Connector, connect_bot
from arena.match.fair_clock import meter_for
from arena.match.loop import play_match
from arena.match.startup import Clock, start_both
from arena.sandbox.admission import ADMISSION
from arena.sandbox.base import RunningBot, Sandbox, SandboxError
from engine.series import Series

EventSink = Callable[[dict[str, Any]], None]

# How long to wait, after the connection broke, for the sandbox to see the bot die
# (so an out-of-memory kill is reported as such rather than as a crash).
_DEATH_WAIT_S = 1.0

__all__ = ["BotRef", "SandboxError", "SeriesOutcome", "SeriesSpec", "TimeLimits", "run_series"]


def run_series(
    spec: SeriesSpec, sandbox: Sandbox, on_event: EventSink | None = None,
    *, clock: Clock = time.monotonic, connect: Connector = connect_bot,
) -> SeriesOutcome:
    """Play ``spec`` between its two bots in ``sandbox``; see the module docstring.
    The outcome carries each seat's log (stderr, decision times, debug notes: its
    ``seat_logs``), read before a bot is stopped or handed back. ``connect`` dials a
    bot's gRPC target (``arena.match.replay`` answers some targets from a stored
    series instead)."""
    running: list[RunningBot | None] = [None, None]
    clients: list[BotConnection | None] = [None, None]
    clean = [False, False]  # a seat whose bot may serve its version's next series
    recorder = DecisionRecorder()
    marks: list[object] = [None, None]  # where each bot's stderr stood as the series began
    try:
        outcome = _play(spec, sandbox, on_event, clock, connect, running, clients, clean,
                        recorder, marks)
        return replace(outcome, seat_logs=_seat_logs(running, recorder, marks,
                                                     outcome.fault))
    finally:
        _hand_back(running, clients, clean)


def _play(spec: SeriesSpec, sandbox: Sandbox, on_event: EventSink | None, clock: Clock,
          connect: Connector,
          running: list[RunningBot | None], clients: list[BotConnection | None],
          clean: list[bool], recorder: DecisionRecorder, marks: list[object]
          ) -> SeriesOutcome:
    """The series, its bots started into ``running`` and ``clients``, ``clean`` set
    for each seat whose bot may serve again, its decisions into ``recorder``, where
    each bot's stderr stood into ``marks``."""
    started = clock()
    told = opaque_series_id()  # what the bots hear: never the arena's id (vetting or not)
    series = Series(spec.seed, spec.profile, max_hands=spec.max_hands,
                    swap_seats=spec.swap_seats)
    faults = start_both(spec, sandbox, running, clients, clock=clock, told_id=told,
                        connect=connect)
    # A fresh bot's stderr is the series' from its start; a reused one's from here.
    marks[:] = [bot.stderr_mark() if bot is not None and bot.series_number > 1
                else None for bot in running]
    faults = [None if fault is None else _complete(fault, running[seat])
              for seat, fault in enumerate(faults)]
    if any(faults):
        clean[:] = [fault is None for fault in faults]
        forfeit = _startup_forfeit(faults)
        if on_event is not None:
            on_event({"type": "fault", **forfeit.public_dict()})
        winner = None if all(faults) else 1 - _seat(forfeit)
        return outcome_of(spec.series_id, series, winner, forfeit, (0.0, 0.0),
                          clock() - started)
    first, second = clients
    assert first is not None and second is not None
    first_bot, second_bot = running
    assert first_bot is not None and second_bot is not None
    meters = (meter_for(first_bot.sched_source(), clock),
              meter_for(second_bot.sched_source(), clock))
    with ADMISSION.playing():  # background work now waits for idle cores
        outcome = play_match((first, second), series, spec.limits, on_event,
                             series_id=told, meters=meters, recorder=recorder).outcome
    fault = outcome.fault
    clean[:] = [fault is None or _seat(fault) != seat for seat in (0, 1)]
    if fault is not None:
        fault = _complete(fault, running[_seat(fault)])
    return replace(outcome, series_id=spec.series_id, fault=fault,
                   wall_seconds=clock() - started)


def _seat_logs(running: list[RunningBot | None], recorder: DecisionRecorder,
               marks: list[object], fault: BotFault | None) -> tuple[SeatLog, SeatLog]:
    """Each seat's log: what its bot wrote to stderr during the series (since its
    mark; a fresh bot's from its start), and its decisions. A bot whose sandbox
    keeps no stderr leaves the fault's tail, if it has one."""
    logs = []
    for seat, bot in enumerate(running):
        raw, total = (b"", 0) if bot is None else bot.series_stderr(
            marks[seat], SERIES_STDERR_BYTES)
        own = _fault_of(fault, seat)
        text = stderr_text(raw, total)
        if not text and own is not None:
            text = own.stderr_tail
            total = len(text.encode())
        logs.append(recorder.seat_log(seat, text, total,
                                      "" if own is None else own.bot_words))
    return logs[0], logs[1]


def _fault_of(fault: BotFault | None, seat: int) -> BotFault | None:
    """``seat``'s own fault in ``fault`` (the other seat's, when both failed to start)."""
    if fault is None:
        return None
    if _seat(fault) == seat:
        return fault
    other = fault.other_seat_fault
    return other if other is not None and other.seat == seat else None


def _hand_back(running: list[RunningBot | None], clients: list[BotConnection | None],
               clean: list[bool]) -> None:
    """A bot that finished the series without fault goes back to its sandbox, which
    may keep it for its version's next series (``RunningBot.release``); every other is
    stopped (after a fault, a crash or an arena-side error: never reused)."""
    kept: list[BotConnection] = []
    for seat, bot in enumerate(running):
        if bot is None:
            continue
        client = clients[seat]
        if clean[seat]:
            bot.release()
            if client is not None:
                kept.append(client)
        else:
            # Bots first: closing a channel to a live peer waits ~0.2 s for a
            # graceful goodbye, to a stopped one it returns at once.
            bot.stop()
    for client in clients:
        if client is not None and client not in kept:
            client.close()
    if kept:  # their peers live on: the goodbye must not hold up the series
        threading.Thread(target=_close_all, args=(kept,), name="close-kept",
                         daemon=True).start()


def _close_all(clients: list[BotConnection]) -> None:
    for client in clients:
        client.close()


def _seat(fault: BotFault) -> int:
    return fault.seat if fault.seat is not None else 0


def _startup_forfeit(faults: list[BotFault | None]) -> BotFault:
    """The fault that ends a series that never started: the one that failed, or, if
    both did, seat 0's carrying seat 1's (the series is drawn and both forfeit)."""
    first = next(f for f in faults if f is not None)
    other = faults[1]
    if faults[0] is None or other is None:
        return first
    return BotFault(first.kind, f"{first.message} (seat 1 failed to start too: "
                    f"{other.kind}: {other.message})", seat=0, stderr_tail=first.stderr_tail,
                    other_seat_fault=other, bot_words=first.bot_words)


def _complete(fault: BotFault, bot: RunningBot | None) -> BotFault:
    """``fault`` with the sandbox's verdict (an out-of-memory kill beats what the
    client saw; a crash gets the exit code) and the bot's stderr tail."""
    if bot is None:
        return fault
    kind, message = fault.kind, fault.message
    wait = _DEATH_WAIT_S if kind in (FaultKind.CRASH, FaultKind.STARTUP) else 0.0
    verdict = bot.fault_if_dead(wait_s=wait)
    if verdict is not None and (
        verdict.kind is FaultKind.OUT_OF_MEMORY or kind is FaultKind.CRASH
    ):
        if verdict.kind is not kind or verdict.message not in message:
            message = f"{verdict.message} ({message})"
        kind = verdict.kind
    return BotFault(kind, message, seat=fault.seat, hand_number=fault.hand_number,
                    decision_number=fault.decision_number,
                    stderr_tail=fault.stderr_tail or bot.stderr_tail(),
                    rejected_action=fault.rejected_action, bot_words=fault.bot_words)
