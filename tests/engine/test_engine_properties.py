"""Property tests: thousands of seeded random hands and hundreds of series.

Checked at every step: the 52 cards are all present exactly once, the legal action
list is non-empty until the end and exact (discards and knocks recomputed from the
rules with ``min_deadwood``, itself checked against the brute force in
test_melds.py), illegal actions change nothing; at every hand end the sheet invariants;
at the end of every series its result and an exact replay.
"""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    ALL_CARDS,
    CLASSIC,
    FRIENDLY,
    Action,
    ActionKind,
    Hand,
    HandResult,
    IllegalActionError,
    Phase,
    Profile,
    Series,
    best_discards,
    cards_to_mask,
    deal_hand,
    min_deadwood,
)
from engine.knock_cards import cannot_knock
from engine.legal_moves import allows
from tests.helpers.deal_helpers import cards_in_play, greedy_choice, play_series, snapshot

PROFILES = [
    FRIENDLY,
    CLASSIC,
    FRIENDLY.derive(knock_limit=5, dead_hand_stock_size=10),
    CLASSIC.derive(game_target=40, undercut_bonus=20),
]
EVERY_ACTION = (
    [Action.draw_stock(), Action.draw_discard(), Action.pass_()]
    + [Action.discard(card) for card in ALL_CARDS]
    + [Action.knock(card) for card in ALL_CARDS]
)


def choose(hand: Hand, rng: random.Random, greedy: float) -> Action:
    legal = hand.legal_actions()
    seat = hand.current_player
    assert seat is not None
    if rng.random() < greedy:
        return greedy_choice(hand.cards(seat), legal, rng)
    return rng.choice(legal)


def expected_actions(hand: Hand) -> list[Action]:
    """The legal actions recomputed from the rules (knocks by ``min_deadwood`` of the
    ten cards kept, which test_melds.py checks against the brute force)."""
    seat = hand.current_player
    if seat is None:
        return []
    if hand.phase is Phase.UPCARD_OFFER:
        return [Action.draw_discard(), Action.pass_()]
    if hand.phase is Phase.DRAW:
        first_turn_after_passes = [m.action.kind for m in hand.moves] == [ActionKind.PASS] * 2
        return [Action.draw_stock()] + ([] if first_turn_after_passes else [Action.draw_discard()])
    cards = hand.cards(seat)
    banned = hand.banned_discard
    allowed = [card for card in cards if card is not banned]
    knocks = [
        card
        for card in allowed
        if min_deadwood([c for c in cards if c is not card]) <= hand.profile.knock_limit
    ]
    return [Action.discard(c) for c in allowed] + [Action.knock(c) for c in knocks]


def check_state(hand: Hand, rng: random.Random, probes: int) -> None:
    assert sorted(cards_in_play(hand)) == list(ALL_CARDS)
    legal = hand.legal_actions()
    assert legal == expected_actions(hand)
    assert (legal == []) == hand.is_over
    pile = hand.discard_pile  # the pile's mask and top are kept move by move
    assert hand.pile_mask == cards_to_mask(pile)
    assert hand.top_discard == (pile[-1] if pile else None)
    seat = hand.current_player
    for player in (0, 1):
        size = 11 if (player == seat and hand.phase is Phase.DISCARD) else 10
        assert len(hand.cards(player)) == size
        assert set(hand.known_cards(player)) <= set(hand.cards(player))
    legal_set = set(legal)
    illegal = [a for a in EVERY_ACTION if a not in legal_set]
    masks = hand.legal_masks()  # apply's fast check: exactly the legal actions pass it
    assert all(allows(masks, a) for a in legal)
    assert not any(allows(masks, a) for a in illegal)
    before = snapshot(hand)
    for candidate in rng.sample(illegal, probes):
        try:
            hand.apply(candidate)
        except IllegalActionError:
            pass
        else:
            raise AssertionError(f"illegal {candidate} was accepted")
        assert snapshot(hand) == before


@settings(max_examples=300, deadline=None)
@given(
    seed=st.integers(0, 2**40),
    profile=st.sampled_from(PROFILES),
    greedy=st.floats(0.0, 1.0),
)
def test_random_hands_keep_every_invariant_at_every_step(
    seed: int, profile: Profile, greedy: float
) -> None:
    rng = random.Random(seed)
    hand = Hand(deal_hand(seed, 1 + seed % 7), seed & 1, profile)
    steps = 0
    while not hand.is_over:
        check_state(hand, rng, probes=3)
        hand.apply(choose(hand, rng, greedy))
        steps += 1
        assert steps <= 200
    check_state(hand, rng, probes=3)
    result = hand.result
    assert result is not None
    assert (result.winner is None) == (result.kind == "dead")
    assert result.points >= 0


