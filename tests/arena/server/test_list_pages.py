"""ListAuthors, ListLeagues and ListChallenges in pages: page_size and page_token,
cursors that a new author, league or challenge does not shift, every row once in
order, and clear refusals of a bad token or an oversized page (issue 42). The CLI's
list commands read every page, or the first ``--limit`` rows."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import grpc
import pytest
from hollywood.arena.v1 import arena_pb2, arena_pb2_grpc

from arena.cli import main
from arena.core.settings import SeasonConfig
from arena.season.league_rules import LeagueRule
from arena.season.leagues import LeaguePlan, create_league
from arena.server import pages
from arena.server.app import RunningServer
from arena.storage import Storage, add_author, create_challenge
from engine.profiles import FRIENDLY
from tests.helpers.arena_helpers import register_bots


@pytest.fixture
def stub(server: RunningServer) -> Iterator[arena_pb2_grpc.ArenaServiceStub]:
    with grpc.insecure_channel(server.address) as channel:
        yield arena_pb2_grpc.ArenaServiceStub(channel)


def admin(server: RunningServer) -> tuple[tuple[str, str]]:
    return (("authorization", f"Bearer {server.token}"),)


def add_leagues(storage: Storage, bots: Sequence[str], count: int) -> list[int]:
    """``count`` leagues of two divisions of two of the four ``bots``."""
    plan = LeaguePlan(LeagueRule(2, 1, 1), 1, ("round-robin", "round-robin"),
                      SeasonConfig.build(sandbox="inprocess", seed=3, max_hands=3))
    return [create_league(storage, f"cup {n}", plan, bots).id for n in range(count)]


def add_challenges(storage: Storage, bots: Sequence[str], count: int,
                   challenger: int = 0) -> list[int]:
    config = SeasonConfig.build().to_dict()
    mine, other = bots[challenger], bots[1 - challenger]
    return [create_challenge(storage, author="ann", challenger=mine, opponent=other, series=1,
                             series_per_hour=1000, now=datetime.now(UTC), config=config,
                             profile=FRIENDLY, plan=[(7, False, mine, other)])
            for _ in range(count)]


def read_all(call: Callable[..., Any], request: Callable[..., Any], field: str,
             key: Callable[[Any], Any], size: int, **auth: Any) -> list[Any]:
    """Every row, page after page of ``size``; asserts each page but the last is full."""
    seen: list[Any] = []
    token = ""
    while True:
        page = call(request(page_size=size, page_token=token), **auth)
        rows = [key(row) for row in getattr(page, field)]
        token = page.next_page_token
        assert len(rows) == size or not token
        seen += rows
        if not token:
            return seen


def test_authors_come_in_pages_oldest_first_and_a_new_one_comes_last(
        server: RunningServer, stub: arena_pb2_grpc.ArenaServiceStub) -> None:
    names = ["ann", "bob", "cid", "dee", "eve"]
    for name in names:
        add_author(server.storage, name)
    metadata = admin(server)
    first = stub.ListAuthors(arena_pb2.ListAuthorsRequest(page_size=2), metadata=metadata)
    assert [a.name for a in first.authors] == ["ann", "bob"] and first.next_page_token
    add_author(server.storage, "zed")  # created last: on the last page, shifting nothing
    token, seen = first.next_page_token, ["ann", "bob"]
    while token:
        page = stub.ListAuthors(arena_pb2.ListAuthorsRequest(page_size=2, page_token=token),
                                metadata=metadata)
        seen += [a.name for a in page.authors]
        token = page.next_page_token
    assert seen == [*names, "zed"]
    whole = stub.ListAuthors(arena_pb2.ListAuthorsRequest(), metadata=metadata)
    assert [a.name for a in whole.authors] == [*names, "zed"] and not whole.next_page_token
    with pytest.raises(grpc.RpcError) as anonymous:  # still the admin's alone
        stub.ListAuthors(arena_pb2.ListAuthorsRequest(page_size=2))
    assert anonymous.value.code() == grpc.StatusCode.UNAUTHENTICATED


def test_leagues_and_challenges_come_in_pages_newest_first(
        tmp_path: Path, server: RunningServer, stub: arena_pb2_grpc.ArenaServiceStub) -> None:
    bots = register_bots(server.storage, tmp_path, ["ann", "bob", "cid", "dee"])
    leagues = add_leagues(server.storage, bots, 7)
    first = stub.ListLeagues(arena_pb2.ListLeaguesRequest(page_size=3))
    assert [league.id for league in first.leagues] == leagues[:-4:-1]
    newer = add_leagues(server.storage, bots, 1)  # newer: not on the next pages
    token, seen = first.next_page_token, [league.id for league in first.leagues]
    while token:
        page = stub.ListLeagues(arena_pb2.ListLeaguesRequest(page_size=3, page_token=token))
        seen += [league.id for league in page.leagues]
        token = page.next_page_token
    assert seen == leagues[::-1]
    assert [league.id for league in stub.ListLeagues(arena_pb2.ListLeaguesRequest()).leagues
            ] == (leagues + newer)[::-1]

    ann = add_challenges(server.storage, bots, 5)
    cid = add_challenges(server.storage, [bots[2], bots[1]], 2)
    assert read_all(stub.ListChallenges, arena_pb2.ListChallengesRequest, "challenges",
                    lambda c: c.season_id, 2) == (ann + cid)[::-1]
    ann_only = stub.ListChallenges(arena_pb2.ListChallengesRequest(bot="ann", page_size=3))
    assert [c.season_id for c in ann_only.challenges] == ann[:-4:-1]
    rest = stub.ListChallenges(arena_pb2.ListChallengesRequest(
        bot="ann", page_size=3, page_token=ann_only.next_page_token))
    assert [c.season_id for c in rest.challenges] == ann[1::-1] and not rest.next_page_token


def test_the_default_challenge_page_is_200_and_says_more_follow(
        tmp_path: Path, server: RunningServer, stub: arena_pb2_grpc.ArenaServiceStub) -> None:
    bots = register_bots(server.storage, tmp_path, ["ann", "bob"])
    made = add_challenges(server.storage, bots, 201)
    page = stub.ListChallenges(arena_pb2.ListChallengesRequest())
    assert [c.season_id for c in page.challenges] == made[:0:-1]
    assert page.next_page_token == f"c{made[1]}"
    last = stub.ListChallenges(arena_pb2.ListChallengesRequest(
        page_token=page.next_page_token))
    assert [c.season_id for c in last.challenges] == [made[0]] and not last.next_page_token


@pytest.mark.parametrize(("rpc", "request_", "fragment"), [
    ("ListAuthors", arena_pb2.ListAuthorsRequest(page_token="l3"),
     "page_token 'l3' is not an author list page token"),
    ("ListAuthors", arena_pb2.ListAuthorsRequest(page_token="a2026-01-01T00:00:00Z"),
     "is not an author list page token"),
    ("ListLeagues", arena_pb2.ListLeaguesRequest(page_token="c3"),
     "page_token 'c3' is not a league list page token"),
    ("ListLeagues", arena_pb2.ListLeaguesRequest(page_token="l0"),
     "page_token 'l0' is not a league list page token"),
    ("ListChallenges", arena_pb2.ListChallengesRequest(page_token="l3"),
     "page_token 'l3' is not a challenge list page token"),
    ("ListChallenges", arena_pb2.ListChallengesRequest(page_token="c²"),
     "is not a challenge list page token"),
    ("ListLeagues", arena_pb2.ListLeaguesRequest(page_token="l" + "9" * 19),
     "is not a league list page token"),
    ("ListSeasons", arena_pb2.ListSeasonsRequest(page_token="n²"),
     "is not a season list page token"),
    ("ListLeagues", arena_pb2.ListLeaguesRequest(page_size=10_001),
     "page_size 10001 is above the limit of 10000"),
    ("ListChallenges", arena_pb2.ListChallengesRequest(page_size=10_001),
     "page_size 10001 is above the limit of 10000"),
    ("ListAuthors", arena_pb2.ListAuthorsRequest(page_size=10_001),
     "page_size 10001 is above the limit of 10000"),
])
def test_a_bad_page_token_or_size_is_refused_naming_it(
        server: RunningServer, stub: arena_pb2_grpc.ArenaServiceStub, rpc: str,
        request_: Any, fragment: str) -> None:
    with pytest.raises(grpc.RpcError) as refused:
        getattr(stub, rpc)(request_, metadata=admin(server))
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert fragment in str(refused.value.details())


@pytest.mark.parametrize("parse", [pages.parse_series_token, pages.parse_standings_token])
@pytest.mark.parametrize("token", ["i²", "s1.²", "s².1", "i" + "9" * 19, "s1." + "9" * 19])
def test_a_series_or_standings_token_of_other_digits_is_a_page_error(
        parse: Callable[[str], Any], token: str) -> None:
    with pytest.raises(pages.PageError, match="is not a"):
        parse(token)


def test_a_page_token_past_the_door_limit_is_refused_before_any_read(
        server: RunningServer, stub: arena_pb2_grpc.ArenaServiceStub) -> None:
    calls: list[Callable[[], Any]] = [
        lambda: stub.ListLeagues(arena_pb2.ListLeaguesRequest(page_token="l" * 201)),
        lambda: stub.ListChallenges(arena_pb2.ListChallengesRequest(page_token="c" * 201))]
    for call in calls:
        with pytest.raises(grpc.RpcError) as refused:
            call()
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "page_token" in str(refused.value.details())


def test_the_cli_lists_read_every_page_or_the_first_limit(
        tmp_path: Path, server: RunningServer, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("arena.cli.listing.LIST_PAGE_SIZE", 2)  # several pages each
    bots = register_bots(server.storage, tmp_path, ["ann", "bob", "cid", "dee"])
    for name in ("ann", "bob", "cid", "dee", "eve"):
        add_author(server.storage, name)
    leagues = add_leagues(server.storage, bots, 5)
    challenges = add_challenges(server.storage, bots, 5)
    common = ["--server", server.address, "--json"]

    def listed(*command: str) -> list[Any]:
        assert main([*command, *common]) == 0
        return [row.get("id") or row.get("name") or row.get("season_id")
                for row in json.loads(capsys.readouterr().out)]

    monkeypatch.setenv("ARENA_TOKEN", server.token)
    assert listed("authors", "list") == ["ann", "bob", "cid", "dee", "eve"]
    assert listed("authors", "list", "--limit", "3") == ["ann", "bob", "cid"]
    assert [int(i) for i in listed("league", "list")] == leagues[::-1]
    assert [int(i) for i in listed("league", "list", "--limit", "1")] == leagues[-1:]
    assert [int(i) for i in listed("challenges")] == challenges[::-1]
    assert [int(i) for i in listed("challenges", "--limit", "3")] == challenges[:-4:-1]
    assert listed("bots", "list", "--limit", "1") == bots[:1]
    assert len(listed("season", "list")) == 10  # the leagues' (challenges' are apart)
    assert len(listed("season", "list", "--limit", "3")) == 3


def test_export_reads_the_series_and_standings_page_by_page(
        tmp_path: Path, server: RunningServer, stub: arena_pb2_grpc.ArenaServiceStub,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A 1,000-bot season's whole standings (a million crosstable cells) or series list
    (999,000 rows) does not fit one answer: ``arena export`` reads them in pages."""
    from tests.arena.server.test_big_seasons import add_bots, create, store_some

    monkeypatch.setattr("arena.cli.listing.LIST_PAGE_SIZE", 3)
    monkeypatch.setattr("arena.cli.listing.STANDINGS_PAGE_ROWS", 2)
    tokens: list[str] = []  # the page tokens the server is handed
    def spy(real: Callable[..., Any]) -> Callable[..., Any]:
        def called(*args: Any) -> Any:
            tokens.append(args[-1])
            return real(*args)
        return called

    for name in ("standings_page_at", "parse_series_token"):
        monkeypatch.setattr(pages, name, spy(getattr(pages, name)))
    season = create(stub, server, add_bots(server.storage, 5, tmp_path))
    store_some(server, season.id, 7)
    whole = stub.GetStandings(arena_pb2.GetStandingsRequest(season_id=season.id)).standings
    target = tmp_path / "out"
    assert main(["export", "--season", str(season.id), "--to", str(target), "--server",
                 server.address]) == 0
    assert f"season {season.id}: 7 series and 5 standings rows" in capsys.readouterr().out
    exported = json.loads((target / "season.json").read_text())["standings"]
    assert [row["bot_id"] for row in exported["rows"]] == [row.bot_id for row in whole.rows]
    cells = {(c["bot_id"], c["opponent_id"]) for c in exported["crosstable"]}
    assert cells == {(c.bot_id, c.opponent_id) for c in whole.crosstable} and cells
    assert len(list((target / "series").iterdir())) == 7
    assert sorted(tokens) == ["i12", "i15", "i18", "i3", "i6", "i9", "s7.2", "s7.4"]
