"""The match loop: one :class:`engine.Series` played between two connected bots.

Timing: each decision has a deadline (``TimeLimits.decision_s``); time beyond it is
drawn from the deciding bot's series reserve (``TimeLimits.reserve_s``). The call
is cut off once it took ``allowed_s``, the deadline + reserve left (the words of
``arena.match.fair_clock``), so a bot that never answers costs at most that. Only
``Decide`` time counts; notifications are not charged.

Faults: any :class:`~arena.core.faults.BotFault` (from the bot client, or an action the
engine rejects, e.g. an invalid declared meld arrangement) ends the series at once;
the fault gets the seat, hand number and decision number, and the opponent wins by
forfeit.

Notifications (``HandEnded``, ``SeriesEnded``) are best effort: a failure is logged
by the bot client and ignored, never a fault; each is bounded by the decision
deadline.

Fair clocks: given each seat's ``Meter`` (the runner passes the kernel's figures
for each bot's threads), think time is the time charged by the seat's fair clock
(``arena.match.fair_clock``), not the wall clock: waiting for a core is not the
bot's time, and a decision cut off while the bot was starved raises
``ArenaOverload`` (the series is void) instead of charging a fault.

The loop knows nothing of sandboxes, nor how a bot is reached (each seat's
``BotConnection``: gRPC, or a direct call in the arena's process); the runner adds
the stderr tail and the sandbox's own verdict to the fault.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

from arena.core.faults import BotFault, FaultKind, SeatFaults, one_seat_fault
from arena.core.limits import TimeLimits
from arena.core.seat_logs import DecisionRecorder
from arena.core.series import SeriesOutcome, outcome_of
from arena.match import protocol
from arena.match.connection import BotConnection
from arena.match.decision import Decision, HandEnd
from arena.match.fair_clock import Meter, Window
from arena.match.inline_calls import IDLE_CHECK_S, supervise
from engine.actions import Action
from engine.series import Series

log = logging.getLogger(__name__)

EventSink = Callable[[dict[str, Any]], None]


@dataclass(frozen=True)
class PlayedMatch:
    """What the loop reports: the series' ``outcome`` (the one outcome type; its
    wall time is the loop's) and the loop's own counts, which no one stores."""

    outcome: SeriesOutcome
    decisions: int
    reserve_left: tuple[float, float]
    """Each seat's series reserve at the end (never below 0)."""
    recorder: DecisionRecorder
    """Each seat's decisions: the time charged and the bot's debug note."""


def play_match(
    clients: tuple[BotConnection, BotConnection],
    series: Series,
    limits: TimeLimits,
    on_event: EventSink | None = None,
    *,
    series_id: str = "series",
    clock: Callable[[], float] = time.monotonic,
    meters: tuple[Meter, Meter] | None = None,
    recorder: DecisionRecorder | None = None,
) -> PlayedMatch:
    """Play ``series`` to its end or to the first fault.

    ``clients[seat]`` plays ``seat``. ``on_event`` receives every engine event (as
    returned by ``series.apply``) and, on a forfeit, a ``{"type": "fault", ...}`` event.
    ``clock`` measures think time and so drives deadlines and reserves; tests pass a
    fake one to make timing exact. Each decision's charged time and debug note go
    to ``recorder`` (a new one if not given; ``PlayedMatch.recorder``).

    When a seat's bot is called on the match's own thread (its connection has a
    ``call_guard``: ``arena.match.inline_calls``), the loop runs on a thread of its
    own, watched from this one, which ends the match at the cut-off of a call that
    does not return.
    """
    match = _Match(clients, series, limits, on_event, series_id, clock, meters)
    if recorder is not None:  # the runner's: it adds each seat's stderr
        match.recorder = recorder
    guards = tuple(guard for client in clients
                   if (guard := getattr(client, "call_guard", None)) is not None)
    if not guards:
        return match.run()
    seats = [seat for seat, client in enumerate(clients)
             if getattr(client, "call_guard", None) is not None]
    return supervise(match.run, guards, lambda index, verdict: match.stuck(seats[index], verdict),
                     idle_check_s=min(limits.decision_s, IDLE_CHECK_S), name=f"match-{series_id}")


class _Pending(NamedTuple):
    """The decision being asked (what a call abandoned at its cut-off is charged; a
    tuple: one is made at every decision)."""

    seat: int
    hand_number: int
    begun: float
    window: Window | None


