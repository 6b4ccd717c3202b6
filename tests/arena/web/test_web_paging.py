"""The website's growing lists a page at a time (issue 42): /bots, an author's page,
the seasons list on the front page, /leagues and /challenges, and their JSON twins,
hold 50 rows a page with links to the pages before and after; ``?page=`` is checked
at the door (400 naming it). Each store here holds one row more than a page."""

from __future__ import annotations

import html
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from arena.core.manifest import iter_bot_files
from arena.core.settings import SeasonConfig
from arena.season.events import EventHub
from arena.season.league_rules import LeagueRule
from arena.season.leagues import LeaguePlan, create_league
from arena.storage import Storage, create_challenge
from arena.web.app import create_app
from engine.profiles import FRIENDLY
from tests.helpers.arena_helpers import make_bot_folder
from tests.helpers.web_helpers import create_season

ROWS: int = 51
"""One more than a page (``arena.web.paging.WEB_PAGE_SIZE``, 50)."""


def add_bots(storage: Storage, root: Path, count: int) -> list[str]:
    files = list(iter_bot_files(make_bot_folder(root / "src", "bot")))
    return [storage.register_bot(
        name=f"bot{number:03d}", version="1", language="python", author="", description="",
        content_hash=f"h{number}", source_folder=Path("."), files=files)[0].id
        for number in range(count)]


def client(storage: Storage) -> TestClient:
    return TestClient(create_app(storage, EventHub()), raise_server_exceptions=False)


def json_of(web: TestClient, path: str) -> Any:
    response = web.get(path)
    assert response.status_code == 200, response.text[:300]
    return response.json()


def test_bots_and_an_authors_bots_come_50_a_page(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "web.db")
    add_bots(storage, tmp_path, ROWS)
    files = list(iter_bot_files(make_bot_folder(tmp_path / "v2", "bot")))
    storage.register_bot(name="bot000", version="2", language="python", author="",
                         description="", content_hash="h-again", source_folder=Path("."),
                         files=files)  # a later version: its name stays on page 1
    web = client(storage)
    first = json_of(web, "/api/bots")
    assert [b["name"] for b in first["bots"]] == [f"bot{n:03d}" for n in range(50)]
    assert first["bots"][0]["versions"] == 2 and first["bots"][0]["latest"] == "bot000@2"
    assert first["pager"] == {"number": 1, "size": 50, "previous": None, "next": 2}
    second = json_of(web, "/api/bots?page=2")
    assert [b["name"] for b in second["bots"]] == ["bot050"]
    assert second["pager"] == {"number": 2, "size": 50, "previous": 1, "next": None}
    page = web.get("/bots").text
    assert 'href="?page=2"' in page and 'rel="prev"' not in page
    assert page.count('<tr data-bot=') == 50
    page = web.get("/bots?page=2").text
    assert 'href="?page=1"' in page and 'rel="next"' not in page
    assert '<tr data-bot="bot050">' in page and page.count('<tr data-bot=') == 1
    past = json_of(web, "/api/bots?page=9")
    assert past["bots"] == [] and past["pager"]["previous"] == 8
    assert "No bot on page 9" in web.get("/bots?page=9").text
    # The admin's bots (no owner): the same pages on its author page.
    admin = json_of(web, "/api/authors/admin?page=2")
    assert [b["name"] for b in admin["bots"]] == ["bot050"]
    assert 'href="?page=1"' in web.get("/authors/admin?page=2").text


def test_the_seasons_list_comes_50_a_page_newest_first(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "web.db")
    bots = add_bots(storage, tmp_path, 2)
    made = [create_season(storage, bots, name=f"s{n}") for n in range(ROWS)]
    web = client(storage)
    first = json_of(web, "/api/seasons")
    assert [s["id"] for s in first["seasons"]] == made[:0:-1]
    assert first["pager"]["next"] == 2
    second = json_of(web, "/api/seasons?page=2")
    assert [s["id"] for s in second["seasons"]] == [made[0]]
    assert second["seasons"][0]["leader"] is None and second["pager"]["next"] is None
    page = web.get("/?page=2").text
    assert f'<a href="/seasons/{made[0]}">s0</a>' in page and 'href="?page=1"' in page
    assert f'<a href="/seasons/{made[1]}">' not in page
    assert 'href="?page=2"' in web.get("/").text


