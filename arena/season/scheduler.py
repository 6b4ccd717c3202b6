"""Season scheduling: the round-robin plan, and playing a season's pending series.

The plan (``plan_season``) is fixed when a season is created and stored whole:

* every pair of bots meets ``series_per_pair`` times;
* the series of a pair come in **duplicate pairs**: two series on the same seed, the
  second with the bots exchanged between the seats. The engine deals by seat (seat
  0 always gets the same cards of a seed, and the first dealer is a seat), so the
  exchange alone gives each bot the other's cards and first deal: each bot plays
  both hands of every deal. ``swap_seats`` stays False: setting it as well would
  swap the cards back, and each bot would be dealt its own cards twice (the engine's
  ``swap_seats`` is the other way to a duplicate, with bots kept in their seats,
  which would leave seats unbalanced). An odd ``series_per_pair`` adds one single
  series;
* seats are fair: a duplicate pair gives each bot one series in each seat, and the
  single series are oriented by a balanced round-robin rule, so every bot's seat-0
  and seat-1 counts differ by at most one;
* the order follows the circle method (round by round, every bot once per round),
  so a season stopped halfway has spread its games over all the bots.

``SeasonRunner`` plays the planned series that have no stored result with
``concurrency`` workers, storing each result the moment it is known. It is given a
``RunSeries`` callable (``arena.runner.run_series`` bound to a sandbox in
production, a fake in tests): the seam between scheduling and playing.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from arena.core.series import BotRef, SeriesOutcome, SeriesSpec
from arena.core.settings import MAX_SEED, SeasonConfig
from arena.core.status import SeasonStatus
from arena.season.events import EventHub, SeasonEvent
from arena.storage import PlannedSeries, Storage
from engine.profiles import Profile

log = logging.getLogger(__name__)

RunSeries = Callable[[SeriesSpec], SeriesOutcome]
"""Plays one series and returns its outcome; raises only for arena-side failures."""
RunnerFactory = Callable[[SeasonConfig], RunSeries]
"""Makes the ``RunSeries`` for a season's configuration (e.g. binds its sandbox)."""

_BYE: Final = -1


@dataclass(frozen=True)
class PlanEntry:
    """One planned series: its deal seed, whether seats are swapped, and who sits where."""

    seed: int
    swap_seats: bool
    seat0: str
    seat1: str

    def as_row(self) -> tuple[int, bool, str, str]:
        return (self.seed, self.swap_seats, self.seat0, self.seat1)


