"""The pages to browse by and the honest tables (issue 28, points 4 and 5), through
Starlette's TestClient: /bots, /authors/NAME, the seasons list's leader or winner,
every version's status with the reason for a rejected or deactivated one, an SPRT
match's page, legends under every table, Elo with its interval and tied marks,
forfeits, local times and the live badge. Hostile names come back escaped; unknown
names are a 404 page, never a 500."""

from __future__ import annotations

import re
import urllib.parse
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from arena.core.standing_columns import RowValues, elo_cell
from arena.season.events import EventHub
from arena.season.season_statistics import rating_fit
from arena.season.statistics.pentanomial import SprtSpec, llr
from arena.web.app import create_app
from arena.web.times import when
from tests.helpers.browse_helpers import BrowseArena
from tests.helpers.web_helpers import HOSTILE_NAME

TIME = re.compile(r'<time datetime="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ" '
                  r'title="\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC">')


def quoted(text: str) -> str:
    return urllib.parse.quote(text, safe="@")


class Site(BrowseArena):
    """The stored arena of tests/helpers/browse_helpers.py behind the website."""

    def __init__(self, root: Path) -> None:
        super().__init__(root, root / "web.db")
        self.client = TestClient(create_app(self.storage, EventHub()),
                                 raise_server_exceptions=False)

    def get(self, path: str, status: int = 200) -> str:
        response = self.client.get(path)
        assert response.status_code == status, (path, response.text[:500])
        return response.text


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    return Site(tmp_path_factory.mktemp("browse"))


def test_bots_lists_every_bot_with_status_owner_version_rating_and_last_played(
        site: Site) -> None:
    assert site.get("/bots") == site.get("/bots/")
    bots = {bot["name"]: bot for bot in site.client.get("/api/bots").json()["bots"]}
    assert list(bots) == ["alpha", HOSTILE_NAME, "crashy", "random-dan", "a", "b"]
    alpha = bots["alpha"]
    assert (alpha["status"], alpha["latest"], alpha["active_version"], alpha["versions"]) == (
        "rejected", "alpha@2.0.0", "alpha@1.0.0", 2)
    assert alpha["reason"] == ("alpha faulted: <b>boom</b> (its own build or bot failed: "
                               "a new version is needed)")
    assert bots[HOSTILE_NAME]["owner"] == "ann" and alpha["owner"] == "admin"
    assert bots["crashy"]["status"] == "deactivated"
    assert bots["crashy"]["active_version"] is None and bots["crashy"]["rating_mu"] is None
    # The rating is the standings' OpenSkill μ ± σ of the finished season.
    row = next(r for r in site.client.get(f"/api/seasons/{site.season_id}").json()[
        "standings"] if r["bot_id"] == site.alpha)
    assert (alpha["rating_mu"], alpha["rating_sigma"]) == (row["rating_mu"],
                                                           row["rating_sigma"])
    last = max(r.finished_at for r in site.storage.results(site.season_id)
               if site.alpha in r.bots)
    assert alpha["last_played"] == last
    html = site.get("/bots")
    assert "<script>alert" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert 'id="bots-legend"' in html
    assert 'href="/authors/ann"' in html and f'href="/bots/{quoted(site.alpha)}"' in html
    assert TIME.search(html)


def test_an_author_page_lists_its_bots_and_unknown_names_are_404(site: Site) -> None:
    page = site.client.get("/api/authors/ann").json()
    assert page["author"]["name"] == "ann"
    assert [bot["name"] for bot in page["bots"]] == [HOSTILE_NAME]
    admin = site.client.get("/api/authors/admin").json()
    assert [bot["name"] for bot in admin["bots"]] == ["alpha", "crashy", "random-dan", "a", "b"]
    html = site.get("/authors/ann")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "<script>alert" not in html
    missing = site.get("/authors/" + quoted("<img src=x onerror=alert(3)>"), 404)
    assert "no author" in missing and "<img src=x" not in missing
    assert site.client.get("/api/authors/nobody").json() == {"error": "no author 'nobody'"}
    assert site.client.get("/api/authors/nobody").status_code == 404