def test_thousands_of_seeded_hands_conserve_cards_and_end() -> None:
    kinds: dict[str, int] = {}
    for seed in range(2000):
        rng = random.Random(seed)
        hand = Hand(deal_hand(seed, 1), seed & 1, PROFILES[seed % len(PROFILES)])
        while not hand.is_over:
            assert hand.card_count() == 52
            legal = hand.legal_actions()
            assert legal
            hand.apply(choose(hand, rng, greedy=0.5))
        assert sorted(cards_in_play(hand)) == list(ALL_CARDS)
        assert hand.result is not None
        kinds[hand.result.kind] = kinds.get(hand.result.kind, 0) + 1
    assert set(kinds) == {"dead", "gin", "knock", "undercut"}, kinds


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(-(2**63), 2**63),
    profile=st.sampled_from(PROFILES),
    max_hands=st.integers(1, 250),
    swap=st.booleans(),
    greedy=st.floats(0.0, 1.0),
)
def test_random_series_end_keep_sheet_invariants_and_replay(
    seed: int, profile: Profile, max_hands: int, swap: bool, greedy: float
) -> None:
    rng = random.Random(seed)
    series = Series(seed, profile, max_hands=max_hands, swap_seats=swap)
    steps = 0
    previous = series.sheet.to_dict()
    while not series.is_over:
        hand_number = series.hand_number
        series.apply(choose(series.hand, rng, greedy))
        steps += 1
        assert steps <= max_hands * 200
        if series.hand_number != hand_number or series.is_over:
            sheet = series.sheet.to_dict()
            check_sheet_step(previous, sheet, series.hands[hand_number - 1].result, profile)
            previous = sheet
    result = series.result
    assert result is not None
    assert result.hands_played == len(series.hands) <= max_hands
    if result.capped:
        assert result.hands_played == max_hands and not series.sheet.is_over
    else:
        assert series.sheet.is_over
        assert result.winner is not None and result.games_won[result.winner] >= 2
    assert sum(result.games_won) <= 3
    if result.winner is not None:
        assert result.games_won[result.winner] > result.games_won[1 - result.winner]
    rebuilt = Series.replay(json.loads(json.dumps(series.log)))
    assert rebuilt.result == result
    assert rebuilt.sheet == series.sheet


def check_sheet_step(
    before: dict[str, Any], after: dict[str, Any], result: HandResult | None, profile: Profile
) -> None:
    assert result is not None
    target = profile.game_target
    for game in range(3):
        winner_before = before["game_winners"][game]
        for player in (0, 1):
            assert after["scores"][player][game] >= before["scores"][player][game]
            if winner_before is not None:
                # A finished game is frozen.
                assert after["scores"][player][game] == before["scores"][player][game]
        if winner_before is not None:
            assert after["game_winners"][game] == winner_before
        winner = after["game_winners"][game]
        reached = [p for p in (0, 1) if after["scores"][p][game] >= target]
        assert reached == ([] if winner is None else [winner])
    changed = [p for p in (0, 1) if after["scores"][p] != before["scores"][p]]
    if result.winner is None:
        assert after == before
    else:
        assert changed in ([], [result.winner])
        assert after["hands_won"][result.winner] == before["hands_won"][result.winner] + 1
        assert after["hands_won"][1 - result.winner] == before["hands_won"][1 - result.winner]


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_knock_prefilter_never_hides_a_knock(data: st.DataObject) -> None:
    ranks = data.draw(st.integers(4, 13))
    low = data.draw(st.integers(1, 14 - ranks))
    suits = data.draw(st.integers(2, 4))
    pool = [c for c in ALL_CARDS if low <= c.rank < low + ranks and c.suit < suits]
    if len(pool) < 11:
        pool = list(ALL_CARDS)
    cards = data.draw(st.permutations(pool))[:11]
    limit = data.draw(st.integers(0, 10))
    if cannot_knock(cards_to_mask(cards), limit):
        assert best_discards(cards)[0] > limit


def test_many_full_series_finish_without_the_cap() -> None:
    for seed in range(40):
        series = Series(seed, PROFILES[seed % 2])
        play_series(series, random.Random(seed), greedy=0.8)
        assert series.result is not None and not series.result.capped
