"""The ``behind`` mark reaches every screen: the issue's minimal season (A-C 25-15,
B-C 10-0, A-B 2-8; points order A, B, C, but B significantly stronger than A) stored,
then read as the gRPC standings (the terminal's cell and legend, the export's
column) and as the website's season page and its API twin."""

from __future__ import annotations

import re
from pathlib import Path

from starlette.testclient import TestClient

from arena.cli.export import standing_row
from arena.cli.render_statistics import TIED_NOTE
from arena.core.settings import SeasonConfig
from arena.core.standing_columns import tied_cell
from arena.season.events import EventHub
from arena.season.readings import SeasonReadings
from arena.server.convert import standings_message
from arena.server.statistics_convert import LosCells, add_statistics
from arena.storage import Storage
from arena.web.app import create_app
from tests.helpers.arena_helpers import made_up_outcome
from tests.helpers.web_helpers import register

MEETINGS = (("A", "C", 25, 15), ("B", "C", 10, 0), ("A", "B", 2, 8))


def minimal_season(storage: Storage, root: Path) -> int:
    ids = {name: register(storage, root, name) for name in "ABC"}
    plan = [(k + 1, False, ids[first], ids[second])
            for first, second, won, lost in MEETINGS for k in range(won + lost)]
    config = SeasonConfig.build(sandbox="inprocess", concurrency=1, seed=5)
    season_id = storage.create_season(name="minimal", config=config.to_dict(),
                                      profile=config.profile(),
                                      bot_ids=list(ids.values()), plan=plan).id
    planned = iter(storage.planned_series(season_id))
    for _, _, won, lost in MEETINGS:
        for k in range(won + lost):
            series = next(planned)
            storage.store_result(series, made_up_outcome(series.series_id,
                                                         winner=0 if k < won else 1), {})
    return season_id


def test_every_screen_marks_the_row_behind_the_next(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "a.db")
    season_id = minimal_season(storage, tmp_path)
    reading = SeasonReadings(storage).read(season_id)
    message = standings_message(reading.season, reading.standings)
    add_statistics(message, reading.statistics, LosCells())
    rows = {row.bot_id.partition("@")[0]: row for row in message.rows}
    assert [row.bot_id.partition("@")[0] for row in message.rows] == ["A", "B", "C"]
    assert (rows["A"].behind_next, rows["A"].tied_with_next) == (True, False)
    assert not rows["B"].behind_next and not rows["B"].tied_with_next
    # The terminal's cell and legend, the export's column.
    assert [tied_cell(rows[name]) for name in "ABC"] == ["behind", "", ""]
    assert "'behind' = the next row is significantly stronger" in TIED_NOTE
    assert standing_row(rows["A"])["behind_next"] == 1
    assert standing_row(rows["B"])["behind_next"] == 0
    # The website's page, its legend and its API twin.
    client = TestClient(create_app(storage, EventHub()), raise_server_exceptions=False)
    page = client.get(f"/api/seasons/{season_id}").json()
    marks = {bot.partition("@")[0]: (cells["tied_with_next"], cells["behind_next"])
             for bot, cells in page["elo"].items()}
    assert marks == {"A": (False, True), "B": (False, False), "C": (False, False)}
    html = client.get(f"/seasons/{season_id}").text
    cells = re.findall(r'<td class="tied">([^<]*)</td>', html)
    assert cells == ["behind", "", ""]
    assert "<dt>behind</dt>" in html and "BayesElo" in html
    storage.close()
