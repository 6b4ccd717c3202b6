"""Season statistics kept live for published standings, at a cost per stored series
that does not grow with the season.

Each published table (``standings_live``) gets the statistics of exactly the results
it counts, but two inputs are not rebuilt from scratch each time:

* the results are read once: each call reads only those stored since the last one
  (by ``stored_seq``) and keeps them, so a table of a 40,000-series season does not
  reread 40,000 rows;
* the Bradley-Terry fit (a solve over the whole field, tens of milliseconds at 200
  bots, and its 39,800-cell likelihood-of-superiority matrix) is refitted when the
  results it counts have grown by ``REFIT_GROWTH`` (2 %) and by at least as many
  results as the season has bots, and ``REFIT_INTERVAL_S`` (2 s) have passed since
  the last fit, or when the season has ended. Refits are spread geometrically, never
  closer than a result per bot (a fit's cost grows with the field, so does the gap)
  nor than 2 s (a season storing hundreds of results a second would otherwise refit
  every second or so, a few percent of a core for tables no one reads that
  closely): their cost per stored series stays flat and small. Between refits a
  table shows the latest fit: its Elo and tied marks lag the table by at most 2 %
  of the results (or one result per bot, early on) or 2 s; the final table's are
  exact.

The pace (``arena.season.progress.Pace``) is folded in as results are read, so
it too costs the same per stored series however long the season. Everything else
(the format's row order, columns and sections) is computed from the table's own
results every time.
"""

from __future__ import annotations

import bisect
import heapq
import math
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Final, overload

from arena.season.progress import Pace
from arena.season.season_statistics import SeasonStatistics, rating_fit, season_statistics
from arena.season.standings_live import StandingsSnapshot
from arena.season.statistics.bradley_terry import BradleyTerryFit
from arena.storage import SeasonRecord, SeriesRecord, Storage

REFIT_GROWTH: Final = 0.02
REFIT_INTERVAL_S: Final = 2.0
NEWEST_KEPT: Final = 64
"""The newest results kept in order as they are read (a season page shows a dozen)."""


class ResultsPrefix(Sequence[SeriesRecord]):
    """The first ``length`` of a season's results as read so far: a view, not a
    copy (copying a 9,900-result list for every published table cost more than the
    rest of a 100-bot table's statistics). The list it views is only ever appended
    to, so its first ``length`` never change."""

    def __init__(self, results: list[SeriesRecord], length: int) -> None:
        self._results = results
        self._length = min(length, len(results))

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> SeriesRecord: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[SeriesRecord]: ...

    def __getitem__(self, index: int | slice) -> SeriesRecord | Sequence[SeriesRecord]:
        if isinstance(index, slice):
            return self._results[:self._length][index]
        if not -self._length <= index < self._length:
            raise IndexError(index)
        return self._results[index % self._length]

    def __iter__(self) -> Iterator[SeriesRecord]:
        return (self._results[index] for index in range(self._length))

    def __reversed__(self) -> Iterator[SeriesRecord]:
        return (self._results[index] for index in range(self._length - 1, -1, -1))


class _SeasonInputs:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.results: list[SeriesRecord] = []
        self.pace = Pace()  # has counted ``results``
        self.rating: BradleyTerryFit | None = None
        self.rated = -1  # how many results the fit counts
        self.fitted_at = -math.inf  # on the clock
        # Kept as results are read, so that a page's latest results and faults are
        # not found again among every result on each update:
        self.newest: list[tuple[str, int]] = []  # (finished_at, index), the latest last
        self.faulted: list[int] = []  # the indices of the results with a forfeit

    def add(self, new: Sequence[SeriesRecord]) -> None:
        for index, result in enumerate(new, start=len(self.results)):
            if result.forfeiting_seats:
                self.faulted.append(index)
            key = (result.finished_at, index)
            if len(self.newest) < NEWEST_KEPT or key > self.newest[0]:
                bisect.insort(self.newest, key)
                del self.newest[:-NEWEST_KEPT]
        self.results.extend(new)
        self.pace.extend(new)


class LiveStatistics:
    """The statistics of published standings, season by season."""

    def __init__(self, storage: Storage, *, refit_growth: float = REFIT_GROWTH,
                 refit_interval: float = REFIT_INTERVAL_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.storage = storage
        self.refit_growth = refit_growth
        self.refit_interval = refit_interval
        self.clock = clock
        self._lock = threading.Lock()
        self._seasons: dict[int, _SeasonInputs] = {}
        self.fits = 0
        """How many Bradley-Terry fits were made (for tests and benchmarks)."""

    def _inputs(self, season_id: int) -> _SeasonInputs:
        with self._lock:
            return self._seasons.setdefault(season_id, _SeasonInputs())

    def statistics(self, season: SeasonRecord, snapshot: StandingsSnapshot) -> SeasonStatistics:
        """The statistics of ``snapshot``'s table (the season's first
        ``snapshot.sequence`` stored results)."""
        inputs = self._inputs(season.id)
        with inputs.lock:
            if len(inputs.results) < snapshot.sequence:
                last = inputs.results[-1].stored_seq if inputs.results else 0
                new = self.storage.results_stored_after(season.id, last,
                                                        until=snapshot.sequence)
                inputs.add(new)
            results = ResultsPrefix(inputs.results, snapshot.sequence)
            pace = inputs.pace
            rating = inputs.rating
            if rating is None or self._refit_due(inputs, len(results), len(season.bot_ids),
                                                 season.status.is_terminal):
                rating = rating_fit(season.bot_ids, results)
                self.fits += 1
                if len(results) >= inputs.rated:  # an older table never replaces a newer fit
                    inputs.rating, inputs.rated = rating, len(results)
                    inputs.fitted_at = self.clock()
        return season_statistics(season, results, snapshot.standings, rating=rating, pace=pace)

    def results(self, season_id: int, sequence: int) -> Sequence[SeriesRecord]:
        """The first ``sequence`` stored results of a season, as read for its
        statistics (call ``statistics`` for that sequence first; a view, not a copy)."""
        inputs = self._inputs(season_id)
        with inputs.lock:
            return ResultsPrefix(inputs.results, sequence)

    def newest(self, season_id: int, sequence: int, count: int = NEWEST_KEPT
               ) -> list[SeriesRecord]:
        """The ``count`` newest of the first ``sequence`` results read (call
        ``statistics`` for that sequence first), by the time they finished (stored
        later first within a second): of the kept newest for the latest table."""
        inputs = self._inputs(season_id)
        with inputs.lock:
            results = inputs.results
            if sequence >= len(results) and count <= NEWEST_KEPT:
                keys = inputs.newest[:-count - 1:-1]
            else:  # an older table: found among its results
                keys = heapq.nlargest(count, ((result.finished_at, index) for index, result
                                              in enumerate(results[:sequence])))
            return [results[index] for _, index in keys]

    def faulted(self, season_id: int, sequence: int) -> list[SeriesRecord]:
        """The results with a forfeit among the first ``sequence`` read, in storage
        order (call ``statistics`` for that sequence first)."""
        inputs = self._inputs(season_id)
        with inputs.lock:
            end = bisect.bisect_left(inputs.faulted, sequence)
            return [inputs.results[index] for index in inputs.faulted[:end]]

    def _refit_due(self, inputs: _SeasonInputs, counted: int, bots: int, final: bool) -> bool:
        rated = inputs.rated
        if counted == rated:
            return False
        return final or counted < rated or (counted > rated * (1 + self.refit_growth)
                                            and counted - rated >= bots
                                            and self.clock() >= inputs.fitted_at
                                            + self.refit_interval)
