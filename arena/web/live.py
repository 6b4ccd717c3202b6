"""Live season pages: the ticks of a season's live feed (``arena.season.live_feed``,
the one batcher the API's watch streams share) as a ``Broadcast`` source
(``arena.web.broadcast``), fanned out to browsers over Server-Sent Events.

One source per watched season reads the feed and, after a tick with a stored result
or a status change, builds ONE snapshot that every client of that season receives
(encoded once: ``arena.web.live_pages``), so a hundred browsers cost the arena what
one does. A connecting client gets the current snapshot first, so a reconnect, also
after a server restart, always catches up. The back-pressure rules (bounded queues,
a slow client dropped) are the broadcast's.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Hashable
from typing import Final

from arena.season.live_feed import LiveFeeds
from arena.web.broadcast import CLIENT_QUEUE_SIZE, POLL_SECONDS, Broadcast, Message

SNAPSHOT_INTERVAL_S: Final = 0.25
"""A season page's live snapshots come at most this often."""

Snapshot = Callable[[int], str]
"""season id -> the event data (text) describing the season now."""


class SeasonSource:
    """One season's snapshots: one on connect, then one after the feed ticks that
    change the page (series that only started do not), at most one per ``interval``
    (a page re-renders its tables: the feed ticks ten times a second)."""

    def __init__(self, feeds: LiveFeeds, snapshot: Snapshot, season_id: int, *,
                 interval: float = SNAPSHOT_INTERVAL_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.snapshot = snapshot
        self.season_id = season_id
        self.interval = interval
        self.clock = clock
        # A reader before any snapshot is taken: no update falls between the two.
        self._reader = feeds.reader(season_id)
        self._changed = False
        self._sent_at = -math.inf

    def first(self) -> list[Message]:
        return [("snapshot", self.snapshot(self.season_id))]

    def next(self, timeout: float) -> tuple[list[Message], bool]:
        if self._changed:  # a snapshot is due: wait no longer than its interval
            timeout = min(timeout, max(0.0, self._sent_at + self.interval - self.clock()))
        ticks = self._reader.next(timeout)
        self._changed |= self._reader.missed or any(tick.results or tick.status
                                                    for tick in ticks)
        if not self._changed or self.clock() < self._sent_at + self.interval:
            return [], False
        self._changed, self._sent_at = False, self.clock()
        return self.first(), False

    def close(self) -> None:
        self._reader.close()


def season_feed(feeds: LiveFeeds, snapshot: Snapshot, *,
                queue_size: int = CLIENT_QUEUE_SIZE, poll_seconds: float = POLL_SECONDS,
                interval: float = SNAPSHOT_INTERVAL_S) -> Broadcast:
    """The season pages' stream: a ``Broadcast`` keyed by season id."""

    def make_source(key: Hashable) -> SeasonSource:
        assert isinstance(key, int)
        return SeasonSource(feeds, snapshot, key, interval=interval)

    return Broadcast(make_source, queue_size=queue_size, poll_seconds=poll_seconds,
                     name="arena-web-season")
