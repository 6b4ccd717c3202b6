"""Live standings: one incrementally updated ``StandingsState`` per season, shared
by every reader.

The season runner calls ``StandingsBoard.record`` right after it stores a result:
the board applies it (and reads any result stored before it that it has not seen,
by ``stored_seq``, from the narrow result rows). The first read after that publishes
an immutable snapshot with that sequence number, which every ``GetStandings`` call
and ``WatchSeason`` stream then shares: nothing is recomputed per reader, and a
table is built once per sequence that is read, not once per stored result.
``recompute`` rebuilds a season's state from every stored result (``arena standings
--recompute``); it gives the same numbers because both apply results in storage
order. A server's first read of a season (e.g. after a restart or a schema
migration) starts from the season's standings checkpoint, saved every
``CHECKPOINT_EVERY`` results (``arena.season.standings_checkpoint``), and applies
the results stored since; without one it is a full recompute.

A few recent snapshots are kept so that a paged read can finish on the snapshot it
began with; an older one is recomputed from the results stored up to its sequence
when they are few (``MAX_REBUILT_SNAPSHOT``), else its reader starts again: a
reader's token must not make the server replay a big season's million results.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Final

from arena.season import standings_checkpoint
from arena.season.standings import Standings, StandingsState, compute_standings
from arena.storage import (
    SeriesRecord,
    Storage,
    save_standings_checkpoint,
)
from arena.storage import (
    standings_checkpoint as stored_checkpoint,
)

log = logging.getLogger(__name__)

KEPT_SNAPSHOTS: Final = 16
CHECKPOINT_EVERY: Final = 50_000
"""Stored results between two checkpoints of a season's standings: a restart then
applies at most this many (seconds for 1,000 bots), and saving one (about a second
for a 1,000-bot table) costs a few hundredths of a millisecond per result."""
MAX_REBUILT_SNAPSHOT: Final = 2_000
"""Results an older snapshot that is no longer kept is rebuilt from, at most (a
tenth of a second or so; past it ``SnapshotGoneError``)."""


class SnapshotGoneError(LookupError):
    """An older snapshot that is no longer kept and too costly to rebuild."""


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
        self.checkpointed = state.sequence
        """The sequence of the season's last checkpoint (saved or read)."""
        self.saving = False
        self.caught_up = False
        """Whether the results stored after the state it started from were read (a
        checkpoint's state lacks those stored since it)."""


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
                season = _Season(self._restored(season_id) or StandingsState(bots))
                self._seasons[season_id] = season
            return season

    def _restored(self, season_id: int) -> StandingsState | None:
        """The state of the season's checkpoint, or None (no usable checkpoint)."""
        blob = stored_checkpoint(self.storage, season_id)
        if blob is None:
            return None
        try:
            return standings_checkpoint.decode(blob)
        except standings_checkpoint.CheckpointError as error:
            log.warning("season %d: its standings checkpoint %s; rebuilding them from every "
                        "stored result", season_id, error)
            return None

    def _checkpoint_if_due(self, season: _Season, season_id: int) -> None:
        """Save the season's standings when ``CHECKPOINT_EVERY`` results have been
        applied since the last checkpoint: the table is published under the lock, and
        encoded and stored outside it (published tables do not change)."""
        with season.lock:
            if season.saving or season.state.sequence - season.checkpointed < CHECKPOINT_EVERY:
                return
            snapshot = self._current(season, season_id)
            bots, season.saving = season.state.bot_ids, True
        saved = False
        try:
            save_standings_checkpoint(self.storage, season_id, snapshot.sequence,
                                      standings_checkpoint.encode(snapshot.standings, bots,
                                                                  snapshot.sequence))
            saved = True
        finally:
            with season.lock:
                season.saving = False
                if saved:
                    season.checkpointed = snapshot.sequence

    def record(self, season_id: int, stored: SeriesRecord) -> None:
        """Apply the result the runner has just stored (and any stored before it
        that this board has not seen); the table is built when it is next read. A
        big season stores hundreds of results a second and is read a few times a
        second: building a 200-row table for every result cost more than applying it."""
        season = self._season(season_id)
        with season.lock:
            self._catch_up(season, season_id, stored)
        self._checkpoint_if_due(season, season_id)

    def update(self, season_id: int, stored: SeriesRecord | None = None) -> StandingsSnapshot:
        """Apply the results stored since the last update and publish (the first
        call for a season reads all of them); returns the published snapshot.
        ``stored``: the result the caller has just stored, applied without reading
        it back when it is the next in storage order."""
        season = self._season(season_id)
        with season.lock:
            self._catch_up(season, season_id, stored)
            snapshot = self._current(season, season_id)
        self._checkpoint_if_due(season, season_id)
        return snapshot

    def _catch_up(self, season: _Season, season_id: int, stored: SeriesRecord | None) -> None:
        season.caught_up = True
        if stored is not None and stored.stored_seq == season.state.sequence + 1:
            new = [stored]
        else:
            new = self.storage.results_stored_after(season_id, season.state.sequence)
        for result in new:
            if not season.state.knows(result.bots):  # a ladder's bots grow as it plays
                season.state.add_bots(self.storage.get_season(season_id).bot_ids)
            season.state.apply(result)

    def _current(self, season: _Season, season_id: int) -> StandingsSnapshot:
        """The snapshot of the state as applied: the published one, or a new one
        when results were applied since."""
        if season.latest is None or season.latest.sequence != season.state.sequence:
            return self._publish(season, season_id)
        return season.latest

    def snapshot(self, season_id: int) -> StandingsSnapshot:
        """The latest published standings (brought up to date first: cheap when
        nothing new was stored)."""
        return self.update(season_id)

    def latest(self, season_id: int) -> StandingsSnapshot:
        """The standings of every result applied so far (``record`` applies each as
        it is stored), without looking for newer results in storage; the first read
        of a season reads them all."""
        season = self._season(season_id)
        with season.lock:
            if season.caught_up:
                return self._current(season, season_id)
        return self.update(season_id)

    def at(self, season_id: int, sequence: int) -> StandingsSnapshot:
        """The standings after exactly ``sequence`` stored results: a kept snapshot,
        else recomputed from the results stored up to it when there are at most
        ``MAX_REBUILT_SNAPSHOT`` of them; ``SnapshotGoneError`` else."""
        latest = self.update(season_id)
        if sequence >= latest.sequence:
            return latest
        season = self._season(season_id)
        with season.lock:
            kept = season.kept.get(sequence)
        if kept is not None:
            return kept
        if sequence > MAX_REBUILT_SNAPSHOT:
            raise SnapshotGoneError(
                f"the standings after {sequence} results are no longer kept (results came "
                "in meanwhile); read them again from the first page")
        bots = self.storage.get_season(season_id).bot_ids
        table = compute_standings(
            bots, self.storage.results_stored_after(season_id, 0, until=sequence))
        return StandingsSnapshot(season_id, sequence, table)

    def recompute(self, season_id: int) -> StandingsSnapshot:
        """Rebuild the season's state from every stored result and publish it (and
        checkpoint it, replacing a checkpoint the rebuild may be a repair of)."""
        bots = self.storage.get_season(season_id).bot_ids
        season = self._season(season_id)
        with season.lock:
            state = StandingsState(bots)
            for result in self.storage.results_stored_after(season_id):
                state.apply(result)
            season.state = state
            season.checkpointed = 0
            snapshot = self._publish(season, season_id)
        self._checkpoint_if_due(season, season_id)
        return snapshot

    @staticmethod
    def _publish(season: _Season, season_id: int) -> StandingsSnapshot:
        snapshot = StandingsSnapshot(season_id, season.state.sequence, season.state.table())
        season.latest = snapshot
        season.kept[snapshot.sequence] = snapshot
        while len(season.kept) > KEPT_SNAPSHOTS:
            season.kept.popitem(last=False)
        return snapshot
