"""Knock settlement (docs/rules.md#layoffs, docs/rules.md#scoring-a-hand): layoffs,
gin, knock, undercut, declared melds."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import ALL_CARDS, Card, parse_cards
from engine.melds import InvalidMeldsError, is_valid_meld, min_deadwood
from engine.profiles import CLASSIC, FRIENDLY
from engine.settle import SettleError, settle
from tests.helpers.brute_force import brute_defender_deadwood


def cards(text: str) -> list[Card]:
    return parse_cards(text)


def plain(hand: list[Card] | tuple[Card, ...]) -> list[tuple[int, int]]:
    return [(card.rank, int(card.suit)) for card in hand]


# -- the rule text's worked example 2 (docs/rules.md#gin) ---------------------

def test_worked_example_2_gin_scores_bonus_plus_defender_deadwood() -> None:
    # A holds 4h 5h 6h, 9c 9d 9s, Ac 2c 3c, Kd; draws 7h and discards Kd: gin.
    a_hand = cards("4h 5h 6h 9c 9d 9s Ac 2c 3c Kd 7h")
    kept = [card for card in a_hand if card != Card.parse("Kd")]
    assert min_deadwood(kept) == 0
    # B's deadwood is 18 (7c 8h 3h idle); 3h and 8h would fit A's heart run, but
    # nothing is laid off on gin.
    b_hand = cards("Kc Kh Ks 2d 3d 4d 5d 7c 8h 3h")
    result = settle(kept, b_hand, FRIENDLY)
    assert (result.kind, result.winner, result.points) == ("gin", "knocker", 43)
    assert result.knocker_deadwood == 0
    assert result.defender_deadwood == result.defender_deadwood_before_layoffs == 18
    assert result.layoffs == ()


def test_gin_defender_never_scores_even_with_zero_deadwood() -> None:
    result = settle(cards("4h 5h 6h 7h 9c 9d 9s Ac 2c 3c"),
                    cards("Kc Kh Ks 2d 3d 4d 5d Ts Js Qs"), CLASSIC)
    assert (result.kind, result.winner, result.points) == ("gin", "knocker", 25)
    assert result.defender_deadwood == 0


# -- layoffs -----------------------------------------------------------------

def test_layoffs_chain_at_both_ends_of_a_run() -> None:
    knocker = cards("5s 6s 7s Kc Kd Kh 2c 3c 4c 9d")
    defender = cards("3s 4s 8s 9s Qh Jc 2h 2d 6c 7h")
    result = settle(knocker, defender)
    assert result.knocker_deadwood == 9
    assert result.defender_deadwood_before_layoffs == 61
    assert result.defender_deadwood == 61 - (3 + 4 + 8 + 9)
    assert (result.kind, result.winner, result.points) == ("knock", "knocker", 37 - 9)
    assert len(result.layoffs) == 1
    layoff = result.layoffs[0]
    assert layoff.meld == tuple(cards("5s 6s 7s"))
    assert layoff.cards == tuple(cards("3s 4s 8s 9s"))
    assert result.knocker_melds[layoff.meld_index] == layoff.meld


def test_chained_layoff_needs_the_card_in_between() -> None:
    # 9s cannot go on 5s 6s 7s without 8s.
    result = settle(cards("5s 6s 7s Kc Kd Kh 2c 3c 4c 9d"),
                    cards("9s Ts Qh Jc 2h 2d 6c 7h 4d 8c"))
    assert result.layoffs == ()
    assert result.defender_deadwood == result.defender_deadwood_before_layoffs


def test_fourth_card_onto_a_set_of_three() -> None:
    result = settle(cards("Kc Kd Kh 2c 3c 4c 5s 6s 7s 9d"),
                    cards("Ks Qh Jc 2h 2d 6c 7h 4d 8c Td"))
    assert [layoff.cards for layoff in result.layoffs] == [tuple(cards("Ks"))]
    assert result.defender_deadwood == result.defender_deadwood_before_layoffs - 10


def test_defender_keeps_own_meld_when_laying_off_would_break_it() -> None:
    # 8s fits the knocker's run, but it is part of the defender's set of 8s.
    result = settle(cards("5s 6s 7s Kc Kd Kh 2c 3c 4c 9d"),
                    cards("8s 8c 8d Qh Jc 2h 6c 7h 4d Th"))
    assert result.layoffs == ()
    assert tuple(cards("8c 8d 8s")) in result.defender_melds


def test_defender_breaks_own_meld_when_laying_off_is_better() -> None:
    # Own set of four 8s leaves 9s idle; laying off 8s then 9s keeps 8c 8d 8h a set.
    result = settle(cards("5s 6s 7s Kc Kd Kh 2c 3c 4c 9d"),
                    cards("8s 8c 8d 8h 9s Qh Jc 2h 6c 7h"))
    laid = {card for layoff in result.layoffs for card in layoff.cards}
    assert laid == set(cards("8s 9s"))
    assert tuple(cards("8c 8d 8h")) in result.defender_melds
    assert result.defender_deadwood_before_layoffs == 9 + 10 + 10 + 2 + 6 + 7
    assert result.defender_deadwood == 10 + 10 + 2 + 6 + 7


def test_knocker_never_lays_off_on_defender_melds() -> None:
    # The knocker's idle 9d would fit the defender's run Td Jd Qd; it stays deadwood.
    result = settle(cards("5s 6s 7s Kc Kd Kh 2c 3c 4c 9d"),
                    cards("Td Jd Qd Ah 2h 6c 7h 4d 8c Th"))
    assert result.knocker_deadwood == 9
    assert result.knocker_deadwood_cards == tuple(cards("9d"))


@pytest.mark.parametrize(
    ("defender", "own_meld", "deadwood"),
    [
        # 8h fits the knocker's 5h 6h 7h; laid off, 8c 8d 8s is still a set, so the
        # deadwood is 2d 3s Td Js 6c Qs = 41 either way.
        ("8h 8c 8d 8s 2d 3s Td Js 6c Qs", "8c 8d 8h 8s", 41),
        # 8h 9h Th could all go onto 5h 6h 7h, or stay the defender's own run: the
        # deadwood is 2d 3s Jd Js 6c Qs 5s = 46 either way.
        ("8h 9h Th 2d 3s Jd Js 6c Qs 5s", "8h 9h Th", 46),
    ],
)
def test_a_deadwood_tie_between_own_melds_and_layoffs_lays_off_the_fewest_cards(
    defender: str, own_meld: str, deadwood: int,
) -> None:
    # docs/rules.md#layoffs leaves the choice open when both give the same deadwood; the engine
    # (docs/engine.md, settle()) prefers the fewest laid-off cards: none here.
    result = settle(cards("5h 6h 7h Kc Kd Kh 2c 3c 4c 9d"), cards(defender))
    assert result.layoffs == ()
    assert tuple(cards(own_meld)) in result.defender_melds
    assert result.defender_deadwood == result.defender_deadwood_before_layoffs == deadwood
    assert (result.kind, result.points) == ("knock", deadwood - 9)


def test_a_card_fitting_two_melds_goes_where_it_lets_the_chain_go_on_whatever_the_order() -> None:
    # Declared with the run first, the search meets "7s on both melds" before the best
    # choice (7s 8s on the run): it must skip that overlap and keep looking.
    result = settle(cards("7c 7d 7h 4s 5s 6s 2c 3c 4c 9d"),
                    cards("7s 8s Qh Jc 2h 6c 9h 4d Kc Th"),
                    knocker_melds=[cards("4s 5s 6s"), cards("7c 7d 7h"), cards("2c 3c 4c")])
    assert [(layoff.meld_index, layoff.cards) for layoff in result.layoffs] == [
        (0, tuple(cards("7s 8s")))]
    assert result.defender_deadwood == 10 + 10 + 2 + 6 + 9 + 4 + 10 + 10


def test_a_run_is_extended_up_to_the_king() -> None:
    result = settle(cards("9h Th Jh 2c 3c 4c 5s 6s 7s 9d"),
                    cards("Qh Kh 2d 6d Td 3h 5h Jc Qc 2s"))
    assert [layoff.cards for layoff in result.layoffs] == [tuple(cards("Qh Kh"))]
    assert result.defender_deadwood_before_layoffs == 2 + 6 + 10 + 3 + 5 + 10 + 10 + 2 + 10 + 10
    assert result.defender_deadwood == 2 + 6 + 10 + 3 + 5 + 10 + 10 + 2


def test_card_fitting_two_melds_is_laid_off_once() -> None:
    # 7s fits both the set of 7s and the spade run; 8s needs 7s on the run.
    result = settle(cards("7c 7d 7h 4s 5s 6s 2c 3c 4c 9d"),
                    cards("7s 8s Qh Jc 2h 6c 9h 4d Kc Th"))
    laid = [card for layoff in result.layoffs for card in layoff.cards]
    assert sorted(laid) == cards("7s 8s")
    assert result.defender_deadwood == result.defender_deadwood_before_layoffs - 15


# -- outcome and points ---------------------------------------------------------

def test_tie_is_an_undercut() -> None:
    # k = 9 (9d); defender: two sets and a run, 9c idle (no layoff fits it).
    result = settle(cards("5s 6s 7s Kc Kd Kh 2c 3c 4c 9d"),
                    cards("Qc Qd Qh Jc Jd Jh 8h 9h Th 9c"), FRIENDLY)
    assert result.knocker_deadwood == result.defender_deadwood == 9
    assert (result.kind, result.winner, result.points) == ("undercut", "defender", 25)


@pytest.mark.parametrize(("profile", "points"),
                         [(FRIENDLY, 4 + 25), (CLASSIC, 4 + 10),
                          (FRIENDLY.derive(undercut_bonus=20), 4 + 20)])
def test_undercut_bonus_comes_from_the_profile(profile: object, points: int) -> None:
    # k = 9, defender's deadwood 5 (5d).
    result = settle(cards("5s 6s 7s Kc Kd Kh 2c 3c 4c 9d"),
                    cards("Qc Qd Qh Jc Jd Jh 8h 9h Th 5d"), profile)  # type: ignore[arg-type]
    assert (result.kind, result.winner, result.points) == ("undercut", "defender", points)


def test_gin_bonus_comes_from_the_profile() -> None:
    result = settle(cards("4h 5h 6h 7h 9c 9d 9s Ac 2c 3c"),
                    cards("Kc Kh Ks 2d 3d 4d 5d 6d 7d 2s"), FRIENDLY.derive(gin_bonus=31))
    assert result.points == 31 + 2


def test_knock_won_scores_the_difference() -> None:
    result = settle(cards("5s 6s 7s Kc Kd Kh 2c 3c 4c Ad"),
                    cards("Qc Qd Qh Jc Jd Jh 8h 9h Th 9c"))
    assert (result.kind, result.winner, result.points) == ("knock", "knocker", 9 - 1)


# -- declared knocker melds -------------------------------------------------------

def test_declared_melds_decide_what_can_be_laid_off() -> None:
    knocker = cards("7c 8c 9c 7d 8d 9d 7h 8h 9h 2s")
    defender = cards("7s Tc Qh Jd 2h 6s 4d 5c Kh Ks")
    as_runs = settle(knocker, defender)
    assert as_runs.knocker_melds == tuple(tuple(cards(run)) for run in
                                          ("7c 8c 9c", "7d 8d 9d", "7h 8h 9h"))
    assert [layoff.cards for layoff in as_runs.layoffs] == [tuple(cards("Tc"))]
    as_sets = settle(knocker, defender,
                     knocker_melds=[cards("7c 7d 7h"), cards("8c 8d 8h"), cards("9c 9d 9h")])
    assert [layoff.cards for layoff in as_sets.layoffs] == [tuple(cards("7s"))]
    assert as_sets.knocker_deadwood == as_runs.knocker_deadwood == 2


def test_declared_arrangement_may_be_worse_than_the_best_if_within_the_limit() -> None:
    # The hand is gin as 5s-8s, but the knocker declares 5s 6s 7s and keeps 8s idle.
    result = settle(cards("5s 6s 7s 8s Kc Kd Kh 2c 3c 4c"), cards("Qh Jc 2h 2d 6c 7h 4d 8c Td 3h"),
                    knocker_melds=[cards("5s 6s 7s"), cards("Kc Kd Kh"), cards("2c 3c 4c")])
    assert result.knocker_deadwood == 8
    assert result.knocker_deadwood_cards == tuple(cards("8s"))
    assert (result.kind, result.winner, result.points) == ("knock", "knocker", 62 - 8)


@pytest.mark.parametrize(
    ("melds", "message"),
    [
        (["5s 6s 9d"], "neither a set nor a run"),
        (["Kc Kd Ks"], "Ks in meld .* is not in the hand"),
        (["Kc Kd Kh", "Kh 2c 3c"], "Kh is used twice"),
        (["Kc Kd Kh"], "over the knock limit 10"),
    ],
)
def test_bad_declared_melds_are_rejected_with_the_reason(melds: list[str], message: str) -> None:
    with pytest.raises(InvalidMeldsError, match=message):
        settle(cards("5s 6s 7s Kc Kd Kh 2c 3c 4c 9d"), cards("Qh Jc 2h 2d 6c 7h 4d 8c Td 3h"),
               knocker_melds=[parse_cards(meld, allow_duplicates=True) for meld in melds])


def test_knock_limit_from_profile_applies_to_declared_melds() -> None:
    with pytest.raises(InvalidMeldsError, match="deadwood 9 is over the knock limit 5"):
        settle(cards("5s 6s 7s Kc Kd Kh 2c 3c 4c 9d"), cards("Qh Jc 2h 2d 6c 7h 4d 8c Td 3h"),
               FRIENDLY.derive(knock_limit=5),
               knocker_melds=[cards("5s 6s 7s"), cards("Kc Kd Kh"), cards("2c 3c 4c")])


def test_knock_over_the_limit_without_declared_melds_is_rejected() -> None:
    with pytest.raises(InvalidMeldsError,
                       match="cannot knock: deadwood 24 is over the knock limit 10"):
        settle(cards("5s 6s 7s Kc Kd Kh 2c 3c 9h Td"), cards("Qh Jc 2h 2d 6c 7h 4d 8c 9d 3h"))


@pytest.mark.parametrize(
    ("knocker", "defender", "message"),
    [
        ("5s 6s 7s Kc Kd Kh 2c 3c 4c", "Qh Jc 2h 2d 6c 7h 4d 8c Td 3h", "knocker must hold 10"),
        ("5s 6s 7s Kc Kd Kh 2c 3c 4c 9d", "Qh Jc 2h 2d 6c 7h 4d 8c Td", "defender must hold 10"),
        ("5s 6s 7s Kc Kd Kh 2c 3c 4c 9d", "9d Jc 2h 2d 6c 7h 4d 8c Td 3h", "both .*: 9d"),
    ],
)
def test_malformed_hands_are_rejected(knocker: str, defender: str, message: str) -> None:
    with pytest.raises(SettleError, match=message):
        settle(cards(knocker), cards(defender))


def test_every_shared_card_is_named() -> None:
    with pytest.raises(SettleError) as caught:
        settle(cards("5s 6s 7s Kc Kd Kh 2c 3c 4c 9d"), cards("9d 4c 2h 2d 6c 7h 4d 8c Td 3h"))
    assert str(caught.value) == "cards held by both knocker and defender: 4c 9d"


def test_text_instead_of_cards_is_rejected_with_the_fix() -> None:
    with pytest.raises(SettleError) as caught:
        settle("5s 6s 7s Kc Kd Kh 2c 3c 4c 9d", cards("Qh Jc 2h 2d 6c 7h 4d 8c Td 3h"))
    assert str(caught.value) == "settle() takes card lists, not text; use parse_cards() first"


def test_duplicate_card_in_a_hand_is_rejected() -> None:
    with pytest.raises(SettleError, match="duplicate card"):
        settle(parse_cards("5s 5s 7s Kc Kd Kh 2c 3c 4c 9d", allow_duplicates=True),
               cards("Qh Jc 2h 2d 6c 7h 4d 8c Td 3h"))


@pytest.mark.parametrize(("melds", "message"), [
    ("5s 6s 7s", "declared melds must be a list of card lists"),
    (["5s 6s 7s"], "a declared meld must be a list of cards"),
    ([["5s", "6s", "7s"]], "not a card in a declared meld: '5s'"),
    ([Card.parse("5s")], "a declared meld must be a list of cards"),
])
def test_malformed_declared_melds_are_rejected(melds: object, message: str) -> None:
    with pytest.raises(InvalidMeldsError, match=message):
        settle(cards("5s 6s 7s Kc Kd Kh 2c 3c 4c 9d"), cards("Qh Jc 2h 2d 6c 7h 4d 8c Td 3h"),
               knocker_melds=melds)  # type: ignore[arg-type]


@pytest.mark.parametrize(("knocker", "message"), [
    ("5s 6s 7s Kc Kd Kh 2c 3c 4c 9d", "card lists, not text"),
    (["5s", "6s"], "bad knocker hand: expected a Card, got '5s'"),
    ([None, 3], "bad knocker hand: expected a Card"),
])
def test_non_card_hands_are_rejected(knocker: object, message: str) -> None:
    with pytest.raises(SettleError, match=message):
        settle(knocker, cards("Qh Jc 2h 2d 6c 7h 4d 8c Td 3h"))  # type: ignore[arg-type]


def test_to_dict_is_json_safe_and_complete() -> None:
    result = settle(cards("5s 6s 7s Kc Kd Kh 2c 3c 4c 9d"), cards("3s 4s 8s 9s Qh Jc 2h 2d 6c 7h"))
    data = json.loads(json.dumps(result.to_dict()))
    assert data == {
        "kind": "knock", "winner": "knocker", "points": 37 - 9,
        "knocker_deadwood": 9, "defender_deadwood": 37, "defender_deadwood_before_layoffs": 61,
        "knocker_melds": [["Kc", "Kd", "Kh"], ["2c", "3c", "4c"], ["5s", "6s", "7s"]],
        "defender_melds": [],
        "layoffs": [{"meld_index": 2, "meld": ["5s", "6s", "7s"],
                     "cards": ["3s", "4s", "8s", "9s"]}],
        "knocker_deadwood_cards": ["9d"],
        "defender_deadwood_cards": ["6c", "Jc", "2d", "2h", "7h", "Qh"],
    }
    with_own_melds = settle(cards("5h 6h 7h Kc Kd Kh 2c 3c 4c 9d"),
                            cards("8h 8c 8d 8s 2d 3s Td Js 6c Qs")).to_dict()
    assert with_own_melds["defender_melds"] == [["8c", "8d", "8h", "8s"]]


# -- invariants over random knocks ----------------------------------------------------

def _knockable_hand(rng: random.Random) -> list[Card]:
    while True:
        rank_count = rng.randint(4, 7)
        low = rng.randint(1, 14 - rank_count)
        suits = rng.sample(range(4), rng.randint(3, 4))
        pool = [card for card in ALL_CARDS
                if low <= card.rank < low + rank_count and card.suit in suits]
        if len(pool) < 10:
            continue
        hand = rng.sample(pool, 10)
        if min_deadwood(hand) <= 10:
            return hand


@settings(max_examples=120, deadline=None)
@given(st.integers(0, 2**32 - 1), st.booleans())
def test_settlement_invariants(seed: int, defender_near: bool) -> None:
    rng = random.Random(seed)
    knocker = _knockable_hand(rng)
    rest = [card for card in ALL_CARDS if card not in knocker]
    if defender_near:  # cards near the knocker's melds, so layoffs are likely
        near = [card for card in rest if any(abs(card.rank - own.rank) <= 2 for own in knocker)]
        defender = rng.sample(near, 10) if len(near) >= 10 else rng.sample(rest, 10)
    else:
        defender = rng.sample(rest, 10)
    result = settle(knocker, defender)

    k, d = result.knocker_deadwood, result.defender_deadwood
    d0 = result.defender_deadwood_before_layoffs
    assert k == min_deadwood(knocker) <= 10
    assert d0 == min_deadwood(defender)
    assert d <= d0
    if k == 0:
        assert (result.kind, result.winner, result.points) == ("gin", "knocker", 25 + d0)
        assert result.layoffs == () and d == d0
    else:
        expected_d = brute_defender_deadwood([plain(meld) for meld in result.knocker_melds],
                                             plain(defender))
        assert d == expected_d
        if k < d:
            assert (result.kind, result.winner, result.points) == ("knock", "knocker", d - k)
        else:
            assert (result.kind, result.winner, result.points) == ("undercut", "defender",
                                                                   k - d + 25)
    laid = [card for layoff in result.layoffs for card in layoff.cards]
    assert len(laid) == len(set(laid)) and set(laid) <= set(defender)
    for layoff in result.layoffs:
        assert is_valid_meld([*layoff.meld, *layoff.cards])
    own = [card for meld in result.defender_melds for card in meld]
    assert all(is_valid_meld(meld) for meld in result.defender_melds)
    assert not set(own) & set(laid)
    idle = result.defender_deadwood_cards
    assert sorted([*own, *laid, *idle]) == sorted(defender)
    assert sum(card.value for card in idle) == d
    assert sum(card.value for card in result.knocker_deadwood_cards) == k
    json.dumps(result.to_dict())