class _Match:
    """One series being played; the loop's state, shared with the supervisor that
    ends it for a call that never returns (``stuck``)."""

    def __init__(self, clients: tuple[BotConnection, BotConnection], series: Series,
                 limits: TimeLimits, on_event: EventSink | None, series_id: str,
                 clock: Callable[[], float], meters: tuple[Meter, Meter] | None) -> None:
        self.clients, self.series, self.limits = clients, series, limits
        self.on_event, self.series_id, self.clock, self.meters = (
            on_event, series_id, clock, meters)
        self.started = clock()
        self.profile = protocol.profile_to_proto(series.profile, series.max_hands)
        self.reserve = [limits.reserve_s, limits.reserve_s]
        self.think = [0.0, 0.0]
        self.decisions = 0
        self.hands_played = 0
        self.pending: _Pending | None = None
        self.recorder = DecisionRecorder()

    def finish(self, faults: SeatFaults | None = None) -> PlayedMatch:
        """The match as it ended: played out, or forfeited (each seat's ``faults``)."""
        think, reserve = (self.think[0], self.think[1]), self.reserve
        wall = self.clock() - self.started
        if faults is None:
            result = self.series.result
            outcome = outcome_of(self.series_id, self.series,
                                 None if result is None else result.winner, None, think, wall)
        else:
            outcome = SeriesOutcome.forfeit(self.series_id, self.series, faults, think, wall)
        return PlayedMatch(outcome, self.decisions,
                           (max(0.0, reserve[0]), max(0.0, reserve[1])), self.recorder)

    def run(self) -> PlayedMatch:
        series, limits, clients = self.series, self.limits, self.clients
        while (seat := series.current_player) is not None:
            try:
                action = self._decide(seat)
                try:
                    events = series.apply(action)
                except ValueError as error:  # IllegalActionError, or invalid declared melds
                    raise BotFault(FaultKind.ILLEGAL_ACTION, f"'{action}' rejected: {error}",
                                   rejected_action=action.to_dict()) from None
            except BotFault as fault:
                return self.forfeit(fault)
            for event in events:
                if self.on_event is not None:
                    self.on_event(event)
                if event.get("type") == "hand_end":
                    self.hands_played += 1
                    result = series.hands[event["hand"] - 1].result
                    assert result is not None
                    for client_seat, client in enumerate(clients):
                        client.hand_ended(HandEnd(result, client_seat, self.series_id,
                                                  series.sheet),
                                          timeout=limits.decision_s)
        _notify_series_end(clients, series, self.series_id, limits, self.hands_played, None)
        return self.finish()

    def _decide(self, seat: int) -> Action:
        series, limits = self.series, self.limits
        legal = series.legal_actions()
        self.decisions += 1
        request = Decision(
            series, seat, legal, self.profile,
            series_id=self.series_id,
            decision_number=self.decisions,
            decision_s=limits.decision_s,
            reserve_s=self.reserve[seat],
        )
        allowed_s = limits.decision_s + self.reserve[seat]
        begun = self.clock()
        window = None if self.meters is None else self.meters[seat].window(allowed_s)
        # tuple.__new__: the named tuple without its Python-level constructor
        self.pending = pending = tuple.__new__(_Pending, (seat, series.hand_number, begun,
                                                          window))
        client = self.clients[seat]
        try:
            if window is None:
                action = client.decide(request, legal, allowed_s=allowed_s)
            else:
                action = client.decide(request, legal, allowed_s=allowed_s, window=window)
        except BotFault:
            self._charge(pending)
            raise
        elapsed = self._charge(pending, note_of(client))
        if self.reserve[seat] < 0:  # answered, but after the cut-off (scheduling jitter)
            figures = "" if window is None else f" ({window.usage().figures()})"
            raise BotFault(FaultKind.TIMEOUT, f"answered after {elapsed:.3f} s; "
                           f"{allowed_s:.3f} s allowed (deadline + reserve left)"
                           f"{figures}")
        return action

    def _charge(self, pending: _Pending, note: str = "") -> float:
        """Past the deadline the reserve pays: then only the bot's own time. The
        time (and the bot's debug note) is recorded for the seat's owner."""
        window, seat = pending.window, pending.seat
        elapsed = (self.clock() - pending.begun if window is None
                   else window.charged_s(exact_above=self.limits.decision_s))
        self.recorder.record(seat, pending.hand_number, self.decisions, elapsed, note)
        self.think[seat] += elapsed
        self.reserve[seat] -= max(0.0, elapsed - self.limits.decision_s)
        return elapsed

    def forfeit(self, fault: BotFault) -> PlayedMatch:
        """End the series on ``fault`` of the pending decision's seat."""
        pending = self.pending
        assert pending is not None
        seat = pending.seat
        fault.seat, fault.hand_number, fault.decision_number = (
            seat, pending.hand_number, self.decisions)
        if self.on_event is not None:
            self.on_event({"type": "fault", **fault.public_dict()})
        _notify_series_end(self.clients, self.series, self.series_id, self.limits,
                           self.hands_played, fault)
        return self.finish(one_seat_fault(seat, fault))

    def stuck(self, seat: int, verdict: Exception) -> PlayedMatch:
        """End the match for the pending call of ``seat``, abandoned at its cut-off
        (called by the supervisor; the match thread does nothing more)."""
        pending = self.pending
        assert pending is not None and pending.seat == seat
        self._charge(pending)
        if not isinstance(verdict, BotFault):
            raise verdict  # the machine starved the bot: the series is void
        return self.forfeit(verdict)


def note_of(client: BotConnection) -> str:
    """The debug note ``client``'s bot sent with its last answer ("" if none, or a
    connection that carries none)."""
    note = getattr(client, "last_note", "")
    return note if isinstance(note, str) else ""


def _notify_series_end(
    clients: tuple[BotConnection, BotConnection],
    series: Series,
    series_id: str,
    limits: TimeLimits,
    hands_played: int,
    fault: BotFault | None,
) -> None:
    for seat, client in enumerate(clients):
        request = protocol.series_ended_request(
            None if fault is not None else series.result, series.sheet, seat, series_id,
            hands_played=hands_played, fault=fault,
        )
        client.series_ended(request, timeout=limits.decision_s)
