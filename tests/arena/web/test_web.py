"""The website over HTTP (Starlette's TestClient): every page and API route, over a
stored season whose bots have hostile names (HTML, terminal escapes) and one
forfeited series; escaping, the Content-Security-Policy, GET only, 404s."""

from __future__ import annotations

import re
import urllib.parse
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from arena.core.status import SeasonStatus
from arena.season.events import EventHub
from arena.season.standings import compute_standings
from arena.storage import Storage
from arena.web.app import create_app
from tests.helpers.arena_helpers import made_up_outcome
from tests.helpers.season_play import play
from tests.helpers.web_helpers import (
    HOSTILE_NAME,
    TERMINAL_NAME,
    create_season,
    forfeiting,
    register,
)


class Site:
    """A played 4-bot round-robin (one series each pair: 6 series) whose series 1-2
    ends with seat 1 timing out; plus a second version of alpha and an unplayed season."""

    def __init__(self, root: Path) -> None:
        self.storage = Storage(root / "web.db")
        self.ids = [register(self.storage, root, name, author="<i>ann</i>",
                             description="desc \x1b[1mbold")
                    for name in ("alpha", HOSTILE_NAME, TERMINAL_NAME, "random-dan")]
        self.season_id = create_season(self.storage, self.ids, name="<b>league</b>")
        self.plan = self.storage.planned_series(self.season_id)
        forfeited = {self.plan[2].series_id}
        assert play(self.storage, self.season_id, forfeiting(forfeited)) == "finished"
        self.newer_alpha = register(self.storage, root, "alpha", version="2.0.0")
        self.idle_season = create_season(self.storage, self.ids[:2], name="idle")
        self.client = TestClient(create_app(self.storage, EventHub()))

    def get(self, path: str, status: int = 200) -> str:
        response = self.client.get(path)
        assert response.status_code == status, (path, response.text[:500])
        return response.text


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    return Site(tmp_path_factory.mktemp("web"))


def bot_path(bot_id: str) -> str:
    return "/bots/" + urllib.parse.quote(bot_id, safe="@")


def pages(site: Site) -> list[str]:
    return ["/", f"/seasons/{site.season_id}", f"/seasons/{site.idle_season}",
            f"/series/{site.plan[0].series_id}", f"/series/{site.plan[2].series_id}",
            f"/series/{site.storage.planned_series(site.idle_season)[0].series_id}",
            *[bot_path(bot_id) for bot_id in site.ids], bot_path(site.newer_alpha)]


def api_routes(site: Site) -> list[str]:
    return ["/api/seasons", f"/api/seasons/{site.season_id}",
            f"/api/series/{site.plan[0].series_id}",
            f"/api/series/{site.plan[0].series_id}/replay",
            *["/api" + bot_path(bot_id) for bot_id in site.ids]]


def test_every_page_escapes_what_bots_and_authors_wrote(site: Site) -> None:
    for path in pages(site):
        html = site.get(path)
        assert "<script>alert" not in html and "<img src=x" not in html, path
        assert "<b>league" not in html and "<i>ann" not in html, path
        assert "\x1b" not in html, path
        # The only scripts are the site's own files.
        for tag in re.findall(r"<script[^>]*>", html):
            assert re.fullmatch(
                r'<script src="/static/(season|replay|time|sprt|now_playing)\.js" defer>', tag), tag
    season = site.get(f"/seasons/{site.season_id}")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;@1.0.0" in season
    assert "evil\\x1b[31mred\\x1b[0m@1.0.0" in season  # terminal escapes shown, not sent
    assert "decision took 3.2 s &lt;b&gt;late&lt;/b&gt;" in season  # the fault's message
    assert "onerror=alert(2)" not in season  # the stderr tail is its owner's alone
    assert "Traceback:" not in season
    assert "&lt;b&gt;league&lt;/b&gt;" in season
    bot = site.get(bot_path(site.ids[1]))
    assert "&lt;i&gt;ann&lt;/i&gt;" in bot and "desc \\x1b[1mbold" in bot


