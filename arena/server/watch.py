"""What ``WatchSeason`` streams send, and standings as messages built once.

Every stream reads the standings the board published (``arena.season.standings_live``)
with their statistics and progress from the readings every screen shares
(``arena.season.readings``); the whole table is turned into a message once per
change, not once per stream.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import Final, TypeVar

from google.protobuf.message import Message
from hollywood.arena.v1 import arena_pb2

from arena.core.status import SeasonStatus
from arena.season.events import SeasonEvent, Subscription
from arena.season.readings import SeasonReadings
from arena.season.standings import Standings
from arena.season.standings_live import StandingsBoard, StandingsSnapshot
from arena.server import pages
from arena.server.convert import STATUS_TO_PROTO, series_message, standings_message
from arena.server.statistics_convert import LosCells, add_statistics
from arena.storage import SeasonRecord, Storage, is_sealed

M = TypeVar("M", bound=Message)

WATCH_POLL_S: Final = 0.5
MAX_BATCH: Final = 256
"""Series events in one batched message at most."""
BATCH_INTERVAL_S: Final = 0.1
"""A batching stream sends its series events at most this often."""
SERIES_EVENTS: Final = frozenset({"series_started", "series_finished"})
STANDINGS_INTERVAL_S: Final = 0.25
"""A stream's standings messages come at most this often (the live view redraws
4 times a second)."""


class StandingsMessages:
    """Published standings as ``Standings`` messages."""

    def __init__(self, storage: Storage, readings: SeasonReadings | None = None) -> None:
        self.storage = storage
        self.readings = readings if readings is not None else SeasonReadings(storage)
        self._lock = threading.Lock()
        # Per season: the last whole message and what it was built from (sequence,
        # status, progress).
        self._whole: dict[int, tuple[tuple[int, int, int, int], arena_pb2.Standings]] = {}
        self._los: dict[int, LosCells] = {}

    def part(self, snapshot: StandingsSnapshot, table: Standings) -> arena_pb2.Standings:
        """``table`` (a cut of the snapshot's standings: some rows, the crosstable of
        those or none) as a message: ranks and statistics as in the whole table, the
        likelihoods of superiority of its bots. Built without the whole message (a
        200-bot table has 40,000 crosstable and 40,000 LOS cells)."""
        return self._message(self.storage.get_season(snapshot.season_id), snapshot, table)

    def whole(self, snapshot: StandingsSnapshot) -> arena_pb2.Standings:
        """The snapshot's whole standings as a message (built once per change)."""
        season = self.storage.get_season(snapshot.season_id)
        key = (snapshot.sequence, int(STATUS_TO_PROTO[season.status]), season.series_done,
               season.series_total)
        with self._lock:
            cached = self._whole.get(snapshot.season_id)
            if cached is not None and cached[0] == key:
                return cached[1]
        message = self._message(season, snapshot, snapshot.standings)
        with self._lock:
            self._whole[snapshot.season_id] = (key, message)
        return message

    def _message(self, season: SeasonRecord, snapshot: StandingsSnapshot,
                 table: Standings) -> arena_pb2.Standings:
        message = standings_message(season, table)
        message.sequence = snapshot.sequence
        # Bradley-Terry Elo with intervals, ties, the format's order, bracket, SPRT,
        # pace: over the results the snapshot counts.
        with self._lock:
            los = self._los.setdefault(season.id, LosCells())
        add_statistics(message, self.readings.statistics(season, snapshot), los)
        return message


