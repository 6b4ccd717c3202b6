"""``arena.season.readings``: one reading of a season's table per change, shared by
every reader, and the same code path for a season read live and one read after a
restart."""

from __future__ import annotations

from pathlib import Path

from arena.season.readings import SeasonReadings
from arena.season.standings_live import StandingsBoard
from arena.storage import Storage
from tests.helpers.arena_helpers import made_up_outcome
from tests.helpers.web_helpers import create_season, register


def test_a_reading_is_built_once_per_stored_result_and_shared(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "a.db")
    ids = [register(storage, tmp_path, name) for name in ("ann", "bob", "cid")]
    season_id = create_season(storage, ids)  # 3 pairs, one series each
    board = StandingsBoard(storage)
    readings = SeasonReadings(storage, board)
    empty = readings.read(season_id)
    assert (empty.snapshot.sequence, empty.progress.done, empty.progress.expected) == (0, 0, 3)
    assert readings.read(season_id) is empty and readings.builds == 1

    first, second, _ = storage.planned_series(season_id)
    for planned in (first, second):
        outcome = made_up_outcome(planned.series_id, winner=0, games_won=(2, 0))
        stored = storage.store_result(planned, outcome, {"name": "friendly"})
        assert stored is not None
        board.record(season_id, stored)  # as the season runner does
    reading = readings.read(season_id)
    assert reading.snapshot.sequence == 2 and readings.builds == 2
    assert [result.series_id for result in reading.results] == [first.series_id, second.series_id]
    assert sum(row.series_played for row in reading.standings.rows) == 4
    assert readings.read(season_id) is reading  # a second reader: nothing rebuilt

    # A server started later (a new board and statistics) reads the same numbers.
    again = SeasonReadings(storage).read(season_id)
    assert again.standings.to_dict() == reading.standings.to_dict()
    assert again.statistics.order == reading.statistics.order
    assert again.progress == reading.progress
    storage.close()