def test_links_to_hostile_bot_names_are_percent_encoded_and_resolve(site: Site) -> None:
    season = site.get(f"/seasons/{site.season_id}")
    assert 'href="/bots/%3Cscript%3Ealert%281%29%3C%2Fscript%3E@1.0.0"' in season
    assert 'href="/bots/evil%1B%5B31mred%1B%5B0m@1.0.0"' in season
    response = site.client.get("/api/bots/%3Cscript%3Ealert%281%29%3C%2Fscript%3E@1.0.0")
    assert response.json()["bot"]["name"] == HOSTILE_NAME
    assert site.client.get("/api/bots/evil%1B%5B31mred%1B%5B0m@1.0.0").json()["bot"][
        "name"] == TERMINAL_NAME


def test_every_response_carries_a_csp_forbidding_inline_scripts(site: Site) -> None:
    for path in [*pages(site), *api_routes(site), "/static/style.css", "/seasons/99"]:
        headers = site.client.get(path).headers
        policy = headers["content-security-policy"]
        assert "script-src 'self'" in policy and "unsafe-inline" not in policy, path
        assert "default-src 'none'" in policy
        assert headers["x-content-type-options"] == "nosniff"


def test_nothing_changes_over_http(site: Site) -> None:
    before = site.storage.count_rows()
    for path in [*pages(site), *api_routes(site)]:
        for method in ("POST", "PUT", "PATCH", "DELETE"):
            assert site.client.request(method, path).status_code == 405, (method, path)
    assert site.storage.count_rows() == before


def test_unknown_things_are_404_naming_them(site: Site) -> None:
    assert "unknown season 99" in site.get("/seasons/99", 404)
    assert site.client.get("/api/seasons/99").json() == {
        "error": "unknown season 99 (see `arena season list`)"}
    assert "unknown series" in site.client.get("/api/series/9-9").json()["error"]
    assert "unknown bot &#39;nobody@1&#39;" in site.get("/bots/nobody@1", 404)
    assert site.client.get("/api/series/9-9/replay").status_code == 404
    assert site.client.get("/seasons/x").status_code == 404


def test_seasons_page_and_api(site: Site) -> None:
    seasons = site.client.get("/api/seasons").json()["seasons"]
    assert [(s["id"], s["status"], s["series_done"], s["series_total"], s["bots"])
            for s in seasons] == [(site.idle_season, "created", 0, 1, 2),
                                  (site.season_id, "finished", 6, 6, 4)]
    html = site.get("/")
    assert f'<a href="/seasons/{site.season_id}">&lt;b&gt;league&lt;/b&gt;</a>' in html
    assert '<progress max="6" value="6"></progress> 6/6' in html


def test_season_api_numbers(site: Site) -> None:
    page = site.client.get(f"/api/seasons/{site.season_id}").json()
    progress = page["progress"]
    assert {key: progress[key] for key in ("done", "planned", "expected", "total", "percent",
                                           "seconds_left")} == {
        "done": 6, "planned": 6, "expected": 6, "total": 6, "percent": 100.0,
        "seconds_left": 0.0}
    assert progress["series_per_minute"] > 0
    rows = page["standings"]
    assert sorted(row["bot_id"] for row in rows) == sorted(site.ids)
    assert [row["rank"] for row in rows] == [1, 2, 3, 4]
    for row in rows:
        assert row["series_played"] == 3
        assert row["series_won"] + row["series_lost"] + row["series_drawn"] == 3
        assert isinstance(row["rating_mu"], float) and row["rating_sigma"] > 0
    assert sum(row["series_won"] for row in rows) == sum(row["series_lost"] for row in rows)
    cells = page["crosstable"]["cells"]
    for bot in site.ids:
        for other in site.ids:
            if bot != other:
                cell = cells[bot][other]
                assert cell["won"] + cell["lost"] + cell["drawn"] == 1
    assert len(page["latest"]) == 6
    # All six finished within the same second or so: newest first, then later in the plan.
    stamps = [(r["finished_at"], int(r["series_id"].split("-")[1])) for r in page["latest"]]
    assert stamps == sorted(stamps, reverse=True)
    forfeited = site.plan[2]
    assert page["faults"] == [{
        "series_id": forfeited.series_id, "bot": forfeited.seat1_bot, "seat": 1, "kind": "timeout",
        "message": "decision took 3.2 s <b>late</b>", "hand_number": 1, "decision_number": 4,
        # The arena's words and measured time; the bot's stderr is its owner's alone.
        "think_seconds": 0.0,
        "finished_at": page["faults"][0]["finished_at"]}]
    latest = {r["series_id"]: r for r in page["latest"]}[forfeited.series_id]
    assert latest["winner_bot"] == forfeited.seat0_bot and latest["fault_kind"] == "timeout"


