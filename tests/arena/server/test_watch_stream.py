"""A watch stream follows its season's live feed: after each tick its series events
(one batch, or a message each) and its view's standings, whole or as a delta; every
stream of a view sends the same bytes, encoded once per change (a spy counts the
encodes), and the likelihoods of superiority are computed only for who asks."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from google.protobuf.message import Message
from hollywood.arena.v1 import arena_pb2

from arena.cli.watching import unbatched
from arena.core.status import SeasonStatus
from arena.season.events import SUBSCRIBER_QUEUE_SIZE, EventHub, SeasonEvent
from arena.season.live_feed import LiveFeeds, Tick
from arena.season.standings_live import StandingsBoard
from arena.season.statistics.bradley_terry import BradleyTerryFit
from arena.server import watch, watch_views
from arena.server.watch import StandingsMessages, WatchMessages, WatchStream
from arena.server.watch_views import View
from arena.storage import Storage
from tests.arena.season.test_standings_live import season_with_plan
from tests.arena.season.test_statistics_live import store_in_random_order
from tests.helpers.polling import wait_until


class Season:
    """A 5-bot season (20 series) with a board, a hub, live feeds (no interval: a
    tick takes what is queued) and the watch messages of a server."""

    def __init__(self, tmp_path: Path) -> None:
        self.storage = Storage(tmp_path / "a.db")
        self.id = season_with_plan(self.storage)
        self.board = StandingsBoard(self.storage)
        self.hub = EventHub()
        self.feeds = LiveFeeds(self.hub, interval=0.0)
        self.standings = StandingsMessages(self.storage)
        self.now = 100.0
        self.messages = WatchMessages(self.storage, self.board, self.standings, reuse_s=0.0,
                                      clock=lambda: self.now)
        self._results = store_in_random_order(self.storage, self.id, seed=8)

    def stream(self, view: View, *, batch: bool = True) -> Iterator[bytes]:
        reader = self.feeds.reader(self.id)
        return WatchStream(self.messages, view, batch=batch).follow(
            reader, lambda: True, lambda: False)

    def store(self) -> str:
        """Store the next result and tell the watchers, as the season runner does."""
        series_id = next(self._results)
        self.board.update(self.id)
        self.hub.publish(SeasonEvent("series_finished", self.id, series_id=series_id))
        return series_id

    def finish(self) -> None:
        self.storage.set_season_status(self.id, SeasonStatus.FINISHED)
        self.hub.publish(SeasonEvent("status", self.id, status="finished"))


def count_encodes(monkeypatch: pytest.MonkeyPatch) -> list[Message]:
    """Every message encoded for a watch stream from now on."""
    encoded: list[Message] = []
    real = watch_views.encode

    def spy(message: Message) -> bytes:
        encoded.append(message)
        return real(message)

    monkeypatch.setattr(watch_views, "encode", spy)
    monkeypatch.setattr(watch, "encode", spy)
    return encoded


def parsed(data: bytes) -> arena_pb2.WatchSeasonResponse:
    return arena_pb2.WatchSeasonResponse.FromString(data)


def test_every_stream_of_a_view_sends_the_same_bytes_encoded_once_per_change(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    season = Season(tmp_path)
    encoded = count_encodes(monkeypatch)
    whole: View = (season.id, 0, (), False, False)
    top: View = (season.id, 2, (), False, False)
    streams = [season.stream(whole) for _ in range(20)] + [season.stream(top)
                                                          for _ in range(10)]
    first = [next(stream) for stream in streams]
    assert all(data is first[0] for data in first[:20])
    assert all(data is first[20] for data in first[20:])
    assert len(encoded) == 2  # one per view
    for step in range(1, 4):
        series_id = season.store()
        sent = [[next(stream), next(stream)] for stream in streams]
        for group in (sent[:20], sent[20:]):
            assert all(pair[0] is group[0][0] and pair[1] is group[0][1] for pair in group)
        batch, standings = (parsed(data) for data in sent[0])
        assert [e.finished.series.series_id for e in batch.series_events.events] == [series_id]
        assert standings.standings.sequence == step and len(standings.standings.rows) == 5
        assert len(parsed(sent[20][1]).standings.rows) == 2
        # One batch for every stream, one standings message per view.
        assert len(encoded) == 2 + 3 * step
    season.storage.close()


def test_streams_that_want_a_message_per_event_share_each_events_bytes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    season = Season(tmp_path)
    encoded = count_encodes(monkeypatch)
    view: View = (season.id, 1, (), False, False)
    streams = [season.stream(view, batch=False) for _ in range(5)]
    [next(stream) for stream in streams]
    stored = [season.store(), season.store()]
    sent = [[next(stream) for _ in range(3)] for stream in streams]
    assert all(all(a is b for a, b in zip(row, sent[0], strict=True)) for row in sent)
    assert [parsed(data).series_finished.series.series_id for data in sent[0][:2]] == stored
    assert parsed(sent[0][2]).standings.sequence == 2
    assert len(encoded) == 1 + 3
    season.storage.close()


def test_streams_woken_by_the_same_tick_at_once_build_its_batch_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A hundred streams wake for one tick together: one builds the batch (which reads
    storage per event), the others wait for its bytes instead of building their own."""
    season = Season(tmp_path)
    series_id = season.store()
    tick = Tick(1, (SeasonEvent("series_finished", season.id, series_id=series_id),), True)
    streams, arrived, builds = 20, [0], [0]
    real_event = season.messages._event

    def slow_event(event: SeasonEvent) -> arena_pb2.SeriesEvent:
        # The first builder holds on until every stream has asked for the tick.
        builds[0] += 1
        wait_until(lambda: arrived[0] == streams, what="every stream to ask")
        return real_event(event)

    monkeypatch.setattr(season.messages, "_event", slow_event)
    sent: list[list[bytes]] = []

    def ask() -> None:
        arrived[0] += 1
        sent.append(season.messages.series(season.id, tick, batch=True))

    threads = [threading.Thread(target=ask) for _ in range(streams)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert builds[0] == 1
    assert len(sent) == streams and all(data[0] is sent[0][0] for data in sent)
    events = parsed(sent[0][0]).series_events.events
    assert [event.finished.series.series_id for event in events] == [series_id]
    season.storage.close()


def test_a_view_is_built_at_most_once_per_interval_and_its_streams_catch_up_after(
        tmp_path: Path) -> None:
    season = Season(tmp_path)
    season.messages.reuse_s = 0.25
    stream = season.stream((season.id, 2, (), False, False))
    assert parsed(next(stream)).standings.sequence == 0
    season.now += 1.0
    season.store()
    assert parsed(next(stream)).WhichOneof("event") == "series_events"
    assert parsed(next(stream)).standings.sequence == 1
    season.store()
    assert parsed(next(stream)).WhichOneof("event") == "series_events"
    # 0.2 s after the last build: the view is not built again, the stream sends no
    # standings and follows the next tick ...
    season.now += 0.2
    planned = season.storage.planned_series(season.id)[0].series_id
    season.hub.publish(SeasonEvent("series_started", season.id, series_id=planned))
    assert parsed(next(stream)).series_events.events[0].started.series_id == planned
    # ... and once the interval is out, the standings it still owes.
    season.now += 0.1
    assert parsed(next(stream)).standings.sequence == 2
    season.storage.close()


def whole_standings(stream: Iterator[bytes], count: int) -> list[arena_pb2.Standings]:
    """The next ``count`` messages of ``stream`` as a client reads them (deltas applied,
    as ``arena.cli.watching.unbatched`` does for every live view): its standings."""
    messages = unbatched(parsed(next(stream)) for _ in range(count))
    return [m.standings for m in messages if m.WhichOneof("event") == "standings"]


def test_a_stream_of_deltas_ends_with_the_same_table_as_a_fresh_read(
        tmp_path: Path) -> None:
    season = Season(tmp_path)
    view: View = (season.id, 0, (), True, True)
    steady, late = season.stream(view), None
    sent: list[bytes] = [next(steady)]
    for step in range(1, 21):
        season.store()
        sent += [next(steady), next(steady)]
        if step == 7:
            late = season.stream(view)
            sent_late = [next(late)]
        elif late is not None:
            sent_late += [next(late), next(late)]
    season.finish()
    sent.append(next(steady))
    assert late is not None
    sent_late.append(next(late))
    kinds = [parsed(data).WhichOneof("event") for data in sent]
    assert kinds[0] == "standings" and kinds.count("standings_delta") == 21
    # Deltas carry what changed: a result changes two bots' rows and their cells,
    # and the ranks between them.
    delta = parsed(sent[-2]).standings_delta
    assert 0 < len(delta.standings.rows) < 5 and len(delta.standings.crosstable) < 20
    fresh = season.standings.whole(season.board.snapshot(season.id), los=True)
    assert fresh.status == arena_pb2.SEASON_STATUS_FINISHED and fresh.sequence == 20
    for received in (sent, sent_late):
        last = whole_standings(iter(received), len(received))[-1]
        assert list(last.rows) == list(fresh.rows)
        for name in ("crosstable", "los"):
            assert {(c.bot_id, c.opponent_id): c for c in getattr(last, name)} == {
                (c.bot_id, c.opponent_id): c for c in getattr(fresh, name)}
        for name in ("series_done", "status", "format", "sequence", "series_total"):
            assert getattr(last, name) == getattr(fresh, name)
    season.storage.close()


def test_the_los_matrix_is_computed_only_when_asked_and_once_per_fit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    season = Season(tmp_path)
    matrices: list[BradleyTerryFit] = []
    real: Callable[[BradleyTerryFit], Any] = BradleyTerryFit.los_matrix

    def spy(fit: BradleyTerryFit) -> Any:
        matrices.append(fit)
        return real(fit)

    monkeypatch.setattr(BradleyTerryFit, "los_matrix", spy)
    plain = [season.stream((season.id, top, (), False, False)) for top in (0, 2, 0)]
    [next(stream) for stream in plain]
    season.store()
    sent = [[next(stream), next(stream)] for stream in plain]
    assert matrices == [] and all(not parsed(pair[1]).standings.los for pair in sent)
    asking = [season.stream((season.id, top, (), True, deltas))
              for top in (0, 0, 3) for deltas in (False, True)]
    first = [parsed(next(stream)).standings for stream in asking]
    assert len(matrices) == 1  # one fit so far: one matrix for every view that asks
    assert len(first[0].los) == 5 * 4 and len(first[4].los) == 3 * 4
    season.storage.close()


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
