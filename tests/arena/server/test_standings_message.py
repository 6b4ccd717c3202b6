"""A standings message's crosstable, parsed from each cell's kept bytes
(``arena.server.convert.standings_message``), holds the table's cells as they are now."""

from __future__ import annotations

from dataclasses import replace

from hollywood.arena.v1 import arena_pb2

from arena.core.status import SeasonStatus
from arena.season.standings import StandingsState
from arena.server.convert import standings_message
from arena.storage import PlannedSeries, SeasonPlan, SeasonRecord
from tests.helpers.arena_helpers import result


class _NoPlan:
    def planned_series(self, season_id: int) -> list[PlannedSeries]:
        return []


def _season() -> SeasonRecord:
    return SeasonRecord(id=3, name="s", status=SeasonStatus.RUNNING, config={}, profile={},
                        bot_ids=["a", "b"], series_total=4, series_done=2, series_voided=0,
                        created_at="", updated_at="", error="", outcomes_refused=0,
                        plan=SeasonPlan(3, _NoPlan()))


def _cells(message: arena_pb2.Standings) -> list[tuple[str, str, int, int, int, int]]:
    return [(c.bot_id, c.opponent_id, c.won, c.lost, c.drawn, c.forfeited)
            for c in message.crosstable]


def test_crosstable_cells_follow_the_results() -> None:
    state = StandingsState(["a", "b"])
    state.apply(result("s1", "a", "b", 0))
    first = standings_message(_season(), state.table())
    assert sorted(_cells(first)) == [("a", "b", 1, 0, 0, 0), ("b", "a", 0, 1, 0, 0)]
    assert (first.season_id, first.series_done, first.series_total) == (3, 2, 4)
    assert first.status == arena_pb2.SEASON_STATUS_RUNNING
    assert [row.bot_id for row in first.rows] == ["a", "b"]
    state.apply(result("s2", "b", "a", 0, fault_seat=1))
    second = standings_message(replace(_season(), series_done=3), state.table())
    assert sorted(_cells(second)) == [("a", "b", 1, 1, 0, 1), ("b", "a", 1, 1, 0, 0)]
    assert second.series_done == 3
