"""Season events and a small publish/subscribe hub for live watchers.

The season runner publishes an event when a series starts, when its result is stored
and when a season's status changes; every ``WatchSeason`` stream subscribes to the
season it watches. A slow subscriber never blocks the runner: its queue is
bounded and, when full, the oldest event is dropped (a fresh standings snapshot
follows every stored result anyway).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import Final, Literal

from arena.storage import PlannedSeries, SeriesRecord

EventKind = Literal["series_started", "series_finished", "status"]
SUBSCRIBER_QUEUE_SIZE: Final = 1000


@dataclass(frozen=True)
class SeasonEvent:
    """Something that happened in a season. ``series_id`` is set for series events,
    ``status`` for status changes; ``forfeit`` says a finished series ended by a fault
    (so a listener that reports faults reads only those results). ``planned`` and
    ``result`` carry the series as planned and as stored when the runner has them,
    so that listeners (every watch stream, the event log) need not read them back."""

    kind: EventKind
    season_id: int
    series_id: str = ""
    status: str = ""
    forfeit: bool = False
    planned: PlannedSeries | None = None
    result: SeriesRecord | None = None


class Subscription:
    """One subscriber's queue; use as a context manager to unsubscribe."""

    def __init__(self, hub: EventHub, season_id: int) -> None:
        self.season_id = season_id
        self._hub = hub
        # A deque with maxlen drops its oldest event when full; putting is a lock and
        # an append (every event of a big season goes to every subscriber, hundreds a
        # second: queue.Queue's two conditions per put cost 3 times as much).
        self._events: deque[SeasonEvent] = deque(maxlen=SUBSCRIBER_QUEUE_SIZE)
        self._arrived = threading.Condition(threading.Lock())
        self._waiting = 0

    def put(self, event: SeasonEvent) -> None:
        with self._arrived:
            self._events.append(event)
            if self._waiting:
                self._arrived.notify()

    def get(self, timeout: float) -> SeasonEvent | None:
        """The next event, or None after ``timeout`` seconds without one."""
        with self._arrived:
            if not self._events:
                self._waiting += 1
                try:
                    self._arrived.wait_for(lambda: self._events, timeout)
                finally:
                    self._waiting -= 1
            return self._events.popleft() if self._events else None

    def collect(self, seconds: float, limit: int) -> list[SeasonEvent]:
        """The events that arrive within ``seconds`` (at most ``limit``), taken
        together after that time: at once when ``limit`` are queued or a status
        event is among them. A stream that batches waits here instead of waking for
        every event (a big season stores hundreds a second, for every stream)."""
        events = self._drain(limit)
        if len(events) < limit and not any(event.kind == "status" for event in events):
            time.sleep(seconds)
            events += self._drain(limit - len(events))
        return events

    def _drain(self, limit: int) -> list[SeasonEvent]:
        with self._arrived:
            count = min(limit, len(self._events))
            return [self._events.popleft() for _ in range(count)]

    def empty(self) -> bool:
        """Whether no event is waiting (a stream that is behind can skip ahead)."""
        return not self._events

    def close(self) -> None:
        self._hub.unsubscribe(self)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class EventHub:
    """Fans season events out to the subscribers of that season."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subscribers: list[Subscription] = []

    def subscribe(self, season_id: int) -> Subscription:
        subscription = Subscription(self, season_id)
        with self._lock:
            self._subscribers.append(subscription)
        return subscription

    def unsubscribe(self, subscription: Subscription) -> None:
        with self._lock:
            if subscription in self._subscribers:
                self._subscribers.remove(subscription)

    def publish(self, event: SeasonEvent) -> None:
        with self._lock:
            targets = [s for s in self._subscribers if s.season_id == event.season_id]
        for subscription in targets:
            subscription.put(event)
