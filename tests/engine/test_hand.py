"""One hand as a state machine: every rule point of docs/rules.md#the-deal to
docs/rules.md#scoring-a-hand that the hand enforces."""

from __future__ import annotations

import pytest

from engine import (
    ALL_CARDS,
    CLASSIC,
    FRIENDLY,
    Action,
    ActionKind,
    Card,
    Hand,
    IllegalActionError,
    Phase,
    Profile,
    min_deadwood,
    parse_cards,
    settle,
)
from tests.helpers.deal_helpers import action, cards_in_play, make_deal, snapshot

# Seat 1 holds 10 deadwood (Kc) in three melds; the upcard Qd or a 9d from the stock
# gives it knock choices.
KNOCKER = "As 2s 3s 4h 5h 6h 7c 7d 7h Kc"
OTHER = "2c 3c 5d 8d 9h Jh Js Tc 4d 8s"


def knock_deal(stock_top: str = "9d") -> Hand:
    """Dealer seat 0; seat 1 (KNOCKER) is offered the upcard Qd first."""
    return Hand(make_deal(OTHER, KNOCKER, "Qd", stock_top), dealer=0)


def kinds(hand: Hand) -> list[str]:
    return [str(a) for a in hand.legal_actions()]


def expect_illegal(hand: Hand, text: str, reason: str) -> None:
    before = snapshot(hand)
    with pytest.raises(IllegalActionError) as caught:
        hand.apply(action(text))
    assert reason in str(caught.value), str(caught.value)
    assert snapshot(hand) == before


# ------------------------------------------------------------------ upcard offer


def test_deal_and_upcard_offer_goes_to_the_non_dealer_first() -> None:
    hand = knock_deal()
    assert hand.phase is Phase.UPCARD_OFFER
    assert hand.current_player == 1
    assert len(hand.cards(0)) == len(hand.cards(1)) == 10
    assert hand.stock_size == 31
    assert hand.discard_pile == (Card.parse("Qd"),)
    assert kinds(hand) == ["draw discard", "pass"]


def test_non_dealer_passes_then_dealer_is_offered() -> None:
    hand = knock_deal()
    hand.apply(action("pass"))
    assert hand.phase is Phase.UPCARD_OFFER
    assert hand.current_player == 0
    assert kinds(hand) == ["draw discard", "pass"]


def test_both_pass_non_dealer_must_draw_from_stock() -> None:
    hand = knock_deal()
    hand.apply(action("pass"))
    hand.apply(action("pass"))
    assert hand.phase is Phase.DRAW
    assert hand.current_player == 1
    assert kinds(hand) == ["draw stock"]
    expect_illegal(hand, "draw discard", "first draw is from the stock")
    hand.apply(action("draw stock"))
    assert Card.parse("9d") in hand.cards(1)
    hand.apply(action("discard 9d"))
    # The dealer's normal turn: both draws are open again.
    assert hand.current_player == 0
    assert kinds(hand) == ["draw stock", "draw discard"]


def test_non_dealer_takes_upcard_then_dealer_has_a_normal_turn() -> None:
    hand = knock_deal()
    hand.apply(action("draw discard"))
    assert hand.phase is Phase.DISCARD
    assert hand.current_player == 1
    assert len(hand.cards(1)) == 11
    assert hand.discard_pile == ()
    assert hand.known_cards(1) == [Card.parse("Qd")]
    held, known = hand.masks(1)
    assert known == 1 << 24  # Qd: diamonds (13 onwards), queen (12th rank, from ace at 0)
    assert held.bit_count() == 11 and held & known == known
    assert hand.masks(0)[1] == 0 and hand.masks(0)[0].bit_count() == 10
    hand.apply(action("discard Kc"))
    assert hand.phase.value == "draw"
    assert hand.current_player == 0
    assert kinds(hand) == ["draw stock", "draw discard"]
    assert hand.known_cards(1) == [Card.parse("Qd")]


def test_dealer_takes_upcard_after_pass_then_non_dealer_has_a_normal_turn() -> None:
    hand = knock_deal()
    hand.apply(action("pass"))
    hand.apply(action("draw discard"))
    assert hand.current_player == 0
    assert hand.phase is Phase.DISCARD
    hand.apply(action("discard 2c"))
    assert hand.current_player == 1
    assert hand.phase.value == "draw"
    assert kinds(hand) == ["draw stock", "draw discard"]


