"""Pairing rules of the gauntlet, Swiss and knockout formats, checked against
plans written out by hand from the rules in docs/formats.md."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from arena.core.settings import ConfigError, SeasonConfig
from arena.season.formats import Gauntlet, Knockout, Pairing, Swiss, format_for
from arena.season.formats.knockout import bracket_order, replay_bracket
from arena.season.formats.swiss import byes_by_bot, swiss_order, swiss_scores
from arena.storage import SeriesRecord
from tests.helpers.arena_helpers import result

A, B, C, D, E = "a@1", "b@1", "c@1", "d@1", "e@1"


def record(pairing: Pairing, winner: int | None, number: int = 0) -> SeriesRecord:
    return result(f"1-{number}", pairing.seat0, pairing.seat1, winner, seed=pairing.seed)


def won_by(plan: Sequence[Pairing], winners: Sequence[str | None]) -> list[SeriesRecord]:
    """Results of ``plan`` in which the named bot won each series (None: drawn)."""
    return [record(p, None if w is None else (p.seat0, p.seat1).index(w), n)
            for n, (p, w) in enumerate(zip(plan, winners, strict=True))]


def seats(plan: Sequence[Pairing]) -> list[tuple[str, str]]:
    return [(p.seat0, p.seat1) for p in plan]


# ------------------------------------------------------------------ gauntlet

def test_gauntlet_challenger_meets_every_other_bot_and_no_one_else() -> None:
    plan = Gauntlet("b", 2).first_round([A, B, C, D], seed=5)
    assert seats(plan) == [(B, A), (A, B), (C, B), (B, C), (B, D), (D, B)]
    assert plan[0].seed == plan[1].seed != plan[2].seed == plan[3].seed
    assert Gauntlet(B, 3).planned_count(4) == 9
    assert seats(Gauntlet(B, 1).first_round([A, B, C, D], 5)) == [(B, A), (C, B), (B, D)]
    assert Gauntlet(B, 1).next_round([A, B, C, D], 5, [[]]) is None


def test_gauntlet_without_or_with_an_unknown_challenger_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="needs a challenger"):
        format_for("gauntlet", SeasonConfig.build(format="gauntlet"))
    with pytest.raises(ConfigError, match="challenger 'z' is not one of the season's bots"):
        Gauntlet("z", 2).first_round([A, B], 1)


# ------------------------------------------------------------------ swiss

def test_swiss_pairs_nearest_scores_without_repeats_and_balances_seats() -> None:
    swiss = Swiss(3, 1)
    bots = [A, B, C, D]
    round1 = swiss.first_round(bots, 7)
    assert seats(round1) == [(A, B), (C, D)]
    results1 = won_by(round1, [A, D])
    # a 1, d 1, b 0, c 0: a meets d; b meets c; d has played seat 1, so takes seat 0.
    round2 = swiss.next_round(bots, 7, [results1])
    assert round2 is not None and seats(round2) == [(D, A), (B, C)]
    results2 = won_by(round2, [A, B])
    # a 2, b 1, d 1, c 0: a has met b and d, so meets c; every bot has sat once in
    # each seat, so the higher placed takes seat 0.
    round3 = swiss.next_round(bots, 7, [results1, results2])
    assert round3 is not None and seats(round3) == [(A, C), (B, D)]
    assert swiss.next_round(bots, 7, [results1, results2, won_by(round3, [A, D])]) is None


def test_swiss_bye_goes_to_the_lowest_without_one_and_scores_a_won_meeting() -> None:
    swiss = Swiss(3, 2)
    bots = [A, B, C]
    round1 = swiss.first_round(bots, 3)
    assert seats(round1) == [(A, B), (B, A)]  # c, the lowest placed, has the bye
    results1 = won_by(round1, [A, A])
    round2 = swiss.next_round(bots, 3, [results1])  # a 2, c 2 (bye), b 0: b's bye
    assert round2 is not None and seats(round2) == [(A, C), (C, A)]
    results2 = won_by(round2, [C, C])
    round3 = swiss.next_round(bots, 3, [results1, results2])  # only a is left to have one
    assert round3 is not None and seats(round3) == [(C, B), (B, C)]
    results3 = won_by(round3, [B, None])
    rounds = [results1, results2, results3]
    assert swiss.next_round(bots, 3, rounds) is None
    byes = byes_by_bot(bots, ({bot for r in results for bot in r.bots} for results in rounds))
    assert byes == {A: 1, B: 1, C: 1}
    scores = swiss_scores(bots, [r for results in rounds for r in results], byes, 2)
    # a: 2 + 0 + bye 2; b: 0 + bye 2 + 1.5; c: bye 2 + 2 + 0.5
    assert {bot: item.score for bot, item in scores.items()} == {A: 4.0, B: 3.5, C: 4.5}
    assert scores[A].buchholz == 3.5 + 4.5
    assert swiss_order(scores, {}) == [C, A, B]


def test_swiss_ties_break_by_buchholz_then_rating() -> None:
    scores = swiss_scores([A, B, C, D], won_by(
        [Pairing(1, False, A, B), Pairing(1, False, C, D), Pairing(1, False, A, C)],
        [A, C, C]), {}, 1)
    # a 1 (met b 0, c 2: buchholz 2), c 2, b 0, d 0 (met c: buchholz 2; b met a: 1)
    assert swiss_order(scores, {}) == [C, A, D, B]
    even = swiss_scores([A, B], [], {}, 1)
    assert swiss_order(even, {A: 1.0, B: 2.0}) == [B, A]


def test_swiss_refuses_more_rounds_than_pairings_without_repeats() -> None:
    with pytest.raises(ConfigError, match="4 rounds of 4 bots would repeat pairings"):
        Swiss(4, 2).planned_count(4)
    assert Swiss(5, 2).planned_count(5) == 5 * 2 * 2
    assert Swiss(0, 2).rounds_for(9) == 4


def test_swiss_ends_early_when_every_pairing_would_repeat() -> None:
    swiss = Swiss(3, 1)
    plan = [Pairing(1, False, A, B), Pairing(1, False, C, D)]
    rounds = [won_by(plan, [A, C]),
              won_by([Pairing(2, False, A, C), Pairing(2, False, B, D)], [A, B]),
              ]
    # every pairing of four bots but a-d and b-c is used; round 3 can only be those
    round3 = swiss.next_round([A, B, C, D], 1, rounds)
    assert round3 is not None and {frozenset(p) for p in seats(round3)} == {
        frozenset((A, D)), frozenset((B, C))}
    assert Swiss(0, 1).next_round([A, B], 1, [won_by([plan[0]], [A])]) is None


# ------------------------------------------------------------------ knockout

def test_bracket_order_places_top_seeds_apart() -> None:
    assert bracket_order(2) == [1, 2]
    assert bracket_order(4) == [1, 4, 2, 3]
    assert bracket_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]


def test_knockout_byes_tie_breaks_and_the_higher_seed_on_a_drawn_tie() -> None:
    bots = [A, B, C, D, E]
    cup = Knockout(tiebreak_pairs=1)
    first = cup.first_round(bots, 11)  # 8 slots: a, b, c have byes; d (4) meets e (5)
    assert seats(first) == [(D, E), (E, D)]
    r1 = won_by(first, [D, E])  # 1-1: one tie-break pair
    tiebreak = cup.next_round(bots, 11, [r1])
    assert tiebreak is not None and seats(tiebreak) == [(D, E), (E, D)]
    assert tiebreak[0].seed != first[0].seed
    r2 = won_by(tiebreak, [E, E])
    semis = cup.next_round(bots, 11, [r1, r2])
    assert semis is not None and seats(semis) == [(A, E), (E, A), (B, C), (C, B)]
    r3 = won_by(semis, [A, E, B, B])
    again = cup.next_round(bots, 11, [r1, r2, r3])  # only the drawn tie plays on
    assert again is not None and seats(again) == [(A, E), (E, A)]
    r4 = won_by(again, [None, None])  # still drawn, no tie-break left: seed 1 goes through
    final = cup.next_round(bots, 11, [r1, r2, r3, r4])
    assert final is not None and seats(final) == [(A, B), (B, A)]
    r5 = won_by(final, [B, B])
    assert cup.next_round(bots, 11, [r1, r2, r3, r4, r5]) is None
    bracket = replay_bracket(bots, 11, 1, [r1, r2, r3, r4, r5])
    assert bracket.champion == B
    assert [[(t.high, t.low, t.winner, t.decided_by) for t in ties] for ties in bracket.rounds] == [
        [(A, None, A, "bye"), (D, E, E, "score"), (B, None, B, "bye"), (C, None, C, "bye")],
        [(A, E, A, "seed"), (B, C, B, "score")],
        [(A, B, B, "score")],
    ]
    semi = bracket.rounds[1][0]
    assert (semi.high_score, semi.low_score, semi.pairs) == (2.0, 2.0, 2)


def test_knockout_bracket_mid_pair_is_in_progress() -> None:
    cup = Knockout(0)
    first = cup.first_round([A, B], 1)
    bracket = replay_bracket([A, B], 1, 0, [won_by(first[:1], [A])])
    assert bracket.champion is None and bracket.pending == []
    drawn = replay_bracket([A, B], 1, 0, [won_by(first, [A, B])])
    assert drawn.champion == A and drawn.rounds[0][0].decided_by == "seed"


def test_swiss_pairing_search_backtracks_within_its_budget() -> None:
    """c and d have met, so a-b (a's nearest) leaves no pairing: the search backtracks
    to a-c, b-d; with no steps to spare it gives up (and the season would end)
    rather than search on, so a huge field cannot hang the arena."""
    from arena.season.formats import swiss

    scores = dict.fromkeys([A, B, C, D], 0.0)
    met = {frozenset((C, D))}
    assert swiss._match([A, B, C, D], scores, met) == [(A, C), (B, D)]
    assert swiss._match([A, B, C, D], scores, met, swiss._SearchBudget(1)) is None
