"""The season page shows what the season's format adds to its standings (columns,
the note on its order, sections) as they are, without knowing the format."""

from __future__ import annotations

from pathlib import Path

from starlette.testclient import TestClient

from arena.core.settings import SeasonConfig
from arena.season.events import EventHub
from arena.season.formats import format_for
from arena.storage import Storage
from arena.web.app import create_app
from tests.helpers.arena_helpers import made_up_outcome
from tests.helpers.web_helpers import register


def format_season(storage: Storage, ids: list[str], **settings: object) -> int:
    config = SeasonConfig.build(sandbox="inprocess", concurrency=1, seed=5, **settings)
    plan = format_for(config.format, config).first_round(ids, config.seed)
    return storage.create_season(name="formats", config=config.to_dict(),
                                 profile=config.profile(), bot_ids=ids,
                                 plan=[pairing.as_row() for pairing in plan]).id


def test_a_swiss_season_shows_its_columns_and_order_note(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "web.db")
    a, b, c = (register(storage, tmp_path, name) for name in ("a", "b", "c"))
    season_id = format_season(storage, [a, b, c], format="swiss", rounds=1, series_per_pair=1)
    # Round 1: a meets b (c, last placed, has the bye); a wins.
    [planned] = storage.planned_series(season_id)
    assert planned.bots == (a, b)
    storage.store_result(planned, made_up_outcome(planned.series_id, winner=0), {})
    client = TestClient(create_app(storage, EventHub()))
    extras = client.get(f"/api/seasons/{season_id}").json()["format_extras"]
    assert extras["columns"] == ["Byes", "Score", "Buchholz"]
    assert extras["cells"] == {a: ["0", "1", "0"], b: ["0", "0", "1"], c: ["1", "1", "0"]}
    html = client.get(f"/seasons/{season_id}").text
    assert "<th>Byes</th><th>Score</th><th>Buchholz</th>" in html
    assert "Swiss: ordered by score (series points + byes), Buchholz, rating." in html
    # The legend under the table explains the format's columns too.
    assert ("<dt>Buchholz</dt><dd>the sum of the opponents&#39; Swiss scores (a harder draw "
            "scores higher); the second sort key</dd>") in html
    assert "<dt>Byes</dt><dd>rounds the bot sat out" in html


def test_a_knockout_season_shows_its_bracket(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "web.db")
    a, b = (register(storage, tmp_path, name) for name in ("a", "b"))
    season_id = format_season(storage, [a, b], format="knockout")
    client = TestClient(create_app(storage, EventHub()))
    [bracket] = client.get(f"/api/seasons/{season_id}").json()["format_extras"]["sections"]
    assert bracket["title"] == "Bracket"
    assert bracket["rows"] == [["1", f"(1) {a}", f"(2) {b}", "0-0", "0", "…"]]
    html = client.get(f"/seasons/{season_id}").text
    assert "<h3>Bracket</h3>" in html and f"<td>(2) {b}</td>" in html
    assert "<dt>Through</dt><dd>who goes through and why" in html
