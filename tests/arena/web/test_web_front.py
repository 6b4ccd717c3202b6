"""The front page (issue 38, point 2): three lines on what the arena is, Arena TV,
the top of the current season, the latest results, and the leagues with their
division seasons grouped under them (and out of the plain list of seasons)."""

from __future__ import annotations

import re
from pathlib import Path

from starlette.testclient import TestClient

from arena.core.settings import SeasonConfig
from arena.season.events import EventHub
from arena.season.league_rules import LeagueRule
from arena.season.leagues import LeaguePlan, create_league
from arena.season.readings import SeasonReadings
from arena.storage import Storage
from arena.web.app import create_app
from tests.helpers.season_play import play
from tests.helpers.web_helpers import create_season, register


def test_the_front_page_shows_the_tv_top_latest_results_and_leagues(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "front.db")
    ids = [register(storage, tmp_path, name) for name in ("alpha", "beta", "gamma")]
    season_id = create_season(storage, ids, max_hands=2, name="spring")
    play(storage, season_id)
    league = create_league(storage, "the league", LeaguePlan(
        LeagueRule(2, 1, 1), 1, ("round-robin", "round-robin"),
        SeasonConfig.build(sandbox="inprocess", seed=3, max_hands=3)),
        [*ids, register(storage, tmp_path, "delta")])
    division_seasons = [s.id for s in storage.list_seasons() if s.id != season_id]
    assert len(division_seasons) == 2
    app = create_app(storage, EventHub())
    with TestClient(app) as client:
        page = client.get("/").text
        intro = re.search(r'<div class="intro" id="intro">(.*?)</div>', page, re.S)
        assert intro is not None and intro.group(1).count("<p>") == 3
        assert 'data-tv="/api/tv/events"' in page
        # The newest season is a league division (not started): its top is empty...
        assert re.search(r'id="top-title">Top of the latest season', page)
        front = client.get("/api/seasons").json()["front"]
        assert front["current"]["id"] == max(division_seasons)
        # ...the latest results are the played season's, newest first.
        latest = [row["series_id"] for row in front["latest"]]
        assert latest == storage.latest_result_ids(8) and len(latest) == 3
        assert all(f'href="/series/{series_id}"' in page for series_id in latest)
        # The league, its two divisions under it, and those out of the seasons list.
        assert [lg["name"] for lg in front["leagues"]] == ["the league"]
        grouped = front["leagues"][0]["seasons"]
        assert sorted(s["id"] for s in grouped) == sorted(division_seasons)
        assert [s["division"] for s in grouped] == [1, 2]
        section = re.search(rf'<section class="league" data-league="{league.id}">(.*?)</section>',
                            page, re.S)
        assert section is not None
        assert section.group(1).count("<li>round 1, division") == 2
        table = page.split('<table id="seasons">', 1)[1].split("</table>", 1)[0]
        assert f'href="/seasons/{season_id}"' in table
        assert all(f'href="/seasons/{sid}"' not in table for sid in division_seasons)
    # With the played season the current one, its top rows in its format's order.
    storage2 = Storage(tmp_path / "front2.db")
    ids2 = [register(storage2, tmp_path, name) for name in ("alpha", "beta", "gamma")]
    season2 = create_season(storage2, ids2, max_hands=2, name="spring")
    play(storage2, season2)
    order = SeasonReadings(storage2).read(season2).statistics.order
    with TestClient(create_app(storage2, EventHub())) as client:
        front = client.get("/api/seasons").json()["front"]
        assert [row["bot"] for row in front["top"]] == order
        assert [row["rank"] for row in front["top"]] == [1, 2, 3]
        page = client.get("/").text
        top = page.split('<table id="front-top">', 1)[1].split("</table>", 1)[0]
        assert re.findall(r'href="/bots/([^"]+)"', top) == order
