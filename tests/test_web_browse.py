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
from arena_helpers import FakeOutcome
from starlette.testclient import TestClient
from web_helpers import HOSTILE_NAME, create_season, play, register

from arena.core.faults import BotFault, FaultKind
from arena.core.settings import SeasonConfig
from arena.season.events import EventHub
from arena.season.formats import format_for
from arena.season.season_statistics import rating_fit
from arena.season.statistics.pentanomial import SprtSpec, llr
from arena.storage import Storage
from arena.storage.authors import add_author
from arena.web.app import create_app

TIME = re.compile(r'<time datetime="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ" '
                  r'title="\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC">')


def quoted(text: str) -> str:
    return urllib.parse.quote(text, safe="@")


def set_owner(storage: Storage, name: str, owner: str) -> None:
    """What an author's upload stores: the name claimed by the author."""
    with storage.transaction() as db:
        db.execute("INSERT OR REPLACE INTO bot_names (name, owner, claimed_at) "
                   "VALUES (?, ?, '2026-01-01T00:00:00Z')", (name, owner))


def set_status(storage: Storage, bot_id: str, status: str, detail: str,
               cause: str = "") -> None:
    """What the vetting worker or the deactivation stores for a version."""
    with storage.transaction() as db:
        db.execute("INSERT OR REPLACE INTO bot_versions (bot_id, submitted_by, bundle, status, "
                   "status_detail, status_changed_at, rejection_cause) "
                   "VALUES (?, '', '', ?, ?, '2026-01-02T03:04:05Z', ?)",
                   (bot_id, status, detail, cause))


class Site:
    """Four bots: alpha (two versions, the second rejected), a hostile name owned
    by author ann, crashy (always forfeits; deactivated) and random-dan; one
    finished season of them (crashy forfeits every series it plays), one created."""

    def __init__(self, root: Path) -> None:
        self.storage = Storage(root / "web.db")
        self.alpha = register(self.storage, root, "alpha")
        self.hostile = register(self.storage, root, HOSTILE_NAME)
        self.crashy = register(self.storage, root, "crashy")
        self.dan = register(self.storage, root, "random-dan")
        self.ids = [self.alpha, self.hostile, self.crashy, self.dan]
        add_author(self.storage, "ann")
        set_owner(self.storage, HOSTILE_NAME, "ann")
        self.season_id = create_season(self.storage, self.ids, max_hands=3)
        plan = self.storage.planned_series(self.season_id)
        self.crashy_series = {p.id: p.bots.index(self.crashy) for p in plan
                              if self.crashy in p.bots}
        # A scripted runner's results: crashy leads each of its series (a game won,
        # 147 points up, 3 hands to 1) and then crashes.
        for planned in plan:
            seat = self.crashy_series.get(planned.id)
            if seat is None:
                continue
            score = (1, 0) if seat == 0 else (0, 1)
            self.storage.store_result(planned, FakeOutcome(  # type: ignore[arg-type]
                planned.id, winner=1 - seat, games_won=score,
                hands_won=(3, 1) if seat == 0 else (1, 3),
                points=(147, 0) if seat == 0 else (0, 147), hands_played=4,
                fault=BotFault(FaultKind.CRASH, "exit code 3", seat=seat)), {})
        assert set(self.crashy_series.values()) == {0, 1}  # both seats, both sides checked
        assert play(self.storage, self.season_id) == "finished"
        self.alpha2 = register(self.storage, root, "alpha", version="2.0.0")
        set_status(self.storage, self.alpha2, "rejected", "alpha faulted: <b>boom</b>",
                   "author")
        set_status(self.storage, self.crashy, "deactivated",
                   "lost 3 series in a row by a fault in season 1")
        self.idle_season = create_season(self.storage, self.ids[:2], name="idle")
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
    assert list(bots) == ["alpha", HOSTILE_NAME, "crashy", "random-dan"]
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
    assert [bot["name"] for bot in admin["bots"]] == ["alpha", "crashy", "random-dan"]
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
                 "<dt>Elo [95 %]</dt>", "<dt>tied</dt>"):
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
    # #, bot, pts, played, W, D, L, F, games, hands, points ±
    assert [re.sub("<[^>]+>", "", c) for c in cells[2:11]] == [
        "0.0", "3", "0", "0", "3", "3", "0–0", "0", "+0"]
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
        tied = index + 1 < len(order) and not rating.significantly_ahead(bot, order[index + 1])
        assert page["elo"][bot] == {"elo": round(elo), "low": round(low), "high": round(high),
                                    "tied_with_next": tied}
        # The terminal's cell (arena.cli.render_statistics.elo_cell): +12 [-3,+27].
        shown = str(bot).replace("<", "&lt;").replace(">", "&gt;")
        row = re.search(rf'<tr data-bot="{re.escape(shown)}">(.*?)</tr>', html, re.S)
        assert row is not None, bot
        assert f"{round(elo):+d} [{round(low):+d}, {round(high):+d}]" in row.group(1)
        assert ('<td class="tied">tied</td>' in row.group(1)) == tied


def test_live_badge_only_on_a_season_that_may_still_change(site: Site) -> None:
    assert 'id="live-state"' not in site.get(f"/seasons/{site.season_id}")  # finished
    assert 'id="live-state"' in site.get(f"/seasons/{site.idle_season}")  # created


def test_sprt_match_page_shows_the_llr_path_against_its_bounds(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "web.db")
    a, b = (register(storage, tmp_path, name) for name in ("a", "b"))
    config = SeasonConfig.build(sandbox="inprocess", concurrency=1, seed=5, format="sprt",
                                sprt="elo0=0,elo1=20,alpha=0.05,beta=0.05", max_pairs=50)
    match = format_for(config.format, config)
    season_id = storage.create_season(
        name="match", config=config.to_dict(), profile=config.profile().to_dict(),
        bot_ids=[a, b], plan=[p.as_row() for p in match.first_round([a, b], config.seed)]).id
    # Pair 1: A wins both (1); pair 2: A wins one, loses one (½); pair 3: wins, draws (¾).
    wins_for_a = [(True, True), (True, False), (True, None)]
    for number, pair in enumerate(wins_for_a, start=1):
        if number > 1:
            rounds = storage.results_by_round(season_id)
            nxt = match.next_round([a, b], config.seed, rounds)
            assert nxt is not None
            assert storage.add_round(season_id, number, [p.as_row() for p in nxt])
        planned = [p for p in storage.planned_series(season_id) if p.round == number]
        for series, a_wins in zip(planned, pair, strict=True):
            seat_a = series.bots.index(a)
            winner = None if a_wins is None else seat_a if a_wins else 1 - seat_a
            storage.store_result(series, FakeOutcome(series.id, winner=winner), {})  # type: ignore[arg-type]
    client = TestClient(create_app(storage, EventHub()), raise_server_exceptions=False)
    page = client.get(f"/api/seasons/{season_id}/sprt").json()
    assert page["test"]["pentanomial"] == [0, 0, 1, 1, 1]
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
    assert client.get(f"/seasons/{season_id + 1}/sprt").status_code == 404
    other = create_season(storage, [a, b], name="round robin")
    response = client.get(f"/seasons/{other}/sprt")
    assert response.status_code == 404 and "is not an SPRT match" in response.text
