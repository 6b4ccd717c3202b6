"""``arena ladder start | stop | status`` against a server playing with the fake
runner: start takes every active bot, a version uploaded while it plays joins,
stop stops it, start again resumes the same ladder (it replays no series), and
status and the API's standings show it like a season, with the ladder's columns
and provisional ratings marked."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from hollywood.arena.v1 import arena_pb2, arena_pb2_grpc

from arena.cli import main
from arena.server.app import RunningServer
from tests.helpers.arena_helpers import make_bot_folder, upload_folder
from tests.helpers.format_server import auth, stub_with_bots
from tests.helpers.polling import wait_until


@pytest.fixture
def stub(server: RunningServer, tmp_path: Path) -> Iterator[arena_pb2_grpc.ArenaServiceStub]:
    with stub_with_bots(server, tmp_path) as stub:
        yield stub



def cli(running: RunningServer, *argv: str) -> int:
    return main(["--server", running.address, "--token", running.token, *argv])


def season_of(api: arena_pb2_grpc.ArenaServiceStub, season_id: int) -> arena_pb2.Season:
    return api.GetSeason(arena_pb2.GetSeasonRequest(season_id=season_id)).season


def test_start_stop_resume_and_status(server, stub, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(server, "ladder", "start", "--json", "--seed", "3", "--max-hands", "20",
               "--concurrency", "1", "--ladder-meetings", "1") == 0
    started = json.loads(capsys.readouterr().out)
    ladder_id = int(started["id"])
    assert started["config"]["format"] == "ladder"
    assert sorted(started["bot_ids"]) == sorted(
        f"{name}@1.0.0" for name in ("k1", "k2", "k3", "random1", "random2"))
    assert cli(server, "ladder", "start") == 2  # already running
    assert "already running" in capsys.readouterr().err

    wait_until(lambda: season_of(stub, ladder_id).series_done >= 4, what="4 series",
               bound_s=60)
    upload_folder(stub, auth(server), make_bot_folder(tmp_path / "new", "k1", "2.0.0"))
    wait_until(lambda: "k1@2.0.0" in season_of(stub, ladder_id).bot_ids,
               what="k1@2.0.0 joining", bound_s=60)

    assert cli(server, "ladder", "stop", "--json") == 0
    stopped = json.loads(capsys.readouterr().out)
    assert stopped["status"] == "SEASON_STATUS_CANCELLED"
    done = season_of(stub, ladder_id).series_done
    assert cli(server, "ladder", "start", "--json") == 0
    resumed = json.loads(capsys.readouterr().out)
    assert int(resumed["id"]) == ladder_id  # the same ladder, resumed
    wait_until(lambda: season_of(stub, ladder_id).series_done >= done + 2,
               what="the resumed ladder playing", bound_s=60)
    assert cli(server, "ladder", "stop") == 0
    capsys.readouterr()

    series = stub.ListSeries(arena_pb2.ListSeriesRequest(season_id=ladder_id,
                                                         page_size=1000)).series
    ids = [s.series_id for s in series]
    assert len(ids) == len(set(ids))

    assert cli(server, "ladder", "status") == 0
    shown = capsys.readouterr().out
    assert "ladder (no end, window 1000)" in shown and "provisional" in shown
    standings = stub.GetStandings(arena_pb2.GetStandingsRequest(season_id=ladder_id)).standings
    assert list(standings.extra_columns) == ["Elo (last 1000)", "Provisional"]
    rows = {row.bot_id: row for row in standings.rows}
    # Too few series to settle anyone's rating: every row is provisional.
    assert all(row.provisional for row in rows.values())
    assert "k1@2.0.0" in rows  # the version that joined mid-way has its row


def test_status_and_stop_without_a_ladder_say_so(server, stub,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(server, "ladder", "status") == 2
    assert "no ladder yet" in capsys.readouterr().err
    assert cli(server, "ladder", "start", "--format", "swiss") == 2
    assert "arena ladder plays the ladder format" in capsys.readouterr().err
