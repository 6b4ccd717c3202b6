"""Leagues over the gRPC API: a 2-division league played by the fake runner (bots
named "random..." play at random, the others knock whenever they can, and win)
promotes the knocker of division 2 and relegates the random bot of division 1,
then plays its second round; who may create one; rules refused at the door."""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from hollywood.arena.v1 import arena_pb2, arena_pb2_grpc

from arena.core.series import SeriesOutcome, SeriesSpec
from arena.core.settings import SeasonConfig
from arena.core.status import SeasonStatus
from arena.season.league_rules import LeagueRule
from arena.season.leagues import LeaguePlan, create_league
from arena.server.app import RunningServer, start_server
from arena.storage import Storage, league_moves, league_seasons
from tests.helpers.arena_helpers import register_bots
from tests.helpers.fake_runner import run_fake_series
from tests.helpers.format_server import auth, fake_runner_server, stub_with_bots
from tests.helpers.league_helpers import divisions_of, finish_round
from tests.helpers.polling import wait_until


class GatedRunner:
    """The fake runner, holding every series while ``open`` is cleared (a round the
    test must see unfinished stays so, however fast the machine)."""

    def __init__(self) -> None:
        self.open = threading.Event()
        self.open.set()

    def __call__(self, spec: SeriesSpec) -> SeriesOutcome:
        assert self.open.wait(timeout=120), "the test never let the series play"
        return run_fake_series(spec)


@pytest.fixture
def gate() -> Iterator[GatedRunner]:
    runner = GatedRunner()
    yield runner
    runner.open.set()


@pytest.fixture
def served(tmp_path: Path, gate: GatedRunner
           ) -> Iterator[tuple[RunningServer, arena_pb2_grpc.ArenaServiceStub]]:
    with fake_runner_server(tmp_path, gate) as server, \
            stub_with_bots(server, tmp_path) as stub:
        yield server, stub


def league_request(**fields: object) -> arena_pb2.CreateLeagueRequest:
    values: dict[str, object] = {
        "name": "cup", "bots": ["random1", "k1", "k2", "random2"], "divisions": 2,
        "promote": 1, "relegate": 1, "rounds": 2,
        "config": arena_pb2.SeasonConfig(seed=5, concurrency=2), **fields}
    return arena_pb2.CreateLeagueRequest(**values)  # type: ignore[arg-type]


def finished_rounds(stub: arena_pb2_grpc.ArenaServiceStub, league_id: int) -> int:
    league = stub.GetLeague(arena_pb2.GetLeagueRequest(league_id=league_id)).league
    return sum(1 for league_round in league.rounds
               if all(table.status == arena_pb2.SEASON_STATUS_FINISHED
                      for table in league_round.divisions))


def table(league: arena_pb2.League, round_number: int) -> list[list[tuple[str, int]]]:
    """Each division's (bot, movement) rows of a round, division 1 first, rows by bot."""
    return [sorted((row.bot_id, row.movement) for row in division.rows)
            for division in league.rounds[round_number - 1].divisions]