def test_bot_pages_show_every_versions_status_and_the_reason(site: Site) -> None:
    html = site.get("/bots/" + quoted(site.alpha2))
    assert 'id="bot-status" class="status status-rejected">rejected' in html
    assert "alpha faulted: &lt;b&gt;boom&lt;/b&gt;" in html and "<b>boom" not in html
    assert 'id="versions-legend"' in html
    versions = site.client.get("/api/bots/" + quoted(site.alpha)).json()["versions"]
    assert [(v["id"], v["status"]) for v in versions] == [
        ("alpha@1.0.0", "active"), ("alpha@2.0.0", "rejected")]
    crashy = site.get("/bots/" + quoted(site.crashy))
    assert ">deactivated" in crashy
    assert "lost 3 series in a row by a fault in season 1" in crashy
    assert "playing" not in crashy and ">idle<" not in crashy


def test_a_bot_by_its_name_shows_all_its_versions_at_its_newest_active(site: Site) -> None:
    # alpha: 1.0.0 active, 2.0.0 rejected -> the page of alpha@1.0.0, both versions listed.
    html = site.get("/bots/alpha")
    assert ('id="bot-by-name">The bot alpha with all its versions, shown at alpha@1.0.0'
            in html)
    assert '<h1 id="bot-name">alpha <small>1.0.0</small></h1>' in html
    rows = re.findall(r'<tr data-bot="([^"]+)"', html.split('<table id="versions">')[1])
    assert rows == ["alpha@1.0.0", "alpha@2.0.0"]
    twin = site.client.get("/api/bots/alpha").json()
    assert twin["bot"]["id"] == "alpha@1.0.0" and twin["by_name"] is True
    assert [v["id"] for v in twin["versions"]] == ["alpha@1.0.0", "alpha@2.0.0"]
    assert "bot-by-name" not in site.get("/bots/" + quoted(site.alpha))
    assert "unknown bot &#39;nobody-at-all&#39;" in site.get("/bots/nobody-at-all", 404)


def test_seasons_list_names_the_winner_and_every_table_has_a_legend(site: Site) -> None:
    seasons = {s["id"]: s for s in site.client.get("/api/seasons").json()["seasons"]}
    table = site.client.get(f"/api/seasons/{site.season_id}").json()["standings"]
    assert seasons[site.season_id]["leader"] == table[0]["bot_id"]
    assert seasons[site.idle_season]["leader"] is None
    html = site.get("/")
    assert f'winner: <a class="bot" href="/bots/{quoted(table[0]["bot_id"])}"' in html
    assert 'id="seasons-legend"' in html and TIME.search(html)
    season = site.get(f"/seasons/{site.season_id}")
    for legend in ("standings-legend", "crosstable-legend", "latest-legend", "faults-legend"):
        assert f'id="{legend}"' in season, legend
    for term in ("<dt>pts</dt>", "<dt>F</dt>", "<dt>points ±</dt>", "<dt>rating</dt>",
                 "<dt>Elo (95 %)</dt>", "<dt>tied</dt>"):
        assert term in season, term


def test_a_bot_that_always_forfeits_shows_forfeits_and_no_score(site: Site) -> None:
    rows = {r["bot_id"]: r for r in site.client.get(
        f"/api/seasons/{site.season_id}").json()["standings"]}
    crashy = rows[site.crashy]
    played = len(site.crashy_series)
    assert played == 3  # 4 bots, one series per pair
    assert (crashy["series_lost"], crashy["series_forfeited"], crashy["series_won"]) == (
        played, played, 0)
    assert (crashy["games_won"], crashy["games_lost"], crashy["hands_won"]) == (0, 0, 0)
    assert (crashy["points_for"], crashy["points_against"]) == (0, 0)
    html = site.get(f"/seasons/{site.season_id}")
    row = re.search(rf'<tr data-bot="{site.crashy}">(.*?)</tr>', html, re.S)
    assert row is not None
    cells = re.findall(r"<td[^>]*>(.*?)</td>", row.group(1), re.S)
    # #, bot, pts, played, W D L, F, games, hands, points ± (the terminal's cells)
    assert [re.sub("<[^>]+>", "", c) for c in cells[2:9]] == [
        "0", "3", "0-0-3", "3", "0-0", "0", "+0"]
    assert f'<td class="num fault">{played}</td>' in row.group(1)
    assert html.count('<span class="fault">F1</span>') == 3  # its crosstable cells


