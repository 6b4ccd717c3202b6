"""Forfeits the season runner makes or must confirm before storing them.

* ``deactivated_forfeit``: a series with a deactivated bot is forfeited without
  starting either bot (made here, so nothing to confirm).
* ``RemoteForfeits``: a forfeit reported by another machine (a cluster worker: a
  crash, a time-out, a start-up failure) passes verification whenever its log stops
  where it says, so the worker's word alone would charge the bot (and count toward
  deactivating it). It is stored only once a play on another worker bears it out:
  the same seat(s) forfeit again. A confirming play that ends cleanly (or charges
  other seats) wins: the claimed forfeit is neither stored nor counted.
"""

from __future__ import annotations

import logging
from typing import Final

from arena.core.faults import BotFault, FaultKind
from arena.core.series import SeriesOutcome, outcome_of
from arena.storage import PlannedSeries, Storage, deactivations_of
from engine.profiles import Profile
from engine.series import Series

log = logging.getLogger(__name__)

MAX_CONFIRMING_PLAYS: Final = 3
"""Plays of one series, after the first forfeit it claimed, that may leave it
unconfirmed before the season stops (each charging other seats)."""


class UnconfirmedForfeitError(RuntimeError):
    """Remote plays of a series kept charging different seats."""


def faulted_seats(outcome: SeriesOutcome) -> frozenset[int]:
    """The seats ``outcome``'s fault charges (empty when it has none)."""
    fault = outcome.fault
    if fault is None:
        return frozenset()
    seats = {fault.seat or 0}
    if fault.other_seat_fault is not None:
        seats.add(1 - (fault.seat or 0))
    return frozenset(seats)


class RemoteForfeits:
    """The remote forfeits of one season run that wait for a confirming play."""

    def __init__(self) -> None:
        self._claimed: dict[str, SeriesOutcome] = {}
        self._plays: dict[str, int] = {}
        self.unconfirmed = 0
        """Remote forfeits a confirming play did not bear out (none stored)."""

    def claimer(self, series_id: str) -> str:
        """Who reported the forfeit of ``series_id`` waiting for confirmation ('' if none)."""
        claimed = self._claimed.get(series_id)
        return claimed.played_by if claimed is not None else ""

    def settle(self, series_id: str, outcome: SeriesOutcome) -> SeriesOutcome | None:
        """The verified ``outcome`` to store now, or None when it is a remote forfeit
        to confirm first (the caller plays the series again away from its player)."""
        claimed = self._claimed.pop(series_id, None)
        remote = bool(outcome.played_by) and outcome.fault is not None
        if claimed is not None and faulted_seats(claimed) == faulted_seats(outcome):
            log.info("series %s: the forfeit %s claimed is confirmed by %s", series_id,
                     claimed.played_by, outcome.played_by or "this arena")
            self._plays.pop(series_id, None)
            return outcome
        if claimed is not None:
            self.unconfirmed += 1
            log.warning("series %s: the forfeit %s claimed (%s) is not confirmed: played "
                        "again, %s; the claim is neither stored nor counted", series_id,
                        claimed.played_by, _what(claimed),
                        f"by {outcome.played_by or 'this arena'}, {_what(outcome)}")
        if not remote:
            self._plays.pop(series_id, None)
            return outcome
        plays = self._plays[series_id] = self._plays.get(series_id, 0) + 1
        if plays > MAX_CONFIRMING_PLAYS:
            raise UnconfirmedForfeitError(
                f"series {series_id}: {plays} remote plays each charged other seats "
                f"(the last by {outcome.played_by}, {_what(outcome)})")
        self._claimed[series_id] = outcome
        return None


def _what(outcome: SeriesOutcome) -> str:
    fault = outcome.fault
    if fault is None:
        return "played out"
    return f"seat {fault.seat} forfeits ({fault.kind})"


def deactivated_forfeit(storage: Storage, planned: PlannedSeries, profile: Profile,
                        max_hands: int) -> SeriesOutcome | None:
    """The forfeit of a series with a deactivated bot, played without starting
    either bot (both deactivated: a draw, both forfeit); None to play it."""
    deactivated = deactivations_of(storage, (planned.seat0_bot, planned.seat1_bot))
    reasons = [deactivated.get(bot_id) for bot_id in (planned.seat0_bot, planned.seat1_bot)]
    faults = [None if reason is None else BotFault(
        FaultKind.DEACTIVATED, f"{bot_id} is deactivated: {reason}", seat=seat)
        for seat, (bot_id, reason) in enumerate(
            zip((planned.seat0_bot, planned.seat1_bot), reasons, strict=True))]
    first, second = faults
    if first is None and second is None:
        return None
    fault = first or second
    assert fault is not None
    if first is not None and second is not None:
        first.other_seat_fault = second
    winner = None if first is not None and second is not None else 1 - (fault.seat or 0)
    series = Series(planned.seed, profile, max_hands=max_hands,
                    swap_seats=planned.swap_seats)
    return outcome_of(planned.series_id, series, winner, fault, (0.0, 0.0), 0.0)
