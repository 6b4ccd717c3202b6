"""The gRPC API: token, bad input (specific error, nothing changed), seasons over
the wire, the watch stream, series hand by hand. Series are played by the
in-process runner (no containers) to keep this fast."""

from __future__ import annotations

import json
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from hollywood.arena.v1 import arena_pb2, arena_pb2_grpc

from arena.cli.submit import pack
from arena.core.faults import BotFault, FaultKind
from arena.core.series import SeriesOutcome, SeriesSpec
from arena.core.upload_messages import upload_messages
from arena.server.app import RunningServer, start_server
from engine import Series
from engine.series import SeriesResult
from tests.helpers.arena_helpers import REPO_ROOT, make_bot_folder, upload_folder
from tests.helpers.fake_runner import run_fake_series

SAMPLES = REPO_ROOT / "sample_bots"


@pytest.fixture
def stub(server: RunningServer) -> Iterator[arena_pb2_grpc.ArenaServiceStub]:
    with grpc.insecure_channel(server.address) as channel:
        yield arena_pb2_grpc.ArenaServiceStub(channel)


def auth(server: RunningServer) -> tuple[tuple[str, str]]:
    return (("authorization", f"Bearer {server.token}"),)


def register(stub, server, folder: Path) -> arena_pb2.Bot:
    return upload_folder(stub, auth(server), folder).bot


def expect_error(code: grpc.StatusCode, fragment: str, call, *args, **kwargs) -> None:
    with pytest.raises(grpc.RpcError) as caught:
        call(*args, **kwargs)
    assert caught.value.code() == code, caught.value.details()
    assert fragment in caught.value.details(), caught.value.details()


def test_token_file_is_owner_only_and_stable(server: RunningServer, tmp_path: Path) -> None:
    assert stat.S_IMODE(server.token_path.stat().st_mode) == 0o600
    assert server.token_path.read_text().strip() == server.token
    server.stop(grace=None)
    again = start_server(tmp_path / "arena.db", port=0)
    try:
        assert again.token == server.token
    finally:
        again.stop(grace=None)


def test_mutations_need_the_token(server: RunningServer, stub) -> None:
    folder = SAMPLES / "random"
    expect_error(grpc.StatusCode.UNAUTHENTICATED, "admin token", upload_folder, stub, None, folder)
    expect_error(grpc.StatusCode.UNAUTHENTICATED, "wrong admin token", upload_folder, stub,
                 (("authorization", "Bearer nope"),), folder)
    for call, message in (
        (stub.CreateSeason, arena_pb2.CreateSeasonRequest(bots=["a", "b"])),
        (stub.StartSeason, arena_pb2.StartSeasonRequest(season_id=1)),
        (stub.CancelSeason, arena_pb2.CancelSeasonRequest(season_id=1)),
    ):
        expect_error(grpc.StatusCode.UNAUTHENTICATED, "admin token", call, message)
    assert server.storage.count_rows()["bots"] == 0
    assert upload_folder(stub, auth(server), folder).created
    assert [b.id for b in stub.ListBots(arena_pb2.ListBotsRequest()).bots] == ["random@1.0.0"]


def test_health_and_reflection_are_served(server: RunningServer) -> None:
    with grpc.insecure_channel(server.address) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        response = health.Check(health_pb2.HealthCheckRequest(
            service="hollywood.arena.v1.ArenaService"))
        assert response.status == health_pb2.HealthCheckResponse.SERVING
        from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

        reflection = reflection_pb2_grpc.ServerReflectionStub(channel)
        answers = reflection.ServerReflectionInfo(iter([
            reflection_pb2.ServerReflectionRequest(list_services="")]))
        names = {s.name for s in next(answers).list_services_response.service}
        assert "hollywood.arena.v1.ArenaService" in names


