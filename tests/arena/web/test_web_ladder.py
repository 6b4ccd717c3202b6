"""The website shows a ladder like a season: its table with the ladder's columns
(the windowed Bradley-Terry Elo, sigma, the provisional mark) and the note on
what provisional means, every member that joined mid-way included."""

from __future__ import annotations

from pathlib import Path

from starlette.testclient import TestClient

from arena.season.events import EventHub
from arena.storage import Storage
from arena.web.app import create_app
from tests.arena.season.test_ladder import Arrivals, make_ladder, play


def test_the_ladder_page_marks_provisional_ratings(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "arena.db")
    season_id = make_ladder(storage, tmp_path / "bots")
    assert play(storage, season_id, Arrivals(storage, tmp_path / "bots")) == "finished"
    client = TestClient(create_app(storage, EventHub()))
    extras = client.get(f"/api/seasons/{season_id}").json()["format_extras"]
    assert extras["columns"] == ["Elo (last 1000)", "σ", "Rating"]
    cells = extras["cells"]
    assert set(cells) == {"a@1.0.0", "b@1.0.0", "c@1.0.0", "d@1.0.0", "e@1.0.0", "f@1.0.0",
                          "a@2.0.0"}
    # 36 series among 7 bots over 9 rounds: nobody has settled (sigma <= 4 needs
    # far more), so every rating is provisional.
    assert {cell[2] for cell in cells.values()} == {"provisional"}
    html = client.get(f"/seasons/{season_id}").text
    assert "<th>Elo (last 1000)</th><th>σ</th><th>Rating</th>" in html
    assert "provisional: fewer than 10 series or sigma above 4" in html
    assert "a@2.0.0" in html
