"""Standings arithmetic against small seasons computed by hand."""

from __future__ import annotations

import pytest
from openskill.models import PlackettLuce

from arena.season.standings import Standings, compute_standings
from tests.helpers.arena_helpers import result

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
    # 1-4 was forfeited: its games, hands and points count for neither bot.
    assert (a.games_won, a.games_lost) == (3 + 3 + 1, 0 + 1 + 2)
    assert a.hands_won == 5 + 6 + 3
    assert (a.points_for, a.points_against) == (300 + 310 + 200, 40 + 80 + 250)
    assert (b.series_played, b.series_won, b.series_lost, b.series_drawn) == (3, 0, 2, 1)
    assert b.series_forfeited == 0
    assert (b.games_won, b.games_lost) == (0 + 1 + 1, 3 + 3 + 1)
    assert (c.series_played, c.series_won, c.series_lost, c.series_drawn) == (3, 2, 0, 1)
    assert (c.points_for, c.points_against) == (120 + 250, 120 + 200)
    assert a.series_points == 2.0 and b.series_points == 0.5 and c.series_points == 2.5


def test_ordering_rule_series_points_first() -> None:
    table = compute_standings([A, B, C], three_bot_season())
    assert [row.bot_id for row in table.rows] == [C, A, B]
    assert [row.rank for row in table.rows] == [1, 2, 3]


# -- the ordering rule, one tie-break level per fixture ---------------------------
# Each fixture ties every level above the one it tests and makes every level below
# it point the other way, so the expected order (written by hand) holds only if that
# level decides, with the right sign.


def openskill_ordinals(bot_ids: list[str], series: list[tuple[str, str, int | None]]) -> dict[
    str, float
]:
    """mu - 3 sigma per bot, from openskill's own Plackett-Luce model (not the arena's
    code): ``series`` lists (seat 0, seat 1, winning seat or None) in play order."""
    model = PlackettLuce()
    ratings = {bot_id: model.rating() for bot_id in bot_ids}
    for first, second, winner in series:
        ranks = [1, 1] if winner is None else [1 + (winner == 1), 1 + (winner == 0)]
        [[ratings[first]], [ratings[second]]] = model.rate(
            [[ratings[first]], [ratings[second]]], ranks=ranks)
    return {bot_id: rating.ordinal() for bot_id, rating in ratings.items()}


def order(table: Standings) -> list[str]:
    return [row.bot_id for row in table.rows]


def test_more_series_points_rank_first_even_against_every_later_tie_break() -> None:
    # three-draws: 3 draws (1.5 points); one-win: 1 win (1.0 point). The win gives the
    # higher rating, and one-win is also ahead on games, points and id.
    three, one = "three-draws@1", "one-win@1"
    p, q, r, s = "p@1", "q@1", "r@1", "s@1"
    results = [
        result("1", three, p, None, games=(1, 1), points=(50, 50)),
        result("2", three, q, None, games=(1, 1), points=(50, 50)),
        result("3", three, r, None, games=(1, 1), points=(50, 50)),
        result("4", one, s, 0, games=(2, 0), points=(200, 0)),
    ]
    ordinals = openskill_ordinals(
        [three, one, p, q, r, s],
        [(three, p, None), (three, q, None), (three, r, None), (one, s, 0)])
    assert ordinals[one] > ordinals[three]  # the rating alone would put one-win first
    table = compute_standings([p, q, r, s, one, three], results)
    assert order(table)[:2] == [three, one]
    assert order(table)[-1] == s  # the only bot without a point


def test_equal_series_points_rank_by_rating_ordinal() -> None:
    # A beats B, then B beats A: 1 point each. Plackett-Luce weighs the later result
    # more, so B's ordinal is higher (checked with openskill itself below); A is ahead
    # on games (5-3 against 3-5), points and id.
    a, b = "a@1", "b@1"
    results = [
        result("1", a, b, 0, games=(3, 0), points=(300, 0)),
        result("2", b, a, 0, games=(3, 2), points=(310, 250)),
    ]
    ordinals = openskill_ordinals([a, b], [(a, b, 0), (b, a, 0)])
    assert ordinals[b] > ordinals[a]
    table = compute_standings([a, b], results)
    assert order(table) == [b, a]
    assert table.row(b).rating_ordinal == pytest.approx(ordinals[b])
    assert table.row(a).rating_ordinal == pytest.approx(ordinals[a])


def test_a_rating_lead_of_a_fraction_of_a_point_still_decides() -> None:
    # "late" and "early" each beat "victim"; openskill rates the earlier winner a little
    # higher (about 3.44 against 3.23: both 3 when rounded to a whole number). "late"
    # is ahead on games, points and id.
    early, late, victim = "zz-early@1", "aa-late@1", "victim@1"
    results = [
        result("1", early, victim, 0, games=(2, 1), points=(100, 90)),
        result("2", late, victim, 0, games=(3, 0), points=(300, 0)),
    ]
    ordinals = openskill_ordinals([early, late, victim], [(early, victim, 0), (late, victim, 0)])
    assert 0 < ordinals[early] - ordinals[late] < 0.5
    assert order(compute_standings([early, late, victim], results)) == [early, late, victim]


