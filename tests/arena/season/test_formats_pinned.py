"""Hand-made fixtures for the format pairing rules, written for the survivors of
`make mutation` (docs/testing.md): each expected plan is worked out by hand from
docs/formats.md; deal seeds come from the hash written out here, not from the
format's own helpers."""

from __future__ import annotations

import hashlib

import pytest

from arena.core.settings import ConfigError
from arena.season.formats import Gauntlet, Knockout, Pairing, RoundRobin, SprtMatch, Swiss
from arena.season.formats.base import home_seat_first, meeting
from arena.season.formats.gauntlet import resolve_challenger
from arena.season.formats.knockout import Tie, replay_bracket
from arena.season.formats.sprt_match import pentanomial_counts
from arena.season.formats.swiss import (
    SwissScore,
    _match,
    _SearchBudget,
    byes_by_bot,
    swiss_order,
    swiss_scores,
)
from tests.arena.season.test_formats import won_by

A, B, C, D, E = "a@1", "b@1", "c@1", "d@1", "e@1"


def round_seed(season_seed: int, label: str) -> int:
    """RULES of the season seeds: the first 8 bytes of SHA-256 of
    ``hollywood-season:<seed>:<label>``, big-endian, top bit cleared."""
    digest = hashlib.sha256(f"hollywood-season:{season_seed}:{label}".encode()).digest()
    return int.from_bytes(digest[:8], "big") & (2**63 - 1)


def pair_seed(season_seed: int, i: int, j: int, cycle: int) -> int:
    """The same hash for the meeting of players i and j in a cycle
    (``hollywood-season:<seed>:<i>:<j>:<cycle>``)."""
    return round_seed(season_seed, f"{i}:{j}:{cycle}")


# ------------------------------------------------------------------ meeting

def test_a_meeting_is_duplicate_pairs_then_one_single_series() -> None:
    plan = meeting(A, B, 5, 77)
    pair1, single = round_seed(77, "pair-1"), round_seed(77, "single")
    assert plan == [
        Pairing(77, False, A, B), Pairing(77, False, B, A),
        Pairing(pair1, False, A, B), Pairing(pair1, False, B, A),
        Pairing(single, False, A, B),
    ]
    assert meeting(A, B, 1, 77) == [Pairing(single, False, A, B)]
    assert meeting(A, B, 0, 77) == []


# ------------------------------------------------------------------ sprt match

def test_sprt_match_plays_one_duplicate_pair_per_round_on_its_own_deal() -> None:
    match = SprtMatch.from_spec("elo0=0,elo1=20", max_pairs=3)
    first = match.first_round([A, B], 9)
    zero = round_seed(9, "sprt:0")
    assert first == [Pairing(zero, False, A, B), Pairing(zero, False, B, A)]
    second = match.next_round([A, B], 9, [won_by(first, [A, None])])
    one = round_seed(9, "sprt:1")
    assert second == [Pairing(one, False, A, B), Pairing(one, False, B, A)]
    rounds = [won_by(first, [A, None]), won_by(second, [B, B])]
    third = match.next_round([A, B], 9, rounds)
    two = round_seed(9, "sprt:2")
    assert third == [Pairing(two, False, A, B), Pairing(two, False, B, A)]
    # max_pairs 3: the third stored round is the last, decided or not
    assert match.next_round([A, B], 9, [*rounds, won_by(third, [A, B])]) is None
    assert match.planned_count(2) is None


def test_pentanomial_counts_score_each_complete_pair_for_the_first_bot() -> None:
    pair = [Pairing(1, False, A, B), Pairing(1, False, B, A)]
    rounds = [
        won_by(pair, [A, A]),        # 1 + 1: slot 4
        won_by(pair, [A, None]),     # 1 + 1/2: slot 3
        won_by(pair, [B, A]),        # 0 + 1: slot 2
        won_by(pair, [None, None]),  # 1/2 + 1/2: slot 2
        won_by(pair, [None, B]),     # 1/2 + 0: slot 1
        won_by(pair, [B, B]),        # 0 + 0: slot 0
        won_by(pair[:1], [A]),       # a pair still being played: not counted
    ]
    assert pentanomial_counts(A, rounds) == [1, 1, 2, 1, 1]
    assert pentanomial_counts(B, rounds) == [1, 1, 2, 1, 1][::-1]