# ------------------------------------------------------------------ friendly ban


def test_friendly_bans_discarding_the_taken_upcard() -> None:
    hand = knock_deal()
    hand.apply(action("draw discard"))
    assert hand.banned_discard == Card.parse("Qd")
    assert "discard Qd" not in kinds(hand)
    assert "knock Qd" not in kinds(hand)
    expect_illegal(hand, "discard Qd", "just taken from the discard pile")
    expect_illegal(hand, "knock Qd", "just taken from the discard pile")


def test_friendly_ban_applies_to_a_card_drawn_from_the_pile_in_a_normal_turn() -> None:
    hand = knock_deal()
    hand.apply(action("pass"))
    hand.apply(action("pass"))
    hand.apply(action("draw stock"))
    hand.apply(action("discard 9d"))
    hand.apply(action("draw discard"))  # seat 0 takes the 9d
    assert hand.banned_discard == Card.parse("9d")
    expect_illegal(hand, "discard 9d", "just taken")
    hand.apply(action("discard 2c"))
    # Next turn the ban is gone (seat 0 may discard the 9d later).
    hand.apply(action("draw stock"))
    hand.apply(action("discard Kc"))
    hand.apply(action("draw stock"))
    assert "discard 9d" in kinds(hand)


def test_classic_allows_discarding_the_taken_card() -> None:
    hand = Hand(make_deal(OTHER, KNOCKER, "Qd", "9d"), dealer=0, profile=CLASSIC)
    hand.apply(action("draw discard"))
    assert hand.banned_discard is None
    assert "discard Qd" in kinds(hand)
    assert "knock Qd" in kinds(hand)
    hand.apply(action("discard Qd"))
    assert hand.discard_pile == (Card.parse("Qd"),)
    assert hand.known_cards(1) == []


# ------------------------------------------------------------------ knock legality


def test_knock_actions_are_exactly_the_discards_within_the_knock_limit() -> None:
    hand = knock_deal()
    hand.apply(action("pass"))
    hand.apply(action("pass"))
    hand.apply(action("draw stock"))  # 9d
    cards = hand.cards(1)
    expected_knocks = [
        f"knock {card}" for card in cards if min_deadwood([c for c in cards if c is not card]) <= 10
    ]
    assert expected_knocks == ["knock Kc", "knock 9d"]
    assert kinds(hand) == [f"discard {card}" for card in cards] + expected_knocks


def test_knocking_is_legal_on_the_first_turn_with_the_upcard() -> None:
    hand = Hand(make_deal(OTHER, KNOCKER, "Qd", "9d"), dealer=0, profile=CLASSIC)
    hand.apply(action("draw discard"))
    assert [a for a in kinds(hand) if a.startswith("knock")] == ["knock Kc", "knock Qd"]
    hand.apply(action("knock Qd"))
    assert hand.is_over


def test_knock_over_the_limit_is_illegal_with_the_deadwood_named() -> None:
    hand = knock_deal()
    hand.apply(action("pass"))
    hand.apply(action("pass"))
    hand.apply(action("draw stock"))
    expect_illegal(hand, "knock As", "leaves more than 10 deadwood")


def test_profile_knock_limit_is_respected() -> None:
    strict = FRIENDLY.derive(knock_limit=9)
    hand = Hand(make_deal(OTHER, KNOCKER, "Qd", "9d"), dealer=0, profile=strict)
    hand.apply(action("pass"))
    hand.apply(action("pass"))
    hand.apply(action("draw stock"))
    # Discarding Kc leaves 9 (ok), discarding 9d leaves 10 (over the limit of 9).
    assert [a for a in kinds(hand) if a.startswith("knock")] == ["knock Kc"]


# ------------------------------------------------------------------ settling


