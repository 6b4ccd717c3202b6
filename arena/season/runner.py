"""Playing a season: ``SeasonRunner`` plays the stored plan's pending series through
an executor, storing each result the moment it is known, and asks the season's
format for the next round whenever every planned series has a result.

The loop, each step read back from the database so that a run killed at any point
(even ``kill -9``) resumes to exactly the same season:

1. play the planned series that have no stored result (``capacity`` of them
   submitted at a time, the next one chosen by ``arena.season.play_order``; each
   result stored in one transaction, idempotently);
2. when none is left, give the format every stored result, round by round; store
   the round it answers (one transaction), or finish when it answers None.

Every outcome is verified before it is stored (``arena.season.verify_policy``: its
log replayed, here on a sample): a refused outcome is logged with where it was
played and counted (``outcomes_refused``), that player gets no more series of the
season (an executor that ``ExcludesPlayers``), and the series is played again, at
most ``MAX_PLAYS`` times in all, so the season ends exactly as planned. A
forfeit another machine reports is stored (and counted toward deactivation) only
once a play elsewhere confirms it (``arena.season.forfeits``).

Cancelling stops submitting: series in flight finish and are stored. An arena-side
error (a failed series, a format that cannot plan) stops the season as failed,
saying why; nothing of the failed step is stored.

A series the machine starved (``ArenaOverload``: a bot was not run, not a bot's
fault) is void: stored as such (``arena.storage.voids``), never as a result, and,
still pending, played again from the same seed and seats once the series in hand
are done. After ``MAX_VOID_TRIES`` voids of one series in a run the season pauses
(stops as failed, saying so; starting it again resumes it with fresh tries).
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import replace
from typing import Final

from arena.core.faults import ArenaOverload, FaultKind
from arena.core.series import BotRef, SeriesOutcome, SeriesSpec
from arena.core.status import SeasonStatus
from arena.execution import ExcludesPlayers, Executor, PlaysElsewhere
from arena.season.events import EventHub, SeasonEvent
from arena.season.forfeits import RemoteForfeits, deactivated_forfeit
from arena.season.formats import Format, OpenEnded, PlannedUpFront, format_for
from arena.season.ladder_gating import GateMatches
from arena.season.open_rounds import RoundsRead, plan_open_round
from arena.season.play_order import next_to_play
from arena.season.standings_live import StandingsBoard
from arena.season.verify import SERIES, OutcomeCheck, OutcomeMismatch
from arena.season.verify_policy import outcome_check_for
from arena.storage import (
    PlannedSeries,
    Storage,
    count_refused_outcome,
    deactivate_if_streak,
    deal_key,
    record_void,
    vetted_code,
)

log = logging.getLogger(__name__)

MAX_VOID_TRIES: Final = 3
"""Voids of one series (arena overload) in one run before the season pauses."""

MAX_PLAYS = 3
"""Plays of one series whose outcomes are refused before the season fails."""

IDLE_WAIT_S: Final = 5.0
"""A ladder short of members waits this long before it looks again (a cancel ends it)."""


class FormatError(RuntimeError):
    """A format answered something the runner cannot play (e.g. an empty round)."""


class SeasonRunner:
    """Plays one season to its end (or a cancel, or an arena-side error); see the
    module docstring. ``duplicates_dropped`` counts results that arrived for a
    series already stored (an executor that played it twice) and were dropped."""

    def __init__(
        self,
        storage: Storage,
        season_id: int,
        executor: Executor,
        *,
        hub: EventHub | None = None,
        cancel: threading.Event | None = None,
        season_format: Format | None = None,
        board: StandingsBoard | None = None,
        verify: OutcomeCheck | None = None,
        gate_matches: GateMatches | None = None,
    ) -> None:
        self.storage = storage
        self.gate_matches = gate_matches or GateMatches(self._play_in_place, lambda _: None)
        """Starts and stops the seasons a gate opens (the manager's ``start``, ``cancel``);
        without, each plays in place to its end: none is unfinished when stopped."""
        self.verify = verify or outcome_check_for(executor)
        """Checks each outcome before it is stored (``arena.season.verify_policy``: all
        replayed from other machines, sampled here); tests may pass another."""
        self.season_id = season_id
        self.executor = executor
        self.hub = hub or EventHub()
        self.cancel = cancel or threading.Event()
        season = storage.get_season(season_id)
        self.config = season.config
        self.deal_key = deal_key(storage, season_id, self.config.seed)  # never shown
        self.profile = season.profile
        self.profile_dict = self.profile.to_dict()
        self.plan = season.plan
        self.bot_ids = season.bot_ids
        self.format = season_format or format_for(self.config.format, self.config)
        self.board = board
        self.rounds_read = RoundsRead()  # a ladder's rounds, each read from storage once
        self._bot_refs: dict[str, BotRef] = {}
        self._error = ""
        self._duplicates = 0
        self._voids: dict[str, int] = {}
        self._refused = 0
        self._plays: dict[str, int] = {}
        self.forfeits = RemoteForfeits()
        """Forfeits reported by other machines, stored once another play confirms them."""

    @property
    def duplicates_dropped(self) -> int:
        return self._duplicates

    @property
    def outcomes_refused(self) -> int:
        """Outcomes refused by verification in this run (each series replayed)."""
        return self._refused

    def run(self) -> SeasonStatus:
        """Play until the format is done, a cancel or an arena-side error; returns
        and stores the season's final status."""
        self._set_status(SeasonStatus.RUNNING)
        complete = False
        while not complete and not self._stopping():
            pending = self.plan.pending()
            if pending:
                self._play(pending)
                continue
            try:
                complete = not self._plan_next_round()
            except Exception as error:
                log.exception("season %d: the format could not plan", self.season_id)
                self._error = f"planning the next round: {type(error).__name__}: {error}"
        if self._error:
            status = SeasonStatus.FAILED
        elif complete or self._is_complete():
            status = SeasonStatus.FINISHED
        else:
            status = SeasonStatus.CANCELLED
        if self._duplicates:
            log.warning("season %d: %d duplicate result(s) dropped", self.season_id,
                        self._duplicates)
        self._set_status(status, self._error)
        return status

    def _stopping(self) -> bool:
        return self.cancel.is_set() or bool(self._error)

    def _set_status(self, status: SeasonStatus, error: str = "") -> None:
        self.storage.set_season_status(self.season_id, status, error)
        self.hub.publish(SeasonEvent("status", self.season_id, status=status))

    # ------------------------------------------------------------ rounds

    def _plan_next_round(self) -> bool:
        """Store the format's next round; False when the season is complete."""
        if isinstance(self.format, PlannedUpFront):
            return False  # no next round: spare reading every result (40,000 at 200 bots)
        if isinstance(self.format, OpenEnded):
            planned = plan_open_round(self.storage, self.season_id, self.format,
                                      self.config, self.gate_matches, self.rounds_read)
            if planned == []:
                self.cancel.wait(IDLE_WAIT_S)  # too few members: wait for bots to join
            return planned is not None
        results = self.storage.results_by_round(self.season_id)
        pairings = self.format.next_round(self.bot_ids, self.deal_key, results)
        if pairings is None:
            return False
        round_number = len(results) + 1
        if not pairings:
            raise FormatError(f"the format planned an empty round {round_number} "
                              "(it must answer None when the season is complete)")
        unknown = {bot for p in pairings for bot in (p.seat0, p.seat1)} - set(self.bot_ids)
        if unknown:
            raise FormatError(f"round {round_number} pairs bots outside the season: "
                              + ", ".join(sorted(unknown)))
        # False when another runner stored this round first: both read it back.
        self.storage.add_round(self.season_id, round_number, [p.as_row() for p in pairings])
        return True

    def _play_in_place(self, season_id: int) -> None:
        """Play another season (a gate match) to its end on this runner's executor."""
        SeasonRunner(self.storage, season_id, self.executor, hub=self.hub, cancel=self.cancel,
                     board=self.board, verify=self.verify).run()

    def _is_complete(self) -> bool:
        """Whether a stopped season has nothing left: no pending series, no next round."""
        if self.plan.pending():
            return False
        if isinstance(self.format, PlannedUpFront):
            return True
        if isinstance(self.format, OpenEnded):
            rounds = self.storage.results_by_round(self.season_id)
            return self.format.over(len(rounds))
        try:
            results = self.storage.results_by_round(self.season_id)
            return self.format.next_round(self.bot_ids, self.deal_key, results) is None
        except Exception:  # a format that cannot plan has more to play, not less
            return False

    # ------------------------------------------------------------ series

    def _play(self, pending: list[PlannedSeries]) -> None:
        """Play ``pending`` keeping the executor's capacity busy; return when all
        are stored, or (cancel, error) when those in flight are."""
        waiting = deque(pending)  # mostly taken from the front: a big season's is long
        in_flight: dict[Future[SeriesOutcome], PlannedSeries] = {}
        while waiting or in_flight:
            while waiting and len(in_flight) < self.executor.capacity and not self._stopping():
                index = next_to_play(waiting, in_flight.values())
                planned = waiting[index]
                del waiting[index]
                try:
                    forfeit = deactivated_forfeit(self.storage, planned, self.profile,
                                                  self.config.max_hands)
                    future = (self.executor.submit(self._spec(planned)) if forfeit is None
                              else _done(forfeit))
                except Exception as error:
                    self._fail(planned, error)
                    break
                self.hub.publish(SeasonEvent("series_started", self.season_id,
                                             series_id=planned.series_id, planned=planned))
                in_flight[future] = planned
            if not in_flight:
                return
            done, _ = wait(in_flight, return_when=FIRST_COMPLETED)
            for future in done:
                planned = in_flight.pop(future)
                again = self._store(planned, future)
                if again is not None:
                    in_flight[again] = planned

    def _store(self, planned: PlannedSeries,
               future: Future[SeriesOutcome]) -> Future[SeriesOutcome] | None:
        """Verify and store ``future``'s outcome; the future of the series played
        again when the outcome was refused."""
        try:
            outcome = future.result()
        except ArenaOverload as overload:
            self._void(planned, overload)
            return None
        except Exception as error:
            self._fail(planned, error)
            return None
        try:
            if outcome.series_id != planned.series_id:
                raise OutcomeMismatch(SERIES, f"an outcome of series {outcome.series_id!r}")
            self.verify(outcome, seed=planned.seed, profile=self.profile,
                        max_hands=self.config.max_hands, swap_seats=planned.swap_seats)
            confirmed = self.forfeits.settle(planned.series_id, outcome)
        except OutcomeMismatch as mismatch:
            return self._refuse(planned, outcome, mismatch)
        except Exception as error:
            self._fail(planned, error)
            return None
        if confirmed is None:  # a remote forfeit: played again away from its player
            return self._play_again(planned)
        outcome = confirmed
        try:
            stored = self.storage.store_result(planned, outcome, self.profile_dict)
        except Exception as error:
            self._fail(planned, error)
            return None
        if stored:
            self._count_faults(planned, outcome)
            if self.board is not None:  # applied before watchers hear of the result
                try:
                    self.board.record(self.season_id, stored)
                except Exception:  # the result is stored; readers recompute on demand
                    log.exception("season %d: updating the live standings failed",
                                  self.season_id)
            self.hub.publish(SeasonEvent("series_finished", self.season_id,
                                         series_id=planned.series_id,
                                         forfeit=outcome.fault is not None,
                                         planned=planned, result=stored))
        else:
            self._duplicates += 1
            log.warning("series %s already had a result; the new one was dropped "
                        "(%d dropped in this run)", planned.series_id, self._duplicates)
        return None

    def _refuse(self, planned: PlannedSeries, outcome: SeriesOutcome,
                mismatch: OutcomeMismatch) -> Future[SeriesOutcome] | None:
        """Count and log a refused outcome, keep its player away from the season,
        and play the series again (None once it was played ``MAX_PLAYS`` times)."""
        self._refused += 1
        try:
            count_refused_outcome(self.storage, self.season_id)
        except Exception:  # the count is for the organiser; the refusal stands without it
            log.exception("season %d: counting a refused outcome failed", self.season_id)
        player = outcome.played_by or "this arena"
        log.error("season %d: the outcome of series %s played by %s was refused (%s); "
                  "%d refused in this run", self.season_id, planned.series_id, player, mismatch,
                  self._refused)
        if isinstance(self.executor, ExcludesPlayers) and outcome.played_by:
            self.executor.exclude(outcome.played_by, planned.series_id)
        plays = self._plays[planned.series_id] = self._plays.get(planned.series_id, 1) + 1
        if plays > MAX_PLAYS:
            self._fail(planned, RuntimeError(
                f"{plays - 1} outcome(s) refused, the last played by {player}: {mismatch}"))
            return None
        return self._play_again(planned)

    def _play_again(self, planned: PlannedSeries) -> Future[SeriesOutcome] | None:
        """Submit ``planned`` again (None when stopping: a resumed season plays it);
        while a remote forfeit of it waits for confirmation, away from its player."""
        if self._stopping():
            return None
        claimer = self.forfeits.claimer(planned.series_id)
        try:
            if claimer and isinstance(self.executor, PlaysElsewhere):
                return self.executor.submit_elsewhere(self._spec(planned), claimer)
            return self.executor.submit(self._spec(planned))
        except Exception as error:
            self._fail(planned, error)
            return None

    def _void(self, planned: PlannedSeries, overload: ArenaOverload) -> None:
        """Store the void; the series stays pending (played again), or, voided too
        often in this run, the season pauses."""
        try:
            record_void(self.storage, self.season_id, planned.series_id, overload.message)
        except Exception as error:
            self._fail(planned, error)
            return
        tries = self._voids[planned.series_id] = self._voids.get(planned.series_id, 0) + 1
        log.warning("season %d: series %s voided for arena overload (%d of %d): %s",
                    self.season_id, planned.series_id, tries, MAX_VOID_TRIES, overload.message)
        if tries >= MAX_VOID_TRIES and not self._error:
            self._error = (
                f"paused: series {planned.series_id} was voided {tries} times in a row because "
                f"the machine did not run its bots (arena overload; no bot was charged). "
                f"Last: {overload.message}. Start the season again when the machine has "
                "room; it resumes where it stopped")

    def _fail(self, planned: PlannedSeries, error: Exception) -> None:
        log.error("series %s failed on the arena's side", planned.series_id, exc_info=error)
        if not self._error:
            self._error = f"series {planned.series_id}: {type(error).__name__}: {error}"

    def _count_faults(self, planned: PlannedSeries, outcome: SeriesOutcome) -> None:
        """Deactivate a bot whose fault streak reached the season's limit."""
        seats = (planned.seat0_bot, planned.seat1_bot)
        for bot_id, fault in zip(seats, outcome.seat_faults, strict=True):
            if fault is None or fault.kind is FaultKind.DEACTIVATED:
                continue  # a deactivated bot's forfeits are not new faults
            if deactivate_if_streak(self.storage, bot_id, self.season_id,
                                    self.config.deactivate_after):
                log.warning("season %d: %s deactivated after %d series lost by a fault "
                            "in a row", self.season_id, bot_id, self.config.deactivate_after)

    def _spec(self, planned: PlannedSeries) -> SeriesSpec:
        return SeriesSpec(
            series_id=planned.series_id,
            seed=planned.seed,
            profile=self.profile,
            max_hands=self.config.max_hands,
            swap_seats=planned.swap_seats,
            bots=(self._bot_ref(planned.seat0_bot), self._bot_ref(planned.seat1_bot)),
            limits=self.config.limits,
        )

    def _bot_ref(self, bot_id: str) -> BotRef:
        ref = self._bot_refs.get(bot_id)
        if ref is None:
            # Only the code vetting passed plays (UnvettedCodeError otherwise).
            folder, vetted = vetted_code(self.storage, bot_id)
            ref = replace(BotRef.from_folder(folder), vetted_hash=vetted)
            self._bot_refs[bot_id] = ref
        return ref


def _done(outcome: SeriesOutcome) -> Future[SeriesOutcome]:
    future: Future[SeriesOutcome] = Future()
    future.set_result(outcome)
    return future