def test_season_page_shows_its_sections(site: Site) -> None:
    html = site.get(f"/seasons/{site.season_id}")
    for section in ("live-progress", "live-standings", "live-crosstable", "live-latest",
                    "live-faults"):
        assert f'<section id="{section}">' in html
    assert f'data-season-id="{site.season_id}"' in html
    assert '<span id="season-done">6</span>/6 series (100.0 %)' in html
    # Four bots: a row each in the standings and in the crosstable.
    assert html.count('<tr data-bot="') == 8 and "±" in html
    assert "decision took 3.2 s &lt;b&gt;late&lt;/b&gt;" in html and "hand 1, decision 4" in html
    # The latest series name their winner by bot, a forfeit's too (seat 1 forfeited 1-2).
    assert (f'<td>{site.plan[2].seat0_bot} <span class="fault">forfeit: timeout</span></td>'
            in html)
    idle = site.get(f"/seasons/{site.idle_season}")
    assert "No series played yet." in idle and "No faults." in idle


def test_series_page_and_api(site: Site) -> None:
    planned = site.plan[2]
    page = site.client.get(f"/api/series/{planned.series_id}").json()
    assert page["bots"] == [planned.seat0_bot, planned.seat1_bot] and page["played"] is True
    assert page["result"]["winner"] == 0 and page["faults"][0]["kind"] == "timeout"
    html = site.get(f"/series/{planned.series_id}")
    assert '<div id="replay" data-series-id="1-2"' in html
    assert "forfeited: timeout: decision took 3.2 s &lt;b&gt;late&lt;/b&gt;" in html
    assert f'<p class="outcome">Won by {planned.seat0_bot} by forfeit' in html  # the bot, not 0
    unplayed = site.storage.planned_series(site.idle_season)[0]
    assert "Not played yet." in site.get(f"/series/{unplayed.series_id}")
    assert site.client.get(f"/api/series/{unplayed.series_id}").json()["result"] is None


def test_replay_frames_follow_the_stored_series(site: Site) -> None:
    planned = site.plan[0]
    data = site.client.get(f"/api/series/{planned.series_id}/replay").json()
    frames = data["frames"]
    first = frames[0]
    assert first["kind"] == "deal" and first["hand"] == 1 and first["seat"] is None
    assert [len(first["hands"][0]), len(first["hands"][1]), len(first["pile"])] == [10, 10, 1]
    assert first["stock"] == 31  # 52 - 2 x 10 - the upcard
    for frame in frames:
        if frame["result"] is None:  # every card is somewhere until a hand is settled
            cards = frame["hands"][0] + frame["hands"][1] + frame["pile"]
            assert len(cards) + frame["stock"] == 52 and len(set(cards)) == len(cards)
    for hand, index in data["hand_starts"].items():
        assert frames[index]["hand"] == int(hand) and frames[index]["kind"] == "deal"
    stored = site.storage.get_result(planned.series_id)
    assert stored is not None
    assert len(data["hand_starts"]) == stored.hands_played
    last_sheet = next(f["sheet"] for f in reversed(frames) if f["sheet"] is not None)
    assert [tuple(row) for row in last_sheet["scores"]] == list(stored.game_scores)
    assert tuple(last_sheet["hands_won"]) == stored.hands_won
    draws = [f for f in frames if f["action"].startswith("draw")]
    assert draws and all(f["drawn"] in f["hands"][f["seat"]] for f in draws)


def test_a_log_that_does_not_replay_is_a_clear_error(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "bad.db")
    ids = [register(storage, tmp_path, name) for name in ("a", "b")]
    season_id = create_season(storage, ids)
    planned = storage.planned_series(season_id)[0]
    storage.store_result(planned, made_up_outcome(planned.series_id, winner=0), {})
    client = TestClient(create_app(storage, EventHub()))
    response = client.get(f"/api/series/{planned.series_id}/replay")
    assert response.status_code == 422
    assert response.json()["error"].startswith(
        f"the stored log of series {planned.series_id} cannot be replayed: log entry 0")


