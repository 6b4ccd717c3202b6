"""The match loop: one :class:`engine.Series` played between two connected bots.

Timing: each decision has a deadline (``TimeLimits.decision_s``); time beyond it is
drawn from the deciding bot's series reserve (``TimeLimits.reserve_s``). The call
is cut off at deadline + reserve left, so a bot that never answers costs at most
that. Only ``Decide`` time counts; notifications are not charged.

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
from typing import Any

from arena.core.faults import BotFault, FaultKind
from arena.core.limits import TimeLimits
from arena.core.series import SeriesOutcome, outcome_of
from arena.match import protocol
from arena.match.connection import BotConnection
from arena.match.decision import Decision
from arena.match.fair_clock import Meter
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


def play_match(
    clients: tuple[BotConnection, BotConnection],
    series: Series,
    limits: TimeLimits,
    on_event: EventSink | None = None,
    *,
    series_id: str = "series",
    clock: Callable[[], float] = time.monotonic,
    meters: tuple[Meter, Meter] | None = None,
) -> PlayedMatch:
    """Play ``series`` to its end or to the first fault.

    ``clients[seat]`` plays ``seat``. ``on_event`` receives every engine event (as
    returned by ``series.apply``) and, on a forfeit, a ``{"type": "fault", ...}`` event.
    ``clock`` measures think time and so drives deadlines and reserves; tests pass a
    fake one to make timing exact.
    """
    started = clock()
    profile = protocol.profile_to_proto(series.profile, series.max_hands)
    reserve = [limits.reserve_s, limits.reserve_s]
    think = [0.0, 0.0]
    decisions = 0
    hands_played = 0

    def finish(winner: int | None, fault: BotFault | None) -> PlayedMatch:
        outcome = outcome_of(series_id, series, winner, fault, (think[0], think[1]),
                             clock() - started)
        return PlayedMatch(outcome, decisions, (max(0.0, reserve[0]), max(0.0, reserve[1])))

    while series.current_player is not None:
        seat = series.current_player
        legal = series.legal_actions()
        decisions += 1
        hand_number = series.hand_number
        request = Decision(
            series.observation(seat), legal, profile,
            series_id=series_id,
            decision_number=decisions,
            deadline_s=limits.decision_s,
            reserve_s=reserve[seat],
        )
        cutoff = limits.decision_s + reserve[seat]
        begun = clock()
        window = None if meters is None else meters[seat].window(cutoff)
        try:
            try:
                if window is None:
                    action = clients[seat].decide(request, legal, timeout=cutoff)
                else:
                    action = clients[seat].decide(request, legal, timeout=cutoff,
                                                  window=window)
            finally:
                # Past the deadline the reserve pays: then only the bot's own time.
                elapsed = (clock() - begun if window is None
                           else window.charged_s(exact_above=limits.decision_s))
                think[seat] += elapsed
                reserve[seat] -= max(0.0, elapsed - limits.decision_s)
            if reserve[seat] < 0:  # answered, but after the cut-off (scheduling jitter)
                figures = "" if window is None else f" ({window.usage().figures()})"
                raise BotFault(FaultKind.TIMEOUT, f"answered after {elapsed:.3f} s; "
                               f"{cutoff:.3f} s allowed (deadline + reserve left)"
                               f"{figures}")
            try:
                events = series.apply(action)
            except ValueError as error:  # IllegalActionError, or invalid declared melds
                raise BotFault(FaultKind.ILLEGAL_ACTION, f"'{action}' rejected: {error}",
                               rejected_action=action.to_dict()) from None
        except BotFault as fault:
            fault.seat, fault.hand_number, fault.decision_number = seat, hand_number, decisions
            if on_event is not None:
                on_event({"type": "fault", **fault.to_dict()})
            _notify_series_end(clients, series, series_id, limits, hands_played, fault)
            return finish(1 - seat, fault)
        for event in events:
            if on_event is not None:
                on_event(event)
            if event.get("type") == "hand_end":
                hands_played += 1
                result = series.hands[event["hand"] - 1].result
                assert result is not None
                for client_seat, client in enumerate(clients):
                    client.hand_ended(
                        protocol.hand_ended_request(result, client_seat, series_id, series.sheet),
                        timeout=limits.decision_s,
                    )
    _notify_series_end(clients, series, series_id, limits, hands_played, None)
    return finish(series.result.winner if series.result is not None else None, None)


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