def test_elo_with_its_interval_and_tied_marks_as_the_terminal_prints_them(
        site: Site) -> None:
    page = site.client.get(f"/api/seasons/{site.season_id}").json()
    rating = rating_fit(tuple(site.ids), site.storage.results_stored_after(site.season_id))
    order = [row["bot_id"] for row in page["standings"]]
    html = site.get(f"/seasons/{site.season_id}")
    for index, bot in enumerate(order):
        low, high = rating.interval(bot)
        elo = rating.elo[rating.index(bot)]
        following = order[index + 1] if index + 1 < len(order) else None
        behind = following is not None and rating.significantly_ahead(following, bot)
        tied = (following is not None and not behind
                and not rating.significantly_ahead(bot, following))
        assert page["elo"][bot] == {"elo": round(elo), "low": round(low), "high": round(high),
                                    "half": round((high - low) / 2),
                                    "tied_with_next": tied, "behind_next": behind}
        # The terminal's cell, e.g. +12±15, the interval's ends in its tooltip.
        terminal = elo_cell(RowValues({"bt_elo": elo, "bt_elo_low": low, "bt_elo_high": high}))
        shown = str(bot).replace("<", "&lt;").replace(">", "&gt;")
        row = re.search(rf'<tr data-bot="{re.escape(shown)}">(.*?)</tr>', html, re.S)
        assert row is not None, bot
        assert (f'<td class="num elo"><span title="95 % interval {round(low):+d} to '
                f'{round(high):+d}">{terminal}</span></td>') in row.group(1)
        assert ('<td class="tied">tied</td>' in row.group(1)) == tied
        assert ('<td class="tied">behind</td>' in row.group(1)) == behind


def test_live_badge_only_on_a_season_that_may_still_change(site: Site) -> None:
    assert 'id="live-state"' not in site.get(f"/seasons/{site.season_id}")  # finished
    assert 'id="live-state"' in site.get(f"/seasons/{site.idle_season}")  # created


def test_sprt_match_page_shows_the_llr_path_against_its_bounds(site: Site) -> None:
    season_id, client = site.sprt_season, site.client
    page = client.get(f"/api/seasons/{season_id}/sprt").json()
    # Pairs scoring 1, ½ and ¾ for A (tests/helpers/browse_helpers.py SPRT_PAIRS).
    assert page["test"]["pentanomial"] == [0, 0, 1, 1, 1]
    assert (page["test"]["bot_a"], page["test"]["bot_b"]) == (site.bot_a, site.bot_b)
    spec = SprtSpec(0, 20, 0.05, 0.05)
    expected = [[0, 0.0]] + [[n, pytest.approx(llr(counts, 0, 20), abs=1e-4)] for n, counts in (
        (1, [0, 0, 0, 0, 1]), (2, [0, 0, 1, 0, 1]), (3, [0, 0, 1, 1, 1]))]
    assert page["llr_path"] == expected
    assert page["test"]["lower_bound"] == pytest.approx(spec.lower_bound)
    html = client.get(f"/seasons/{season_id}/sprt").text
    assert '<svg class="llr-chart"' in html and 'class="bound bound-upper"' in html
    assert 'id="sprt-legend"' in html
    assert '<td class="num">0</td><td class="num">0</td><td class="num">1</td>' in html
    assert f'href="/seasons/{season_id}/sprt"' in client.get(f"/seasons/{season_id}").text
    assert client.get("/seasons/999/sprt").status_code == 404
    response = client.get(f"/seasons/{site.season_id}/sprt")
    assert response.status_code == 404 and "is not an SPRT match" in response.text
    assert "<script>" not in response.text


def test_times_are_time_elements_with_utc_in_the_tooltip() -> None:
    assert str(when("2026-01-02T03:04:05Z")) == (
        '<time datetime="2026-01-02T03:04:05Z" title="2026-01-02 03:04:05 UTC">'
        "2026-01-02 03:04:05 UTC</time>")
    assert str(when("2026-01-02T04:04:05+01:00")).startswith(
        '<time datetime="2026-01-02T03:04:05Z"')
    assert str(when(None)) == "–" and str(when("")) == "–"
    assert str(when("<b>soon</b>")) == "&lt;b&gt;soon&lt;/b&gt;"  # not a time: as text


def test_a_forfeited_series_says_so(site: Site) -> None:
    series = next(iter(site.crashy_series))
    html = site.get(f"/series/{series}")
    assert "by forfeit (the score when it stopped, counted in no table)" in html
