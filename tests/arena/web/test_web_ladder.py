"""The website shows a ladder like a season: its table with the ladder's columns
(the windowed Bradley-Terry Elo and the provisional mark, each with its legend) and the note on
what provisional means, every member that joined mid-way included; a ladder that
never ends has no progress bar, its series played and their rate instead."""

from __future__ import annotations

import re
from pathlib import Path

from starlette.testclient import TestClient

from arena.core.settings import SeasonConfig
from arena.season.events import EventHub
from arena.season.formats import LADDER_FORMAT, format_for
from arena.storage import Storage
from arena.web.app import create_app
from tests.arena.season.test_ladder import Arrivals, make_ladder
from tests.helpers.season_play import play
from tests.helpers.web_helpers import register


def test_the_ladder_page_marks_provisional_ratings(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "arena.db")
    season_id = make_ladder(storage, tmp_path / "bots")
    assert play(storage, season_id, Arrivals(storage, tmp_path / "bots")) == "finished"
    client = TestClient(create_app(storage, EventHub()))
    extras = client.get(f"/api/seasons/{season_id}").json()["format_extras"]
    assert extras["columns"] == ["Elo (last 1000)", "Provisional"]
    cells = extras["cells"]
    assert set(cells) == {"a@1.0.0", "b@1.0.0", "c@1.0.0", "d@1.0.0", "e@1.0.0", "f@1.0.0",
                          "a@2.0.0"}
    # 36 series among 7 bots over 9 rounds: nobody has settled (sigma <= 4 needs
    # far more), so every rating is provisional.
    assert {cell[1] for cell in cells.values()} == {"provisional"}
    html = client.get(f"/seasons/{season_id}").text
    assert "<th>Elo (last 1000)</th><th>Provisional</th>" in html
    # Every column of the format has its own legend text.
    assert ("<dt>Elo (last 1000)</dt><dd>Bradley-Terry Elo over the ladder&#39;s last 1000 "
            "series only") in html
    assert ("<dt>Provisional</dt><dd>marked while the bot has played fewer than 10 series "
            "or its rating&#39;s σ is above 4") in html
    assert 'id="season-progress"' in html  # a set number of rounds: a bar
    assert "provisional: fewer than 10 series or sigma above 4" in html
    assert "a@2.0.0" in html


def test_a_ladder_that_never_ends_shows_series_played_and_rate_not_a_bar(
        tmp_path: Path) -> None:
    storage = Storage(tmp_path / "arena.db")
    ids = [register(storage, tmp_path, name) for name in ("a", "b", "c", "d")]
    config = SeasonConfig.build(format=LADDER_FORMAT, sandbox="process", seed=17,
                                ladder_meetings=2)
    first = format_for(LADDER_FORMAT, config).first_round(ids, config.seed)
    season_id = storage.create_season(name="endless", config=config.to_dict(),
                                      profile=config.profile(), bot_ids=ids,
                                      plan=[p.as_row() for p in first]).id
    client = TestClient(create_app(storage, EventHub()))
    html = client.get(f"/seasons/{season_id}").text
    assert 'id="season-progress"' not in html
    assert re.search(r'<span id="season-done">0</span> series played \(no set number', html)
    assert re.search(r'id="season-pace">0.0 series/min</span>', html)
    listed = client.get("/").text.split('<table id="seasons">', 1)[1].split("</table>")[0]
    assert "<progress" not in listed and "0 played" in listed
