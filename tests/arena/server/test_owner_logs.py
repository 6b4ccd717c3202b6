"""Issue 36: a bot's logs of every series are its owner's alone. A real server plays
real bot processes: alice's bot writes a unique marker to stderr and as its debug
notes, loses one series to bob's greedy and crashes in the other. Alice reads her
bot's stderr, debug notes and timings in the CLI; bob (who owns the other seat),
carol (who owns neither) and an anonymous caller get none of it from any RPC, page
or JSON twin (every response is scanned for the marker)."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
from hollywood.arena.v1 import arena_pb2, arena_pb2_grpc
from starlette.routing import Mount, Route
from starlette.testclient import TestClient

from arena.cli import main
from arena.server.app import RunningServer, start_server
from arena.storage import read_seat_logs
from arena.web.app import create_app
from tests.helpers.arena_helpers import REPO_ROOT, make_bot_folder, upload_folder

MARK = "zq-owner-only-7731"

SCRIBE = f'''
import sys
import hollywood_sdk as hs

class Scribe(hs.Bot):
    # Series ids are opaque to bots: the series it crashes in is the one it sits in
    # seat 1 (the pair's halves give it each seat once).
    def decide(self, observation):
        print("{MARK} stderr at hand", observation.hand_number, file=sys.stderr, flush=True)
        if observation.seat == 1 and observation.hand_number >= 2:
            raise RuntimeError("boom")
        self.debug("{MARK} note: took the first of " + str(len(observation.legal_actions)))
        return observation.legal_actions[0]

if __name__ == "__main__":
    hs.serve(Scribe())
'''


@dataclass
class Arena:
    server: RunningServer
    stub: arena_pb2_grpc.ArenaServiceStub
    tokens: dict[str, str]
    season_id: int
    channel: grpc.Channel

    def auth(self, who: str) -> tuple[tuple[str, str], ...]:
        return (("authorization", f"Bearer {self.tokens[who]}"),)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Arena]:
    root = tmp_path_factory.mktemp("owner-logs")
    server = start_server(root / "arena.db", port=0)
    channel = grpc.insecure_channel(server.address)
    stub = arena_pb2_grpc.ArenaServiceStub(channel)
    admin = (("authorization", f"Bearer {server.token}"),)
    tokens = {name: stub.AddAuthor(arena_pb2.AddAuthorRequest(name=name), metadata=admin).token
              for name in ("alice", "bob", "carol")}
    scribe = make_bot_folder(root, "scribe", code=SCRIBE)
    greedy = shutil.copytree(REPO_ROOT / "sample_bots" / "greedy", root / "greedy")
    upload_folder(stub, (("authorization", f"Bearer {tokens['alice']}"),), scribe)
    upload_folder(stub, (("authorization", f"Bearer {tokens['bob']}"),), greedy)
    created = stub.CreateSeason(arena_pb2.CreateSeasonRequest(
        bots=["scribe@1.0.0", "greedy@1.0.0"],
        config=arena_pb2.SeasonConfig(sandbox_backend="process", seed=11, max_hands=4)),
        metadata=admin)
    assert server.manager.wait(created.season.id, timeout=120)
    yield Arena(server, stub, tokens, created.season.id, channel)
    channel.close()
    server.stop(grace=None)


def cli(capsys: pytest.CaptureFixture[str], world: Arena, who: str, *argv: str) -> str:
    code = main([*argv, "--server", world.server.address, "--token", world.tokens[who]])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return captured.out


def series_of(world: Arena) -> dict[str, arena_pb2.SeriesSummary]:
    listed = world.stub.ListSeries(arena_pb2.ListSeriesRequest(season_id=world.season_id))
    return {item.series_id: item for item in listed.series}


def scribe_seat(item: arena_pb2.SeriesSummary) -> int:
    return 0 if item.seat0_bot == "scribe@1.0.0" else 1


def series_where_scribe_sat(world: Arena, seat: int) -> arena_pb2.SeriesSummary:
    [found] = [item for item in series_of(world).values() if scribe_seat(item) == seat]
    return found


def test_the_owner_reads_stderr_notes_and_timings_of_a_lost_series(
        world: Arena, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    played = series_of(world)
    lost = [item for item in played.values()
            if item.played and item.winner != scribe_seat(item)]
    assert lost, [str(item) for item in played.values()]
    series = series_where_scribe_sat(world, 0)  # played to its end (in seat 1 it crashes)
    assert not series.HasField("fault") and series.winner == 1 - scribe_seat(series)
    seat = scribe_seat(series)
    shown = cli(capsys, world, "alice", "series", "logs", series.series_id)
    assert f"seat {seat}: scribe@1.0.0" in shown
    assert f"{MARK} stderr at hand 1" in shown and f"{MARK} note: took the first of" in shown
    assert "greedy@1.0.0" not in shown  # alice owns one seat: she sees that one alone
    data = json.loads(cli(capsys, world, "alice", "series", "logs", series.series_id,
                          "--json"))
    [log] = data["seats"]
    assert log["seat"] == seat and data["readable_seats"] == [seat]
    decisions = log["decisions"]
    assert len(decisions) >= 4 and all(d["think_ms"] > 0 for d in decisions)
    assert all(d["debug"].startswith(f"{MARK} note: took the first of ") for d in decisions)
    assert [d["hand_number"] for d in decisions] == sorted(d["hand_number"] for d in decisions)
    assert log["stderr"].count(f"{MARK} stderr at hand") == len(decisions)
    assert log["stderr_bytes"] == len(log["stderr"].encode())
    # The download: the replay and the owner's logs in one file.
    target = tmp_path / "series.json"
    cli(capsys, world, "alice", "series", "download", series.series_id, "-o", str(target))
    document = json.loads(target.read_text())
    assert document["event_log"][0]["type"] == "series_start"
    assert document["series"]["series_id"] == series.series_id
    assert [log["seat"] for log in document["seat_logs"]] == [seat]
    assert document["seat_logs"][0]["decisions"] == decisions


def test_a_crash_keeps_its_traceback_for_the_owner_and_its_kind_for_everyone(
        world: Arena, capsys: pytest.CaptureFixture[str]) -> None:
    series = series_where_scribe_sat(world, 1)
    assert series.HasField("fault") and series.fault.kind == "crash"
    assert (series.fault.hand_number, series.fault.seat) == (2, scribe_seat(series))
    data = json.loads(cli(capsys, world, "alice", "series", "logs", series.series_id,
                          "--json"))
    stderr = data["seats"][0]["stderr"]
    assert "RuntimeError: boom" in stderr and f"{MARK} stderr at hand 2" in stderr
    # The bot's own words about its crash are its owner's; the public fault, the arena's.
    assert data["seats"][0]["fault_words"] == "bot error: RuntimeError: boom"
    assert series.fault.message == "the bot failed Decide with status UNKNOWN"
    # The forfeit line names the opponent (issue 36) and the --bot filter keeps both.
    listed = cli(capsys, world, "bob", "series", "list", "--bot", "scribe",
                 "--season", str(world.season_id))
    assert f"{series.series_id} scribe@1.0.0 forfeited to greedy@1.0.0 (crash:" in listed
    assert [line.split()[0] for line in listed.splitlines()
            if line.startswith(f"{world.season_id}-")] == [f"{world.season_id}-0",
                                                           f"{world.season_id}-1"]


def test_another_author_and_an_anonymous_caller_get_no_logs(world: Arena) -> None:
    for series_id in series_of(world):
        for metadata, code in (((), grpc.StatusCode.UNAUTHENTICATED),
                               (world.auth("carol"), grpc.StatusCode.PERMISSION_DENIED)):
            with pytest.raises(grpc.RpcError) as refused:
                world.stub.GetSeriesLogs(arena_pb2.GetSeriesLogsRequest(series_id=series_id),
                                         metadata=metadata)
            assert refused.value.code() == code
        scribe = scribe_seat(series_of(world)[series_id])
        with pytest.raises(grpc.RpcError) as refused:
            world.stub.GetSeriesLogs(arena_pb2.GetSeriesLogsRequest(
                series_id=series_id, seat=scribe), metadata=world.auth("bob"))
        assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
        assert str(refused.value.details()) == (
            f"seat {scribe} of series {series_id} is played by scribe@1.0.0, which author "
            "bob does not own: a bot's logs are its owner's alone")
        # bob reads his own seat, and only it; the admin reads both.
        own = world.stub.GetSeriesLogs(arena_pb2.GetSeriesLogsRequest(series_id=series_id),
                                       metadata=world.auth("bob"))
        assert [seat.seat for seat in own.seats] == [1 - scribe]
        assert MARK not in str(own)
        admin = (("authorization", f"Bearer {world.server.token}"),)
        both = world.stub.GetSeriesLogs(arena_pb2.GetSeriesLogsRequest(series_id=series_id),
                                        metadata=admin)
        assert [seat.seat for seat in both.seats] == [0, 1] and MARK in str(both)


def public_replies(world: Arena, metadata: tuple[tuple[str, str], ...]) -> Iterator[str]:
    """Every public read of the API about this season, its series and its bots."""
    stub, season_id = world.stub, world.season_id
    yield str(stub.ListBots(arena_pb2.ListBotsRequest(), metadata=metadata))
    for name in ("scribe", "greedy"):
        yield str(stub.GetBot(arena_pb2.GetBotRequest(name=name), metadata=metadata))
    yield str(stub.ListSeasons(arena_pb2.ListSeasonsRequest(), metadata=metadata))
    yield str(stub.GetSeason(arena_pb2.GetSeasonRequest(season_id=season_id),
                             metadata=metadata))
    yield str(stub.GetStandings(arena_pb2.GetStandingsRequest(season_id=season_id),
                                metadata=metadata))
    yield str(stub.ListSeries(arena_pb2.ListSeriesRequest(season_id=season_id),
                              metadata=metadata))
    for series_id in series_of(world):
        yield str(stub.GetSeries(arena_pb2.GetSeriesRequest(series_id=series_id),
                                 metadata=metadata))
    watch = stub.WatchSeason(arena_pb2.WatchSeasonRequest(season_id=season_id),
                             metadata=metadata)
    for reply in watch:  # a finished season: its snapshot, then the stream ends
        yield str(reply)


PARAM = re.compile(r"\{(\w+)(?::\w+)?\}")


def test_no_public_rpc_page_or_json_twin_carries_the_bots_words(world: Arena) -> None:
    stored = [log for series_id in series_of(world)
              for log in read_seat_logs(world.server.storage, series_id)]
    assert any(MARK in log.stderr for log in stored)  # the marker is there
    replies = [*public_replies(world, ()), *public_replies(world, world.auth("bob")),
               *public_replies(world, world.auth("carol"))]
    assert len(replies) > 10
    assert all(MARK not in reply and "RuntimeError: boom" not in reply for reply in replies)
    storage = world.server.storage
    app = create_app(storage, world.server.service.hub)
    app.state.website.feed.close()
    app.state.website.live.close()
    app.state.website.tv.close()  # its streams end at once: every route is read whole
    values = {"season_id": [str(world.season_id)], "series_id": list(series_of(world)),
              "bot_id": ["scribe@1.0.0", "greedy@1.0.0"], "name": ["scribe", "greedy", "bob",
                                                                    "alice"]}
    fetched = 0
    with TestClient(app, raise_server_exceptions=False) as client:
        for route in app.routes:
            if isinstance(route, Mount) or not isinstance(route, Route):
                continue
            names = PARAM.findall(route.path)
            choices = [values.get(name, values["season_id"]) for name in names]
            paths = [route.path]
            for name, options in zip(names, choices, strict=True):
                paths = [re.sub(r"\{" + name + r"(?::\w+)?\}", option, path, count=1)
                         for path in paths for option in options]
            for path in paths:
                response = client.get(path)
                fetched += 1
                assert MARK not in response.text, path
                assert "RuntimeError: boom" not in response.text, path
    assert fetched > 20