def test_a_two_division_league_plays_two_rounds_and_moves_by_its_rule(
        served: tuple[RunningServer, arena_pb2_grpc.ArenaServiceStub],
        gate: GatedRunner) -> None:
    server, stub = served
    created = stub.CreateLeague(league_request(), metadata=auth(server)).league
    assert (created.divisions, created.promote, created.relegate, created.planned_rounds) == (
        2, 1, 1, 2)
    assert list(created.division_formats) == ["round-robin", "round-robin"]
    wait_until(lambda: finished_rounds(stub, created.id) == 2, what="both rounds to finish")
    stayed, up, down = (arena_pb2.MOVEMENT_STAYED, arena_pb2.MOVEMENT_PROMOTED,
                        arena_pb2.MOVEMENT_RELEGATED)

    def last_round_decided() -> bool:  # its moves are stored as its last season ends
        league = stub.GetLeague(arena_pb2.GetLeagueRequest(league_id=created.id)).league
        return all(move != arena_pb2.MOVEMENT_UNSPECIFIED
                   for division in table(league, 2) for _, move in division)
    wait_until(last_round_decided, what="the last planned round's moves")
    league = stub.GetLeague(arena_pb2.GetLeagueRequest(league_id=created.id)).league
    # No ratings yet: placed in the order given, random1 and k1 in division 1.
    assert table(league, 1) == [[("k1@1.0.0", stayed), ("random1@1.0.0", down)],
                                [("k2@1.0.0", up), ("random2@1.0.0", stayed)]]
    # The last planned round shows its moves too: one knocker of division 1 goes
    # down, one random bot of division 2 goes up (which one is the fake play's).
    top, bottom = table(league, 2)
    assert [bot for bot, _ in top] == ["k1@1.0.0", "k2@1.0.0"]
    assert sorted(move for _, move in top) == sorted([stayed, down])
    assert [bot for bot, _ in bottom] == ["random1@1.0.0", "random2@1.0.0"]
    assert sorted(move for _, move in bottom) == sorted([stayed, up])
    first = league.rounds[0].divisions[0]
    assert [row.rank for row in first.rows] == [1, 2] and first.rows[0].bot_id == "k1@1.0.0"
    assert first.rows[1].next_division == 2 and first.rows[0].series_played == 2
    listed = stub.ListLeagues(arena_pb2.ListLeaguesRequest()).leagues
    assert [(item.id, item.name, len(item.rounds)) for item in listed] == [(created.id, "cup", 0)]
    # Asked for one more round after the plan: a third round starts (held unplayed
    # until the test has seen it unfinished).
    gate.open.clear()
    more = stub.NextLeagueRound(arena_pb2.NextLeagueRoundRequest(league_id=created.id),
                                metadata=auth(server)).league
    assert ([r.round for r in more.rounds], more.planned_rounds) == ([3], 3)  # the new one
    # ... made from the moves shown at the end of round 2.
    [relegated] = [bot for bot, move in top if move == down]
    [promoted] = [bot for bot, move in bottom if move == up]
    assert divisions_of(server.storage, created.id, 3) == [
        {bot for bot, _ in top} - {relegated} | {promoted},
        {bot for bot, _ in bottom} - {promoted} | {relegated}]
    with pytest.raises(grpc.RpcError) as refused:  # round 3 has not finished
        stub.NextLeagueRound(arena_pb2.NextLeagueRoundRequest(league_id=created.id),
                             metadata=auth(server))
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert f"round 3 of league {created.id} is not over" in str(refused.value.details())
    gate.open.set()
    wait_until(lambda: finished_rounds(stub, created.id) == 3, what="round 3 to finish")


def test_creating_a_league_needs_the_admin_token_not_an_authors(
        served: tuple[RunningServer, arena_pb2_grpc.ArenaServiceStub]) -> None:
    server, stub = served
    with pytest.raises(grpc.RpcError) as refused:
        stub.CreateLeague(league_request())
    assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
    with pytest.raises(grpc.RpcError) as refused:
        stub.NextLeagueRound(arena_pb2.NextLeagueRoundRequest(league_id=1))
    assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
    with pytest.raises(grpc.RpcError) as refused:
        stub.CancelLeague(arena_pb2.CancelLeagueRequest(league_id=1))
    assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
    token = stub.AddAuthor(arena_pb2.AddAuthorRequest(name="alice"),
                           metadata=auth(server)).token
    author = (("authorization", f"Bearer {token}"),)
    with pytest.raises(grpc.RpcError) as refused:
        stub.CreateLeague(league_request(), metadata=author)
    assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
    with pytest.raises(grpc.RpcError) as refused:
        stub.CancelLeague(arena_pb2.CancelLeagueRequest(league_id=1), metadata=author)
    assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert stub.ListLeagues(arena_pb2.ListLeaguesRequest()).leagues == []


@pytest.mark.parametrize(("fields", "message"), [
    ({"promote": 3}, "division 2 has 2 bots: too few to promote 3 and relegate 0"),
    ({"divisions": 3}, "3 divisions need at least 6 bots (2 each), got 4"),
    ({"division_formats": {2: "ladder"}}, "a division cannot play the ladder format"),
    ({"division_formats": {5: "swiss"}}, "division 5 is not one of 1..2"),
    ({"bots": ["k1", "nobody"]}, "unknown bot"),
    ({"rounds": 2**32 - 1}, "rounds must be 1 to 1000, got 4294967295"),
    ({"all_active": True}, "all_active enters every bot's newest active version"),
])
def test_a_league_its_bots_cannot_play_is_refused_and_nothing_is_stored(
        served: tuple[RunningServer, arena_pb2_grpc.ArenaServiceStub],
        fields: dict[str, object], message: str) -> None:
    server, stub = served
    with pytest.raises(grpc.RpcError) as refused:
        stub.CreateLeague(league_request(**fields), metadata=auth(server))
    assert refused.value.code() in (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND)
    assert message in str(refused.value.details())
    assert stub.ListLeagues(arena_pb2.ListLeaguesRequest()).leagues == []
    assert stub.ListSeasons(arena_pb2.ListSeasonsRequest()).seasons == []


