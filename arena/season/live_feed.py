"""One live-update batcher for every watcher of a season: the gRPC ``WatchSeason``
streams (``arena.server.watch``) and the website's live season pages
(``arena.web.live``).

A season anyone watches has ONE hub subscription, read by ONE batcher, however many
watch it: its events are gathered into numbered ``Tick``s (the first event after a
quiet spell at once, then at most one tick per ``interval``, at most ``MAX_BATCH``
series events each), and every watcher reads the same ticks. So a hundred watchers
cost the season runner one queue put per event, not a hundred, and wake once per
tick, not once per stored series; and since every watcher of a view is handed the
same tick, what is sent for that tick (a message, its encoded bytes, a delta) is
built once for all of them.

The feed has no thread of its own: a reader that finds no new tick collects the
next one from the subscription while the other readers wait for it. It keeps the
last ``KEPT_TICKS``; a reader further behind than that resumes at the oldest kept
(``FeedReader.missed`` says it skipped some: its series events are lost, its next
standings are whole).
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from arena.core.status import SeasonStatus
from arena.season.events import EventHub, SeasonEvent, Subscription

TICK_S: Final = 0.1
"""A feed's ticks come at most this often (a terminal redraws a few times a second)."""
MAX_BATCH: Final = 256
"""Series events in one tick at most."""
KEPT_TICKS: Final = 64
SERIES_EVENTS: Final = frozenset({"series_started", "series_finished"})


@dataclass(frozen=True)
class Tick:
    """What happened in a season since the feed's previous tick."""

    number: int
    events: tuple[SeasonEvent, ...]
    """Series started and finished, oldest first."""
    results: bool
    """A result was stored: the standings moved."""
    status: str = ""
    """The last status the season changed to in the tick ('' if none)."""

    @property
    def final(self) -> bool:
        return bool(self.status) and SeasonStatus(self.status).is_terminal


class SeasonFeed:
    """One season's ticks, shared by its readers (thread-safe); numbered from
    ``after`` + 1."""

    def __init__(self, subscription: Subscription, *, interval: float = TICK_S,
                 max_events: int = MAX_BATCH, kept: int = KEPT_TICKS,
                 clock: Callable[[], float] = time.monotonic, after: int = 0) -> None:
        self.interval = interval
        self.max_events = max_events
        self.clock = clock
        self._subscription = subscription
        self._changed = threading.Condition(threading.Lock())
        self._ticks: deque[Tick] = deque(maxlen=kept)
        self._latest = after
        self._collecting = False
        self._tick_at = -math.inf
        self.readers = 0

    @property
    def latest(self) -> int:
        """The number of the latest tick (0 before the first)."""
        return self._latest

    def after(self, number: int, timeout: float) -> list[Tick]:
        """The kept ticks after ``number``, oldest first, waiting at most ``timeout``
        seconds for one (none after that)."""
        with self._changed:
            while self._latest <= number:
                if not self._collecting:
                    self._collecting = True
                    break
                if not self._changed.wait(timeout):
                    return []
            else:
                return [tick for tick in self._ticks if tick.number > number]
        tick = None
        try:
            tick = self._collect(timeout)
        finally:
            with self._changed:
                self._collecting = False
                if tick is not None:
                    self._ticks.append(tick)
                    self._latest = tick.number
                self._changed.notify_all()
        return [] if tick is None else [tick]

    def close(self) -> None:
        """Leave the hub (its last reader has gone)."""
        self._subscription.close()

    def _collect(self, timeout: float) -> Tick | None:
        first = self._subscription.get(timeout)
        if first is None:
            return None
        # The first event after a quiet spell goes at once; in a busy spell the
        # tick waits out its interval, taking every event that came meanwhile.
        wait = 0.0 if first.kind == "status" else max(0.0, self._tick_at + self.interval
                                                      - self.clock())
        events = [first, *self._subscription.collect(wait, self.max_events - 1)]
        self._tick_at = self.clock()
        statuses = [event.status for event in events if event.kind == "status"]
        return Tick(self._latest + 1,
                    tuple(event for event in events if event.kind in SERIES_EVENTS),
                    any(event.kind == "series_finished" for event in events),
                    statuses[-1] if statuses else "")


class FeedReader:
    """One watcher's place in a ``SeasonFeed``; close it (or use it as a context
    manager) when the watcher leaves."""

    def __init__(self, feeds: LiveFeeds, season_id: int, feed: SeasonFeed) -> None:
        self.season_id = season_id
        self.feed = feed
        self.seen = feed.latest
        self.missed = False
        """The last ``next`` skipped ticks the feed no longer kept."""
        self._feeds = feeds

    def next(self, timeout: float) -> list[Tick]:
        """The ticks since this reader's last, waiting at most ``timeout`` seconds."""
        ticks = self.feed.after(self.seen, timeout)
        self.missed = bool(ticks) and ticks[0].number > self.seen + 1
        if ticks:
            self.seen = ticks[-1].number
        return ticks

    def close(self) -> None:
        self._feeds.release(self)

    def __enter__(self) -> FeedReader:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class LiveFeeds:
    """The feed of every season watched now: made for its first reader, its hub
    subscription closed when its last reader leaves."""

    def __init__(self, hub: EventHub, *, interval: float = TICK_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.hub = hub
        self.interval = interval
        self.clock = clock
        self._lock = threading.Lock()
        self._feeds: dict[int, SeasonFeed] = {}
        # A season's tick numbers go on where its last feed stopped: what is built
        # for a tick (``arena.server.watch``) is kept by its number.
        self._numbered: dict[int, int] = {}

    def reader(self, season_id: int) -> FeedReader:
        """A new reader of the season's feed: it reads the ticks made from now on
        (subscribed before the caller reads anything, so nothing falls between)."""
        with self._lock:
            feed = self._feeds.get(season_id)
            if feed is None:
                feed = self._feeds[season_id] = SeasonFeed(
                    self.hub.subscribe(season_id), interval=self.interval, clock=self.clock,
                    after=self._numbered.get(season_id, 0))
            feed.readers += 1
            return FeedReader(self, season_id, feed)

    def release(self, reader: FeedReader) -> None:
        with self._lock:
            feed = reader.feed
            feed.readers -= 1
            if feed.readers == 0 and self._feeds.get(reader.season_id) is feed:
                del self._feeds[reader.season_id]
                self._numbered[reader.season_id] = feed.latest
                feed.close()

    def watched(self) -> int:
        """Seasons with a feed now (one per season, however many read it)."""
        with self._lock:
            return len(self._feeds)