class WatchMessages:
    """The messages of series events and of standings after them, built once for
    every stream that sends them (streams asking for the same rows share them)."""

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
        self._kept: OrderedDict[Hashable, Message] = OrderedDict()
        # Per view (season, top, bots): when its latest standings message was built.
        self._recent: dict[tuple[int, int, tuple[str, ...]],
                           tuple[float, arena_pb2.WatchSeasonResponse]] = {}
        self._progress: dict[int, tuple[float, arena_pb2.WatchSeasonResponse]] = {}

    def _shared(self, key: Hashable, build: Callable[[], M]) -> M:
        with self._lock:
            kept = self._kept.get(key)
        if kept is not None:
            return kept  # type: ignore[return-value]  # the key names the type
        message = build()
        with self._lock:
            self._kept[key] = message
            while len(self._kept) > self.KEPT:
                self._kept.popitem(last=False)
        return message

    def progress(self, season_id: int, *, fresh: bool = True) -> arena_pb2.WatchSeasonResponse:
        """A message with the season's status and counts; not ``fresh``: read at most
        once per ``BATCH_INTERVAL_S`` for all streams (every stream's batch carries
        them, ten times a second)."""
        if not fresh:
            with self._lock:
                recent = self._progress.get(season_id)
            if recent is not None and self.clock() < recent[0] + BATCH_INTERVAL_S:
                message = arena_pb2.WatchSeasonResponse()
                message.CopyFrom(recent[1])
                return message
        season = self.storage.get_season(season_id)
        message = arena_pb2.WatchSeasonResponse(
            status=STATUS_TO_PROTO[season.status], series_done=season.series_done,
            series_total=season.series_total)
        with self._lock:
            self._progress[season_id] = (self.clock(), message)
        copy = arena_pb2.WatchSeasonResponse()
        copy.CopyFrom(message)
        return copy

    def single(self, season_id: int, event: SeasonEvent) -> arena_pb2.WatchSeasonResponse:
        """One series event as a message of its own (streams that do not batch)."""
        def build() -> arena_pb2.WatchSeasonResponse:
            message = self.progress(season_id)
            series_event = self._event(event)
            if event.kind == "series_started":
                message.series_started.CopyFrom(series_event.started)
            else:
                message.series_finished.CopyFrom(series_event.finished)
            return message
        return self._shared(("single", event.kind, event.series_id), build)

    def batch(self, season_id: int, events: Sequence[SeasonEvent]
              ) -> arena_pb2.WatchSeasonResponse:
        """One message holding ``events`` (series events, oldest first)."""
        message = self.progress(season_id, fresh=False)
        message.series_events.events.extend(
            self._event(event) for event in events)
        return message

    def _event(self, event: SeasonEvent) -> arena_pb2.SeriesEvent:
        """A series event as a message, built once for every stream (from what the
        event carries; read from storage only if it carries nothing)."""
        def build() -> arena_pb2.SeriesEvent:
            planned = event.planned or self.storage.get_planned(event.series_id)
            if event.kind == "series_started":
                return arena_pb2.SeriesEvent(started=arena_pb2.SeriesStarted(
                    series_id=planned.series_id, seat0_bot=planned.seat0_bot,
                    seat1_bot=planned.seat1_bot))
            result = event.result or self.storage.get_result(planned.series_id)
            return arena_pb2.SeriesEvent(finished=arena_pb2.SeriesFinished(
                series=series_message(planned, result,
                                      revealed=not is_sealed(self.storage, planned.series_id))))
        return self._shared((event.kind, event.series_id), build)

    def standings(self, season_id: int, top: int, bots: tuple[str, ...], *,
                  fresh: bool = False) -> arena_pb2.WatchSeasonResponse:
        """The latest published standings cut to the stream's rows; ``fresh``
        builds it anew (a status change publishes no new sequence). Otherwise a
        message built for the same rows less than ``reuse_s`` ago is sent again even
        if results were stored since: however many streams watch a season that
        stores hundreds of results a second, each view is built a few times a
        second (a stream's standings are at most that much behind; its final
        standings are always fresh)."""
        view = (season_id, top, bots)
        if not fresh:
            with self._lock:
                recent = self._recent.get(view)
            if recent is not None and self.clock() < recent[0] + self.reuse_s:
                return recent[1]
        snapshot = self.board.latest(season_id)

        def build() -> arena_pb2.WatchSeasonResponse:
            message = self.progress(season_id)
            if not top and not bots:
                message.standings.CopyFrom(self.standings_messages.whole(snapshot))
            else:
                rows = pages.live_rows(snapshot.standings, top, bots)
                message.standings.CopyFrom(self.standings_messages.part(
                    snapshot, pages.with_rows(snapshot.standings, rows, crosstable=False)))
            return message
        key: tuple[object, ...] = ("standings", season_id, snapshot.sequence, top, bots)
        if fresh:  # the same rows and results, but the season's status or count moved on
            season = self.storage.get_season(season_id)
            key += (season.status, season.series_done)
        # One build per view: the streams that ask meanwhile (all of them when a season
        # ends) wait for it instead of each building the same message.
        with self._build_lock:
            message = self._shared(key, build)
        if fresh:
            return message
        with self._lock:
            self._recent[view] = (self.clock(), message)
            while len(self._recent) > self.KEPT:
                self._recent.pop(next(iter(self._recent)))
        return message


