"""What ``WatchSeason`` streams send, and standings as messages built once.

Every stream of a season reads the season's one live feed (``arena.season.live_feed``:
its events batched into ticks) and the standings the board published
(``arena.season.standings_live``) with their statistics and progress from the
readings every screen shares (``arena.season.readings``). What a tick makes a
stream send (its series events, the standings of the stream's view, whole or as a
delta: ``arena.server.watch_views``) is built and encoded once for every stream,
which sends those bytes as they are (``encoded_watch_handler``).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from dataclasses import replace
from typing import Any, Final

import grpc
from hollywood.arena.v1 import arena_pb2

from arena.season.events import SeasonEvent
from arena.season.live_feed import FeedReader, Tick
from arena.season.readings import SeasonReadings
from arena.season.standings import Standings
from arena.season.standings_live import StandingsBoard, StandingsSnapshot
from arena.server import pages
from arena.server.convert import (
    STATUS_TO_PROTO,
    CrosstableRows,
    series_message,
    standings_message,
)
from arena.server.statistics_convert import LosCells, add_statistics
from arena.server.watch_views import View, ViewUpdate, encode, next_update
from arena.storage import SeasonRecord, Storage, is_sealed

WATCH_POLL_S: Final = 0.5
STANDINGS_INTERVAL_S: Final = 0.25
"""A view's standings are built at most this often (a terminal redraws a few times
a second); a stream's final standings are always fresh."""


class StandingsMessages:
    """Published standings as ``Standings`` messages."""

    def __init__(self, storage: Storage, readings: SeasonReadings | None = None) -> None:
        self.storage = storage
        self.readings = readings if readings is not None else SeasonReadings(storage)
        self._lock = threading.Lock()
        # Per season: the last whole message and what it was built from (sequence,
        # status, progress, with LOS).
        self._whole: dict[int, tuple[tuple[int, ...], arena_pb2.Standings]] = {}
        self._los: dict[int, LosCells] = {}
        self._crosstable_rows: dict[int, CrosstableRows] = {}

    def part(self, snapshot: StandingsSnapshot, table: Standings, *,
             los: bool = False) -> arena_pb2.Standings:
        """``table`` (a cut of the snapshot's standings: some rows, the crosstable of
        those or none) as a message: ranks and statistics as in the whole table, and
        with ``los`` the likelihoods of superiority of its bots. Built without the
        whole message (a 200-bot table has 40,000 crosstable and 40,000 LOS cells)."""
        return self._message(self.storage.get_season(snapshot.season_id), snapshot, table,
                             los)

    def whole(self, snapshot: StandingsSnapshot, *, los: bool = False) -> arena_pb2.Standings:
        """The snapshot's whole standings as a message (built once per change)."""
        season = self.storage.get_season(snapshot.season_id)
        key = (snapshot.sequence, int(STATUS_TO_PROTO[season.status]), season.series_done,
               season.series_total, los)
        with self._lock:
            cached = self._whole.get(snapshot.season_id)
            if cached is not None and cached[0] == key:
                return cached[1]
        message = self._message(season, snapshot, snapshot.standings, los)
        with self._lock:
            self._whole[snapshot.season_id] = (key, message)
        return message

    def _message(self, season: SeasonRecord, snapshot: StandingsSnapshot,
                 table: Standings, los: bool) -> arena_pb2.Standings:
        with self._lock:
            rows = self._crosstable_rows.setdefault(season.id, CrosstableRows())
        message = standings_message(season, table, rows)
        message.sequence = snapshot.sequence
        # Bradley-Terry Elo with intervals, ties, the format's order, bracket, SPRT,
        # pace: over the results the snapshot counts. The LOS matrix (n² cells) only
        # for who asks, each bot's cells built once per fit.
        cells = None
        if los:
            with self._lock:
                cells = self._los.setdefault(season.id, LosCells())
        add_statistics(message, self.readings.statistics(season, snapshot), cells)
        return message


