"""GetLeague's rounds in pages (issue 42): a league of many rounds comes page_size
rounds at a time, newest first (the round playing now leads), behind a cursor that
a round made meanwhile does not shift; no page size is every round, round 1 first,
as before; a bad token is refused naming it; ``arena league show`` reads every
page (the league's web page: ``tests/arena/web/test_web_paging.py``)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path

import grpc
import pytest
from hollywood.arena.v1 import arena_pb2, arena_pb2_grpc

from arena.cli import main
from arena.core.settings import SeasonConfig
from arena.season.league_rules import LeagueRule
from arena.season.leagues import LeaguePlan, create_league, draft_season
from arena.server.app import RunningServer
from arena.storage import Storage, add_league_round
from tests.helpers.arena_helpers import register_bots

PLAN = LeaguePlan(LeagueRule(2, 1, 1), 1, ("round-robin", "round-robin"),
                  SeasonConfig.build(sandbox="inprocess", seed=3, max_hands=3))


@pytest.fixture
def stub(server: RunningServer) -> Iterator[arena_pb2_grpc.ArenaServiceStub]:
    with grpc.insecure_channel(server.address) as channel:
        yield arena_pb2_grpc.ArenaServiceStub(channel)


def league_of_rounds(storage: Storage, bots: Sequence[str], rounds: int) -> int:
    """A league of two divisions of two of ``bots``, its rounds 1 to ``rounds`` made
    (none played: every bot stays where it was)."""
    league = create_league(storage, "cup", PLAN, bots)
    for number in range(2, rounds + 1):
        add_round(storage, league.id, bots, number)
    return league.id


def add_round(storage: Storage, league_id: int, bots: Sequence[str], number: int) -> None:
    drafts = [draft_season("cup", PLAN, number, division, bots[2 * division - 2:2 * division],
                           lambda ids: {}) for division in (1, 2)]
    assert add_league_round(storage, league_id, number, [], drafts, number) is not None


def rounds_of(stub: arena_pb2_grpc.ArenaServiceStub, league_id: int, size: int,
              token: str = "") -> tuple[list[int], str]:
    answer = stub.GetLeague(arena_pb2.GetLeagueRequest(league_id=league_id, page_size=size,
                                                       page_token=token))
    assert all(len(r.divisions) == 2 for r in answer.league.rounds)
    return [r.round for r in answer.league.rounds], answer.next_page_token


def test_rounds_come_newest_first_and_a_new_round_shifts_no_page(
        tmp_path: Path, server: RunningServer, stub: arena_pb2_grpc.ArenaServiceStub) -> None:
    bots = register_bots(server.storage, tmp_path, ["ann", "bob", "cid", "dee"])
    league = league_of_rounds(server.storage, bots, 12)
    first, token = rounds_of(stub, league, 5)
    assert first == [12, 11, 10, 9, 8] and token == "r8"
    add_round(server.storage, league, bots, 13)  # made meanwhile: on a new first page
    second, token = rounds_of(stub, league, 5, token)
    assert second == [7, 6, 5, 4, 3] and token == "r3"
    assert rounds_of(stub, league, 5, token) == ([2, 1], "")
    assert rounds_of(stub, league, 5) == ([13, 12, 11, 10, 9], "r9")
    assert rounds_of(stub, league, 13) == (list(range(13, 0, -1)), "")
    assert rounds_of(stub, league, 0) == (list(range(1, 14)), "")  # as before pages
    assert rounds_of(stub, league, 0, "r4") == ([3, 2, 1], "")  # all below the token
    table = stub.GetLeague(arena_pb2.GetLeagueRequest(league_id=league, page_size=1))
    assert [[row.bot_id for row in d.rows] for d in table.league.rounds[0].divisions] == [
        sorted(bots[:2]), sorted(bots[2:])]


@pytest.mark.parametrize(("token", "fragment"), [
    ("r0", "page_token 'r0' is not a league round page token"),
    ("l3", "page_token 'l3' is not a league round page token"),
    ("r²", "is not a league round page token"),
    ("r5", "page_token 'r5' names no round of league 1 (it has 3)"),
    ("r" * 201, "page_token"),
])
def test_a_bad_round_page_token_is_refused_naming_it(
        tmp_path: Path, server: RunningServer, stub: arena_pb2_grpc.ArenaServiceStub,
        token: str, fragment: str) -> None:
    bots = register_bots(server.storage, tmp_path, ["ann", "bob", "cid", "dee"])
    league = league_of_rounds(server.storage, bots, 3)
    assert league == 1
    with pytest.raises(grpc.RpcError) as refused:
        stub.GetLeague(arena_pb2.GetLeagueRequest(league_id=league, page_size=2,
                                                  page_token=token))
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert fragment in str(refused.value.details())
    with pytest.raises(grpc.RpcError) as unknown:
        stub.GetLeague(arena_pb2.GetLeagueRequest(league_id=9, page_size=2, page_token="r2"))
    assert unknown.value.code() == grpc.StatusCode.NOT_FOUND


def test_league_show_reads_every_round_page_by_page(
        tmp_path: Path, server: RunningServer, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("arena.cli.listing.LEAGUE_ROUNDS_PAGE_SIZE", 2)  # three pages
    bots = register_bots(server.storage, tmp_path, ["ann", "bob", "cid", "dee"])
    league = league_of_rounds(server.storage, bots, 5)
    assert main(["league", "show", str(league), "--server", server.address, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert [r["round"] for r in shown["rounds"]] == [1, 2, 3, 4, 5]  # round 1 first
    assert main(["league", "show", str(league), "--server", server.address]) == 0
    out = capsys.readouterr().out
    assert out.index("round 1, division 1") < out.index("round 5, division 2")



def test_cancel_answers_with_the_newest_round_and_the_cli_reads_them_all(
        tmp_path: Path, server: RunningServer, stub: arena_pb2_grpc.ArenaServiceStub,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A long league's every round would not fit one answer: CancelLeague holds the
    round it stopped; ``arena league cancel`` then shows every round, page by page."""
    monkeypatch.setattr("arena.cli.listing.LEAGUE_ROUNDS_PAGE_SIZE", 2)
    bots = register_bots(server.storage, tmp_path, ["ann", "bob", "cid", "dee"])
    league = league_of_rounds(server.storage, bots, 4)
    answer = stub.CancelLeague(arena_pb2.CancelLeagueRequest(league_id=league),
                               metadata=(("authorization", f"Bearer {server.token}"),))
    assert answer.league.cancelled_at and [r.round for r in answer.league.rounds] == [4]
    monkeypatch.setenv("ARENA_TOKEN", server.token)
    assert main(["league", "cancel", str(league), "--server", server.address, "--json"]) == 0
    assert [r["round"] for r in json.loads(capsys.readouterr().out)["rounds"]] == [1, 2, 3, 4]
