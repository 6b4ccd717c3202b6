"""What ``WatchSeason`` streams send, and standings as messages built once.

Every stream reads the standings the board published (``arena.season.standings_live``);
the whole table is turned into a message once per change, not once per stream.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

from hollywood.arena.v1 import arena_pb2

from arena.core.status import SeasonStatus
from arena.season.events import SeasonEvent
from arena.season.standings import Standings
from arena.season.standings_live import StandingsBoard, StandingsSnapshot
from arena.server import pages
from arena.server.convert import STATUS_TO_PROTO, series_message, standings_message
from arena.storage import Storage


class StandingsMessages:
    """Published standings as ``Standings`` messages."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self._lock = threading.Lock()
        # Per season: the last whole message and what it was built from (sequence,
        # status, progress).
        self._whole: dict[int, tuple[tuple[int, int, int, int], arena_pb2.Standings]] = {}

    def part(self, snapshot: StandingsSnapshot, table: Standings) -> arena_pb2.Standings:
        """``table`` (a cut of the snapshot's standings) as a message."""
        message = standings_message(self.storage.get_season(snapshot.season_id), table)
        message.sequence = snapshot.sequence
        return message

    def whole(self, snapshot: StandingsSnapshot) -> arena_pb2.Standings:
        """The snapshot's whole standings as a message (built once per change)."""
        season = self.storage.get_season(snapshot.season_id)
        key = (snapshot.sequence, int(STATUS_TO_PROTO[season.status]), season.series_done,
               season.series_total)
        with self._lock:
            cached = self._whole.get(snapshot.season_id)
            if cached is not None and cached[0] == key:
                return cached[1]
            message = standings_message(season, snapshot.standings)
            message.sequence = snapshot.sequence
            self._whole[snapshot.season_id] = (key, message)
            return message


class WatchStream:
    """One ``WatchSeason`` stream's messages: the published standings (cut to the
    rows it asked for), series events and progress."""

    def __init__(self, storage: Storage, board: StandingsBoard, messages: StandingsMessages,
                 season_id: int, top: int, bots: list[str]) -> None:
        self.storage = storage
        self.board = board
        self.messages = messages
        self.season_id = season_id
        self.top = top
        self.bots = bots

    def standings(self) -> arena_pb2.Standings:
        snapshot = self.board.snapshot(self.season_id)
        if not self.top and not self.bots:
            return self.messages.whole(snapshot)
        rows = pages.live_rows(snapshot.standings, self.top, self.bots)
        return self.messages.part(
            snapshot, pages.with_rows(snapshot.standings, rows, crosstable=False))

    def event_messages(self, event: SeasonEvent) -> Iterator[arena_pb2.WatchSeasonResponse]:
        if event.kind == "series_started":
            planned = self.storage.get_planned(event.series_id)
            message = self.message()
            message.series_started.CopyFrom(arena_pb2.SeriesStarted(
                series_id=planned.id, seat0_bot_id=planned.seat0_bot,
                seat1_bot_id=planned.seat1_bot))
            yield message
        elif event.kind == "series_finished":
            planned = self.storage.get_planned(event.series_id)
            message = self.message()
            message.series_finished.series.CopyFrom(
                series_message(planned, self.storage.get_result(planned.id)))
            yield message
            yield self.message(standings=True)
        elif SeasonStatus(event.status).is_terminal:
            yield self.message(standings=True)

    def message(self, *, standings: bool = False) -> arena_pb2.WatchSeasonResponse:
        season = self.storage.get_season(self.season_id)
        message = arena_pb2.WatchSeasonResponse(
            status=STATUS_TO_PROTO[season.status], series_done=season.series_done,
            series_total=season.series_total)
        if standings:
            message.standings.CopyFrom(self.standings())
        return message