class WatchMessages:
    """What a feed tick makes streams send, built and encoded once for every stream
    that sends it: its series events (batched, or a message each) and the standings
    of each view (``ViewUpdate``)."""

    KEPT: Final = 512

    def __init__(self, storage: Storage, board: StandingsBoard,
                 standings: StandingsMessages, *, reuse_s: float = STANDINGS_INTERVAL_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.storage = storage
        self.board = board
        self.standings_messages = standings
        self.reuse_s = reuse_s
        self.clock = clock
        self._lock = threading.Lock()
        self._build_lock = threading.Lock()
        self._series_build_lock = threading.Lock()
        self._kept: OrderedDict[Hashable, bytes] = OrderedDict()
        self._views: OrderedDict[View, ViewUpdate] = OrderedDict()

    def _shared(self, key: Hashable, build: Callable[[], arena_pb2.WatchSeasonResponse]
                ) -> bytes:
        with self._lock:
            kept = self._kept.get(key)
        if kept is not None:
            return kept
        # Every stream of the season wakes for the same tick at once: one builds, the
        # others wait for its bytes (a build reads storage for each event).
        with self._series_build_lock:
            with self._lock:
                kept = self._kept.get(key)
            if kept is not None:
                return kept
            data = encode(build())
            with self._lock:
                self._kept[key] = data
                while len(self._kept) > self.KEPT:
                    self._kept.popitem(last=False)
        return data

    def _progress(self, season: SeasonRecord) -> arena_pb2.WatchSeasonResponse:
        return arena_pb2.WatchSeasonResponse(
            status=STATUS_TO_PROTO[season.status], series_done=season.series_done,
            series_total=season.series_total)

    def series(self, season_id: int, tick: Tick, *, batch: bool) -> list[bytes]:
        """The tick's series events: one message (``batch``) or a message each."""
        if not tick.events:
            return []
        if batch:
            def build() -> arena_pb2.WatchSeasonResponse:
                message = self._progress(self.storage.get_season(season_id))
                message.series_events.events.extend(self._event(e) for e in tick.events)
                return message
            return [self._shared(("batch", season_id, tick.number), build)]
        return [self._single(season_id, event) for event in tick.events]

    def _single(self, season_id: int, event: SeasonEvent) -> bytes:
        def build() -> arena_pb2.WatchSeasonResponse:
            message = self._progress(self.storage.get_season(season_id))
            series_event = self._event(event)
            if event.kind == "series_started":
                message.series_started.CopyFrom(series_event.started)
            else:
                message.series_finished.CopyFrom(series_event.finished)
            return message
        return self._shared(("single", event.kind, event.series_id), build)

    def _event(self, event: SeasonEvent) -> arena_pb2.SeriesEvent:
        """A series event as a message (from what the event carries; read from
        storage only if it carries nothing)."""
        planned = event.planned or self.storage.get_planned(event.series_id)
        if event.kind == "series_started":
            return arena_pb2.SeriesEvent(started=arena_pb2.SeriesStarted(
                series_id=planned.series_id, seat0_bot=planned.seat0_bot,
                seat1_bot=planned.seat1_bot))
        result = event.result or self.storage.get_result(planned.series_id)
        return arena_pb2.SeriesEvent(finished=arena_pb2.SeriesFinished(
            series=series_message(planned, result,
                                  revealed=not is_sealed(self.storage, planned.series_id))))

    def standings(self, view: View, tick: int | None = None) -> ViewUpdate:
        """The view's standings after feed tick ``tick`` (the first stream to ask
        builds them, every other gets the same; the view's latest if built less than
        ``reuse_s`` ago: a view is built a few times a second however fast results
        come); without ``tick``, as they are now (a stream's first and last
        standings: a new update only if the standings or the season's status or
        counts moved on since the view's latest)."""
        season_id = view[0]
        with self._build_lock:  # the streams that ask meanwhile wait for this build
            latest = self._views.get(view)
            if tick is not None and latest is not None and (
                    latest.tick >= tick or self.clock() < latest.built_at + self.reuse_s):
                return latest
            season = self.storage.get_season(season_id)
            snapshot = self.board.latest(season_id)
            state = (snapshot.sequence, season.status, season.series_done,
                     season.series_total)
            if latest is not None and latest.state == state:
                if tick is not None:
                    latest = self._views[view] = replace(latest, tick=tick)
                return latest
            message = self._progress(season)
            message.standings.CopyFrom(self._view_standings(view, snapshot))
            if tick is None:
                tick = 0 if latest is None else latest.tick
            update = next_update(latest, tick, state, message, deltas=view[4],
                                 built_at=self.clock())
            self._views[view] = update
            self._views.move_to_end(view)
            while len(self._views) > self.KEPT:
                self._views.popitem(last=False)
            return update

    def _view_standings(self, view: View, snapshot: StandingsSnapshot) -> arena_pb2.Standings:
        _, top, bots, los, _ = view
        if not top and not bots:
            return self.standings_messages.whole(snapshot, los=los)
        rows = pages.live_rows(snapshot.standings, top, bots)
        return self.standings_messages.part(
            snapshot, pages.with_rows(snapshot.standings, rows, crosstable=False), los=los)


class WatchStream:
    """One ``WatchSeason`` stream: its first standings, then after each tick of the
    season's feed its series events (batched: one message per tick; or a message
    each) and, when results were stored, the standings of its view (a delta when
    it asked for them and holds the previous ones), until the season ends. Every
    message is the bytes built for every stream of the view."""

    def __init__(self, messages: WatchMessages, view: View, *, batch: bool = False) -> None:
        self.messages = messages
        self.view = view
        self.batch = batch
        self._held = 0  # the number of the view update this stream last sent
        self._held_tick = 0  # and the feed tick it was built for

    def _current(self) -> bytes:
        """The view's standings as they are now (a stream's first and last)."""
        return self._send(self.messages.standings(self.view))

    def _after(self, tick: int) -> bytes | None:
        """The view's standings after ``tick``; None: this stream sent them already."""
        update = self.messages.standings(self.view, tick)
        return None if update.number == self._held else self._send(update)

    def _send(self, update: ViewUpdate) -> bytes:
        data = update.data(self._held)
        self._held, self._held_tick = update.number, update.tick
        return data

    def follow(self, reader: FeedReader, is_active: Callable[[], bool],
               season_over: Callable[[], bool]) -> Iterator[bytes]:
        yield self._current()
        due: int | None = None  # the tick whose standings are still to be sent
        while is_active():
            ticks = reader.next(WATCH_POLL_S if due is None else self.messages.reuse_s)
            if not ticks and due is None:
                if season_over():
                    yield self._current()
                    return
                continue
            for tick in ticks:
                yield from self.messages.series(reader.season_id, tick, batch=self.batch)
            if any(tick.final for tick in ticks):
                yield self._current()
                return
            if any(tick.results for tick in ticks) or reader.missed:
                due = ticks[-1].number
            if due is not None:
                standings = self._after(due)
                if standings is not None:
                    yield standings
                if self._held_tick >= due:
                    due = None


def _as_sent(message: bytes | arena_pb2.WatchSeasonResponse) -> bytes:
    """A response as bytes: a stream's messages are encoded already (once for
    every stream); an error path may still send a message."""
    return message if isinstance(message, bytes) else encode(message)


def encoded_watch_handler(
        behaviour: Callable[[arena_pb2.WatchSeasonRequest, grpc.ServicerContext],
                            Iterator[bytes]]) -> dict[str, grpc.RpcMethodHandler[Any, Any]]:
    """``WatchSeason``'s handler sending the bytes ``behaviour`` yields as they are
    (the generated handler would serialize a message per stream); registered over
    the generated one (``arena.server.app``)."""
    return {"WatchSeason": grpc.unary_stream_rpc_method_handler(
        behaviour, request_deserializer=arena_pb2.WatchSeasonRequest.FromString,
        response_serializer=_as_sent)}