def test_bot_page_and_api(site: Site) -> None:
    faulty = site.plan[2].seat1_bot
    page = site.client.get("/api" + bot_path(faulty)).json()
    assert page["season"]["id"] == site.season_id
    assert page["standing"]["series_played"] == 3
    history = page["rating_history"]
    assert [point["series"] for point in history] == [1, 2, 3]
    assert history[-1]["mu"] == page["standing"]["rating_mu"]
    assert history[-1]["sigma"] == page["standing"]["rating_sigma"]
    # Each point is the rating the standings give after that series.
    results = site.storage.results(site.season_id)
    ends = [index for index, result in enumerate(results) if faulty in result.bots]
    expected = [compute_standings(site.ids, results[: end + 1]).row(faulty) for end in ends]
    assert [(p["mu"], p["sigma"]) for p in history] == [
        (round(row.rating_mu, 4), round(row.rating_sigma, 4)) for row in expected]
    assert sorted(h["opponent"] for h in page["head_to_head"]) == sorted(
        set(site.ids) - {faulty})
    assert [f["kind"] for f in page["faults"]] == ["timeout"]
    assert page["status"] == "idle" and page["playing_in"] == []
    html = site.get(bot_path(faulty))
    assert '<svg class="rating-chart"' in html and html.count("<polyline") == 1
    alpha = site.client.get("/api/bots/alpha@1.0.0").json()
    assert [v["id"] for v in alpha["versions"]] == ["alpha@1.0.0", "alpha@2.0.0"]
    assert [s["id"] for s in alpha["seasons"]] == [site.idle_season, site.season_id]
    chosen = site.client.get(f"/api/bots/alpha@1.0.0?season={site.season_id}").json()
    assert chosen["season"]["id"] == site.season_id
    newer = site.get("/bots/alpha@2.0.0")
    assert "Has played no season." in newer and "No faults." in newer


def test_a_stored_result_shows_at_once_on_a_page_read_before(tmp_path: Path) -> None:
    """The season page is computed once per change of the season, never served stale."""
    storage = Storage(tmp_path / "fresh.db")
    ids = [register(storage, tmp_path, name) for name in ("a", "b")]
    season_id = create_season(storage, ids, series_per_pair=2)
    client = TestClient(create_app(storage, EventHub()))
    assert client.get(f"/api/seasons/{season_id}").json()["progress"]["done"] == 0
    planned = storage.planned_series(season_id)[0]
    storage.store_result(planned, made_up_outcome(planned.series_id, winner=1), {})
    page = client.get(f"/api/seasons/{season_id}").json()
    assert page["progress"]["done"] == 1 and page["latest"][0]["winner_bot"] == planned.seat1_bot
    assert '<span id="season-done">1</span>/2' in client.get(f"/seasons/{season_id}").text
    storage.set_season_status(season_id, SeasonStatus.RUNNING)
    bot = client.get(f"/api/bots/{ids[0]}").json()
    assert (bot["status"], bot["playing_in"]) == ("playing", [season_id])
    assert client.get(f"/api/seasons/{season_id}").json()["season"]["status"] == "running"


def test_a_series_ended_by_a_fault_replays_up_to_the_fault(tmp_path: Path) -> None:
    from engine import Series

    storage = Storage(tmp_path / "fault.db")
    ids = [register(storage, tmp_path, name) for name in ("a", "b")]
    season_id = create_season(storage, ids)
    planned = storage.planned_series(season_id)[0]
    series = Series(planned.seed, max_hands=6, swap_seats=planned.swap_seats)
    for _ in range(5):  # five moves of hand 1, then the bot to act timed out
        series.apply(series.legal_actions()[0])
    outcome = made_up_outcome(planned.series_id, winner=0, log=list(series.log))
    storage.store_result(planned, outcome, {})  # type: ignore[arg-type]
    client = TestClient(create_app(storage, EventHub()))
    frames = client.get(f"/api/series/{planned.series_id}/replay").json()["frames"]
    assert [frame["kind"] for frame in frames] == ["deal"] + ["action"] * 5
    assert frames[-1]["hands"] == [
        [str(card) for card in sorted(series.hand.cards(seat),
                                      key=lambda card: (card.suit, card.rank))]
        for seat in (0, 1)]
    assert frames[-1]["stock"] == series.hand.stock_size