def test_sprt_match_stops_when_the_test_decides() -> None:
    match = SprtMatch.from_spec("elo0=0,elo1=20", max_pairs=1000)
    pair = [Pairing(1, False, A, B), Pairing(1, False, B, A)]
    # a scores 3/4 over 200 pairs (about +190 Elo), far past the bounds of 0 and 20
    rounds = [won_by(pair, [A, A]), won_by(pair, [A, B])] * 100
    assert match.state([A, B], rounds).decision == "H1"
    assert match.next_round([A, B], 9, rounds) is None
    assert match.state([B, A], rounds).decision == "H0"
    assert match.next_round([B, A], 9, rounds) is None


def test_sprt_match_refuses_other_than_two_distinct_bots() -> None:
    match = SprtMatch.from_spec("elo0=0,elo1=20", max_pairs=3)
    with pytest.raises(ConfigError) as three:
        match.first_round([A, B, C], 1)
    assert str(three.value) == "an sprt match is between exactly two bots, got 3"
    with pytest.raises(ConfigError) as one:
        match.planned_count(1)
    assert str(one.value) == "an sprt match is between exactly two bots, got 1"
    with pytest.raises(ValueError) as same:
        match.first_round([A, A], 1)
    assert str(same.value) == "a match needs two distinct bots"
    with pytest.raises(ConfigError) as spec:
        SprtMatch.from_spec("elo0=20,elo1=0", max_pairs=3)
    assert str(spec.value) == "sprt: elo0 (20) must be less than elo1 (0)"


# ------------------------------------------------------------------ round-robin

def test_home_seat_goes_to_the_player_the_other_follows_within_half_the_circle() -> None:
    # four players: distance j - i of 1 is home, 3 is away, 2 (half the circle) home
    assert {(i, j): home_seat_first(i, j, 4) for i in range(4) for j in range(i + 1, 4)} == {
        (0, 1): True, (0, 2): True, (0, 3): False, (1, 2): True, (1, 3): True, (2, 3): True}
    # six players: 1 and 2 home, 3 (half) home, 4 and 5 away
    assert [home_seat_first(0, j, 6) for j in range(1, 6)] == [True, True, True, False, False]


def test_round_robin_single_series_of_every_even_cycle_face_the_first_cycle() -> None:
    """Five series per pair: cycles 0 and 1 are duplicate pairs, cycle 2 a single
    series seated as in cycle 0 (home first). Three players meet in the circle order
    1-2, 0-2, 0-1; home: 1 against 2 and 0 against 1 (distance 1), 2 against 0
    (distance 2 of 3 is away for 0)."""
    plan = RoundRobin(5).first_round([A, B, C], 8)
    singles = plan[-3:]
    assert singles == [Pairing(pair_seed(8, 1, 2, 2), False, B, C),
                       Pairing(pair_seed(8, 0, 2, 2), False, C, A),
                       Pairing(pair_seed(8, 0, 1, 2), False, A, B)]
    assert len(plan) == 3 * 5


def test_round_robin_refusals_name_the_problem_in_full() -> None:
    with pytest.raises(ValueError) as none:
        RoundRobin(0)
    assert str(none.value) == "series_per_pair must be at least 1"
    with pytest.raises(ValueError) as alone:
        RoundRobin(1).first_round([A], 1)
    assert str(alone.value) == "a season needs at least two bots"
    with pytest.raises(ValueError) as repeated:
        RoundRobin(1).first_round([A, B, A], 1)
    assert str(repeated.value) == "a season's bots must be distinct"


def test_round_robin_planned_count_is_a_whole_number() -> None:
    # 5 bots: 10 pairs of 3 series; shown as a count, so an int, not 30.0
    assert repr(RoundRobin(3).planned_count(5)) == "30"


# ------------------------------------------------------------------ gauntlet

def test_gauntlet_meetings_play_the_deal_of_the_pair_of_season_places() -> None:
    plan = Gauntlet("b", 2).first_round([A, B, C, D], seed=5)
    # b is place 1; it meets a (place 0), c (2) and d (3), cycle 0
    assert [p.seed for p in plan] == [
        pair_seed(5, 0, 1, 0), pair_seed(5, 0, 1, 0),
        pair_seed(5, 1, 2, 0), pair_seed(5, 1, 2, 0),
        pair_seed(5, 1, 3, 0), pair_seed(5, 1, 3, 0)]