def circle_rounds(count: int) -> list[list[tuple[int, int]]]:
    """Round-robin rounds of ``count`` players (circle method): each round pairs
    every player at most once, and each pair (i < j) appears in exactly one round."""
    players = list(range(count))
    if count % 2:
        players.append(_BYE)
    size = len(players)
    rounds: list[list[tuple[int, int]]] = []
    for _ in range(size - 1):
        pairs = []
        for k in range(size // 2):
            a, b = players[k], players[size - 1 - k]
            if _BYE not in (a, b):
                pairs.append((min(a, b), max(a, b)))
        rounds.append(pairs)
        players = [players[0], players[-1], *players[1:-1]]
    return rounds


def home_seat_first(i: int, j: int, count: int) -> bool:
    """Whether player ``i`` (< ``j``) takes seat 0 in a single series against ``j``.

    A rotational rule: ``i`` is "home" when ``j`` lies in the half of the circle
    after ``i``. Every player is home against (count-1)//2 or count//2 opponents, so
    seat counts stay within one of each other."""
    distance = (j - i) % count
    return 1 <= distance <= (count - 1) // 2 or 2 * distance == count


def derive_seed(season_seed: int, i: int, j: int, cycle: int) -> int:
    """The deal seed of one meeting of players i and j, derived from the season seed
    (stable across Python versions and processes)."""
    digest = hashlib.sha256(f"hollywood-season:{season_seed}:{i}:{j}:{cycle}".encode()).digest()
    return int.from_bytes(digest[:8], "big") & MAX_SEED


def plan_season(bot_ids: Sequence[str], series_per_pair: int, seed: int) -> list[PlanEntry]:
    """The full series plan of a season; see the module docstring."""
    if len(bot_ids) < 2:
        raise ValueError("a season needs at least two bots")
    if len(set(bot_ids)) != len(bot_ids):
        raise ValueError("a season's bots must be distinct")
    if series_per_pair < 1:
        raise ValueError("series_per_pair must be at least 1")
    count = len(bot_ids)
    plan: list[PlanEntry] = []
    cycles = (series_per_pair + 1) // 2
    for cycle in range(cycles):
        duplicate = 2 * (cycle + 1) <= series_per_pair
        for round_pairs in circle_rounds(count):
            for i, j in round_pairs:
                home_first = home_seat_first(i, j, count)
                if cycle % 2:
                    home_first = not home_first
                first, second = (i, j) if home_first else (j, i)
                seed_ij = derive_seed(seed, i, j, cycle)
                plan.append(PlanEntry(seed_ij, False, bot_ids[first], bot_ids[second]))
                if duplicate:
                    plan.append(PlanEntry(seed_ij, False, bot_ids[second], bot_ids[first]))
    return plan


# ---------------------------------------------------------------- running a season


class SeasonRunner:
    """Plays one season's pending series and stores their results."""

    def __init__(
        self,
        storage: Storage,
        season_id: int,
        run_series: RunSeries,
        *,
        hub: EventHub | None = None,
        cancel: threading.Event | None = None,
    ) -> None:
        self.storage = storage
        self.season_id = season_id
        self.run_series = run_series
        self.hub = hub or EventHub()
        self.cancel = cancel or threading.Event()
        season = storage.get_season(season_id)
        self.config = SeasonConfig.from_dict(season.config)
        self.profile = Profile.from_dict(season.profile)
        self._bot_refs: dict[str, BotRef] = {}
        self._lock = threading.Lock()
        self._pending: list[PlannedSeries] = []
        self._error: str = ""

    def run(self) -> str:
        """Play every pending series (``concurrency`` at a time) until done, cancelled
        or an arena-side error; returns and stores the season's final status."""
        self._pending = self.storage.pending_series(self.season_id)
        self._set_status(SeasonStatus.RUNNING)
        workers = [
            threading.Thread(target=self._work, name=f"season-{self.season_id}-worker-{n}",
                             daemon=True)
            for n in range(min(self.config.concurrency, max(1, len(self._pending))))
        ]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        if self._error:
            status = SeasonStatus.FAILED
        elif self.storage.pending_series(self.season_id):
            status = SeasonStatus.CANCELLED
        else:
            status = SeasonStatus.FINISHED
        self._set_status(status, self._error)
        return status

    def _set_status(self, status: str, error: str = "") -> None:
        self.storage.set_season_status(self.season_id, status, error)
        self.hub.publish(SeasonEvent("status", self.season_id, status=status))

    def _next(self) -> PlannedSeries | None:
        with self._lock:
            if self.cancel.is_set() or self._error or not self._pending:
                return None
            return self._pending.pop(0)

    def _work(self) -> None:
        while (planned := self._next()) is not None:
            try:
                self._play(planned)
            except Exception as error:  # an arena-side failure stops the season
                log.exception("series %s failed on the arena's side", planned.id)
                with self._lock:
                    if not self._error:
                        self._error = f"series {planned.id}: {type(error).__name__}: {error}"

    def _play(self, planned: PlannedSeries) -> None:
        spec = SeriesSpec(
            series_id=planned.id,
            seed=planned.seed,
            profile=self.profile,
            max_hands=self.config.max_hands,
            swap_seats=planned.swap_seats,
            bots=(self._bot_ref(planned.seat0_bot), self._bot_ref(planned.seat1_bot)),
            limits=self.config.limits,
        )
        self.hub.publish(SeasonEvent("series_started", self.season_id, series_id=planned.id))
        outcome = self.run_series(spec)
        if outcome.series_id != planned.id:
            raise RuntimeError(f"runner answered for series {outcome.series_id!r}")
        if self.storage.store_result(planned, outcome, self.profile.to_dict()):
            self.hub.publish(
                SeasonEvent("series_finished", self.season_id, series_id=planned.id)
            )
        else:
            log.warning("series %s already had a result; the new one was dropped", planned.id)

    def _bot_ref(self, bot_id: str) -> BotRef:
        with self._lock:
            cached = self._bot_refs.get(bot_id)
        if cached is not None:
            return cached
        record = self.storage.get_bot(bot_id)
        ref = BotRef.from_folder(record.folder)
        with self._lock:
            self._bot_refs[bot_id] = ref
        return ref


class SeasonManager:
    """Runs seasons in background threads: one ``SeasonRunner`` per running season.
    ``resume_interrupted`` restarts every season a stopped server left RUNNING."""

    def __init__(self, storage: Storage, runner_factory: RunnerFactory, hub: EventHub) -> None:
        self.storage = storage
        self.runner_factory = runner_factory
        self.hub = hub
        self._lock = threading.Lock()
        self._threads: dict[int, threading.Thread] = {}
        self._cancels: dict[int, threading.Event] = {}

    def is_active(self, season_id: int) -> bool:
        with self._lock:
            thread = self._threads.get(season_id)
            return thread is not None and thread.is_alive()

    def start(self, season_id: int) -> None:
        """Start playing a season's pending series in the background (no-op if it
        is playing already)."""
        with self._lock:
            thread = self._threads.get(season_id)
            if thread is not None and thread.is_alive():
                return
            self.storage.get_season(season_id)  # NotFoundError before anything changes
            cancel = threading.Event()
            # Marked RUNNING before the call returns, so readers never see it idle.
            self.storage.set_season_status(season_id, SeasonStatus.RUNNING)
            thread = threading.Thread(target=self._run, args=(season_id, cancel),
                                      name=f"season-{season_id}", daemon=True)
            self._threads[season_id] = thread
            self._cancels[season_id] = cancel
            thread.start()

    def _run(self, season_id: int, cancel: threading.Event) -> None:
        # The runner (e.g. a Docker sandbox, which may first build the base image) is
        # made here, off the RPC thread; if it cannot be made the season fails with why.
        try:
            config = SeasonConfig.from_dict(self.storage.get_season(season_id).config)
            run = self.runner_factory(config)
            SeasonRunner(self.storage, season_id, run, hub=self.hub, cancel=cancel).run()
        except Exception as error:
            log.exception("season %d stopped", season_id)
            self.storage.set_season_status(
                season_id, SeasonStatus.FAILED, f"{type(error).__name__}: {error}")
            self.hub.publish(SeasonEvent("status", season_id, status=SeasonStatus.FAILED))

    def cancel(self, season_id: int) -> None:
        """Stop starting new series of a season; series in flight finish and are stored."""
        with self._lock:
            cancel = self._cancels.get(season_id)
            thread = self._threads.get(season_id)
        if cancel is not None and thread is not None and thread.is_alive():
            cancel.set()
        else:
            self.storage.set_season_status(season_id, SeasonStatus.CANCELLED)
            self.hub.publish(SeasonEvent("status", season_id, status=SeasonStatus.CANCELLED))

    def resume_interrupted(self) -> list[int]:
        """Start every season left RUNNING by a previous server; returns their ids."""
        resumed = self.storage.seasons_with_status(SeasonStatus.RUNNING)
        for season_id in resumed:
            log.info("resuming season %d", season_id)
            self.start(season_id)
        return resumed

    def wait(self, season_id: int, timeout: float | None = None) -> bool:
        """Wait for a season's thread; True if it is no longer playing."""
        with self._lock:
            thread = self._threads.get(season_id)
        if thread is not None:
            thread.join(timeout)
            return not thread.is_alive()
        return True

