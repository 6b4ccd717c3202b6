"""One source of standings, statistics and progress for every screen.

The season runner applies each stored result to the server's ``StandingsBoard``
(``standings_live``); ``SeasonReadings`` pairs that board with the season's live
statistics (``statistics_live``: Elo, tied marks, the format's order, columns and
sections, and the pace) and hands every reader the same ``SeasonReading`` of a
published table: the gRPC standings and watch streams (so the terminal) and the
website read it, built once per table, never recomputed from storage on a change.

::

    runner --stores--> storage
       \\--record--> StandingsBoard --snapshot--> SeasonReadings --reading--+--> gRPC (CLI)
                                   LiveStatistics --statistics--/          +--> website

A season nobody has read since the server started (a finished one, a restart) is
built from storage by the same board and statistics on its first read, then kept:
one code path either way. A website without a server (tests, tools) makes a
``SeasonReadings`` over its own storage, which catches up from storage the same way.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from arena.season.progress import Progress
from arena.season.season_statistics import SeasonStatistics
from arena.season.standings import Standings
from arena.season.standings_live import StandingsBoard, StandingsSnapshot
from arena.season.statistics_live import LiveStatistics
from arena.storage import SeasonRecord, SeriesRecord, Storage

KEPT_READINGS: Final = 16
"""Readings kept (a few per season: a season's latest is what is read)."""


@dataclass(frozen=True)
class SeasonReading:
    """A season's published table with everything the screens show of it.
    ``results``: the results the table counts, in storage order."""

    season: SeasonRecord
    snapshot: StandingsSnapshot
    statistics: SeasonStatistics
    results: Sequence[SeriesRecord]
    newest: Sequence[SeriesRecord] = field(default_factory=tuple)
    """The table's newest results, newest first (``LiveStatistics.newest``)."""
    faulted: Sequence[SeriesRecord] = field(default_factory=tuple)
    """The table's results with a forfeit, in storage order."""

    @property
    def standings(self) -> Standings:
        return self.snapshot.standings

    @property
    def progress(self) -> Progress:
        return self.statistics.progress


class SeasonReadings:
    """The readings of every season, shared by all readers (thread-safe)."""

    def __init__(self, storage: Storage, board: StandingsBoard | None = None,
                 statistics: LiveStatistics | None = None) -> None:
        self.storage = storage
        self.board = board if board is not None else StandingsBoard(storage)
        self.live_statistics = statistics if statistics is not None else LiveStatistics(storage)
        self._lock = threading.Lock()
        self._kept: OrderedDict[tuple[object, ...], SeasonReading] = OrderedDict()
        self.builds = 0
        """How many readings were built (for tests: once per change, not per reader)."""

    def read(self, season_id: int) -> SeasonReading:
        """The season's latest table (its results stored so far) and its statistics.
        Raises ``NotFoundError``."""
        return self.of(self.board.snapshot(season_id))

    def of(self, snapshot: StandingsSnapshot,
           season: SeasonRecord | None = None) -> SeasonReading:
        """The reading of ``snapshot``; ``season`` as just read, else read now."""
        season = season or self.storage.get_season(snapshot.season_id)
        # The statistics move with the status (a final refit, no time left once over)
        # and with the plan (a round added changes what a format expects).
        key = (snapshot.season_id, snapshot.sequence, season.status, season.series_total)
        with self._lock:
            kept = self._kept.get(key)
        if kept is not None:
            return kept
        statistics = self.live_statistics.statistics(season, snapshot)
        live, sequence = self.live_statistics, snapshot.sequence
        reading = SeasonReading(season, snapshot, statistics, live.results(season.id, sequence),
                                live.newest(season.id, sequence),
                                live.faulted(season.id, sequence))
        with self._lock:
            self.builds += 1
            self._kept[key] = reading
            while len(self._kept) > KEPT_READINGS:
                self._kept.popitem(last=False)
        return reading

    def statistics(self, season: SeasonRecord, snapshot: StandingsSnapshot
                   ) -> SeasonStatistics:
        """The statistics of ``snapshot`` (through the kept readings)."""
        return self.of(snapshot, season).statistics