def test_leagues_and_challenges_come_50_a_page_newest_first(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "web.db")
    bots = add_bots(storage, tmp_path, 4)
    plan = LeaguePlan(LeagueRule(2, 1, 1), 1, ("round-robin", "round-robin"),
                      SeasonConfig.build(sandbox="inprocess", seed=3, max_hands=3))
    leagues = [create_league(storage, f"cup {n}", plan, bots).id for n in range(ROWS)]
    config = SeasonConfig.build().to_dict()
    challenges = [create_challenge(
        storage, author="ann", challenger=bots[0], opponent=bots[1], series=1,
        series_per_hour=1000, now=datetime.now(UTC), config=config,
        profile=FRIENDLY, plan=[(7, False, bots[0], bots[1])]) for _ in range(ROWS)]
    web = client(storage)
    first = json_of(web, "/api/leagues")
    assert [lg["id"] for lg in first["leagues"]] == leagues[:0:-1]
    assert first["pager"]["next"] == 2
    assert [lg["id"] for lg in json_of(web, "/api/leagues?page=2")["leagues"]] == leagues[:1]
    assert 'href="/leagues/1"' in web.get("/leagues?page=2").text
    first = json_of(web, "/api/challenges")
    assert [c["season_id"] for c in first["challenges"]] == challenges[:0:-1]
    last = json_of(web, "/api/challenges?page=2")
    assert [c["season_id"] for c in last["challenges"]] == challenges[:1]
    assert last["pager"] == {"number": 2, "size": 50, "previous": 1, "next": None}
    assert 'href="?page=1"' in web.get("/challenges?page=2").text
    # The front page shows the five newest leagues and links to every league.
    front = json_of(web, "/api/seasons")["front"]
    assert [lg["id"] for lg in front["leagues"]] == leagues[:-6:-1]
    assert 'href="/leagues">Every league</a>' in web.get("/").text


@pytest.mark.parametrize("path", ["/bots", "/api/bots", "/", "/api/seasons", "/leagues",
                                  "/api/challenges", "/authors/admin"])
@pytest.mark.parametrize(("value", "says"), [
    ("0", "page must be from 1 to 1000000, not 0"),
    ("1000001", "page must be from 1 to 1000000, not 1000001"),
    ("two", "page must be a number of 1 to 18 digits 0-9, not 'two'"),
    ("²", "page must be a number of 1 to 18 digits 0-9"),
])
def test_a_bad_page_number_is_a_400_naming_it(tmp_path: Path, path: str, value: str,
                                               says: str) -> None:
    response = client(Storage(tmp_path / "web.db")).get(path, params={"page": value})
    assert response.status_code == 400
    text = response.json()["error"] if path.startswith("/api/") else html.unescape(response.text)
    assert says in text


