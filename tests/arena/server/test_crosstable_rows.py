"""A season's next standings message encodes only the crosstable rows a stored
series changed (issue 42: the 9,900 cells of a 100-bot table were encoded again on
every live update), and says the same as one encoded whole."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.season.standings_live import StandingsBoard
from arena.server import convert
from arena.server.convert import CrosstableRows, standings_message
from arena.storage import Storage
from tests.arena.season.test_standings_live import season_with_plan
from tests.arena.season.test_statistics_live import store_in_random_order


def test_the_next_message_encodes_only_the_rows_a_stored_series_changed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    storage = Storage(tmp_path / "a.db")
    season_id = season_with_plan(storage)  # 5 bots, 20 series: every ordered pair once
    board = StandingsBoard(storage)
    stored = store_in_random_order(storage, season_id, seed=9)
    for _ in range(19):
        next(stored)
    kept = CrosstableRows()
    before = board.update(season_id)  # published as the server does, result by result
    assert before.sequence == 19
    encoded: list[tuple[str, str]] = []
    real_cell = convert._crosstable_cell

    def counting_cell(bot: str, opponent: str, *counts: int) -> bytes:
        encoded.append((bot, opponent))
        return real_cell(bot, opponent, *counts)

    monkeypatch.setattr(convert, "_crosstable_cell", counting_cell)
    season = storage.get_season(season_id)
    standings_message(season, before.standings, kept)
    assert len(encoded) == sum(len(cells) for cells in before.standings.crosstable.values())
    encoded.clear()
    last = next(stored)
    after = board.update(season_id)  # the 20th result applied to the 19 before it
    message = standings_message(season, after.standings, kept)
    planned = storage.get_planned(last)
    changed = {planned.seat0_bot, planned.seat1_bot}
    # Every pair has met once the season is over: the two changed rows, 4 cells each.
    assert sorted(encoded) == sorted((bot, other) for bot in changed
                                     for other in after.standings.crosstable[bot])
    assert len(encoded) == 8
    monkeypatch.setattr(convert, "_crosstable_cell", real_cell)
    whole = standings_message(season, after.standings)
    assert message.SerializeToString() == whole.SerializeToString()
    storage.close()
