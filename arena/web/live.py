"""Live season pages: the season event hub's events as a ``Broadcast`` source
(``arena.web.broadcast``), fanned out to browsers over Server-Sent Events.

One source per watched season subscribes to the hub once and, on a stored result
or a status change, builds ONE snapshot that every client of that season receives,
so a hundred browsers cost the arena what one does. A connecting client gets the
current snapshot first, so a reconnect, also after a server restart, always catches
up. The back-pressure rules (bounded queues, a slow client dropped) are the
broadcast's.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Final

from arena.season.events import EventHub
from arena.web.broadcast import CLIENT_QUEUE_SIZE, POLL_SECONDS, Broadcast, Message

UPDATE_KINDS: Final = frozenset({"series_finished", "status"})

Snapshot = Callable[[int], str]
"""season id -> the event data (text) describing the season now."""


class SeasonSource:
    """One season's snapshots: one on connect, one after each burst of hub events
    that changes the page (a started series does not)."""

    def __init__(self, hub: EventHub, snapshot: Snapshot, season_id: int) -> None:
        self.snapshot = snapshot
        self.season_id = season_id
        # Subscribed before any snapshot is taken: no update falls between the two.
        self._subscription = hub.subscribe(season_id)

    def first(self) -> list[Message]:
        return [("snapshot", self.snapshot(self.season_id))]

    def next(self, timeout: float) -> tuple[list[Message], bool]:
        event = self._subscription.get(timeout)
        if event is None:
            return [], False
        kinds = {event.kind}
        while (more := self._subscription.get(0)) is not None:  # coalesce a burst
            kinds.add(more.kind)
        return (self.first() if kinds & UPDATE_KINDS else []), False

    def close(self) -> None:
        self._subscription.close()


def season_feed(hub: EventHub, snapshot: Snapshot, *, queue_size: int = CLIENT_QUEUE_SIZE,
                poll_seconds: float = POLL_SECONDS) -> Broadcast:
    """The season pages' stream: a ``Broadcast`` keyed by season id."""

    def make_source(key: Hashable) -> SeasonSource:
        assert isinstance(key, int)
        return SeasonSource(hub, snapshot, key)

    return Broadcast(make_source, queue_size=queue_size, poll_seconds=poll_seconds,
                     name="arena-web-season")
