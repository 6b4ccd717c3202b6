"""A season's live stream that survives server restarts: ``ResilientWatch``.

``arena watch`` (and every live view) reads ``WatchSeason`` through it. When the
stream breaks (the server stopped, restarted or was killed), it waits with an
exponential backoff (``Backoff``; the sleeper is injected so that tests never
sleep), opens a new stream and continues where it was:

* no duplicates: a series' start and finish are passed on once each (by series
  id), and a standings message that says nothing new is dropped;
* no losses: results stored while the stream was down are read with
  ``ListSeries`` (each played series carries ``stored_seq``, its place in the
  season's storage order) and passed on, in storage order, before the new
  stream's first standings.

A stream that ends without a final status (FINISHED, CANCELLED, FAILED) broke too.

Streams ask for their series events batched (``batch_series_events``: one message
per tenth of a second however busy the season); ``unbatched`` turns a batch back
into one message per event, so every view and ``--json`` line reads single events.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass
from typing import Final, TypeVar

import grpc
from google.protobuf.message import Message
from hollywood.arena.v1 import arena_pb2, arena_pb2_grpc

RECONNECT_CODES: Final = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED})
"""What a stream ends with when its server goes away."""
TERMINAL: Final = frozenset({arena_pb2.SEASON_STATUS_FINISHED,
                             arena_pb2.SEASON_STATUS_CANCELLED,
                             arena_pb2.SEASON_STATUS_FAILED})
LIST_PAGE: Final = 1000
Item = TypeVar("Item", bound=Message)


@dataclass
class Backoff:
    """Waits of ``first`` seconds, doubling up to ``longest``, for at most
    ``give_up_after`` seconds of waiting in all since the last message."""

    first: float = 0.25
    longest: float = 8.0
    give_up_after: float = 300.0

    def delays(self) -> Iterator[float]:
        delay, waited = self.first, 0.0
        while waited + delay <= self.give_up_after:
            yield delay
            waited += delay
            delay = min(delay * 2, self.longest)


class StreamBroke(Exception):
    """The stream ended before the season did."""


class ResilientWatch:
    """The messages of ``WatchSeason(request)`` on ``stub``, across reconnections.
    ``on_retry(attempt, delay, reason)`` is told before each wait."""

    def __init__(
        self, stub: arena_pb2_grpc.ArenaServiceStub, request: arena_pb2.WatchSeasonRequest,
        *, backoff: Backoff | None = None, sleep: Callable[[float], None] = time.sleep,
        on_retry: Callable[[int, float, str], None] | None = None,
    ) -> None:
        self.stub = stub
        self.request = arena_pb2.WatchSeasonRequest()
        self.request.CopyFrom(request)
        self.request.batch_series_events = True
        self.request.standings_deltas = True  # ``unbatched`` applies them
        self.backoff = backoff or Backoff()
        self.sleep = sleep
        self.on_retry = on_retry
        self.season_id = request.season_id
        self._started: set[str] = set()
        self._finished: set[str] = set()
        self._first_sequence: int | None = None
        self._highest = 0
        """The highest storage sequence the messages passed on have covered."""
        self._last_standings: tuple[int, int, int] | None = None

    def __iter__(self) -> Iterator[arena_pb2.WatchSeasonResponse]:
        delays, attempt = self.backoff.delays(), 0
        while True:
            try:
                for message in self._follow():
                    delays, attempt = self.backoff.delays(), 0  # heard: start over
                    yield message
                return
            except (grpc.RpcError, StreamBroke) as error:
                delay = next(delays, None) if self._may_retry(error) else None
                if delay is None:
                    raise
                attempt += 1
                if self.on_retry is not None:
                    self.on_retry(attempt, delay, _reason(error))
                self.sleep(delay)

    def _may_retry(self, error: Exception) -> bool:
        """A break, not a refusal: the stream had begun, or ended early."""
        if isinstance(error, StreamBroke):
            return True
        return self._first_sequence is not None and _code(error) in RECONNECT_CODES

    def _follow(self) -> Iterator[arena_pb2.WatchSeasonResponse]:
        stream: Iterable[arena_pb2.WatchSeasonResponse] = self.stub.WatchSeason(self.request)
        first = True
        for message in unbatched(stream):
            event = message.WhichOneof("event")
            if first and event == "standings":
                if self._first_sequence is None:
                    self._first_sequence = self._highest = message.standings.sequence
                    # "the latest season" may be another one after a restart
                    self.request.season_id = message.standings.season_id or self.season_id
                    self.season_id = self.request.season_id
                else:
                    yield from self._missed(message)
            first = False
            if self._is_new(message):
                yield message
            if message.status in TERMINAL and event == "standings":
                return
        raise StreamBroke("the stream ended before the season")

    def _is_new(self, message: arena_pb2.WatchSeasonResponse) -> bool:
        event = message.WhichOneof("event")
        if event == "series_started":
            return _first_time(self._started, message.series_started.series_id)
        if event == "series_finished":
            series = message.series_finished.series
            self._highest = max(self._highest, series.stored_seq)
            return _first_time(self._finished, series.series_id)
        if event == "standings":
            self._highest = max(self._highest, message.standings.sequence)
            key = (message.standings.sequence, message.status, message.series_done)
            if key == self._last_standings:
                return False
            self._last_standings = key
        return True

    def _missed(self, now: arena_pb2.WatchSeasonResponse
                ) -> Iterator[arena_pb2.WatchSeasonResponse]:
        """Results stored after the watch began that no stream delivered."""
        first = self._first_sequence or 0
        if now.standings.sequence <= self._highest:
            return
        # Later results come on the new stream itself.
        missed = [series for series in self._played()
                  if first < series.stored_seq <= now.standings.sequence]
        for series in sorted(missed, key=lambda item: item.stored_seq):
            message = arena_pb2.WatchSeasonResponse(
                status=now.status, series_done=now.series_done, series_total=now.series_total)
            message.series_finished.series.CopyFrom(series)
            if self._is_new(message):
                yield message

    def _played(self) -> Iterator[arena_pb2.SeriesSummary]:
        token = ""
        while True:
            page = self.stub.ListSeries(arena_pb2.ListSeriesRequest(
                season_id=self.season_id, page_size=LIST_PAGE, page_token=token))
            yield from (series for series in page.series if series.played)
            token = page.next_page_token
            if not token:
                return


def unbatched(stream: Iterable[arena_pb2.WatchSeasonResponse]
              ) -> Iterator[arena_pb2.WatchSeasonResponse]:
    """``stream`` with each ``series_events`` batch split into a message per event
    (``series_started`` / ``series_finished``, with the batch's status and counts)
    and each ``standings_delta`` applied to the stream's previous standings (a
    ``standings`` message: what every view reads)."""
    held: arena_pb2.Standings | None = None
    for message in stream:
        event = message.WhichOneof("event")
        if event == "standings_delta":
            if held is None:
                raise StreamBroke("a standings delta before any standings")
            whole = arena_pb2.WatchSeasonResponse(
                status=message.status, series_done=message.series_done,
                series_total=message.series_total)
            whole.standings.CopyFrom(apply_standings_delta(
                held, message.standings_delta.standings))
            message, event = whole, "standings"
        if event == "standings":
            held = message.standings
        if event != "series_events":
            yield message
            continue
        for item in message.series_events.events:
            single = arena_pb2.WatchSeasonResponse(
                status=message.status, series_done=message.series_done,
                series_total=message.series_total)
            if item.WhichOneof("event") == "started":
                single.series_started.CopyFrom(item.started)
            elif item.WhichOneof("event") == "finished":
                single.series_finished.CopyFrom(item.finished)
            else:
                continue  # an event kind of a newer server
            yield single


def apply_standings_delta(held: arena_pb2.Standings, delta: arena_pb2.Standings
                          ) -> arena_pb2.Standings:
    """The standings ``delta`` (a ``StandingsDelta.standings``) makes of ``held``."""
    result = arena_pb2.Standings()
    result.CopyFrom(delta)
    rows = _merged(held.rows, delta.rows, _bot)
    del result.rows[:]
    result.rows.extend(sorted(rows, key=lambda row: row.rank))
    for name, key in (("crosstable", _pair), ("los", _pair)):
        merged = _merged(getattr(held, name), getattr(delta, name), key)
        target = getattr(result, name)
        del target[:]
        target.extend(merged)
    return result




def _bot(item: arena_pb2.StandingRow) -> Hashable:
    return item.bot_id


def _pair(item: arena_pb2.CrosstableCell | arena_pb2.LosCell) -> Hashable:
    return (item.bot_id, item.opponent_id)


def _merged(held: Iterable[Item], changed: Iterable[Item],
            key: Callable[[Item], Hashable]) -> list[Item]:
    """``held`` with the items of the same key replaced by ``changed``'s, in place,
    and ``changed``'s new ones after them."""
    merged = {key(item): item for item in held}
    merged.update((key(item), item) for item in changed)
    return list(merged.values())


def say_retry(attempt: int, delay: float, reason: str) -> None:
    """Tell the user (on stderr: stdout may be JSON) that the stream is being reopened."""
    print(f"lost the server's stream ({reason}); reconnecting in {delay:g} s "
          f"(attempt {attempt})", file=sys.stderr, flush=True)


def _first_time(seen: set[str], key: str) -> bool:
    if key in seen:
        return False
    seen.add(key)
    return True


def _code(error: Exception) -> grpc.StatusCode | None:
    code = getattr(error, "code", None)
    value = code() if callable(code) else None
    return value if isinstance(value, grpc.StatusCode) else None


def _reason(error: Exception) -> str:
    if isinstance(error, grpc.RpcError):
        code = _code(error)
        return code.name.lower() if code is not None else "error"
    return str(error)
