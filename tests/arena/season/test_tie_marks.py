"""The marks between adjacent rows come from the data whatever the table's order:
``tied`` when neither row is significantly stronger than the other (likelihood of
superiority under 0.975 both ways), ``behind`` when the row below is significantly
stronger. Series points order a field that played unequal opponents differently
from the Bradley-Terry fit, so a row can be significantly behind the next."""

from __future__ import annotations

import pytest

from arena.core.settings import SeasonConfig
from arena.core.status import SeasonStatus
from arena.season.season_statistics import next_row_marks, season_statistics
from arena.season.standings import compute_standings
from arena.season.statistics.bradley_terry import PairResult, fit
from arena.storage import PlannedSeries, SeasonPlan, SeasonRecord, SeriesRecord
from engine.profiles import FRIENDLY
from tests.helpers.arena_helpers import result


def series(first: str, second: str, won: int, lost: int) -> list[SeriesRecord]:
    return [result(f"{first}{second}{k}", first, second, 0 if k < won else 1)
            for k in range(won + lost)]


class UnreadPlan:
    """A round robin's standings read no plan: reading this one fails the test."""

    def planned_series(self, season_id: int) -> list[PlannedSeries]:
        raise AssertionError(f"the plan of season {season_id} was read")

    pending_series = planned_series


def season(bots: tuple[str, ...], total: int) -> SeasonRecord:
    return SeasonRecord(id=1, name="s", config=SeasonConfig(), profile=FRIENDLY,
                        bot_ids=bots,
                        status=SeasonStatus.FINISHED, error="", created_at="", updated_at="",
                        series_total=total, series_done=total, plan=SeasonPlan(1, UnreadPlan()))


def test_a_row_significantly_behind_the_next_is_marked_behind_not_tied() -> None:
    """A-C 25-15, B-C 10-0, A-B 2-8 (the issue's minimal case): points order A 27,
    B 18, C 15, but B is significantly stronger than A (Elo A -69.5 [-162, +23],
    B +239.7 [+84, +395]; B over A with likelihood 0.995)."""
    results = series("A", "C", 25, 15) + series("B", "C", 10, 0) + series("A", "B", 2, 8)
    standings = compute_standings(["A", "B", "C"], results)
    assert [(row.bot_id, row.series_points) for row in standings.rows] == [
        ("A", 27), ("B", 18), ("C", 15)]
    stats = season_statistics(season(("A", "B", "C"), len(results)), results, standings)
    assert stats.order == ["A", "B", "C"]
    rating = stats.rating
    elo = dict(zip(rating.bot_ids, rating.elo, strict=True))
    assert elo["A"] == pytest.approx(-69.5, abs=0.1)
    assert elo["B"] == pytest.approx(239.7, abs=0.1)
    assert [round(x) for x in rating.interval("A")] == [-162, 23]
    assert [round(x) for x in rating.interval("B")] == [84, 395]
    assert rating.los("B", "A") == pytest.approx(0.995, abs=0.0005)
    assert stats.tied_with_next == {"A": False, "B": False, "C": False}
    assert stats.behind_next == {"A": True, "B": False, "C": False}
    # B over C is significant the usual way: no mark at all.
    assert rating.significantly_ahead("B", "C")


def test_tied_means_neither_is_significantly_stronger_in_either_order() -> None:
    """Two bots 6-4 are tied read from either end; a third bot far below is behind
    whichever bot is listed after it, and the one listed above it is not tied."""
    results = ([PairResult("x", "y", 1.0)] * 6 + [PairResult("x", "y", 0.0)] * 4
               + [PairResult("x", "z", 1.0)] * 10 + [PairResult("y", "z", 1.0)] * 10)
    rating = fit(["x", "y", "z"], results)
    assert 0.5 < rating.los("x", "y") < 0.975 and rating.los("y", "x") < 0.975
    assert rating.los("y", "z") >= 0.975
    for order in (["x", "y", "z"], ["y", "x", "z"]):
        tied, behind = next_row_marks(rating, order)
        assert tied == {order[0]: True, order[1]: False, "z": False}
        assert behind == {order[0]: False, order[1]: False, "z": False}
    tied, behind = next_row_marks(rating, ["z", "x", "y"])
    assert tied == {"z": False, "x": True, "y": False}
    assert behind == {"z": True, "x": False, "y": False}
    # Never both marks; the last row has neither.
    assert next_row_marks(rating, ["x"]) == ({"x": False}, {"x": False})