def test_a_cancelled_league_ends_its_seasons_and_makes_no_more_rounds(
        served: tuple[RunningServer, arena_pb2_grpc.ArenaServiceStub]) -> None:
    """Cancelled as soon as it is created (its first round playing, perhaps over): what
    the answer lists is all the league ever plays; every season of it ends; asking
    for a next round is refused naming the cancellation; a second cancel is harmless."""
    server, stub = served
    created = stub.CreateLeague(league_request(rounds=3), metadata=auth(server)).league
    request = arena_pb2.CancelLeagueRequest(league_id=created.id)
    cancelled = stub.CancelLeague(request, metadata=auth(server)).league
    assert cancelled.cancelled_at and not created.cancelled_at
    seasons = [table.season_id for league_round in cancelled.rounds
               for table in league_round.divisions]

    def every_season_ended() -> bool:
        return all(server.storage.get_season(season_id).status.is_terminal
                   for season_id in seasons)
    wait_until(every_season_ended, what="the cancelled league's seasons to end")
    with pytest.raises(grpc.RpcError) as refused:
        stub.NextLeagueRound(arena_pb2.NextLeagueRoundRequest(league_id=created.id),
                             metadata=auth(server))
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert f"league {created.id} was cancelled at" in str(refused.value.details())
    again = stub.CancelLeague(request, metadata=auth(server)).league
    assert again.cancelled_at == cancelled.cancelled_at
    assert [s.season_id for s in league_seasons(server.storage, created.id)] == seasons
    listed = stub.ListLeagues(arena_pb2.ListLeaguesRequest()).leagues
    assert [(league.id, league.cancelled_at) for league in listed] == [
        (created.id, cancelled.cancelled_at)]
    with pytest.raises(grpc.RpcError) as refused:
        stub.CancelLeague(arena_pb2.CancelLeagueRequest(league_id=99), metadata=auth(server))
    assert refused.value.code() == grpc.StatusCode.NOT_FOUND


def test_an_unknown_league_is_not_found(
        served: tuple[RunningServer, arena_pb2_grpc.ArenaServiceStub]) -> None:
    _, stub = served
    with pytest.raises(grpc.RpcError) as refused:
        stub.GetLeague(arena_pb2.GetLeagueRequest(league_id=9))
    assert refused.value.code() == grpc.StatusCode.NOT_FOUND
    assert "unknown league 9" in str(refused.value.details())


def all_played(storage: Storage, league_id: int, seasons: int) -> bool:
    """Whether the league has ``seasons`` seasons, every one finished."""
    made = league_seasons(storage, league_id)
    return len(made) == seasons and all(
        storage.get_season(s.season_id).status is SeasonStatus.FINISHED for s in made)


def test_a_restarted_server_makes_the_round_its_predecessor_missed(tmp_path: Path) -> None:
    """Round 1 ended (made-up results: k2 beats random2, k1 beats random1) while no
    server ran: the next server makes round 2 once, with the moves by the rule, and
    plays it; the server after it makes nothing more (2 rounds planned)."""
    storage = Storage(tmp_path / "arena.db")
    ids = register_bots(storage, tmp_path / "bots", ("random1", "k1", "k2", "random2"))
    league = create_league(storage, "restart", LeaguePlan(
        LeagueRule(2, 1, 1), 2, ("round-robin", "round-robin"),
        SeasonConfig.build(sandbox="process", seed=5, max_hands=20)), ids, lambda wanted: {})
    random1, k1, k2, random2 = ids
    finish_round(storage, league.id, 1, {k1: 4, random1: 3, k2: 2, random2: 1})
    storage.close()
    for _ in range(2):
        server = start_server(tmp_path / "arena.db", port=0,
                              runner_factory=lambda config: run_fake_series)
        try:
            wait_until(functools.partial(all_played, server.storage, league.id, 4),
                       what="round 2 made and played")
            assert divisions_of(server.storage, league.id, 2) == [{k1, k2}, {random1, random2}]
            assert sorted((m.bot_id, m.to_division) for m in league_moves(
                server.storage, league.id) if m.round == 1) == [
                    (k1, 1), (k2, 1), (random1, 2), (random2, 2)]
        finally:
            server.stop(grace=None)
