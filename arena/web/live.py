"""Live season pages: the ticks of a season's live feed (``arena.season.live_feed``,
the one batcher the API's watch streams share) as a ``Broadcast`` source
(``arena.web.broadcast``), fanned out to browsers over Server-Sent Events.

One source per watched season page (a season and a page of its standings: each page
shows its own rows) reads the feed and, after a tick with a stored result or a
status change, builds ONE update that every client of that page receives
(encoded once: ``arena.web.live_pages``): a ``delta`` event holding only the rows and
cells of the page's tables that changed (``arena.web.live_delta``), numbered so a
browser that missed one starts again. A connecting client gets the snapshot every
other client holds (the last one sent, whole), so the next delta applies to it and a
reconnect, also after a server restart, always catches up. The back-pressure rules
(bounded queues, a slow client dropped) are the broadcast's.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Hashable
from typing import Any, Final

from arena.season.live_feed import LiveFeeds
from arena.web.broadcast import CLIENT_QUEUE_SIZE, POLL_SECONDS, Broadcast, Message
from arena.web.live_delta import sections_patch

SNAPSHOT_INTERVAL_S: Final = 0.25
"""A season page's live snapshots come at most this often."""

Snapshot = Callable[[int, int], dict[str, Any]]
"""(season id, page of its standings) -> that season page's live data now: its
``version`` (series done), ``status`` and ``sections`` (name -> rendered HTML)."""


class SeasonSource:
    """One season's updates: on connect the snapshot every client holds, then after
    the feed ticks that change the page (series that only started do not) a delta
    from it, at most one per ``interval`` (the first after a quiet spell at once)."""

    def __init__(self, feeds: LiveFeeds, snapshot: Snapshot, season_id: int, *,
                 page: int = 1, interval: float = SNAPSHOT_INTERVAL_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.snapshot = snapshot
        self.season_id = season_id
        self.page = page
        """The page of the standings its clients show (each page has its rows)."""
        self.interval = interval
        self.clock = clock
        # A reader before any snapshot is taken: no update falls between the two.
        self._reader = feeds.reader(season_id)
        self._changed = False
        self._sent_at = -math.inf
        self._held: dict[str, Any] | None = None
        """What every client of this source holds now (its number is ``seq``)."""
        self._whole: Message | None = None

    def first(self) -> list[Message]:
        if self._held is None:
            self._held = {**self.snapshot(self.season_id, self.page), "seq": 1}
        if self._whole is None:  # encoded once per update, for every client joining
            self._whole = ("snapshot", json.dumps(self._held))
        return [self._whole]

    def next(self, timeout: float) -> tuple[list[Message], bool]:
        if self._changed:  # an update is due: wait no longer than its interval
            timeout = min(timeout, max(0.0, self._sent_at + self.interval - self.clock()))
        ticks = self._reader.next(timeout)
        self._changed |= self._reader.missed or any(tick.results or tick.status
                                                    for tick in ticks)
        if not self._changed or self.clock() < self._sent_at + self.interval:
            return [], False
        self._changed, self._sent_at = False, self.clock()
        if self._held is None:
            return self.first(), False
        now = self.snapshot(self.season_id, self.page)
        seq = self._held["seq"] + 1
        delta = {"seq": seq, "base": seq - 1, "version": now["version"],
                 "status": now["status"],
                 "sections": sections_patch(self._held["sections"], now["sections"])}
        self._held, self._whole = {**now, "seq": seq}, None
        return [("delta", json.dumps(delta))], False

    def close(self) -> None:
        self._reader.close()


def season_feed(feeds: LiveFeeds, snapshot: Snapshot, *,
                queue_size: int = CLIENT_QUEUE_SIZE, poll_seconds: float = POLL_SECONDS,
                interval: float = SNAPSHOT_INTERVAL_S) -> Broadcast:
    """The season pages' stream: a ``Broadcast`` keyed by (season id, page of its
    standings); a bare season id is its first page."""

    def make_source(key: Hashable) -> SeasonSource:
        season_id, page = key if isinstance(key, tuple) else (key, 1)
        assert isinstance(season_id, int) and isinstance(page, int)
        return SeasonSource(feeds, snapshot, season_id, page=page, interval=interval)

    return Broadcast(make_source, queue_size=queue_size, poll_seconds=poll_seconds,
                     name="arena-web-season")