def test_bad_input_gets_specific_errors_and_changes_nothing(
    server: RunningServer, stub
) -> None:
    # Bad uploads: tests/arena/server/test_submit.py.
    register(stub, server, SAMPLES / "random")
    register(stub, server, SAMPLES / "greedy")
    before = server.storage.count_rows()
    md = auth(server)
    cases = [
        (grpc.StatusCode.NOT_FOUND, "unknown bot 'nobody'", stub.CreateSeason,
         arena_pb2.CreateSeasonRequest(bots=["random", "nobody"])),
        (grpc.StatusCode.INVALID_ARGUMENT, "at least two bots, got 1", stub.CreateSeason,
         arena_pb2.CreateSeasonRequest(bots=["random"])),
        (grpc.StatusCode.INVALID_ARGUMENT, "named more than once", stub.CreateSeason,
         arena_pb2.CreateSeasonRequest(bots=["random", "random@1.0.0"])),
        (grpc.StatusCode.INVALID_ARGUMENT, "unknown profile field(s): undercut", stub.CreateSeason,
         arena_pb2.CreateSeasonRequest(bots=["random", "greedy"], config=arena_pb2.SeasonConfig(
             profile_overrides={"undercut": "20"}))),
        (grpc.StatusCode.INVALID_ARGUMENT, "gin_bonus must be an integer", stub.CreateSeason,
         arena_pb2.CreateSeasonRequest(bots=["random", "greedy"], config=arena_pb2.SeasonConfig(
             profile_overrides={"gin_bonus": '"lots"'}))),
        (grpc.StatusCode.INVALID_ARGUMENT, "profile override 'name' is not allowed",
         stub.CreateSeason,
         arena_pb2.CreateSeasonRequest(bots=["random", "greedy"], config=arena_pb2.SeasonConfig(
             profile_overrides={"name": '"x"'}))),
        (grpc.StatusCode.INVALID_ARGUMENT, "unknown profile 'bogus'", stub.CreateSeason,
         arena_pb2.CreateSeasonRequest(bots=["random", "greedy"],
                                       config=arena_pb2.SeasonConfig(profile="bogus"))),
        (grpc.StatusCode.INVALID_ARGUMENT,
         "sandbox must be one of docker, inprocess, ", stub.CreateSeason,
         arena_pb2.CreateSeasonRequest(bots=["random", "greedy"],
                                       config=arena_pb2.SeasonConfig(sandbox_backend="vm"))),
        (grpc.StatusCode.INVALID_ARGUMENT, "time limits", stub.CreateSeason,
         arena_pb2.CreateSeasonRequest(bots=["random", "greedy"],
                                       config=arena_pb2.SeasonConfig(decision_seconds=-1))),
        (grpc.StatusCode.NOT_FOUND, "unknown season 99", stub.CancelSeason,
         arena_pb2.CancelSeasonRequest(season_id=99)),
        (grpc.StatusCode.INVALID_ARGUMENT, "season_id is required", stub.StartSeason,
         arena_pb2.StartSeasonRequest()),
    ]
    for code, fragment, call, request in cases:
        expect_error(code, fragment, call, request, metadata=md)
    expect_error(grpc.StatusCode.NOT_FOUND, "unknown series '7-7'", stub.GetSeries,
                 arena_pb2.GetSeriesRequest(series_id="7-7"))
    expect_error(grpc.StatusCode.NOT_FOUND, "no season yet", stub.GetStandings,
                 arena_pb2.GetStandingsRequest())
    with pytest.raises(grpc.RpcError) as caught:
        next(stub.WatchSeason(arena_pb2.WatchSeasonRequest(season_id=5)))
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND
    assert "unknown season 5" in caught.value.details()
    expect_error(grpc.StatusCode.INVALID_ARGUMENT, "finite", stub.CreateSeason,
                 arena_pb2.CreateSeasonRequest(
                     bots=["random", "greedy"],
                     config=arena_pb2.SeasonConfig(decision_seconds=float("nan"))),
                 metadata=md)
    assert server.storage.count_rows() == before


def series_events(messages: list[arena_pb2.WatchSeasonResponse]) -> list[tuple[str, str]]:
    """(kind, series id) of every series event, from single and batched messages."""
    events = []
    for message in messages:
        kind = message.WhichOneof("event")
        if kind == "series_started":
            events.append(("started", message.series_started.series_id))
        elif kind == "series_finished":
            events.append(("finished", message.series_finished.series.series_id))
        elif kind == "series_events":
            for item in message.series_events.events:
                events.append(("started", item.started.series_id)
                              if item.WhichOneof("event") == "started"
                              else ("finished", item.finished.series.series_id))
    return events


