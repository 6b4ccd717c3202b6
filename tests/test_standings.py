"""Standings arithmetic against small seasons computed by hand."""

from __future__ import annotations

import pytest
from arena_helpers import result

from arena.season.standings import compute_standings

A, B, C = "alpha@1", "beta@1", "gamma@1"


def three_bot_season() -> list:
    # Hand-computed below: A beats B twice (3-0, 3-1), B and C draw (capped, 1-1),
    # C beats A once and A forfeits once to C (C wins that series).
    return [
        result("1-0", A, B, 0, games=(3, 0), hands=(5, 1), points=(300, 40)),
        result("1-1", B, A, 1, games=(1, 3), hands=(2, 6), points=(80, 310)),
        result("1-2", B, C, None, games=(1, 1), hands=(4, 4), points=(120, 120)),
        result("1-3", C, A, 0, games=(2, 1), hands=(5, 3), points=(250, 200)),
        result("1-4", A, C, 1, games=(0, 1), hands=(1, 2), points=(20, 60), fault_seat=0),
    ]


def test_counts_match_hand_computation() -> None:
    table = compute_standings([A, B, C], three_bot_season())
    a, b, c = table.row(A), table.row(B), table.row(C)
    assert (a.series_played, a.series_won, a.series_lost, a.series_drawn) == (4, 2, 2, 0)
    assert a.series_forfeited == 1
    assert (a.games_won, a.games_lost) == (3 + 3 + 1 + 0, 0 + 1 + 2 + 1)
    assert a.hands_won == 5 + 6 + 3 + 1
    assert (a.points_for, a.points_against) == (300 + 310 + 200 + 20, 40 + 80 + 250 + 60)
    assert (b.series_played, b.series_won, b.series_lost, b.series_drawn) == (3, 0, 2, 1)
    assert b.series_forfeited == 0
    assert (b.games_won, b.games_lost) == (0 + 1 + 1, 3 + 3 + 1)
    assert (c.series_played, c.series_won, c.series_lost, c.series_drawn) == (3, 2, 0, 1)
    assert (c.points_for, c.points_against) == (120 + 250 + 60, 120 + 200 + 20)
    assert a.series_points == 2.0 and b.series_points == 0.5 and c.series_points == 2.5


def test_ordering_rule_series_points_first() -> None:
    table = compute_standings([A, B, C], three_bot_season())
    assert [row.bot_id for row in table.rows] == [C, A, B]
    assert [row.rank for row in table.rows] == [1, 2, 3]


def test_ties_on_points_broken_by_rating_then_games_then_points_then_id() -> None:
    # A and B each win one series against each other: equal series points and,
    # because each rated once as winner and once as loser in symmetric order, close
    # ratings; the fixture makes the rating decide (the later win counts more).
    results = [
        result("1-0", A, B, 0, games=(3, 0), points=(300, 0)),
        result("1-1", B, A, 0, games=(3, 2), points=(310, 250)),
    ]
    table = compute_standings([A, B], results)
    a, b = table.row(A), table.row(B)
    assert a.series_points == b.series_points == 1.0
    assert b.rating_ordinal != a.rating_ordinal
    expected_first = B if b.rating_ordinal > a.rating_ordinal else A
    assert table.rows[0].bot_id == expected_first
    # Without results everything ties: the bot id decides.
    empty = compute_standings([B, A], [])
    assert [row.bot_id for row in empty.rows] == [A, B]


def test_crosstable_records_each_direction() -> None:
    table = compute_standings([A, B, C], three_bot_season())
    assert vars(table.crosstable[A][B]) == {"won": 2, "lost": 0, "drawn": 0, "forfeited": 0}
    assert vars(table.crosstable[B][A]) == {"won": 0, "lost": 2, "drawn": 0, "forfeited": 0}
    assert vars(table.crosstable[A][C]) == {"won": 0, "lost": 2, "drawn": 0, "forfeited": 1}
    assert vars(table.crosstable[C][B]) == {"won": 0, "lost": 0, "drawn": 1, "forfeited": 0}


def test_rating_rises_for_winner_and_uncertainty_shrinks() -> None:
    table = compute_standings([A, B], [result("1-0", A, B, 0), result("1-1", B, A, 1)])
    a, b = table.row(A), table.row(B)
    assert a.rating_mu > 25.0 > b.rating_mu
    assert a.rating_sigma < 25.0 / 3
    assert a.rating_ordinal == pytest.approx(a.rating_mu - 3 * a.rating_sigma)


def test_same_results_give_same_standings() -> None:
    first = compute_standings([A, B, C], three_bot_season()).to_dict()
    second = compute_standings([A, B, C], three_bot_season()).to_dict()
    assert first == second


def test_result_naming_a_stranger_is_rejected() -> None:
    with pytest.raises(ValueError, match="not in the season"):
        compute_standings([A, B], [result("1-0", A, C, 0)])


def test_both_bots_failing_to_start_draw_and_both_forfeit() -> None:
    results = [result("1-0", A, B, None, fault_seat=0, both_failed_to_start=True),
               result("1-1", B, A, None, fault_seat=0)]
    table = compute_standings([A, B], results)
    a, b = table.row(A), table.row(B)
    assert (a.series_drawn, a.series_forfeited) == (2, 1)
    assert (b.series_drawn, b.series_forfeited) == (2, 2)
    assert table.crosstable[A][B].forfeited == 1 and table.crosstable[B][A].forfeited == 2