def test_rules_example_2_gin_scores_25_plus_18() -> None:
    # docs/rules.md#gin: A holds 4h 5h 6h, 9c 9d 9s, Ac 2c 3c, Kd; draws 7h, discards Kd: gin.
    a_cards = "4h 5h 6h 9c 9d 9s Ac 2c 3c Kd"
    b_cards = "Tc Jc Qc 5d 6d 7d Ks 3s 2d 3h"  # deadwood 18
    hand = Hand(make_deal(a_cards, b_cards, "8s", "7h"), dealer=1, profile=FRIENDLY)
    hand.apply(action("pass"))
    hand.apply(action("pass"))
    hand.apply(action("draw stock"))
    assert "knock Kd" in kinds(hand)
    hand.apply(action("knock Kd"))
    result = hand.result
    assert result is not None
    assert (result.kind, result.winner, result.points, result.knocker) == ("gin", 0, 43, 0)
    assert result.deadwood(0) == 0
    assert result.deadwood(1) == 18
    assert result.settlement is not None and result.settlement.layoffs == ()
    assert result.hands[0] == tuple(parse_cards("Ac 2c 3c 9c 9d 4h 5h 6h 7h 9s"))
    assert hand.current_player is None
    assert hand.legal_actions() == []


def test_undercut_goes_to_the_defender_seat() -> None:
    knocker = "As 2s 3s 4h 5h 6h 7c 7d 7h Kc"
    defender = "Ts Js Qs 8c 9c Tc 2h 2d 2c 3d"  # deadwood 3
    hand = Hand(make_deal(knocker, defender, "Kh", "9d"), dealer=1)
    hand.apply(action("pass"))
    hand.apply(action("pass"))
    hand.apply(action("draw stock"))
    hand.apply(action("knock Kc"))
    result = hand.result
    assert result is not None
    assert (result.kind, result.knocker, result.winner) == ("undercut", 0, 1)
    assert result.points == (9 - 3) + FRIENDLY.undercut_bonus
    assert result.deadwood(0) == 9 and result.deadwood(1) == 3


def test_knock_result_matches_settle_with_layoffs() -> None:
    knocker = "As 2s 3s 4h 5h 6h 7c 7d 7h Kc"
    defender = "4s 5s 8h 9h Qc Jd 2d 3d 4d 8c"  # 4s 5s lay off on As-3s, 8h on the hearts run
    hand = Hand(make_deal(knocker, defender, "Kh", "9d"), dealer=1, profile=CLASSIC)
    for text in ("pass", "pass", "draw stock", "knock Kc"):
        hand.apply(action(text))
    result = hand.result
    assert result is not None and result.settlement is not None
    expected = settle(
        parse_cards("As 2s 3s 4h 5h 6h 7c 7d 7h 9d"), parse_cards(defender), CLASSIC
    )
    assert result.settlement == expected
    assert result.settlement.layoffs, "the defender lays off"
    assert result.kind == expected.kind
    assert result.winner == (0 if expected.winner == "knocker" else 1)
    assert result.points == expected.points
    # Classic lays the knock discard face up on the pile.
    assert hand.discard_pile[-1] == Card.parse("Kc")


def test_friendly_knock_discard_is_face_down() -> None:
    hand = knock_deal()
    for text in ("pass", "pass", "draw stock", "knock Kc"):
        hand.apply(action(text))
    assert hand.knock_discard == Card.parse("Kc")
    assert Card.parse("Kc") not in hand.discard_pile
    assert sorted(cards_in_play(hand)) == sorted(ALL_CARDS)


def test_declared_melds_are_used_for_the_knock() -> None:
    # Seat 1 draws Ac: best arrangement leaves 1 deadwood; it declares only two melds.
    hand = knock_deal(stock_top="Ac")
    for text in ("pass", "pass", "draw stock"):
        hand.apply(action(text))
    hand.apply(action("knock Kc [4h 5h 6h] [7c 7d 7h]"))
    result = hand.result
    assert result is not None and result.settlement is not None
    assert result.knocker == 1
    assert result.deadwood(1) == 1 + 1 + 2 + 3  # Ac As 2s 3s
    assert result.melds(1) == (tuple(parse_cards("4h 5h 6h")), tuple(parse_cards("7c 7d 7h")))


@pytest.mark.parametrize(
    ("declared", "reason"),
    [
        ("[4h 5h 6h] [7c 7d 7h] [As 2s Ac]", "neither a set nor a run"),
        ("[4h 5h 6h] [7c 7d 7h] [Kc Qc Jc]", "not in the hand"),
        ("[4h 5h 6h] [7c 7d 7h] [As 2s 3s] [7h 7c 7d]", "used twice"),
        ("[As 2s 3s]", "over the knock limit"),
    ],
)
def test_invalid_declared_melds_are_illegal_and_leave_state_untouched(
    declared: str, reason: str
) -> None:
    hand = knock_deal(stock_top="Ac")
    for text in ("pass", "pass", "draw stock"):
        hand.apply(action(text))
    expect_illegal(hand, f"knock Kc {declared}", reason)
    expect_illegal(hand, f"knock Kc {declared}", "invalid declared melds")
    hand.apply(action("knock Kc"))
    assert hand.result is not None and hand.result.deadwood(1) == 1


