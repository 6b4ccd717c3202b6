"""The one live-update batcher: a season's hub events gathered into ticks that every
reader shares (one subscription however many watch), the first event after a quiet
spell at once, the next ones together once the interval is out (clock injected:
the feed's waits pass on it)."""

from __future__ import annotations

import pytest

from arena.season.events import EventHub, SeasonEvent, Subscription
from arena.season.live_feed import MAX_BATCH, FeedReader, LiveFeeds, SeasonFeed


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class FakeTimeSubscription:
    """A subscription whose waits pass on the fake clock instead of real time."""

    def __init__(self, inner: Subscription, clock: Clock) -> None:
        self.inner, self.clock = inner, clock
        self.waits = 0

    def get(self, timeout: float) -> SeasonEvent | None:
        self.waits += 1
        event = self.inner.get(0.0)
        if event is None:
            self.clock.now += timeout
        return event

    def collect(self, seconds: float, limit: int) -> list[SeasonEvent]:
        self.waits += 1
        events = self.inner.collect(0.0, limit)
        if len(events) < limit and all(event.kind != "status" for event in events):
            self.clock.now += seconds
        return events

    def close(self) -> None:
        self.inner.close()


def started(number: int) -> SeasonEvent:
    return SeasonEvent("series_started", 1, series_id=f"1-{number}")


def finished(number: int) -> SeasonEvent:
    return SeasonEvent("series_finished", 1, series_id=f"1-{number}")


def ids(events: tuple[SeasonEvent, ...]) -> list[str]:
    return [f"{event.kind.split('_')[1]} {event.series_id}" for event in events]


def test_the_first_event_goes_at_once_and_the_next_ones_together_after_the_interval() -> None:
    hub, clock = EventHub(), Clock()
    subscription = FakeTimeSubscription(hub.subscribe(1), clock)
    feed = SeasonFeed(subscription, interval=0.1, clock=clock)  # type: ignore[arg-type]
    hub.publish(started(0))
    [tick] = feed.after(0, 1.0)
    assert (tick.number, ids(tick.events), tick.results) == (1, ["started 1-0"], False)
    assert clock.now == 100.0
    for event in (finished(0), started(1), finished(1)):
        hub.publish(event)
    [tick] = feed.after(1, 1.0)
    assert ids(tick.events) == ["finished 1-0", "started 1-1", "finished 1-1"]
    assert tick.results and not tick.final
    assert clock.now == pytest.approx(100.1)  # waited out the interval once
    # A status ends a tick at once and is the tick's status.
    clock.now += 0.05
    hub.publish(started(2))
    hub.publish(SeasonEvent("status", 1, status="finished"))
    [tick] = feed.after(2, 1.0)
    assert (ids(tick.events), tick.status, tick.final) == (["started 1-2"], "finished", True)
    # Nothing more: an empty answer after the timeout.
    assert feed.after(3, 0.5) == []


def test_a_tick_holds_at_most_max_batch_events_and_the_rest_go_next() -> None:
    hub, clock = EventHub(), Clock()
    feed = SeasonFeed(FakeTimeSubscription(hub.subscribe(1), clock),  # type: ignore[arg-type]
                      clock=clock)
    for number in range(MAX_BATCH + 3):
        hub.publish(started(number))
    [full] = feed.after(0, 1.0)
    assert len(full.events) == MAX_BATCH
    [rest] = feed.after(1, 1.0)
    assert ids(rest.events) == [f"started 1-{n}" for n in range(MAX_BATCH, MAX_BATCH + 3)]


def test_every_reader_shares_one_subscription_and_the_same_ticks() -> None:
    hub = EventHub()
    feeds = LiveFeeds(hub, interval=0.0)
    readers = [feeds.reader(1) for _ in range(50)]
    other = feeds.reader(2)
    assert len(hub._subscribers) == 2 and feeds.watched() == 2
    hub.publish(started(0))
    hub.publish(finished(0))
    seen = [reader.next(1.0) for reader in readers]
    assert all(ticks == seen[0] and ticks[0] is seen[0][0] for ticks in seen)
    assert ids(seen[0][0].events) == ["started 1-0", "finished 1-0"]
    assert other.next(0.0) == []
    # A reader that joins now reads only what comes after it joined.
    late = feeds.reader(1)
    hub.publish(finished(1))
    [tick] = late.next(1.0)
    assert tick.number == 2 and readers[0].next(1.0) == [tick]
    for reader in [*readers, late]:
        reader.close()
    assert len(hub._subscribers) == 1 and feeds.watched() == 1
    other.close()
    assert not hub._subscribers
    # A new feed of the season goes on numbering where the last one stopped.
    with feeds.reader(1) as again:
        hub.publish(finished(2))
        assert [tick.number for tick in again.next(1.0)] == [3]


def test_a_reader_further_behind_than_the_kept_ticks_is_told_it_missed_some() -> None:
    hub = EventHub()
    feed = SeasonFeed(hub.subscribe(1), interval=0.0, kept=4)
    for number in range(6):
        hub.publish(finished(number))
        assert [tick.number for tick in feed.after(number, 1.0)] == [number + 1]
    reader = FeedReader(LiveFeeds(hub), 1, feed)
    reader.seen = 0  # behind by six ticks, of which four are kept
    assert [tick.number for tick in reader.next(0.0)] == [3, 4, 5, 6]
    assert reader.missed
    hub.publish(finished(6))
    assert [tick.number for tick in reader.next(1.0)] == [7] and not reader.missed