class WatchStream:
    """One ``WatchSeason`` stream: its first message, then its series events, and the
    latest standings after stored results.

    Series events go out a message each, or, for a stream that asks for batches,
    together: a batch at most every ``batch_interval`` seconds (the first event after
    a quiet spell at once), so a season storing hundreds of results a second costs a
    spectator's stream ten messages a second, not hundreds. Standings go out at most
    once per ``interval`` (a terminal redraws a few times a second), and not while
    the stream is behind with events, so a slow stream catches up instead of falling
    behind."""

    def __init__(self, messages: WatchMessages, season_id: int, top: int,
                 bots: Sequence[str], *, batch: bool = False,
                 interval: float = STANDINGS_INTERVAL_S,
                 batch_interval: float = BATCH_INTERVAL_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.messages = messages
        self.season_id = season_id
        self.top = top
        self.bots = tuple(bots)
        self.batch = batch
        self.interval = interval
        self.batch_interval = batch_interval
        self.clock = clock

    def standings(self, *, fresh: bool = False) -> arena_pb2.WatchSeasonResponse:
        return self.messages.standings(self.season_id, self.top, self.bots, fresh=fresh)

    def follow(self, subscription: Subscription, is_active: Callable[[], bool],
               season_over: Callable[[], bool]) -> Iterator[arena_pb2.WatchSeasonResponse]:
        sent_at = self.clock()
        yield self.standings(fresh=True)
        standings_due = False
        pending: list[SeasonEvent] = []  # series events of the next batch
        batch_sent_at = -math.inf
        while is_active():
            if pending:  # collecting a batch: wait out its interval, taking all at once
                events = subscription.collect(
                    max(0.0, batch_sent_at + self.batch_interval - self.clock()),
                    MAX_BATCH - len(pending))
            else:
                wait = WATCH_POLL_S
                if standings_due:
                    wait = min(wait, max(0.0, sent_at + self.interval - self.clock()))
                event = subscription.get(wait)
                if event is None and not standings_due and season_over():
                    yield self.standings(fresh=True)
                    return
                events = [] if event is None else [event]
            for event in events:
                if event.kind in SERIES_EVENTS:
                    if self.batch:
                        pending.append(event)
                    else:
                        yield self.messages.single(self.season_id, event)
                    standings_due |= event.kind == "series_finished"
                elif SeasonStatus(event.status).is_terminal:
                    if pending:
                        yield self.messages.batch(self.season_id, pending)
                    yield self.standings(fresh=True)
                    return
            if pending and (len(pending) >= MAX_BATCH
                            or self.clock() >= batch_sent_at + self.batch_interval):
                yield self.messages.batch(self.season_id, pending)
                pending = []
                batch_sent_at = self.clock()
            if (standings_due and not pending and subscription.empty()
                    and self.clock() >= sent_at + self.interval):
                yield self.standings()
                standings_due = False
                sent_at = self.clock()