# ------------------------------------------------------------------ dead hand


def play_out_by_stock(hand: Hand) -> int:
    """Both players draw from the stock and throw the drawn card back; returns how
    many discards were made before the hand ended."""
    hand.apply(action("pass"))
    hand.apply(action("pass"))
    discards = 0
    while not hand.is_over:
        hand.apply(action("draw stock"))
        drawn = hand.moves[-1].drawn
        hand.apply(Action.discard(drawn))  # type: ignore[arg-type]
        discards += 1
    return discards


@pytest.mark.parametrize("profile", [FRIENDLY, CLASSIC])
def test_hand_is_dead_when_two_stock_cards_remain_after_a_discard(profile: object) -> None:
    # Neither player can knock with these hands whatever they draw... they never keep it.
    hand = Hand(make_deal(OTHER, "Ac 3d 5h 7s 9c Jd Kh Qs Th 2h", "Kd"), 0, profile)  # type: ignore[arg-type]
    discards = play_out_by_stock(hand)
    assert discards == 29
    assert hand.stock_size == 2
    result = hand.result
    assert result is not None
    assert (result.kind, result.winner, result.points, result.knocker) == ("dead", None, 0, None)
    with pytest.raises(IllegalActionError, match="hand is over"):
        hand.apply(action("draw stock"))


def test_knock_is_still_possible_after_drawing_the_third_last_card() -> None:
    # Stock order: 28 fillers, then 9d as the 29th draw: seat 1 may knock with 2 left.
    fillers = [c for c in ALL_CARDS if str(c) not in (OTHER + " " + KNOCKER + " Qd 9d").split()]
    order = " ".join(str(c) for c in fillers[:28]) + " 9d"
    hand = Hand(make_deal(OTHER, KNOCKER, "Qd", order), dealer=0)  # seat 1 draws odd cards
    hand.apply(action("pass"))
    hand.apply(action("pass"))
    for _ in range(28):
        hand.apply(action("draw stock"))
        hand.apply(Action.discard(hand.moves[-1].drawn))  # type: ignore[arg-type]
    hand.apply(action("draw stock"))
    assert hand.current_player == 1 and hand.stock_size == 2
    assert "knock Kc" in kinds(hand)
    hand.apply(action("knock Kc"))
    assert hand.result is not None and hand.result.kind == "knock"


def test_dead_hand_stock_size_is_a_profile_field() -> None:
    early = FRIENDLY.derive(dead_hand_stock_size=21)
    hand = Hand(make_deal(OTHER, "Ac 3d 5h 7s 9c Jd Kh Qs Th 2h", "Kd"), 0, early)
    assert play_out_by_stock(hand) == 10
    assert hand.stock_size == 21


# ------------------------------------------------------------------ illegal actions


def test_illegal_actions_in_every_phase_leave_the_state_untouched() -> None:
    hand = knock_deal()
    expect_illegal(hand, "draw stock", "upcard offer")
    expect_illegal(hand, "discard Kc", "only legal after drawing")
    expect_illegal(hand, "knock Kc", "only legal after drawing")
    hand.apply(action("pass"))
    hand.apply(action("pass"))
    expect_illegal(hand, "pass", "only legal during the upcard offer")
    hand.apply(action("draw stock"))
    expect_illegal(hand, "draw stock", "drawn already")
    expect_illegal(hand, "draw discard", "drawn already")
    expect_illegal(hand, "pass", "upcard offer")
    expect_illegal(hand, "discard Ah", "not in your hand")
    expect_illegal(hand, "knock Ah", "not in your hand")
    expect_illegal(hand, "discard 2c", "not in your hand")  # the opponent's card


def test_apply_rejects_non_actions() -> None:
    hand = knock_deal()
    before = snapshot(hand)
    with pytest.raises(IllegalActionError, match="not an action"):
        hand.apply("pass")  # type: ignore[arg-type]
    assert snapshot(hand) == before