def test_equal_points_and_rating_rank_by_game_difference() -> None:
    # Two separate first-round wins between newcomers: winners share one rating,
    # losers another. bravo won its games 3-1 (+2), alpha 3-2 (+1); alpha is ahead on
    # points and id. Among the losers delta lost 2-3 (-1), charlie 1-3 (-2).
    alpha, bravo, charlie, delta = "alpha@1", "bravo@1", "charlie@1", "delta@1"
    results = [
        result("1", bravo, charlie, 0, games=(3, 1), points=(100, 90)),
        result("2", alpha, delta, 0, games=(3, 2), points=(300, 0)),
    ]
    table = compute_standings([alpha, bravo, charlie, delta], results)
    assert table.row(alpha).rating_ordinal == table.row(bravo).rating_ordinal
    assert order(table) == [bravo, alpha, delta, charlie]


def test_equal_points_rating_and_games_rank_by_point_difference() -> None:
    # As above, with games 2-1 in both series: bravo +150 points, alpha +20;
    # delta -20, charlie -150. Ids point the other way.
    alpha, bravo, charlie, delta = "alpha@1", "bravo@1", "charlie@1", "delta@1"
    results = [
        result("1", bravo, charlie, 0, games=(2, 1), points=(200, 50)),
        result("2", alpha, delta, 0, games=(2, 1), points=(120, 100)),
    ]
    table = compute_standings([alpha, bravo, charlie, delta], results)
    assert order(table) == [bravo, alpha, delta, charlie]


def test_a_full_tie_ranks_by_bot_id() -> None:
    alpha, bravo, charlie, delta = "alpha@1", "bravo@1", "charlie@1", "delta@1"
    results = [
        result("1", bravo, delta, 0, games=(2, 1), points=(200, 50)),
        result("2", alpha, charlie, 0, games=(2, 1), points=(200, 50)),
    ]
    table = compute_standings([delta, bravo, charlie, alpha], results)
    assert order(table) == [alpha, bravo, charlie, delta]
    assert [row.rank for row in table.rows] == [1, 2, 3, 4]
    # Without results everything ties: the bot id decides.
    assert order(compute_standings(["b@1", "a@1"], [])) == ["a@1", "b@1"]


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


def test_repeated_draws_add_up_in_the_crosstable() -> None:
    table = compute_standings([A, B], [result("1", A, B, None), result("2", B, A, None)])
    assert vars(table.crosstable[A][B]) == {"won": 0, "lost": 0, "drawn": 2, "forfeited": 0}


def test_asking_for_a_bot_not_in_the_table_names_it() -> None:
    with pytest.raises(KeyError) as caught:
        compute_standings([A], []).row(B)
    assert caught.value.args == (B,)


def test_to_dict_is_the_whole_table() -> None:
    # One series, A beats B 2-1 in games. The rating numbers come from openskill itself.
    model = PlackettLuce()
    [[a_rating], [b_rating]] = model.rate([[model.rating()], [model.rating()]], ranks=[1, 2])
    table = compute_standings([A, B], [
        result("1", A, B, 0, games=(2, 1), hands=(4, 3), points=(150, 90))])

    def rating(value: float) -> float:
        return round(value, 4)

    assert table.to_dict() == {
        "ordering_rule": "series points (win 1, draw 0.5), then rating ordinal (mu - 3 sigma), "
                         "then games won - lost, then points for - against, then bot id",
        "rows": [
            {"rank": 1, "bot_id": A, "series_played": 1, "series_won": 1, "series_lost": 0,
             "series_drawn": 0, "series_forfeited": 0, "games_won": 2, "games_lost": 1,
             "hands_won": 4, "points_for": 150, "points_against": 90, "series_points": 1.0,
             "rating_mu": rating(a_rating.mu), "rating_sigma": rating(a_rating.sigma),
             "rating_ordinal": rating(a_rating.mu - 3 * a_rating.sigma)},
            {"rank": 2, "bot_id": B, "series_played": 1, "series_won": 0, "series_lost": 1,
             "series_drawn": 0, "series_forfeited": 0, "games_won": 1, "games_lost": 2,
             "hands_won": 3, "points_for": 90, "points_against": 150, "series_points": 0.0,
             "rating_mu": rating(b_rating.mu), "rating_sigma": rating(b_rating.sigma),
             "rating_ordinal": rating(b_rating.mu - 3 * b_rating.sigma)},
        ],
        "crosstable": {
            A: {B: {"won": 1, "lost": 0, "drawn": 0, "forfeited": 0}},
            B: {A: {"won": 0, "lost": 1, "drawn": 0, "forfeited": 0}},
        },
    }
