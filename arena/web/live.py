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

from collections.abc import Callable, Hashable

from arena.season.live_feed import LiveFeeds
from arena.web.broadcast import CLIENT_QUEUE_SIZE, POLL_SECONDS, Broadcast, Message

Snapshot = Callable[[int], str]
"""season id -> the event data (text) describing the season now."""


class SeasonSource:
    """One season's snapshots: one on connect, one after each feed tick that changes
    the page (series that only started do not)."""

    def __init__(self, feeds: LiveFeeds, snapshot: Snapshot, season_id: int) -> None:
        self.snapshot = snapshot
        self.season_id = season_id
        # A reader before any snapshot is taken: no update falls between the two.
        self._reader = feeds.reader(season_id)

    def first(self) -> list[Message]:
        return [("snapshot", self.snapshot(self.season_id))]

    def next(self, timeout: float) -> tuple[list[Message], bool]:
        ticks = self._reader.next(timeout)
        changed = self._reader.missed or any(tick.results or tick.status for tick in ticks)
        return (self.first() if changed else []), False

    def close(self) -> None:
        self._reader.close()


def season_feed(feeds: LiveFeeds, snapshot: Snapshot, *,
                queue_size: int = CLIENT_QUEUE_SIZE,
                poll_seconds: float = POLL_SECONDS) -> Broadcast:
    """The season pages' stream: a ``Broadcast`` keyed by season id."""

    def make_source(key: Hashable) -> SeasonSource:
        assert isinstance(key, int)
        return SeasonSource(feeds, snapshot, key)

    return Broadcast(make_source, queue_size=queue_size, poll_seconds=poll_seconds,
                     name="arena-web-season")