def test_apply_accepts_exactly_the_legal_actions_in_a_discard_state() -> None:
    every_action = (
        [Action.draw_stock(), Action.draw_discard(), Action.pass_()]
        + [Action.discard(card) for card in ALL_CARDS]
        + [Action.knock(card) for card in ALL_CARDS]
    )
    script = ["draw discard"]
    probe = Hand(make_deal(OTHER, KNOCKER, "Qd", "9d"), dealer=0)
    for text in script:
        probe.apply(action(text))
    legal = probe.legal_actions()
    for candidate in every_action:
        hand = Hand(make_deal(OTHER, KNOCKER, "Qd", "9d"), dealer=0)
        for text in script:
            hand.apply(action(text))
        if candidate in legal:
            hand.apply(candidate)
        else:
            with pytest.raises(IllegalActionError):
                hand.apply(candidate)


def test_dealer_must_be_a_seat() -> None:
    with pytest.raises(ValueError, match="dealer"):
        Hand(make_deal(OTHER, KNOCKER, "Qd"), dealer=2)


def test_legal_actions_returns_a_fresh_list() -> None:
    hand = knock_deal()
    hand.legal_actions().clear()
    assert hand.legal_actions() == [Action.draw_discard(), Action.pass_()]
    assert all(isinstance(a.kind, ActionKind) for a in hand.legal_actions())


# ------------------------------------------------------------------ the cheap "cannot knock" proof
# engine.knock_cards and engine.deadwood_tables build their suit tables at import; the
# test rebuilds them by calling the builders, so a mistake in one cannot hide behind
# the import-time copy.

def test_suit_tables_follow_the_rules_for_every_suit_mask() -> None:
    from engine import deadwood_tables, knock_cards

    in_run, value_max = knock_cards._suit_tables()
    run_value = deadwood_tables.build_run_tables()[0]
    value_sum, _ = deadwood_tables.build_value_tables(run_value)
    assert len(in_run) == len(value_sum) == len(value_max) == 8192
    for bits in range(8192):
        ranks = [rank for rank in range(13) if bits >> rank & 1]
        # A card is in a run of 3+ when it and two neighbours on one side or both are held.
        expected_in_run = 0
        for low in range(11):
            if all(bits >> (low + step) & 1 for step in range(3)):
                expected_in_run |= 0b111 << low
        values = [min(rank + 1, 10) for rank in ranks]
        assert in_run[bits] == expected_in_run, bits
        assert value_sum[bits] == sum(values), bits
        assert value_max[bits] == (max(values) if values else 0), bits


def _mask(text: str) -> int:
    return sum(card.bit for card in parse_cards(text))


# Eight loose cards (no run, no rank three times): 41 in all, the largest a 10.
LOOSE_EIGHT = "Ac 3d 5h 7s 9c Jd 2h 4s"


@pytest.mark.parametrize("kings", ["Kc Kd Kh", "Kc Kd Ks", "Kc Kh Ks", "Kd Kh Ks"])
def test_cannot_knock_sees_a_set_in_any_three_suits(kings: str) -> None:
    from engine.knock_cards import cannot_knock

    mask = _mask(f"{kings} {LOOSE_EIGHT}")
    # The kings may form a set, so only the eight loose cards count: 41 - 10 = 31.
    assert not cannot_knock(mask, 31)
    assert cannot_knock(mask, 30)


def test_cannot_knock_sees_a_run_and_counts_two_in_a_row_as_loose() -> None:
    from engine.knock_cards import cannot_knock

    # 4h 5h 6h may form a run; Jd Qd are only two in a row, so they stay loose.
    mask = _mask("4h 5h 6h Ac 3d 7s 9c Jd 2s Kc Qd")
    # Loose: A 3 7 9 J 2 K Q = 52; minus the largest (10) = 42.
    assert not cannot_knock(mask, 42)
    assert cannot_knock(mask, 41)


def test_cannot_knock_with_every_card_loose() -> None:
    from engine.knock_cards import cannot_knock

    mask = _mask("Kc Qd Jh Ts 9c 8d 7h 6s 5c 4d 3h")
    # 82 in all; the best discard is a 10, leaving 72.
    assert not cannot_knock(mask, 72)
    assert cannot_knock(mask, 71)
    # The same hand with the spades and clubs swapped (the suits are read one by one).
    assert not cannot_knock(_mask("Ks Qd Jh Tc 9s 8d 7h 6c 5s 4d 3h"), 72)
    assert cannot_knock(_mask("Ks Qd Jh Tc 9s 8d 7h 6c 5s 4d 3h"), 71)