def test_gauntlet_refusals_name_the_problem_in_full() -> None:
    with pytest.raises(ConfigError) as unset:
        Gauntlet("", 2)
    assert str(unset.value) == "the gauntlet format needs a challenger (--challenger BOT)"
    with pytest.raises(ConfigError) as unset_at_resolve:
        resolve_challenger("", [A, B])
    assert str(unset_at_resolve.value) == \
        "the gauntlet format needs a challenger (--challenger BOT)"
    with pytest.raises(ConfigError) as unknown:
        resolve_challenger("z", [A, B, C])
    assert str(unknown.value) == "challenger 'z' is not one of the season's bots (a@1, b@1, c@1)"
    with pytest.raises(ValueError) as repeated:
        Gauntlet(A, 2).first_round([A, B, A], 1)
    assert str(repeated.value) == "a season needs at least two distinct bots"
    with pytest.raises(ValueError) as alone:
        Gauntlet(A, 2).first_round([A], 1)
    assert str(alone.value) == "a season needs at least two distinct bots"


# ------------------------------------------------------------------ swiss

def single(season_seed: int, label: str) -> int:
    """The deal of the single series of a one-series meeting named ``label``: derived
    again from the meeting's deal with the label ``single``."""
    return round_seed(round_seed(season_seed, label), "single")


def test_swiss_deals_are_named_by_round_and_the_places_of_the_pair() -> None:
    swiss = Swiss(2, 1)
    round1 = swiss.first_round([A, B, C, D], 7)
    assert round1 == [Pairing(single(7, "swiss:1:0:1"), False, A, B),
                      Pairing(single(7, "swiss:1:2:3"), False, C, D)]
    # a and d win: table a, d, b, c; a meets d, b meets c; d (seat 1 so far) takes seat 0
    round2 = swiss.next_round([A, B, C, D], 7, [won_by(round1, [A, D])])
    assert round2 == [Pairing(single(7, "swiss:2:0:3"), False, D, A),
                      Pairing(single(7, "swiss:2:1:2"), False, B, C)]
    # two rounds asked for, two played: no third, though b-d and a-c are still open
    assert swiss.next_round([A, B, C, D], 7, [won_by(round1, [A, D]),
                                              won_by(round2, [A, B])]) is None


def test_swiss_two_bots_play_one_round_and_bad_fields_are_refused() -> None:
    assert Swiss(1, 1).first_round([A, B], 1) == [
        Pairing(single(1, "swiss:1:0:1"), False, A, B)]
    with pytest.raises(ValueError) as repeated:
        Swiss(1, 1).first_round([A, B, A], 1)
    assert str(repeated.value) == "a season needs at least two distinct bots"
    with pytest.raises(ValueError) as alone:
        Swiss(1, 1).first_round([A], 1)
    assert str(alone.value) == "a season needs at least two distinct bots"


def test_swiss_default_rounds_follow_the_field_size() -> None:
    # rounds 0: ceil(log2(bots)), at least 1
    assert Swiss(0, 1).planned_count(2) == 1 * 1 * 1
    assert Swiss(0, 1).planned_count(5) == 3 * 2 * 1
    assert Swiss(0, 2).planned_count(8) == 3 * 4 * 2


def test_swiss_seats_balance_whole_meetings_of_duplicate_pairs() -> None:
    """With duplicate pairs every bot has sat as often in each seat, so the higher
    placed bot of a pair always takes seat 0 of its first series."""
    swiss = Swiss(2, 2)
    round1 = swiss.first_round([A, B, C, D], 7)
    assert [(p.seat0, p.seat1) for p in round1] == [(A, B), (B, A), (C, D), (D, C)]
    # a and d win both: table a 2, d 2, b 0, c 0
    round2 = swiss.next_round([A, B, C, D], 7, [won_by(round1, [A, A, D, D])])
    assert round2 is not None
    assert [(p.seat0, p.seat1) for p in round2] == [(A, D), (D, A), (B, C), (C, B)]


def test_swiss_a_bye_is_not_a_seat() -> None:
    """a sat once in each seat in round 1, c (bye) in neither: even, so c, top of
    the table, takes seat 0."""
    swiss = Swiss(2, 2)
    round1 = swiss.first_round([A, B, C], 3)
    assert [(p.seat0, p.seat1) for p in round1] == [(A, B), (B, A)]
    # both drawn: c 2 (its bye), a 1, b 1; b, the lowest without a bye, has this one
    round2 = swiss.next_round([A, B, C], 3, [won_by(round1, [None, None])])
    label = round_seed(3, "swiss:2:2:0")
    assert round2 == [Pairing(label, False, C, A), Pairing(label, False, A, C)]


def test_swiss_scores_count_byes_as_won_meetings() -> None:
    assert swiss_scores([A, B], [], {A: 1}, 2) == {
        A: SwissScore(2.0, 0.0, 1), B: SwissScore(0.0, 0.0, 0)}
    assert byes_by_bot([A, B, C], [{A, B}, {A, B}, {B, C}]) == {A: 1, B: 0, C: 2}


