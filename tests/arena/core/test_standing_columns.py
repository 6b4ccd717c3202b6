"""One column spec of the ranked table (``arena.core.standing_columns``): the
terminal's table, the website's and the export's standings.csv read it, each
column reads values the API's row and the website's row both carry, and both
screens write the same cells for the same season."""

from __future__ import annotations

import re
from pathlib import Path

from hollywood.arena.v1 import arena_pb2
from rich.console import Console
from starlette.testclient import TestClient

from arena.cli.export import EXPORTED_COLUMNS
from arena.cli.render import standings_table
from arena.core.standing_columns import (
    STANDING_COLUMNS,
    RowValues,
    caption_terms,
    legend_terms,
)
from arena.season.events import EventHub
from arena.season.readings import SeasonReadings
from arena.server.convert import standings_message
from arena.server.statistics_convert import LosCells, add_statistics
from arena.storage import Storage
from arena.web.app import create_app
from arena.web.views import standing_rows
from tests.arena.server.test_tie_marks_screens import minimal_season


def test_every_column_reads_fields_of_the_apis_row() -> None:
    fields = {field.name for field in arena_pb2.StandingRow.DESCRIPTOR.fields}
    for column in STANDING_COLUMNS:
        assert set(column.reads) <= fields, column.header


def test_the_export_writes_what_the_columns_read_in_their_order() -> None:
    read = [name for column in STANDING_COLUMNS for name in column.reads]
    assert EXPORTED_COLUMNS[:2] == ("rank", "bot_id")
    assert list(EXPORTED_COLUMNS[2:2 + len(read)]) == read
    assert EXPORTED_COLUMNS[2:6] == ("series_points", "series_played", "series_won",
                                     "series_drawn")


def test_the_terminal_and_the_website_write_the_same_cells(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "a.db")
    season_id = minimal_season(storage, tmp_path)
    reading = SeasonReadings(storage).read(season_id)
    message = standings_message(reading.season, reading.standings)
    add_statistics(message, reading.statistics, LosCells())
    web = {row["bot_id"]: RowValues(row) for row in standing_rows(reading)}
    assert [row.bot_id for row in message.rows] == list(web)
    for row in message.rows:
        assert [column.cell(row) for column in STANDING_COLUMNS] == [
            column.cell(web[row.bot_id]) for column in STANDING_COLUMNS]
    # A of MEETINGS (25-15 against C, 2-8 against B): 27 won, 23 lost, none drawn.
    first = message.rows[0]
    assert [column.cell(first) for column in STANDING_COLUMNS[:4]] == [
        "27", "50", "27-0-23", "0"]
    # Both screens show them: the website's cells as the terminal prints them.
    console = Console(width=200, record=True)
    console.print(standings_table(message))
    terminal_line = next(line for line in console.export_text().splitlines()
                         if line.lstrip().startswith("1 "))
    html = TestClient(create_app(storage, EventHub())).get(f"/seasons/{season_id}").text
    web_row = re.search(rf'<tr data-bot="{re.escape(message.rows[0].bot_id)}">(.*?)</tr>',
                        html, re.S)
    assert web_row is not None
    web_cells = [re.sub("<[^>]+>", "", cell) for cell in
                 re.findall(r"<td[^>]*>(.*?)</td>", web_row.group(1), re.S)[2:]]
    on_terminal = [cell for cell, column in zip(web_cells, STANDING_COLUMNS, strict=True)
                   if column.terminal and cell]
    assert terminal_line.split()[2:] == on_terminal


def test_the_legend_and_the_caption_come_from_the_columns() -> None:
    terms = dict(legend_terms())
    assert list(terms)[:5] == ["#", "pts", "played", "W D L", "F"]
    assert {"tied", "behind", "Elo (95 %)"} <= set(terms)
    assert caption_terms().startswith("SPts = series points, W-D-L = series won-drawn-lost")
    assert "Played" not in caption_terms()  # not on the terminal