# ------------------------------------------------------------------ reading helpers

def test_knock_cards_lists_the_knock_discards_only_in_the_discard_phase() -> None:
    hand = knock_deal()
    assert hand.knock_cards() == []  # upcard offer
    hand.apply(action("pass"))
    hand.apply(action("pass"))
    assert hand.knock_cards() == []  # draw phase
    hand.apply(action("draw stock"))  # 9d: discarding Kc leaves 9, discarding 9d leaves 10
    assert hand.knock_cards() == parse_cards("Kc 9d")  # sorted: clubs before diamonds


@pytest.mark.parametrize("profile", [FRIENDLY, CLASSIC], ids=["face-down", "face-up"])
def test_card_count_is_52_before_and_after_a_knock(profile: object) -> None:
    hand = Hand(make_deal(OTHER, KNOCKER, "Qd", "9d"), dealer=0, profile=profile)  # type: ignore[arg-type]
    assert hand.card_count() == 52
    for text in ("pass", "pass", "draw stock"):
        hand.apply(action(text))
    assert hand.card_count() == 52
    hand.apply(action("knock Kc"))
    assert hand.is_over
    assert hand.card_count() == 52


def test_observation_shows_the_given_score_sheet() -> None:
    from engine import ScoreSheet

    sheet = ScoreSheet(100)
    sheet.record_win(1, 25)  # the first win opens game I only
    hand = knock_deal()
    assert hand.observation(0, sheet).scores == ((0, 0, 0), (25, 0, 0))
    assert hand.observation(0, sheet).hands_won == (0, 1)
    assert hand.observation(1).scores == ((0, 0, 0), (0, 0, 0))


def test_stock_is_listed_top_first() -> None:
    hand = knock_deal(stock_top="9d 2h")
    assert hand.stock()[:2] == parse_cards("9d 2h")
    assert len(hand.stock()) == 31
    for text in ("pass", "pass", "draw stock"):
        hand.apply(action(text))
    assert Card.parse("9d") in hand.cards(1)
    assert hand.stock()[0] == Card.parse("2h")


# ------------------------------------------------------------------ the result as logged
# (engine.hand_result; kept here because `make mutation` runs this file. OTHER has no
# meld and nothing to lay off on KNOCKER's melds: 69 deadwood.)

def knocked(profile: Profile) -> Hand:
    """Seat 1 draws 9d and knocks with Kc, keeping 9 deadwood."""
    hand = Hand(make_deal(OTHER, KNOCKER, "Qd", "9d"), dealer=0, profile=profile)
    for text in ("pass", "pass", "draw stock", "knock Kc"):
        hand.apply(action(text))
    return hand


def test_to_dict_of_a_knock_names_the_discard_and_how_it_lies() -> None:
    for profile, face_down in ((FRIENDLY, True), (CLASSIC, False)):
        result = knocked(profile).result
        assert result is not None
        data = result.to_dict()
        assert data["knock_discard"] == "Kc"
        assert data["knock_discard_face_down"] is face_down
        assert data["defender_deadwood_before_layoffs"] == 69
        assert data["layoffs"] == []
        # Seat 0 defended with no meld; seat 1 knocked with three melds and the 9d.
        assert [seat["deadwood"] for seat in data["exposed"]] == [69, 9]
        assert data["exposed"][1]["deadwood_cards"] == ["9d"]
        assert data["exposed"][0]["melds"] == []


def test_to_dict_of_a_dead_hand_has_no_knock_discard() -> None:
    hand = Hand(make_deal(OTHER, KNOCKER, "Qd"), dealer=0, profile=FRIENDLY)
    hand.apply(action("pass"))
    hand.apply(action("pass"))
    while not hand.is_over:
        hand.apply(action("draw stock"))
        seat = hand.current_player
        assert seat is not None
        drawn = hand.moves[-1].drawn
        hand.apply(action(f"discard {drawn}"))
    result = hand.result
    assert result is not None
    data = result.to_dict()
    assert data["knock_discard"] is None
    assert data["knock_discard_face_down"] is False
    assert data["defender_deadwood_before_layoffs"] is None