def test_swiss_order_ranks_an_unrated_bot_at_zero() -> None:
    even = swiss_scores([A, B, C], [], {}, 1)
    assert swiss_order(even, {B: 0.5, C: -0.5}) == [B, A, C]


def test_swiss_search_spends_one_step_per_opponent_tried() -> None:
    """a-b (tried first) leaves c-d, who have met: 1 step; a-c: 2; b-d: 3."""
    scores = dict.fromkeys([A, B, C, D], 0.0)
    met = {frozenset((C, D))}
    assert _match([A, B, C, D], scores, met, _SearchBudget(3)) == [(A, C), (B, D)]
    assert _match([A, B, C, D], scores, met, _SearchBudget(2)) is None


# ------------------------------------------------------------------ knockout

def test_a_knockout_tie_as_a_dict() -> None:
    tie = replay_bracket([A, B], 1, 0, []).rounds[0][0]
    assert tie.to_dict() == {
        "bracket_round": 1, "high": A, "low": B, "high_seed": 1, "low_seed": 2,
        "high_score": 0.0, "low_score": 0.0, "pairs": 0, "winner": None, "decided_by": ""}


def duplicate(season_seed: int, label: str, first: str, second: str) -> list[Pairing]:
    deal = round_seed(season_seed, label)
    return [Pairing(deal, False, first, second), Pairing(deal, False, second, first)]


def test_knockout_ties_carry_their_round_seeds_and_deals() -> None:
    """Five bots, one tie-break pair: d (seed 4) and e (5) play the only first-round
    tie, split it, and e wins the tie-break; then the semi-finals."""
    bots = [A, B, C, D, E]
    cup = Knockout(tiebreak_pairs=1)
    first = cup.first_round(bots, 11)
    assert first == duplicate(11, "knockout:1:4:5:0", D, E)
    r1 = won_by(first, [D, E])
    tiebreak = cup.next_round(bots, 11, [r1])
    assert tiebreak == duplicate(11, "knockout:1:4:5:1", D, E)
    r2 = won_by(tiebreak, [E, E])
    semis = cup.next_round(bots, 11, [r1, r2])
    assert semis == [*duplicate(11, "knockout:2:1:5:0", A, E),
                     *duplicate(11, "knockout:2:2:3:0", B, C)]
    bracket = replay_bracket(bots, 11, 1, [r1, r2])
    assert bracket.champion is None and bracket.pending == semis
    assert [tie.to_dict() for tie in bracket.rounds[0]] == [
        Tie(1, A, None, 1, 0, winner=A, decided_by="bye").to_dict(),
        Tie(1, D, E, 4, 5, high_score=1.0, low_score=3.0, pairs=2, winner=E,
            decided_by="score").to_dict(),
        Tie(1, B, None, 2, 0, winner=B, decided_by="bye").to_dict(),
        Tie(1, C, None, 3, 0, winner=C, decided_by="bye").to_dict(),
    ]
    assert [tie.to_dict() for tie in bracket.rounds[1]] == [
        Tie(2, A, E, 1, 5).to_dict(), Tie(2, B, C, 2, 3).to_dict()]


def test_knockout_seeds_follow_the_season_order_not_the_names() -> None:
    cup = Knockout(tiebreak_pairs=0)
    first = cup.first_round([B, A], 4)  # b is seed 1
    assert first == duplicate(4, "knockout:1:1:2:0", B, A)
    waiting = replay_bracket([B, A], 4, 0, [won_by(first[:1], [A])])
    assert waiting.pending == [] and waiting.champion is None
    assert [[tie.to_dict() for tie in ties] for ties in waiting.rounds] == [
        [Tie(1, B, A, 1, 2, low_score=1.0).to_dict()]]
    done = replay_bracket([B, A], 4, 0, [won_by(first, [A, B])])
    assert done.champion == B and done.pending == []
    assert [[tie.to_dict() for tie in ties] for ties in done.rounds] == [
        [Tie(1, B, A, 1, 2, 1.0, 1.0, 1, B, "seed").to_dict()]]


def test_knockout_refuses_repeated_bots_or_one_bot() -> None:
    with pytest.raises(ValueError) as repeated:
        Knockout(0).first_round([A, B, A], 1)
    assert str(repeated.value) == "a season needs at least two distinct bots"
    with pytest.raises(ValueError) as alone:
        Knockout(0).first_round([A], 1)
    assert str(alone.value) == "a season needs at least two distinct bots"