def test_a_bot_page_reads_only_its_faulted_results_of_its_other_seasons(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot's page shows its faults of every season; of a season other than the one
    it shows, it reads only the faulted results the bot played, never every result
    (989,000 of them at 99 % of a 1,000-bot round robin)."""
    from tests.helpers.arena_helpers import fault, made_up_outcome

    storage = Storage(tmp_path / "web.db")
    ann, bob, cid = add_bots(storage, tmp_path, 3)
    older = create_season(storage, [ann, bob, cid], name="older")
    newer = create_season(storage, [ann, bob], name="newer")
    for planned in storage.planned_series(older):
        crashed = fault(planned.bots.index(ann)) if ann in planned.bots else None
        storage.store_result(planned, made_up_outcome(planned.series_id, winner=0,
                                                      fault=crashed), {})
    read_whole: list[int] = []
    original = storage.results_stored_after

    def spied(season_id: int, *args: Any, **kwargs: Any) -> Any:
        read_whole.append(season_id)
        return original(season_id, *args, **kwargs)

    monkeypatch.setattr(storage, "results_stored_after", spied)
    page = json_of(client(storage), f"/api/bots/{ann}")
    assert [s["id"] for s in page["seasons"]] == [newer, older]
    assert page["season"]["id"] == newer and older not in read_whole
    ann_series = [p.series_id for p in storage.planned_series(older) if ann in p.bots]
    assert sorted(f["series_id"] for f in page["faults"]) == sorted(ann_series)
    assert {f["bot"] for f in page["faults"]} == {ann} and page["faults_total"] == 2  # v bob, cid


def test_a_bots_versions_come_50_a_page_oldest_first(tmp_path: Path) -> None:
    """A bot of 120 versions: pages of 50, 50 and 20; the page links keep the season
    the page shows."""
    storage = Storage(tmp_path / "web.db")
    files = list(iter_bot_files(make_bot_folder(tmp_path / "ann", "bot")))
    ann = [storage.register_bot(
        name="ann", version=str(number), language="python", author="", description="",
        content_hash=f"ann-{number}", source_folder=Path("."), files=files)[0].id
        for number in range(1, 121)]
    [bob] = add_bots(storage, tmp_path, 1)
    season = create_season(storage, [ann[-1], bob])
    web = client(storage)
    first = json_of(web, "/api/bots/ann")
    assert first["bot"]["id"] == "ann@120" and first["status"] == "idle"
    assert [v["id"] for v in first["versions"]] == [f"ann@{n}" for n in range(1, 51)]
    assert first["versions_pager"] == {"number": 1, "size": 50, "previous": None, "next": 2}
    last = json_of(web, "/api/bots/ann?page=3")
    assert [v["id"] for v in last["versions"]] == [f"ann@{n}" for n in range(101, 121)]
    assert last["versions_pager"] == {"number": 3, "size": 50, "previous": 2, "next": None}
    page = web.get("/bots/ann@120?page=2").text
    assert page.count('<tr data-bot="ann@') == 50 and '<tr data-bot="ann@51"' in page
    assert f'href="?season={season}&amp;page=1"' in page
    assert f'href="?season={season}&amp;page=3"' in page
    unplayed = web.get("/bots/ann@3?page=3").text  # no season: the links keep nothing
    assert 'href="?page=2"' in unplayed
    assert '<tr data-bot="ann@120" class="current">' not in unplayed
    assert "No version on page 4" in web.get("/bots/ann?page=4").text
    assert web.get("/api/bots/ann?page=0").status_code == 400


def test_the_league_page_shows_ten_rounds_a_page_newest_first(tmp_path: Path) -> None:
    from tests.arena.server.test_league_round_pages import league_of_rounds

    storage = Storage(tmp_path / "web.db")
    league = league_of_rounds(storage, add_bots(storage, tmp_path, 4), 23)
    web = client(storage)
    first = web.get(f"/api/leagues/{league}").json()
    assert [r["round"] for r in first["rounds"]] == list(range(23, 13, -1))
    assert first["pager"] == {"number": 1, "size": 10, "previous": None, "next": 2}
    last = web.get(f"/api/leagues/{league}?page=3").json()
    assert [r["round"] for r in last["rounds"]] == [3, 2, 1]
    assert last["pager"] == {"number": 3, "size": 10, "previous": 2, "next": None}
    page = web.get(f"/leagues/{league}?page=2").text
    assert page.count('<section class="league-round"') == 10
    assert page.index('id="round-13"') < page.index('id="round-4"')
    assert 'href="?page=1"' in page and 'href="?page=3"' in page
    assert "No round on page 4" in web.get(f"/leagues/{league}?page=4").text
    assert web.get(f"/api/leagues/{league}?page=0").status_code == 400
    assert web.get("/api/leagues/99?page=2").status_code == 404


def test_a_big_seasons_standings_come_50_a_page_with_the_crosstable_of_their_rows(
        tmp_path: Path) -> None:
    """70 bots (more than the 64 of a whole crosstable): each page of the standings
    shows its rows' crosstable rows against the top 64, and says so."""
    storage = Storage(tmp_path / "web.db")
    bots = add_bots(storage, tmp_path, 70)  # none played: ranked by id, bot000 first
    season = create_season(storage, bots)
    web = client(storage)
    first = json_of(web, f"/api/seasons/{season}")
    assert [row["bot_id"] for row in first["standings"]] == bots[:50]
    assert [row["rank"] for row in first["standings"]] == list(range(1, 51))
    assert first["standings_pager"] == {"number": 1, "size": 50, "previous": None, "next": 2}
    table = first["crosstable"]
    assert table["bots"] == bots[:64] and table["rows"] == bots[:50]
    assert not table["full"] and table["bots_total"] == 70
    second = json_of(web, f"/api/seasons/{season}?page=2")
    assert [row["rank"] for row in second["standings"]] == list(range(51, 71))
    assert second["crosstable"]["rows"] == bots[50:] == list(second["crosstable"]["cells"])
    assert list(second["elo"]) == bots[50:] == list(second["format_extras"]["cells"])
    page = web.get(f"/seasons/{season}?page=2").text
    standings = page[page.index('<table id="standings">'):page.index('id="crosstable"')]
    assert standings.count("<tr data-bot=") == 20 and 'href="?page=1"' in standings
    crosstable = page[page.index('id="crosstable"'):page.index('id="live-latest"')]
    assert crosstable.count("<tr data-bot=") == 20
    assert crosstable.count("<td data-bot=") == 20 * 64  # each row against the top 64
    assert f'<td data-bot="{bots[63]}"' in crosstable
    assert f'<td data-bot="{bots[64]}"' not in crosstable
    assert "against the top 64 of 70 bots" in page and 'data-page="2"' in page
    assert "No row on page 3" in web.get(f"/seasons/{season}?page=3").text
    assert web.get(f"/api/seasons/{season}?page=0").status_code == 400
    assert web.get(f"/api/seasons/{season}/events?page=0").status_code == 400


def test_a_season_of_64_bots_or_fewer_shows_its_whole_crosstable_on_every_page(
        tmp_path: Path) -> None:
    storage = Storage(tmp_path / "web.db")
    bots = add_bots(storage, tmp_path, 60)
    season = create_season(storage, bots)
    second = json_of(client(storage), f"/api/seasons/{season}?page=2")
    assert [row["bot_id"] for row in second["standings"]] == bots[50:]
    table = second["crosstable"]
    assert table["bots"] == table["rows"] == bots and table["full"]
    page = client(storage).get(f"/seasons/{season}?page=2").text
    assert "crosstable-cut" not in page
    crosstable = page[page.index('id="crosstable"'):page.index('id="live-latest"')]
    assert crosstable.count("<tr data-bot=") == 60


def test_a_live_update_of_page_2_sends_that_pages_rows(tmp_path: Path) -> None:
    """The live stream of ``?page=2`` holds and patches page 2's rows: bot060 beating
    bot061 takes bot060 to the top (off page 2) and bot061 to the bottom; bot049 comes
    onto page 2 (sent whole), and the crosstable's top-64 columns change."""
    from arena.season.events import SeasonEvent
    from arena.season.live_feed import LiveFeeds
    from arena.web.live import SeasonSource
    from tests.helpers.arena_helpers import made_up_outcome

    storage = Storage(tmp_path / "web.db")
    bots = add_bots(storage, tmp_path, 70)
    season = create_season(storage, bots)
    hub = EventHub()
    site = create_app(storage, hub).state.website
    source = SeasonSource(LiveFeeds(hub, interval=0.0), site.season_snapshot, season,
                          page=2, interval=0.0)
    [(_, data)] = source.first()
    before = json.loads(data)["sections"]
    assert before["standings"].count("<tr data-bot=") == 20
    assert f'<tr data-bot="{bots[50]}">' in before["standings"]
    assert f'<tr data-bot="{bots[49]}">' not in before["standings"]
    [planned] = [p for p in storage.planned_series(season)
                 if set(p.bots) == {bots[60], bots[61]}]
    storage.store_result(planned, made_up_outcome(
        planned.series_id, planned.bots.index(bots[60]), games_won=(2, 0)), {})
    hub.publish(SeasonEvent("series_finished", season, series_id=planned.series_id))
    [(event, data)], _ = source.next(0.0)
    after = json.loads(data)["sections"]
    assert event == "delta"
    # Patched, not sent whole: bot060 leaves the page, bot049 comes onto it whole,
    # bot061 goes to the bottom.
    order = [*bots[49:60], *bots[62:], bots[61]]
    standings = after["standings"]
    assert "html" not in standings and standings["order"] == order
    assert standings["rows"][bots[49]].startswith(f'<tr data-bot="{bots[49]}">')
    crosstable = after["crosstable"]
    assert "html" not in crosstable and crosstable["order"] == order
    # Its columns, the top 64: bot060 first now, bot061 gone, bot064 come.
    assert crosstable["columns"] == [bots[60], *bots[:60], *bots[62:65]]
    # bot061's row: its lost cell against bot060, and a cell for the new column.
    assert crosstable["rows"][bots[61]] == {
        bots[60]: f'<td data-bot="{bots[60]}" class="num" title="{bots[61]} vs {bots[60]}: '
                  'won 0, drawn 0, lost 1, forfeited 0">0-0-1</td>',
        bots[64]: f'<td data-bot="{bots[64]}" class="unplayed"></td>'}
    source.close()
