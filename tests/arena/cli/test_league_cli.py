"""``arena league create | show | list | next | cancel`` against a server playing with the
fake runner (bots named "random..." play at random, the others knock and win): a
2-division league shows its division tables with ▲ on the promoted knocker and ▼
on the relegated random bot; a rule its bots cannot play is refused saying why."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from hollywood.arena.v1 import arena_pb2, arena_pb2_grpc

from arena.cli import main
from arena.server.app import RunningServer
from tests.helpers.format_server import fake_runner_server, stub_with_bots
from tests.helpers.polling import wait_until


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[RunningServer, arena_pb2_grpc.ArenaServiceStub]]:
    with fake_runner_server(tmp_path) as server, stub_with_bots(server, tmp_path) as stub:
        yield server, stub


def cli(running: RunningServer, *argv: str) -> int:
    return main(["--server", running.address, "--token", running.token, *argv])


def test_create_show_list_and_next(served: tuple[RunningServer,
                                                 arena_pb2_grpc.ArenaServiceStub],
                                   capsys: pytest.CaptureFixture[str]) -> None:
    server, stub = served
    assert cli(server, "league", "create", "cup <b>", "--bots", "random1", "k1", "k2",
               "random2", "--divisions", "2", "--promote", "1", "--relegate", "1",
               "--division-format", "2=swiss", "--seed", "5", "--json") == 0
    created = json.loads(capsys.readouterr().out)
    league_id = int(created["id"])
    assert created["division_formats"] == ["round-robin", "swiss"]
    assert created["planned_rounds"] == 1

    def first_round_over() -> bool:
        league = stub.GetLeague(arena_pb2.GetLeagueRequest(league_id=league_id)).league
        return all(t.status == arena_pb2.SEASON_STATUS_FINISHED
                   for t in league.rounds[0].divisions)
    wait_until(first_round_over, what="round 1 to finish")
    assert cli(server, "league", "next", str(league_id)) == 0
    assert f"league {league_id}: round 2 started" in capsys.readouterr().out

    assert cli(server, "league", "show", str(league_id)) == 0
    out = capsys.readouterr().out
    assert "cup <b> (league 1) — 2 divisions, promote 1, relegate 1, 2 rounds" in out
    assert "round 1, division 1: season 1, round-robin, finished" in out
    assert "round 1, division 2: season 2, swiss" in out
    round_one = out.split("round 2, division 1")[0]
    marks = {line.split("│")[2].strip(): line.split("│")[5].strip()
             for line in round_one.splitlines() if line.count("│") == 6 and "@" in line}
    assert marks == {"k1@1.0.0": "", "random1@1.0.0": "▼", "k2@1.0.0": "▲",
                     "random2@1.0.0": ""}

    assert cli(server, "league", "list") == 0
    assert f"   {league_id}  2 divisions, promote 1, relegate 1, 2 rounds  cup <b>" in (
        capsys.readouterr().out)


def test_cancel_shows_the_league_cancelled_and_the_list_marks_it(
        served: tuple[RunningServer, arena_pb2_grpc.ArenaServiceStub],
        capsys: pytest.CaptureFixture[str]) -> None:
    server, stub = served
    assert cli(server, "league", "create", "cup", "--bots", "random1", "k1", "k2",
               "random2", "--divisions", "2", "--promote", "1", "--relegate", "1",
               "--league-rounds", "3", "--json") == 0
    league_id = int(json.loads(capsys.readouterr().out)["id"])
    assert cli(server, "league", "cancel", str(league_id)) == 0
    out = capsys.readouterr().out
    cancelled_at = stub.GetLeague(
        arena_pb2.GetLeagueRequest(league_id=league_id)).league.cancelled_at
    assert cancelled_at and f"cancelled {cancelled_at}: no further rounds" in out
    assert cli(server, "league", "list") == 0
    assert (f"   {league_id}  2 divisions, promote 1, relegate 1, 3 rounds (cancelled)  cup"
            in capsys.readouterr().out)
    assert cli(server, "league", "cancel", "99") != 0
    assert "unknown league 99" in capsys.readouterr().err


def test_a_rule_the_bots_cannot_play_is_refused(
        served: tuple[RunningServer, arena_pb2_grpc.ArenaServiceStub],
        capsys: pytest.CaptureFixture[str]) -> None:
    server, _ = served
    assert cli(server, "league", "create", "cup", "--bots", "k1", "k2", "k3",
               "--divisions", "2", "--promote", "1", "--relegate", "1") != 0
    assert "2 divisions need at least 4 bots (2 each), got 3" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli(server, "league", "create", "cup", "--all-active", "--divisions", "2",
            "--promote", "-1", "--relegate", "1")
    assert "expected 0 to 10000, got -1" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli(server, "league", "create", "cup", "--all-active", "--divisions", "2",
            "--promote", "1", "--relegate", "1", "--division-format", "swiss")
    assert "expected DIVISION=FORMAT, e.g. 2=swiss" in capsys.readouterr().err