@pytest.mark.parametrize("batch", [False, True])
def test_season_over_grpc_with_watch_stream(server: RunningServer, stub, batch: bool) -> None:
    for name in ("random", "greedy"):
        register(stub, server, SAMPLES / name)
    created = stub.CreateSeason(arena_pb2.CreateSeasonRequest(
        bots=["random", "greedy"], hold=True, config=arena_pb2.SeasonConfig(
            series_per_pair=4, max_hands=30, profile="classic",
            profile_overrides={"undercut_bonus": "20"})), metadata=auth(server)).season
    assert created.status == arena_pb2.SEASON_STATUS_CREATED and created.series_total == 4
    assert json.loads(created.profile_json)["undercut_bonus"] == 20
    assert created.config.seed == 0  # no seed given: dealt from the server's secret
    stream = stub.WatchSeason(arena_pb2.WatchSeasonRequest(season_id=created.id,
                                                           batch_series_events=batch))
    first = next(stream)
    assert first.WhichOneof("event") == "standings" and first.series_done == 0
    stub.StartSeason(arena_pb2.StartSeasonRequest(season_id=created.id), metadata=auth(server))
    messages = list(stream)
    kinds = {m.WhichOneof("event") for m in messages}
    assert ("series_events" in kinds) == batch
    assert not kinds & ({"series_started", "series_finished"} if batch else {"series_events"})
    events = series_events(messages)
    ids = [f"{created.id}-{i}" for i in range(4)]
    assert sorted(events) == sorted([("started", i) for i in ids] + [("finished", i) for i in ids])
    for series_id in ids:  # each series starts before it finishes
        assert events.index(("started", series_id)) < events.index(("finished", series_id))
    last = messages[-1]
    assert last.status == arena_pb2.SEASON_STATUS_FINISHED
    assert last.standings.series_done == 4
    rows = {row.bot_id: row for row in last.standings.rows}
    assert sum(row.series_played for row in rows.values()) == 8
    assert sum(row.series_won + row.series_drawn / 2 for row in rows.values()) == 4
    series = stub.GetSeries(arena_pb2.GetSeriesRequest(series_id=f"{created.id}-0"))
    assert series.series.played and len(series.hands) == series.series.hands_played
    assert series.hands[0].lines[0].startswith("dealer: ")
    assert any(line.startswith("sheet after:") for line in series.hands[-1].lines)
    assert json.loads(series.event_log_json)[0]["type"] == "series_start"
    listed = stub.ListSeries(arena_pb2.ListSeriesRequest(season_id=created.id)).series
    assert [s.played for s in listed] == [True] * 4
    expect_error(grpc.StatusCode.FAILED_PRECONDITION, "already finished", stub.CancelSeason,
                 arena_pb2.CancelSeasonRequest(season_id=created.id), metadata=auth(server))


def test_new_version_is_a_separate_entry_with_its_own_results(
    server: RunningServer, stub, tmp_path: Path
) -> None:
    old = register(stub, server, make_bot_folder(tmp_path, "alpha", "1.0.0"))
    new = register(stub, server, make_bot_folder(tmp_path, "alpha", "2.0.0", code="v = 2\n"))
    register(stub, server, SAMPLES / "random")
    assert (old.id, new.id) == ("alpha@1.0.0", "alpha@2.0.0")
    season = stub.CreateSeason(arena_pb2.CreateSeasonRequest(
        bots=["alpha@1.0.0", "alpha", "random"],  # bare "alpha" = the latest version
        config=arena_pb2.SeasonConfig(max_hands=20)), metadata=auth(server)).season
    assert list(season.bot_ids) == ["alpha@1.0.0", "alpha@2.0.0", "random@1.0.0"]
    assert server.manager.wait(season.id, timeout=60)
    standings = stub.GetStandings(arena_pb2.GetStandingsRequest(season_id=season.id)).standings
    rows = {row.bot_id: row for row in standings.rows}
    assert rows["alpha@1.0.0"].series_played == rows["alpha@2.0.0"].series_played == 4
    cells = {(c.bot_id, c.opponent_id) for c in standings.crosstable}
    assert ("alpha@1.0.0", "alpha@2.0.0") in cells



def test_an_upload_the_server_cannot_store_fails_and_changes_nothing(
    server: RunningServer, stub, tmp_path: Path
) -> None:
    # A file where the arena keeps bot copies makes the copy fail (as root too).
    server.storage.bots_dir.parent.mkdir(parents=True, exist_ok=True)
    server.storage.bots_dir.write_text("in the way")
    before = server.storage.count_rows()
    expect_error(grpc.StatusCode.INTERNAL, "cannot store the bot's files", upload_folder,
                 stub, auth(server), make_bot_folder(tmp_path, "alpha"))
    assert server.storage.count_rows() == before


def test_cancel_then_start_resumes_to_exactly_the_plan(tmp_path: Path) -> None:
    def slow(spec):  # type: ignore[no-untyped-def]
        return run_fake_series(spec, delay_s=0.1)

    running = start_server(tmp_path / "arena.db", port=0, runner_factory=lambda config: slow)
    try:
        with grpc.insecure_channel(running.address) as channel:
            stub = arena_pb2_grpc.ArenaServiceStub(channel)
            for name in ("random", "greedy"):
                register(stub, running, SAMPLES / name)
            season = stub.CreateSeason(arena_pb2.CreateSeasonRequest(
                bots=["random", "greedy"], config=arena_pb2.SeasonConfig(
                    series_per_pair=20, concurrency=1, max_hands=10)),
                metadata=auth(running)).season
            stub.CancelSeason(arena_pb2.CancelSeasonRequest(season_id=season.id),
                              metadata=auth(running))
            assert running.manager.wait(season.id, timeout=30)
            cancelled = stub.GetSeason(arena_pb2.GetSeasonRequest(season_id=season.id)).season
            assert cancelled.status == arena_pb2.SEASON_STATUS_CANCELLED
            assert cancelled.series_done < cancelled.series_total == 20
            stub.StartSeason(arena_pb2.StartSeasonRequest(season_id=season.id),
                             metadata=auth(running))
            assert running.manager.wait(season.id, timeout=60)
            finished = stub.GetSeason(arena_pb2.GetSeasonRequest(season_id=season.id)).season
            assert finished.status == arena_pb2.SEASON_STATUS_FINISHED
            series = stub.ListSeries(arena_pb2.ListSeriesRequest(season_id=season.id)).series
            assert [s.series_id for s in series if s.played] == [
                f"{season.id}-{i}" for i in range(20)]
            assert running.storage.count_rows()["series_results"] == 20
    finally:
        running.stop(grace=None)


