"""The league pages: /leagues lists the leagues, /leagues/ID shows each round's
division tables with ▲ on the promoted bots and ▼ on the relegated ones (the moves
stored at the end of the round), linked from every page's header; the JSON twins
say the same; hostile names are escaped; a cancelled league says so."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from arena.core.settings import SeasonConfig
from arena.season.events import EventHub
from arena.season.league_rules import LeagueRule
from arena.season.leagues import LeagueKeeper, LeaguePlan, create_league
from arena.storage import Storage, cancel_league
from arena.web.app import create_app
from tests.helpers.league_helpers import RecordingManager, finish_round
from tests.helpers.web_helpers import HOSTILE_NAME, register


@pytest.fixture
def site(tmp_path: Path) -> Iterator[tuple[TestClient, int, Storage]]:
    """A league of 2 divisions whose round 1 ended s3 s1 s2 | s6 s4 s5 (made-up
    results): s2 relegated, s6 promoted."""
    storage = Storage(tmp_path / "web.db")
    names = ("s1", "s2", "s3", "s4", "s5", HOSTILE_NAME)
    ids = [register(storage, tmp_path, name) for name in names]
    ratings = {bot_id: 10.0 - index for index, bot_id in enumerate(ids)}
    league = create_league(storage, f"cup {HOSTILE_NAME}", LeaguePlan(
        LeagueRule(2, 1, 1), 2, ("round-robin", "round-robin"),
        SeasonConfig.build(sandbox="inprocess", seed=3)), ids, lambda wanted: ratings)
    s1, s2, s3, s4, s5, s6 = ids
    keeper = LeagueKeeper(storage, RecordingManager(storage), ratings=lambda wanted: ratings)
    for season_id in finish_round(storage, league.id, 1,
                                  {s3: 9, s1: 8, s2: 7, s6: 6, s4: 5, s5: 4}):
        keeper.season_finished(season_id)
    app = create_app(storage, EventHub())
    app.state.website.feed.close()
    app.state.website.live.close()
    app.state.website.tv.close()
    with TestClient(app) as client:
        yield client, league.id, storage
    storage.close()


def marks(html: str, round_number: int) -> dict[str, str]:
    """Each bot's mark in a round's tables (the row's data-bot and its mark cell)."""
    section = html.split(f'id="round-{round_number}"')[1].split("</section>")[0]
    return {bot: mark for bot, mark in re.findall(
        r'<tr data-bot="([^"]+)"[^>]*>.*?<td class="mark"[^>]*>([^<]*)</td>', section, re.S)}


def test_a_league_page_marks_the_moves(site: tuple[TestClient, int, Storage]) -> None:
    client, league_id, _ = site
    html = client.get(f"/leagues/{league_id}").text
    hostile = "&lt;script&gt;alert(1)&lt;/script&gt;@1.0.0"
    assert marks(html, 1) == {"s3@1.0.0": "", "s1@1.0.0": "", "s2@1.0.0": "▼",
                              hostile: "▲", "s4@1.0.0": "", "s5@1.0.0": ""}
    assert set(marks(html, 2).values()) == {""}  # round 2 has not ended
    assert HOSTILE_NAME not in html and f"cup {HOSTILE_NAME}" not in html
    assert '<a href="/seasons/1">season 1</a>' in html
    data = client.get(f"/api/leagues/{league_id}").json()
    assert [r["round"] for r in data["rounds"]] == [2, 1]  # newest first, as on the page
    first = data["rounds"][1]["divisions"]
    assert [(row["bot_id"], row["movement"], row["next_division"]) for row in first[0]["rows"]
            ] == [("s3@1.0.0", "stayed", 1), ("s1@1.0.0", "stayed", 1),
                  ("s2@1.0.0", "relegated", 2)]
    assert [row["mark"] for row in first[1]["rows"]] == ["▲", "", ""]
    # The tie-break that decided each move, against the bot just across the line:
    # each pair met twice (a duplicate pair), the stronger winning both, so s1 (2
    # wins) stayed above s2 (none) and s6 (4 wins) went up over s4 (2).
    assert [row["decided_by"] for row in first[0]["rows"]] == [
        "", "", "series points 2 v 0"]
    assert [row["decided_by"] for row in first[1]["rows"]] == [
        "series points 4 v 2", "", ""]
    assert '<td class="decided-by">series points 2 v 0</td>' in html
    assert "<dt>decided by</dt><dd>what put a moving bot on its side of the line" in html
    assert (data["divisions"], data["promote"], data["relegate"]) == (2, 1, 1)


def test_the_leagues_list_is_linked_from_every_page(
        site: tuple[TestClient, int, Storage]) -> None:
    client, league_id, _ = site
    assert '<a href="/leagues">leagues</a>' in client.get("/").text
    html = client.get("/leagues").text
    assert f'<a href="/leagues/{league_id}">cup &lt;script&gt;' in html
    assert client.get("/api/leagues").json()["leagues"][0]["name"] == f"cup {HOSTILE_NAME}"
    assert client.get("/leagues/99").status_code == 404
    # A division's season links back to its league.
    assert f'season 3 of <a href="/leagues/{league_id}">league {league_id}</a>' in (
        client.get("/seasons/3").text)
    assert client.get("/api/seasons/3").json()["league"] == league_id


def test_a_cancelled_league_says_so_on_its_page_and_in_the_list(
        site: tuple[TestClient, int, Storage]) -> None:
    client, league_id, storage = site
    assert "league-cancelled" not in client.get(f"/leagues/{league_id}").text
    assert "status-cancelled" not in client.get("/leagues").text
    cancelled = cancel_league(storage, league_id)
    html = client.get(f"/leagues/{league_id}").text
    assert 'id="league-cancelled"' in html and "no further rounds are made" in html
    assert client.get(f"/api/leagues/{league_id}").json()["cancelled_at"] == (
        cancelled.cancelled_at)
    assert '<span class="status status-cancelled">cancelled</span>' in client.get(
        "/leagues").text
    assert client.get("/api/leagues").json()["leagues"][0]["cancelled_at"] == (
        cancelled.cancelled_at)
