"""``arena watch`` across server restarts (issue 10, point 7): ``ResilientWatch``
reconnects with a backoff (an injected sleeper: no real waits here) and continues
where it was, without losing or repeating a series event or a standings row."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import grpc
import pytest
from hollywood.arena.v1 import arena_pb2

from arena.cli.watching import Backoff, ResilientWatch

RUNNING = arena_pb2.SEASON_STATUS_RUNNING
FINISHED = arena_pb2.SEASON_STATUS_FINISHED
Step = arena_pb2.WatchSeasonResponse | grpc.StatusCode


class Broken(grpc.RpcError):
    def __init__(self, code: grpc.StatusCode) -> None:
        super().__init__(code.name)
        self._code = code

    def code(self) -> grpc.StatusCode:
        return self._code


class FakeStub:
    """Answers each ``WatchSeason`` call with the next script: messages, then
    (optionally) a status code the stream breaks with."""

    def __init__(self, scripts: Sequence[Sequence[Step]],
                 played: Sequence[arena_pb2.SeriesSummary] = ()) -> None:
        self.scripts = list(scripts)
        self.played = list(played)
        self.requests: list[arena_pb2.WatchSeasonRequest] = []

    def WatchSeason(self, request: arena_pb2.WatchSeasonRequest
                    ) -> Iterator[arena_pb2.WatchSeasonResponse]:
        self.requests.append(arena_pb2.WatchSeasonRequest())
        self.requests[-1].CopyFrom(request)
        script = self.scripts.pop(0)
        if not script:  # the server is down: the call itself fails
            raise Broken(grpc.StatusCode.UNAVAILABLE)
        return self._play(script)

    @staticmethod
    def _play(script: Sequence[Step]) -> Iterator[arena_pb2.WatchSeasonResponse]:
        for step in script:
            if isinstance(step, grpc.StatusCode):
                raise Broken(step)
            yield step

    def ListSeries(self, request: arena_pb2.ListSeriesRequest) -> arena_pb2.ListSeriesResponse:
        assert request.season_id == 1
        return arena_pb2.ListSeriesResponse(series=self.played)


def standings(sequence: int, done: int, status: int = RUNNING) -> arena_pb2.WatchSeasonResponse:
    return arena_pb2.WatchSeasonResponse(
        standings=arena_pb2.Standings(season_id=1, sequence=sequence), status=status,
        series_done=done, series_total=4)


def started(series_id: str) -> arena_pb2.WatchSeasonResponse:
    return arena_pb2.WatchSeasonResponse(
        series_started=arena_pb2.SeriesStarted(series_id=series_id), status=RUNNING)


def summary(series_id: str, stored_seq: int, played: bool = True) -> arena_pb2.SeriesSummary:
    return arena_pb2.SeriesSummary(series_id=series_id, season_id=1, played=played,
                                   stored_seq=stored_seq if played else 0)


def finished(series_id: str, stored_seq: int) -> arena_pb2.WatchSeasonResponse:
    message = arena_pb2.WatchSeasonResponse(status=RUNNING)
    message.series_finished.series.CopyFrom(summary(series_id, stored_seq))
    return message


def described(messages: Sequence[arena_pb2.WatchSeasonResponse]) -> list[str]:
    out = []
    for message in messages:
        event = message.WhichOneof("event")
        if event == "standings":
            out.append(f"standings {message.standings.sequence}")
        elif event == "series_started":
            out.append(f"started {message.series_started.series_id}")
        else:
            out.append(f"finished {message.series_finished.series.series_id}")
    return out


def watch(stub: FakeStub, backoff: Backoff | None = None,
          season_id: int = 1) -> tuple[list[str], list[float], list[str]]:
    sleeps: list[float] = []
    told: list[str] = []
    resilient = ResilientWatch(
        stub, arena_pb2.WatchSeasonRequest(season_id=season_id, top=5),  # type: ignore[arg-type]
        backoff=backoff, sleep=sleeps.append,
        on_retry=lambda attempt, delay, reason: told.append(f"{attempt} {delay} {reason}"))
    return described(list(resilient)), sleeps, told


def test_a_restart_repeats_nothing_that_was_shown() -> None:
    stub = FakeStub([
        [standings(0, 0), started("1-0"), started("1-1"), finished("1-0", 1), standings(1, 1),
         grpc.StatusCode.UNAVAILABLE],
        [],  # still down
        # back: the same standings, 1-1 started again (resumed), then the rest
        [standings(1, 1), started("1-1"), finished("1-1", 2), standings(2, 2, FINISHED)],
    ])
    shown, sleeps, told = watch(stub)
    assert shown == ["standings 0", "started 1-0", "started 1-1", "finished 1-0",
                     "standings 1", "finished 1-1", "standings 2"]
    assert sleeps == [0.25, 0.5]
    assert told == ["1 0.25 unavailable", "2 0.5 unavailable"]


def test_results_stored_while_the_stream_was_down_are_shown_in_storage_order() -> None:
    stub = FakeStub([
        [standings(0, 0), started("1-0"), finished("1-0", 1), grpc.StatusCode.UNAVAILABLE],
        [standings(3, 3), finished("1-3", 4), standings(4, 4, FINISHED)],
    ], played=[summary("1-0", 1), summary("1-1", 3), summary("1-2", 2), summary("1-3", 4)])
    shown, sleeps, _ = watch(stub)
    assert shown == ["standings 0", "started 1-0", "finished 1-0", "finished 1-2",
                     "finished 1-1", "standings 3", "finished 1-3", "standings 4"]
    assert sleeps == [0.25]


def test_results_stored_before_the_watch_began_are_not_replayed() -> None:
    stub = FakeStub([
        [standings(2, 2), started("1-2"), grpc.StatusCode.UNAVAILABLE],
        [standings(3, 3), standings(3, 3, FINISHED)],
    ], played=[summary("1-0", 1), summary("1-1", 2), summary("1-2", 3), summary("1-3", 0, False)])
    shown, _, _ = watch(stub)
    assert shown == ["standings 2", "started 1-2", "finished 1-2", "standings 3",
                     "standings 3"]


def test_a_stream_that_ends_before_the_season_is_reopened() -> None:
    stub = FakeStub([[standings(0, 0)], [standings(0, 0, FINISHED)]])
    shown, sleeps, told = watch(stub)
    assert shown == ["standings 0", "standings 0"]  # the status changed: news
    assert sleeps == [0.25]
    assert told == ["1 0.25 the stream ended before the season"]


def test_the_backoff_doubles_to_its_cap_and_gives_up_after_its_budget() -> None:
    stub = FakeStub([[standings(0, 0), grpc.StatusCode.UNAVAILABLE]] + [[]] * 10)
    with pytest.raises(Broken):
        watch(stub, Backoff(first=1, longest=4, give_up_after=12))
    assert len(stub.requests) == 5  # the first stream, then 4 tries


def test_the_backoff_starts_over_once_a_stream_answers() -> None:
    stub = FakeStub([
        [standings(0, 0), grpc.StatusCode.UNAVAILABLE], [],
        [standings(0, 0), started("1-0"), grpc.StatusCode.CANCELLED], [],
        [standings(1, 1, FINISHED)]], played=[summary("1-0", 1)])
    shown, sleeps, _ = watch(stub, Backoff(first=1, longest=4, give_up_after=12))
    assert sleeps == [1, 2, 1, 2]
    assert shown == ["standings 0", "started 1-0", "finished 1-0", "standings 1"]


@pytest.mark.parametrize("code", [grpc.StatusCode.NOT_FOUND, grpc.StatusCode.UNAVAILABLE])
def test_a_first_call_that_fails_is_an_error_at_once(code: grpc.StatusCode) -> None:
    stub = FakeStub([[code]])
    with pytest.raises(Broken):
        watch(stub)
    assert len(stub.requests) == 1


def test_a_refusal_after_a_restart_is_not_retried() -> None:
    stub = FakeStub([[standings(0, 0), grpc.StatusCode.UNAVAILABLE],
                     [grpc.StatusCode.NOT_FOUND]])
    with pytest.raises(Broken) as raised:
        watch(stub)
    assert raised.value.code() == grpc.StatusCode.NOT_FOUND


def test_the_latest_season_stays_the_one_watched_after_a_restart() -> None:
    stub = FakeStub([[standings(0, 0), grpc.StatusCode.UNAVAILABLE],
                     [standings(0, 0, FINISHED)]])
    watch(stub, season_id=0)
    assert [request.season_id for request in stub.requests] == [0, 1]
    assert [request.top for request in stub.requests] == [5, 5]


def test_backoff_delays() -> None:
    assert list(Backoff(first=0.5, longest=3, give_up_after=10).delays()) == [
        0.5, 1, 2, 3, 3]


def batch(*singles: arena_pb2.WatchSeasonResponse, done: int) -> arena_pb2.WatchSeasonResponse:
    """One ``series_events`` message holding the events of ``singles``."""
    message = arena_pb2.WatchSeasonResponse(status=RUNNING, series_done=done, series_total=4)
    for single in singles:
        item = message.series_events.events.add()
        if single.WhichOneof("event") == "series_started":
            item.started.CopyFrom(single.series_started)
        else:
            item.finished.CopyFrom(single.series_finished)
    return message


def test_batches_are_asked_for_and_shown_as_single_events_without_repeats() -> None:
    stub = FakeStub([
        [standings(0, 0), batch(started("1-0"), started("1-1"), finished("1-0", 1), done=1),
         standings(1, 1), grpc.StatusCode.UNAVAILABLE],
        # back: 1-1 resumed (started again), in one batch with its finish
        [standings(1, 1), batch(started("1-1"), finished("1-1", 2), done=2),
         standings(2, 2, FINISHED)],
    ])
    shown, _, _ = watch(stub)
    assert shown == ["standings 0", "started 1-0", "started 1-1", "finished 1-0",
                     "standings 1", "finished 1-1", "standings 2"]
    assert [request.batch_series_events for request in stub.requests] == [True, True]
