"""Big leagues on one server: no fixed bot cap (a server limit that says how to raise
it), a 200-bot duplicate round robin planned whole in one transaction, paged reads
whose cursors stay put while results arrive, standings cut to the rows asked for,
and event logs that stay small on disk."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from hollywood.arena.v1 import arena_pb2, arena_pb2_grpc

from arena.cli import main
from arena.core.limits import TimeLimits
from arena.core.manifest import iter_bot_files
from arena.core.series import BotRef, SeriesSpec
from arena.server.app import RunningServer, start_server
from arena.storage import Storage, add_author
from engine.profiles import get_profile
from tests.helpers.arena_helpers import REPO_ROOT, make_bot_folder
from tests.helpers.fake_runner import run_fake_series

RANDOM = BotRef.from_folder(REPO_ROOT / "sample_bots" / "random")
GREEDY = BotRef.from_folder(REPO_ROOT / "sample_bots" / "greedy")


def add_bots(storage: Storage, count: int, root: Path) -> list[str]:
    """Register ``count`` bots straight into the database (their series are played
    by the fake runner)."""
    files = list(iter_bot_files(make_bot_folder(root / "src", "bot")))
    ids = []
    for number in range(count):
        record, _ = storage.register_bot(
            name=f"bot{number:03d}", version="1", language="python", author="",
            description="", content_hash=f"h{number}", source_folder=Path("."), files=files)
        ids.append(record.id)
    return ids


@pytest.fixture
def stub(server: RunningServer) -> Iterator[arena_pb2_grpc.ArenaServiceStub]:
    with grpc.insecure_channel(server.address) as channel:
        yield arena_pb2_grpc.ArenaServiceStub(channel)


def create(stub: arena_pb2_grpc.ArenaServiceStub, server: RunningServer, bots: list[str],
           **config: int) -> arena_pb2.Season:
    return stub.CreateSeason(arena_pb2.CreateSeasonRequest(
        bots=bots, hold=True, config=arena_pb2.SeasonConfig(seed=9, **config)),
        metadata=(("authorization", f"Bearer {server.token}"),)).season


def store_some(server: RunningServer, season_id: int, count: int, seed: int = 0) -> None:
    """Store ``count`` more results of the season (random pending series, fake play)."""
    pending = server.storage.pending_series(season_id)
    for planned in random.Random(seed).sample(pending, count):
        spec = SeriesSpec(series_id=planned.series_id, seed=planned.seed,
                          profile=get_profile("friendly"), max_hands=20,
                          swap_seats=planned.swap_seats,
                          bots=(RANDOM, GREEDY),
                          limits=TimeLimits(1.0, 1.0, 1.0))
        assert server.storage.store_result(planned, run_fake_series(spec), {})


def test_a_season_above_the_servers_limit_is_refused_saying_how_to_allow_it(
        tmp_path: Path) -> None:
    running = start_server(tmp_path / "arena.db", port=0, resume=False, max_season_bots=3,
                           runner_factory=lambda config: run_fake_series)
    try:
        ids = add_bots(running.storage, 4, tmp_path)
        with grpc.insecure_channel(running.address) as channel:
            stub = arena_pb2_grpc.ArenaServiceStub(channel)
            with pytest.raises(grpc.RpcError) as refused:
                create(stub, running, ids)
            assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert refused.value.details() == (
                "a season of 4 bots is more than this server's limit of 3 bots (start the "
                "server with a higher --max-season-bots to allow it)")
            assert running.storage.count_rows()["seasons"] == 0
            assert create(stub, running, ids[:3]).series_total == 6
    finally:
        running.stop(grace=None)


def test_1024_bots_by_default_and_a_200_bot_plan_stored_whole(
        tmp_path: Path, server: RunningServer, stub: arena_pb2_grpc.ArenaServiceStub) -> None:
    ids = add_bots(server.storage, 1025, tmp_path)
    with pytest.raises(grpc.RpcError) as refused:
        create(stub, server, ids)
    assert "a season of 1025 bots is more than this server's limit of 1024 bots" in \
        str(refused.value.details())
    assert create(stub, server, ids[:256]).series_total == 256 * 255
    season = create(stub, server, ids[:200])
    assert (season.series_total, season.series_done) == (39_800, 0)
    plan = server.storage.planned_series(season.id)
    assert [p.index for p in plan] == list(range(39_800))
    # Every ordered pair of distinct bots exactly once: each pair twice, seats swapped.
    assert Counter((p.seat0_bot, p.seat1_bot) for p in plan) == Counter(
        {(a, b): 1 for a in ids[:200] for b in ids[:200] if a != b})
    # Each duplicate pair shares its seed (same deals, seats swapped).
    seeds = Counter(p.seed for p in plan)
    assert set(seeds.values()) == {2} and len(seeds) == 19_900


def test_series_list_pages_stay_put_while_results_arrive(
        tmp_path: Path, server: RunningServer, stub: arena_pb2_grpc.ArenaServiceStub) -> None:
    season = create(stub, server, add_bots(server.storage, 5, tmp_path))  # 20 series
    first = stub.ListSeries(arena_pb2.ListSeriesRequest(season_id=season.id, page_size=7))
    assert [s.series_id for s in first.series] == [f"{season.id}-{n}" for n in range(7)]
    store_some(server, season.id, 9)
    seen = [s.series_id for s in first.series]
    token = first.next_page_token
    while token:
        page = stub.ListSeries(arena_pb2.ListSeriesRequest(
            season_id=season.id, page_size=7, page_token=token))
        seen += [s.series_id for s in page.series]
        token = page.next_page_token
    assert seen == [f"{season.id}-{n}" for n in range(20)]
    everything = stub.ListSeries(arena_pb2.ListSeriesRequest(season_id=season.id))
    assert len(everything.series) == 20 and not everything.next_page_token
    assert sum(s.played for s in everything.series) == 9


def test_bots_and_seasons_come_in_pages_that_new_ones_do_not_shift(
        tmp_path: Path, server: RunningServer, stub: arena_pb2_grpc.ArenaServiceStub) -> None:
    ids = add_bots(server.storage, 7, tmp_path)
    first = stub.ListBots(arena_pb2.ListBotsRequest(page_size=3))
    assert [bot.id for bot in first.bots] == ids[:3] and first.next_page_token
    later = add_bots(server.storage, 9, tmp_path)[7:]  # two more, registered meanwhile
    seen, token = [bot.id for bot in first.bots], first.next_page_token
    while token:
        page = stub.ListBots(arena_pb2.ListBotsRequest(page_size=3, page_token=token))
        seen += [bot.id for bot in page.bots]
        token = page.next_page_token
    assert seen == ids + later
    assert [bot.id for bot in stub.ListBots(arena_pb2.ListBotsRequest()).bots] == ids + later

    seasons = [create(stub, server, ids[:2]).id for _ in range(5)]
    newest = stub.ListSeasons(arena_pb2.ListSeasonsRequest(page_size=2))
    assert [season.id for season in newest.seasons] == seasons[::-1][:2]
    create(stub, server, ids[:2])  # a newer season does not shift the next pages
    seen_seasons, token = [season.id for season in newest.seasons], newest.next_page_token
    while token:
        page = stub.ListSeasons(arena_pb2.ListSeasonsRequest(page_size=2, page_token=token))
        seen_seasons += [season.id for season in page.seasons]
        token = page.next_page_token
    assert seen_seasons == seasons[::-1]

    for bad, request in (("b", arena_pb2.ListBotsRequest(page_token="n3")),
                         ("b", arena_pb2.ListBotsRequest(page_size=10_001)),
                         ("n", arena_pb2.ListSeasonsRequest(page_token="i0"))):
        call = stub.ListBots if bad == "b" else stub.ListSeasons
        with pytest.raises(grpc.RpcError) as refused:
            call(request)
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT, refused.value
    with pytest.raises(grpc.RpcError) as unknown:
        stub.ListBots(arena_pb2.ListBotsRequest(page_token="bnobody@1"))
    assert unknown.value.code() == grpc.StatusCode.NOT_FOUND


def test_standings_pages_come_from_one_snapshot(
        tmp_path: Path, server: RunningServer, stub: arena_pb2_grpc.ArenaServiceStub) -> None:
    season = create(stub, server, add_bots(server.storage, 5, tmp_path))
    store_some(server, season.id, 6)
    whole = stub.GetStandings(arena_pb2.GetStandingsRequest(season_id=season.id)).standings
    assert whole.sequence == 6 and len(whole.rows) == 5
    page = stub.GetStandings(arena_pb2.GetStandingsRequest(season_id=season.id, page_size=2))
    rows = list(page.standings.rows)
    assert {c.bot_id for c in page.standings.crosstable} <= {r.bot_id for r in rows}
    store_some(server, season.id, 5, seed=1)  # the table moves on meanwhile
    token = page.next_page_token
    while token:
        page = stub.GetStandings(arena_pb2.GetStandingsRequest(
            season_id=season.id, page_size=2, page_token=token))
        assert page.standings.sequence == 6
        rows += page.standings.rows
        token = page.next_page_token
    assert rows == list(whole.rows)
    latest = stub.GetStandings(arena_pb2.GetStandingsRequest(season_id=season.id)).standings
    assert latest.sequence == 11 and sum(r.series_played for r in latest.rows) == 22


def test_standings_of_named_bots_and_bad_requests(
        tmp_path: Path, server: RunningServer, stub: arena_pb2_grpc.ArenaServiceStub) -> None:
    season = create(stub, server, add_bots(server.storage, 4, tmp_path))
    store_some(server, season.id, 4)
    named = stub.GetStandings(arena_pb2.GetStandingsRequest(
        season_id=season.id, bot_ids=["bot002", "bot000@1"])).standings
    assert sorted(r.bot_id for r in named.rows) == ["bot000@1", "bot002@1"]
    for request, fragment in (
        (arena_pb2.GetStandingsRequest(season_id=season.id, bot_ids=["nobody"]),
         "not in this season: nobody"),
        (arena_pb2.GetStandingsRequest(season_id=season.id, page_token="junk"),
         "page_token 'junk' is not a standings page token"),
        (arena_pb2.ListSeriesRequest(season_id=season.id, page_token="s1.2"),
         "page_token 's1.2' is not a series page token"),
        (arena_pb2.GetStandingsRequest(season_id=season.id, page_size=10_001),
         "page_size 10001 is above the limit of 10000"),
    ):
        call = stub.ListSeries if isinstance(request, arena_pb2.ListSeriesRequest) \
            else stub.GetStandings
        with pytest.raises(grpc.RpcError) as refused:
            call(request)
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert fragment in refused.value.details()


def test_a_watch_of_a_big_season_sends_the_top_rows_and_named_bots(
        tmp_path: Path, server: RunningServer, stub: arena_pb2_grpc.ArenaServiceStub) -> None:
    season = create(stub, server, add_bots(server.storage, 6, tmp_path))
    stream = stub.WatchSeason(arena_pb2.WatchSeasonRequest(
        season_id=season.id, top=2, bot_ids=["bot005"]))
    first = next(stream)
    ranks = sorted(row.rank for row in first.standings.rows)
    assert ranks[:2] == [1, 2] and len(ranks) in (2, 3)
    assert "bot005@1" in {row.bot_id for row in first.standings.rows}
    assert not first.standings.crosstable and first.standings.sequence == 0
    stream.cancel()


def test_the_cli_shows_a_page_and_says_how_to_get_the_next(
        tmp_path: Path, server: RunningServer, stub: arena_pb2_grpc.ArenaServiceStub,
        capsys: pytest.CaptureFixture[str]) -> None:
    season = create(stub, server, add_bots(server.storage, 4, tmp_path))
    store_some(server, season.id, 3)
    common = ["--server", server.address, "--season", str(season.id)]
    assert main(["series", "list", "--page-size", "5", *common]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 6
    assert out[-1] == (f"next page: arena series list --season {season.id} --page-size 5 "
                       "--page i5")
    assert main(["series", "list", "--page-size", "5", "--page", "i10", *common]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 2  # 12 series: the last two
    assert main(["standings", "--top", "2", "--json", *common]) == 0
    shown = capsys.readouterr()
    assert [row["rank"] for row in json.loads(shown.out)["rows"]] == [1, 2]
    assert "next page" not in shown.err
    assert main(["standings", "--bot", "bot003", "--json", *common]) == 0
    assert [row["bot_id"] for row in json.loads(capsys.readouterr().out)["rows"]] == [
        "bot003@1"]
    assert main(["standings", "--recompute", "--page-size", "3", *common]) == 2
    assert "needs a token" in capsys.readouterr().err  # anyone may read, not rebuild
    assert main(["standings", "--recompute", "--page-size", "3", "--token-file",
                 str(server.token_path), *common]) == 0
    assert "--page s3.3" in capsys.readouterr().out


def test_a_capped_random_series_stores_under_200_kb(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "a.db")
    ids = add_bots(storage, 2, tmp_path)
    season = storage.create_season(name="", config={}, profile={}, bot_ids=ids,
                                   plan=[(2, False, ids[0], ids[1])])
    planned = storage.planned_series(season.id)[0]
    bots = (RANDOM, RANDOM)
    outcome = run_fake_series(SeriesSpec(
        series_id=planned.series_id, seed=2, profile=get_profile("friendly"), max_hands=200,
        swap_seats=False, bots=bots, limits=TimeLimits(1.0, 1.0, 1.0)))
    assert outcome.capped and outcome.hands_played == 200
    storage.store_result(planned, outcome, {"name": "friendly"})
    [(stored, raw)] = storage.log_sizes(season.id)
    assert raw > 1_000_000 and stored < 200_000
    assert storage.result_log(planned.series_id)[0] == outcome.log
    storage.close()


def test_a_page_token_whose_big_snapshot_is_gone_says_start_again(
        tmp_path: Path, server: RunningServer, stub: arena_pb2_grpc.ArenaServiceStub,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """An older snapshot is rebuilt for a page only from a few results: a reader's
    token must not make the server replay a big season (here "big" is 3 results)."""
    monkeypatch.setattr("arena.season.standings_live.MAX_REBUILT_SNAPSHOT", 3)
    season = create(stub, server, add_bots(server.storage, 5, tmp_path))
    store_some(server, season.id, 5)
    page = stub.GetStandings(arena_pb2.GetStandingsRequest(season_id=season.id, page_size=2))
    assert page.next_page_token == "s5.2"
    rebuilt = stub.GetStandings(arena_pb2.GetStandingsRequest(
        season_id=season.id, page_size=2, page_token="s3.2"))  # not kept, but 3 results
    assert rebuilt.standings.sequence == 3
    with pytest.raises(grpc.RpcError) as gone:
        stub.GetStandings(arena_pb2.GetStandingsRequest(
            season_id=season.id, page_size=2, page_token="s4.2"))
    assert gone.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert gone.value.details() == ("the standings after 4 results are no longer kept "
                                    "(results came in meanwhile); read them again from the "
                                    "first page")
    kept = stub.GetStandings(arena_pb2.GetStandingsRequest(
        season_id=season.id, page_size=2, page_token=page.next_page_token))
    assert kept.standings.sequence == 5


def test_only_the_admin_has_the_standings_rebuilt(
        tmp_path: Path, server: RunningServer, stub: arena_pb2_grpc.ArenaServiceStub) -> None:
    season = create(stub, server, add_bots(server.storage, 3, tmp_path))
    store_some(server, season.id, 2)
    request = arena_pb2.GetStandingsRequest(season_id=season.id, recompute=True)
    with pytest.raises(grpc.RpcError) as anonymous:
        stub.GetStandings(request)
    assert anonymous.value.code() == grpc.StatusCode.UNAUTHENTICATED
    author_token = add_author(server.storage, "ann")[1]
    with pytest.raises(grpc.RpcError) as author:
        stub.GetStandings(request, metadata=(("authorization", f"Bearer {author_token}"),))
    assert author.value.code() == grpc.StatusCode.PERMISSION_DENIED
    rebuilt = stub.GetStandings(request, metadata=(("authorization",
                                                    f"Bearer {server.token}"),))
    assert rebuilt.standings.sequence == 2
    assert stub.GetStandings(arena_pb2.GetStandingsRequest(
        season_id=season.id)).standings.sequence == 2  # reading stays open to everyone