MALFORMED = b"\xff\xff\xff\x0f\x12"


def raw_call(channel: grpc.Channel, method: str, stream: bool = False) -> Any:
    """A call of an ArenaService method sending and receiving raw bytes."""
    factory = channel.unary_stream if stream else channel.unary_unary
    return factory(f"/hollywood.arena.v1.ArenaService/{method}",
                   request_serializer=None, response_deserializer=None)


def test_undecodable_request_is_invalid_argument_and_auth_still_comes_first(
    server: RunningServer
) -> None:
    before = server.storage.count_rows()
    with grpc.insecure_channel(server.address) as channel:
        create = raw_call(channel, "CreateSeason")
        with pytest.raises(grpc.RpcError) as caught:
            create(MALFORMED, metadata=auth(server))
        assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert caught.value.details().startswith("malformed CreateSeasonRequest: ")
        with pytest.raises(grpc.RpcError) as caught:  # no token: that is the first problem
            create(MALFORMED)
        assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
        assert "admin token" in caught.value.details()
        with pytest.raises(grpc.RpcError) as caught:
            raw_call(channel, "GetSeason")(MALFORMED)
        assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert caught.value.details().startswith("malformed GetSeasonRequest: ")
        with pytest.raises(grpc.RpcError) as caught:
            list(raw_call(channel, "WatchSeason", stream=True)(MALFORMED))
        assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert caught.value.details().startswith("malformed WatchSeasonRequest: ")
        # Well-formed bytes are decoded and served as before.
        submit = channel.stream_unary("/hollywood.arena.v1.ArenaService/SubmitBot",
                                      request_serializer=None, response_deserializer=None)
        upload = [message.SerializeToString()
                  for message in upload_messages(pack(SAMPLES / "random"))]
        reply = arena_pb2.SubmitBotResponse.FromString(
            submit(iter(upload), metadata=auth(server)))
        assert reply.bot.id == "random@1.0.0" and reply.created
        with pytest.raises(grpc.RpcError) as caught:
            submit(iter(upload))
        assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert server.storage.count_rows() == {**before, "bots": 1}


def startup_forfeit(spec: SeriesSpec) -> SeriesOutcome:
    """A series whose seat-1 bot never came up (as when its image fails to build)."""
    series = Series(spec.seed, spec.profile, max_hands=spec.max_hands,
                    swap_seats=spec.swap_seats)
    return SeriesOutcome(
        series_id=spec.series_id, result=SeriesResult(
            winner=0, games_won=(0, 0), game_winners=(None, None, None),
            game_scores=((0, 0, 0), (0, 0, 0)), hands_won=(0, 0), points=(0, 0),
            hands_played=0, capped=False),
        fault=BotFault(FaultKind.STARTUP, "image failed to build", seat=1),
        think_seconds=(0.0, 0.0), wall_seconds=0.1, log=list(series.log))


def test_series_forfeited_at_start_up_tells_no_hand(tmp_path: Path) -> None:
    running = start_server(tmp_path / "arena.db", port=0,
                           runner_factory=lambda config: startup_forfeit)
    try:
        with grpc.insecure_channel(running.address) as channel:
            stub = arena_pb2_grpc.ArenaServiceStub(channel)
            for name in ("random", "greedy"):
                register(stub, running, SAMPLES / name)
            season = stub.CreateSeason(arena_pb2.CreateSeasonRequest(
                bots=["random", "greedy"], config=arena_pb2.SeasonConfig(series_per_pair=1)),
                metadata=auth(running)).season
            assert running.manager.wait(season.id, timeout=30)
            series = stub.GetSeries(arena_pb2.GetSeriesRequest(series_id=f"{season.id}-0"))
    finally:
        running.stop(grace=None)
    assert series.series.played and series.series.fault.kind == "startup"
    assert series.series.fault.hand_number == 0 and list(series.hands) == []
    assert json.loads(series.event_log_json)[0]["type"] == "series_start"
