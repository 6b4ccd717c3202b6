"""The ladder's gate through a real server (the fake runner): a ladder with
``--gate sprt`` meets a new version of a member, its season manager starts the
gate match as a season of its own; ``arena bots show`` reports the verdict and
its figures; ``arena ladder admit`` is refused to another author and lets the
owner admit the version (or withdraw it)."""

from __future__ import annotations

import json
from pathlib import Path

import grpc
import pytest
from hollywood.arena.v1 import arena_pb2, arena_pb2_grpc

from arena.server.app import RunningServer
from arena.storage import add_ladder_round, gates_of_ladder, members_by_round
from tests.arena.server.test_submit import add_author, run
from tests.helpers.arena_helpers import make_bot_folder
from tests.helpers.format_server import auth
from tests.helpers.polling import wait_until


def submit(capsys: pytest.CaptureFixture[str], server: RunningServer, token: str,
           folder: Path) -> None:
    code, _, err = run(capsys, "submit", str(folder), "--server", server.address,
                       "--token", token)
    assert code == 0, err


def test_a_gated_ladder_tests_the_new_version_and_its_owner_admits_it(
        server: RunningServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    alice, bob = add_author(server, capsys, "alice"), add_author(server, capsys, "bob")
    submit(capsys, server, alice, make_bot_folder(tmp_path / "1", "mine", "1.0.0"))
    submit(capsys, server, bob, make_bot_folder(tmp_path / "r", "random1", "1.0.0"))
    with grpc.insecure_channel(server.address) as channel:
        stub = arena_pb2_grpc.ArenaServiceStub(channel)
        ladder = stub.CreateSeason(arena_pb2.CreateSeasonRequest(
            all_active=True, hold=True, config=arena_pb2.SeasonConfig(
                format="ladder", ladder_gate="sprt", ladder_gate_max_pairs=2,
                ladder_rounds=3, ladder_meetings=1, seed=3, concurrency=1)),
            metadata=auth(server)).season
        # Round 1 (mine@1.0.0 and random1) is stored before mine's new version comes.
        assert add_ladder_round(server.storage, ladder.id, 1, ["mine@1.0.0", "random1@1.0.0"],
                                [(11, False, "mine@1.0.0", "random1@1.0.0"),
                                 (11, False, "random1@1.0.0", "mine@1.0.0")])
        submit(capsys, server, alice, make_bot_folder(tmp_path / "2", "mine", "2.0.0"))
        stub.StartSeason(arena_pb2.StartSeasonRequest(season_id=ladder.id),
                         metadata=auth(server))
        for _ in stub.WatchSeason(arena_pb2.WatchSeasonRequest(season_id=ladder.id)):
            pass

        def decided() -> bool:
            gates = gates_of_ladder(server.storage, ladder.id)
            return bool(gates) and gates[0].verdict.status != "pending"
        wait_until(decided, what="the gate match decided", bound_s=120)
    [gate] = gates_of_ladder(server.storage, ladder.id)
    # Two versions of one policy (the fake runner's) cannot be told apart in 2 pairs.
    assert (gate.bot_id, gate.predecessor, gate.verdict.status, gate.verdict.pairs) == (
        "mine@2.0.0", "mine@1.0.0", "inconclusive", 2)
    match = server.storage.get_season(gate.match_id)
    assert match.status == "finished" and match.config.values()["max_pairs"] == 2
    assert all("mine@2.0.0" not in members
               for members in members_by_round(server.storage, ladder.id))

    code, out, _ = run(capsys, "bots", "show", "mine", "--server", server.address)
    assert code == 0
    assert (f"ladder (season {ladder.id}): gate match (season {gate.match_id}) against "
            "mine@1.0.0: inconclusive after 2 pairs") in out
    assert "not admitted" in out
    code, out, _ = run(capsys, "bots", "show", "mine@2.0.0", "--json", "--server",
                       server.address)
    [shown] = json.loads(out)
    assert shown["ladder_gates"][0]["status"] == "inconclusive"
    assert shown["ladder_gates"][0]["match_id"] == gate.match_id

    code, _, err = run(capsys, "ladder", "admit", "mine@2.0.0", "--server", server.address,
                       "--token", bob)
    assert code == 2 and "bot name mine belongs to author alice" in err
    code, _, err = run(capsys, "ladder", "admit", "random1@1.0.0", "--server",
                       server.address, "--token", bob)
    assert code != 0 and "random1@1.0.0 has no gate match on any ladder" in err
    code, out, _ = run(capsys, "ladder", "admit", "mine@2.0.0", "--server", server.address,
                       "--token", alice)
    assert code == 0 and (f"mine@2.0.0 on the ladder (season {ladder.id}): admitted "
                          "(gate match inconclusive)") in out
    code, out, _ = run(capsys, "bots", "show", "mine@2.0.0", "--server", server.address)
    assert "admitted by author alice" in out
    code, out, _ = run(capsys, "ladder", "admit", "mine@2.0.0", "--withdraw", "--server",
                       server.address, "--token", alice)
    assert code == 0 and "not admitted" in out


def test_a_bad_gate_is_refused_before_anything_is_stored(
        server: RunningServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("a", "b"):
        submit(capsys, server, server.token, make_bot_folder(tmp_path, name))
    code, _, err = run(capsys, "ladder", "start", "--gate", "coin", "--server", server.address,
                       "--token", server.token)
    assert code != 0 and "ladder_gate must be none or sprt, got 'coin'" in err
    code, _, err = run(capsys, "ladder", "start", "--gate", "sprt", "--gate-rule", "vote",
                       "--server", server.address, "--token", server.token)
    assert code != 0 and "ladder_gate_rule must be one of accepted-replaces" in err
    code, _, err = run(capsys, "season", "create", "--bots", "a", "b", "--gate", "sprt",
                       "--server", server.address, "--token", server.token)
    assert code != 0 and "ladder_gate is a setting of the ladder format" in err
    assert server.storage.list_seasons() == []
