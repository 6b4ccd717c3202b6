"""Live standings: one incrementally updated ``StandingsState`` per season, shared
by every reader.

The season runner calls ``StandingsBoard.update`` right after it stores a result:
the board reads the results stored since its last update (by ``stored_seq``, from
the narrow result rows), applies them and publishes an immutable snapshot with that
sequence number. Every ``GetStandings`` call and ``WatchSeason`` stream reads the
published snapshot: nothing is recomputed per reader. ``recompute`` rebuilds a
season's state from every stored result (``arena standings --recompute``); it gives
the same numbers because both apply results in storage order. A server's first
read of a season (e.g. after a restart or a schema migration) is a full recompute.

A few recent snapshots are kept so that a paged read can finish on the snapshot it
began with; an older one is recomputed from the results stored up to its sequence.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Final

from arena.season.standings import Standings, StandingsState, compute_standings
from arena.storage import SeriesRecord, Storage

KEPT_SNAPSHOTS: Final = 16


@dataclass(frozen=True)
class StandingsSnapshot:
    """A season's standings after its first ``sequence`` stored results."""

    season_id: int
    sequence: int
    standings: Standings


class _Season:
    def __init__(self, state: StandingsState) -> None:
        self.lock = threading.Lock()
        self.state = state
        self.latest: StandingsSnapshot | None = None
        self.kept: OrderedDict[int, StandingsSnapshot] = OrderedDict()


class StandingsBoard:
    """The published standings of every season the server has read."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self._lock = threading.Lock()
        self._seasons: dict[int, _Season] = {}

    def _season(self, season_id: int) -> _Season:
        with self._lock:
            season = self._seasons.get(season_id)
            if season is None:
                bots = self.storage.get_season(season_id).bot_ids  # NotFoundError first
                season = _Season(StandingsState(bots))
                self._seasons[season_id] = season
            return season

    def update(self, season_id: int, stored: SeriesRecord | None = None) -> StandingsSnapshot:
        """Apply the results stored since the last update and publish (the first
        call for a season reads all of them); returns the published snapshot.
        ``stored``: the result the caller has just stored, applied without reading
        it back when it is the next in storage order."""
        season = self._season(season_id)
        with season.lock:
            if stored is not None and stored.stored_seq == season.state.sequence + 1:
                new = [stored]
            else:
                new = self.storage.results_stored_after(season_id, season.state.sequence)
            for result in new:
                season.state.apply(result)
            if new or season.latest is None:
                return self._publish(season, season_id)
            return season.latest

    def snapshot(self, season_id: int) -> StandingsSnapshot:
        """The latest published standings (brought up to date first: cheap when
        nothing new was stored)."""
        return self.update(season_id)

    def latest(self, season_id: int) -> StandingsSnapshot:
        """The last published standings, without looking for newer results (the
        runner publishes after every stored result); the first call publishes."""
        season = self._season(season_id)
        with season.lock:
            latest = season.latest
        return latest if latest is not None else self.update(season_id)

    def at(self, season_id: int, sequence: int) -> StandingsSnapshot:
        """The standings after exactly ``sequence`` stored results: a kept snapshot,
        else recomputed from the results stored up to it."""
        latest = self.update(season_id)
        if sequence >= latest.sequence:
            return latest
        season = self._season(season_id)
        with season.lock:
            kept = season.kept.get(sequence)
        if kept is not None:
            return kept
        bots = self.storage.get_season(season_id).bot_ids
        table = compute_standings(
            bots, self.storage.results_stored_after(season_id, 0, until=sequence))
        return StandingsSnapshot(season_id, sequence, table)

    def recompute(self, season_id: int) -> StandingsSnapshot:
        """Rebuild the season's state from every stored result and publish it."""
        bots = self.storage.get_season(season_id).bot_ids
        season = self._season(season_id)
        with season.lock:
            state = StandingsState(bots)
            for result in self.storage.results_stored_after(season_id):
                state.apply(result)
            season.state = state
            return self._publish(season, season_id)

    @staticmethod
    def _publish(season: _Season, season_id: int) -> StandingsSnapshot:
        snapshot = StandingsSnapshot(season_id, season.state.sequence, season.state.table())
        season.latest = snapshot
        season.kept[snapshot.sequence] = snapshot
        while len(season.kept) > KEPT_SNAPSHOTS:
            season.kept.popitem(last=False)
        return snapshot
