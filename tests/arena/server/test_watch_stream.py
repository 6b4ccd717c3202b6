"""A watch stream sends every series event (a message each, or batched), and the
latest standings at most once per interval and only once it has caught up with the
events (clock injected)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from arena.season.events import SUBSCRIBER_QUEUE_SIZE, EventHub, SeasonEvent, Subscription
from arena.server.watch import WatchStream
from tests.helpers.polling import wait_until


class Messages:
    """Stands in for the shared messages: names what would be sent."""

    def __init__(self) -> None:
        self.sequence = 0

    def standings(self, season_id: int, top: int, bots: tuple[str, ...], *,
                  fresh: bool = False) -> Any:
        return ("standings", self.sequence, fresh)

    def _name(self, event: SeasonEvent) -> tuple[str, str]:
        if event.kind == "series_finished":
            self.sequence += 1
            return ("finished", event.series_id)
        return ("started", event.series_id)

    def single(self, season_id: int, event: SeasonEvent) -> Any:
        return self._name(event)

    def batch(self, season_id: int, events: list[SeasonEvent]) -> Any:
        return ("batch", [self._name(event) for event in events])


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_standings_come_at_most_once_per_interval_and_the_last_one_always() -> None:
    hub, clock, messages = EventHub(), Clock(), Messages()
    stream = WatchStream(messages, 1, 20, [], interval=0.25, clock=clock)  # type: ignore[arg-type]
    with hub.subscribe(1) as subscription:
        sent = stream.follow(subscription, lambda: True, lambda: False)
        assert next(sent) == ("standings", 0, True)
        clock.now += 1.0
        for series in ("1-0", "1-1"):
            hub.publish(SeasonEvent("series_started", 1, series_id=series))
            hub.publish(SeasonEvent("series_finished", 1, series_id=series))
        # Behind with events: no standings until they are all sent.
        assert [next(sent) for _ in range(4)] == [
            ("started", "1-0"), ("finished", "1-0"), ("started", "1-1"), ("finished", "1-1")]
        assert next(sent) == ("standings", 2, False)
        hub.publish(SeasonEvent("series_finished", 1, series_id="1-2"))
        assert next(sent) == ("finished", "1-2")
        # Within the interval: held back; the stream waits out the rest of it.
        hub.publish(SeasonEvent("series_started", 1, series_id="1-3"))
        assert next(sent) == ("started", "1-3")
        clock.now += 0.25
        assert next(sent) == ("standings", 3, False)
        hub.publish(SeasonEvent("series_finished", 1, series_id="1-3"))
        hub.publish(SeasonEvent("status", 1, status="finished"))
        assert next(sent) == ("finished", "1-3")
        assert next(sent) == ("standings", 4, True)  # the final standings, then the end
        assert next(sent, None) is None


class WaitingSubscription:
    """A subscription whose waits pass on the fake clock instead of real time: an
    empty queue moves the clock on by the whole timeout."""

    def __init__(self, inner: Subscription, clock: Clock) -> None:
        self.inner, self.clock = inner, clock
        self.waits = 0  # calls that could block: each is one wake-up of the stream

    def get(self, timeout: float) -> SeasonEvent | None:
        self.waits += 1
        event = self.inner.get(0.0)
        if event is None:
            self.clock.now += timeout
        return event

    def collect(self, seconds: float, limit: int) -> list[SeasonEvent]:
        """As Subscription.collect, the wait passing on the fake clock."""
        self.waits += 1
        events = self.inner.collect(0.0, limit)
        if len(events) < limit and all(event.kind != "status" for event in events):
            self.clock.now += seconds
        return events

    def empty(self) -> bool:
        return self.inner.empty()


@contextmanager
def batching(**intervals: float) -> Iterator[tuple[EventHub, Clock, WaitingSubscription,
                                                     Iterator[Any]]]:
    """A batching stream of season 1 on a fake clock: (hub, clock, subscription, sent)."""
    hub, clock, messages = EventHub(), Clock(), Messages()
    stream = WatchStream(messages, 1, 20, [], batch=True, clock=clock,  # type: ignore[arg-type]
                         **intervals)
    with hub.subscribe(1) as inner:
        subscription = WaitingSubscription(inner, clock)
        yield hub, clock, subscription, stream.follow(
            subscription, lambda: True, lambda: False)  # type: ignore[arg-type]


def test_a_batching_stream_sends_series_events_together_at_most_once_per_interval() -> None:
    with batching(interval=0.25, batch_interval=0.1) as (hub, clock, _subscription, sent):
        assert next(sent) == ("standings", 0, True)
        # The first event after a quiet spell goes at once ...
        hub.publish(SeasonEvent("series_started", 1, series_id="1-0"))
        assert next(sent) == ("batch", [("started", "1-0")])
        started_at = clock.now
        # ... the next ones wait for the rest of the interval, and go together.
        hub.publish(SeasonEvent("series_finished", 1, series_id="1-0"))
        hub.publish(SeasonEvent("series_started", 1, series_id="1-1"))
        hub.publish(SeasonEvent("series_finished", 1, series_id="1-1"))
        assert next(sent) == ("batch", [("finished", "1-0"), ("started", "1-1"),
                                        ("finished", "1-1")])
        assert clock.now == pytest.approx(started_at + 0.1)
        # Standings after the batch, once their own interval (from the first
        # message) has passed.
        assert next(sent) == ("standings", 2, False)
        assert clock.now == pytest.approx(100.25)
        # 0.15 s after the last batch: the next event goes at once; a final status
        # sends the events still held (without waiting), then the final standings.
        hub.publish(SeasonEvent("series_started", 1, series_id="1-2"))
        hub.publish(SeasonEvent("series_finished", 1, series_id="1-2"))
        hub.publish(SeasonEvent("series_started", 1, series_id="1-3"))
        hub.publish(SeasonEvent("status", 1, status="finished"))
        assert next(sent) == ("batch", [("started", "1-2")])
        assert next(sent) == ("batch", [("finished", "1-2"), ("started", "1-3")])
        assert clock.now == pytest.approx(100.25)
        assert next(sent) == ("standings", 3, True)
        assert next(sent, None) is None


def test_a_full_batch_goes_at_once() -> None:
    from arena.server.watch import MAX_BATCH

    with batching() as (hub, clock, _subscription, sent):
        next(sent)
        hub.publish(SeasonEvent("series_started", 1, series_id="first"))
        assert next(sent) == ("batch", [("started", "first")])
        for number in range(MAX_BATCH + 3):
            hub.publish(SeasonEvent("series_started", 1, series_id=f"1-{number}"))
        before = clock.now
        full = next(sent)
        assert clock.now == before  # sent for its size, without waiting
        assert [len(full[1]), full[1][0], full[1][-1]] == [
            MAX_BATCH, ("started", "1-0"), ("started", f"1-{MAX_BATCH - 1}")]
        hub.publish(SeasonEvent("status", 1, status="cancelled"))
        assert next(sent) == ("batch", [("started", f"1-{n}")
                                        for n in range(MAX_BATCH, MAX_BATCH + 3)])


def test_a_batching_stream_wakes_once_per_batch_not_once_per_event() -> None:
    with batching(interval=0.25, batch_interval=0.1) as (hub, _clock, subscription, sent):
        next(sent)
        hub.publish(SeasonEvent("series_started", 1, series_id="first"))
        assert next(sent) == ("batch", [("started", "first")])
        before = subscription.waits
        for number in range(100):
            hub.publish(SeasonEvent("series_finished", 1, series_id=f"1-{number}"))
        batch = next(sent)
        assert len(batch[1]) == 100
        # One wait that takes the first event, one that collects the other 99.
        assert subscription.waits - before == 2


def test_collect_takes_what_is_queued_up_to_its_limit_and_stops_at_a_status() -> None:
    hub = EventHub()
    with hub.subscribe(1) as subscription:
        for number in range(5):
            hub.publish(SeasonEvent("series_started", 1, series_id=f"1-{number}"))
        assert [e.series_id for e in subscription.collect(0.0, 3)] == ["1-0", "1-1", "1-2"]
        hub.publish(SeasonEvent("status", 1, status="finished"))
        hub.publish(SeasonEvent("series_started", 1, series_id="late"))
        # A status among the queued events: no wait (a long one would hang the test).
        taken = subscription.collect(3600.0, 10)
        assert [(e.kind, e.series_id) for e in taken] == [
            ("series_started", "1-3"), ("series_started", "1-4"), ("status", ""),
            ("series_started", "late")]


def test_a_full_subscription_drops_its_oldest_events_and_a_waiting_reader_wakes() -> None:
    hub = EventHub()
    with hub.subscribe(1) as subscription, hub.subscribe(2) as other_season:
        for number in range(SUBSCRIBER_QUEUE_SIZE + 3):
            hub.publish(SeasonEvent("series_finished", 1, series_id=f"1-{number}"))
        assert other_season.empty() and other_season.get(0.0) is None
        first = subscription.get(0.0)
        assert first is not None and first.series_id == "1-3"
        rest = subscription.collect(0.0, 2 * SUBSCRIBER_QUEUE_SIZE)
        assert [event.series_id for event in rest] == [
            f"1-{number}" for number in range(4, SUBSCRIBER_QUEUE_SIZE + 3)]
        assert subscription.empty() and subscription.get(0.0) is None

        received: list[SeasonEvent | None] = []
        reader = threading.Thread(target=lambda: received.append(subscription.get(60.0)))
        reader.start()
        wait_until(lambda: subscription._waiting == 1, what="the reader waiting")
        hub.publish(SeasonEvent("status", 1, status="finished"))
        reader.join(30)
        assert [event.status for event in received if event is not None] == ["finished"]
