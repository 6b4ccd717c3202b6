"""Observations hold exactly what a player at the table may see
(docs/rules.md#hidden-information)."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    ALL_CARDS,
    CLASSIC,
    FRIENDLY,
    Action,
    ActionKind,
    Card,
    Deal,
    Hand,
    Profile,
    SeatView,
    Series,
    deal_hand,
    observe,
    parse_cards,
)
from engine.seat_moment import SeatMoment
from tests.helpers.deal_helpers import action, greedy_choice, make_deal

KNOCKER = "As 2s 3s 4h 5h 6h 7c 7d 7h Kc"
OTHER = "2c 3c 5d 8d 9h Jh Js Tc 4d 8s"


def cards(text: str) -> tuple[Card, ...]:
    return tuple(sorted(parse_cards(text)))


def test_contents_for_each_seat_during_play() -> None:
    hand = Hand(make_deal(OTHER, KNOCKER, "Qd", "9d"), dealer=0, hand_number=3)
    hand.apply(action("draw discard"))  # seat 1 takes the upcard
    taker = observe(hand, 1)
    assert taker.hand == cards(KNOCKER + " Qd")
    assert (taker.seat, taker.dealer, taker.current_player, taker.hand_number) == (1, 0, 1, 3)
    assert taker.phase.value == "discard"
    assert taker.taken_card == taker.banned_discard == Card.parse("Qd")
    assert taker.discard_pile == ()
    assert taker.opponent_known_cards == ()
    assert taker.opponent_hand_size == 10
    assert taker.is_my_turn

    hand.apply(action("discard Kc"))
    other = observe(hand, 0)
    assert other.hand == cards(OTHER)
    assert other.discard_pile == (Card.parse("Kc"),)
    assert other.stock_size == 31
    assert other.opponent_known_cards == (Card.parse("Qd"),)
    assert other.opponent_hand_size == 10
    assert (other.current_player, other.phase.value) == (0, "draw")
    assert other.taken_card is None and other.banned_discard is None
    assert other.knock_discard is None and other.last_hand_result is None
    assert other.scores == ((0, 0, 0), (0, 0, 0))
    assert other.profile == FRIENDLY

    hand.apply(action("draw discard"))  # seat 0 takes the Kc
    # Not seat 1's turn: it is told nothing about seat 0's turn restrictions.
    waiting = observe(hand, 1)
    assert waiting.taken_card is None and waiting.banned_discard is None
    assert waiting.opponent_known_cards == (Card.parse("Kc"),)
    assert waiting.opponent_hand_size == 11


def test_classic_tells_the_taken_card_but_bans_nothing() -> None:
    hand = Hand(make_deal(OTHER, KNOCKER, "Qd", "9d"), dealer=0, profile=CLASSIC)
    hand.apply(action("draw discard"))
    view = observe(hand, 1)
    assert view.taken_card == Card.parse("Qd")
    assert view.banned_discard is None
    assert view.profile == CLASSIC


def knocked_hand(profile: Profile) -> Hand:
    hand = Hand(make_deal(OTHER, KNOCKER, "Qd", "9d"), dealer=0, profile=profile)
    for text in ("pass", "pass", "draw stock", "knock Kc"):
        hand.apply(action(text))
    return hand


def test_friendly_knock_discard_is_hidden_from_the_opponent_only() -> None:
    hand = knocked_hand(FRIENDLY)
    knocker, opponent = observe(hand, 1), observe(hand, 0)
    assert knocker.knock_discard == Card.parse("Kc")
    assert opponent.knock_discard is None
    assert "Kc" not in json.dumps(opponent.to_dict())
    assert opponent.last_hand_result is not None
    assert opponent.last_hand_result["knock_discard"] is None
    assert knocker.last_hand_result is not None
    assert knocker.last_hand_result["knock_discard"] == "Kc"
    # Both exposed hands are shown to both seats after the knock.
    for view in (knocker, opponent):
        exposed = view.to_dict()["last_hand_result"]["exposed"]
        assert exposed[1]["cards"] == [str(c) for c in cards("As 2s 3s 4h 5h 6h 7c 7d 7h 9d")]
        assert exposed[0]["cards"] == [str(c) for c in cards(OTHER)]
        assert exposed[1]["deadwood"] == 9


def test_classic_knock_discard_is_face_up_for_both() -> None:
    hand = knocked_hand(CLASSIC)
    for seat in (0, 1):
        view = observe(hand, seat)
        assert view.knock_discard == Card.parse("Kc")
        assert view.discard_pile[-1] == Card.parse("Kc")


def test_dead_hand_exposes_no_cards() -> None:
    hand = Hand(make_deal(OTHER, "Ac 3d 5h 7s 9c Jd Kh Qs Th 2h", "Kd"), dealer=0)
    hand.apply(action("pass"))
    hand.apply(action("pass"))
    while not hand.is_over:
        hand.apply(action("draw stock"))
        hand.apply(Action.discard(hand.moves[-1].drawn))  # type: ignore[arg-type]
    for seat in (0, 1):
        view = observe(hand, seat)
        assert view.last_hand_result is not None
        assert view.last_hand_result["kind"] == "dead"
        assert view.last_hand_result["exposed"] == []
        text = json.dumps(view.to_dict())
        for card in parse_cards(OTHER if seat == 1 else "Ac 3d 5h 7s 9c Jd Kh Qs Th 2h"):
            # The opponent's cards that were never discarded stay unseen.
            if card not in hand.discard_pile:
                assert f'"{card}"' not in text


def test_to_dict_is_json_safe_and_deterministic() -> None:
    series = Series(5)
    first = json.dumps(series.observation(0).to_dict())
    again = json.dumps(series.observation(0).to_dict())
    assert first == again
    data = json.loads(first)
    assert list(data) == [
        "seat", "hand_number", "dealer", "current_player", "phase", "hand", "discard_pile",
        "stock_size", "opponent_hand_size", "opponent_known_cards", "taken_card",
        "banned_discard", "knock_discard", "scores", "opened", "game_winners", "hands_won",
        "profile", "max_hands", "last_hand_result",
    ]  # fmt: skip
    assert data["profile"]["name"] == "friendly"
    assert data["max_hands"] == 200


# ------------------------------------------------------------------ hidden information


def seen_by(hand: Hand, seat: int) -> set[Card]:
    """The cards a player at the table has seen during the hand, by the rules
    (independent of the observation code): its own cards, the upcard, face-up
    discards, its own face-down knock discard, and both hands after a knock."""
    seen = set(hand.deal.hands[seat]) | {hand.deal.upcard}
    for move in hand.moves:
        if move.seat == seat and move.drawn is not None:
            seen.add(move.drawn)
        card = move.action.card
        if card is None:
            continue
        face_up = move.action.kind is ActionKind.DISCARD or not hand.profile.knock_discard_face_down
        if face_up or move.seat == seat:
            seen.add(card)
    if hand.result is not None and hand.result.kind != "dead":
        seen.update(hand.result.hands[0] + hand.result.hands[1])
    return seen


def seat_view_values(hand: Hand, seat: int) -> dict[str, object]:
    """Every value of the seat's ``SeatView``, its result as the seat may see it."""
    return seat_view_values_of(SeatView(hand, seat))


def seat_view_values_of(view: SeatView) -> dict[str, object]:
    values = {name: getattr(view, name) for name in SeatView.__slots__}
    values["result"] = None if view.result is None else view.result.public_dict(view.seat)
    return values


def derangement(hidden: list[Card], rng: random.Random) -> dict[Card, Card]:
    """A derangement of the hidden cards (every hidden card moves)."""
    order = sorted(hidden)
    rng.shuffle(order)
    return {card: order[(i + 1) % len(order)] for i, card in enumerate(order)}


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    seat=st.sampled_from([0, 1]),
    profile=st.sampled_from([FRIENDLY, CLASSIC]),
)
def test_observations_ignore_the_opponents_unseen_cards_and_the_stock_order(
    seed: int, seat: int, profile: Profile
) -> None:
    rng = random.Random(seed)
    deal = deal_hand(seed, 1)
    dealer = seed & 1
    original = Hand(deal, dealer, profile)
    while not original.is_over:
        legal = original.legal_actions()
        if rng.random() < 0.5:
            original.apply(greedy_choice(original.cards(original.current_player or 0), legal, rng))
        else:
            original.apply(rng.choice(legal))
    hidden = [card for card in ALL_CARDS if card not in seen_by(original, seat)]
    assert len(hidden) >= 2  # at least the two stock cards left at a dead hand

    mapping = derangement(hidden, rng)

    def move(card: Card) -> Card:
        return mapping.get(card, card)

    other = 1 - seat
    hands = list(deal.hands)
    hands[other] = tuple(move(c) for c in deal.hands[other])
    variant_deal = Deal((hands[0], hands[1]), deal.upcard, tuple(move(c) for c in deal.stock))
    assert variant_deal.stock != deal.stock

    replayed = Hand(deal, dealer, profile)
    variant = Hand(variant_deal, dealer, profile)
    assert json.dumps(observe(replayed, seat).to_dict()) == json.dumps(
        observe(variant, seat).to_dict()
    )
    for applied in original.moves:
        step = applied.action
        replayed.apply(step)
        if step.card is not None:
            step = Action(step.kind, move(step.card))
        variant.apply(step)
        mine = json.dumps(observe(replayed, seat).to_dict())
        theirs = json.dumps(observe(variant, seat).to_dict())
        assert mine == theirs
        # What the in-process path renders from, before any rendering.
        assert seat_view_values(replayed, seat) == seat_view_values(variant, seat)
    assert variant.is_over
    # The hidden state really differed: the stock (and usually the opponent's hand).
    assert replayed.stock() != variant.stock()


def test_a_hand_observes_itself_as_observe_does() -> None:
    hand = Hand(deal_hand(seed=5, hand_number=1), dealer=1, profile=FRIENDLY)
    rng = random.Random(5)
    while hand.legal_actions():
        for seat in (0, 1):
            assert hand.observation(seat) == observe(hand, seat)
            assert set(hand.observation(seat).hand) == set(observe(hand, seat).hand)
        hand.apply(rng.choice(hand.legal_actions()))
    assert hand.observation(0).to_dict() == observe(hand, 0).to_dict()


def test_a_seat_view_keeps_its_moment_after_the_hand_goes_on() -> None:
    hand = Hand(make_deal(OTHER, KNOCKER, "Qd", "9d"), dealer=0, hand_number=3)
    hand.apply(action("draw discard"))  # seat 1 takes the upcard
    view = SeatView(hand, 1)
    hand.apply(action("discard Kc"))
    hand.apply(action("draw stock"))
    assert view.held == sum(card.bit for card in parse_cards(KNOCKER + " Qd"))
    assert (view.taken_card, view.discard_pile, view.stock_size) == (Card.parse("Qd"), (), 31)
    assert (view.opponent_hand_size, view.opponent_known) == (10, 0)
    assert observe(hand, 0).opponent_known_cards == (Card.parse("Qd"),)  # the hand went on


def test_a_seat_view_refuses_a_seat_that_is_not_0_or_1() -> None:
    hand = Hand(make_deal(OTHER, KNOCKER, "Qd", "9d"), dealer=0)
    for seat in (2, -1, True):
        with pytest.raises(ValueError, match="seat must be 0 or 1"):
            SeatView(hand, seat)


def test_a_seat_moment_read_later_is_the_seat_view_of_its_moment() -> None:
    """Read while the hand stands still, or after it went on (then from a replay),
    a ``SeatMoment`` gives the ``SeatView`` made at its moment, for either seat."""
    hand = Hand(deal_hand(seed=8, hand_number=2), dealer=1, profile=CLASSIC, hand_number=2)
    rng = random.Random(8)
    moments: list[tuple[SeatMoment, dict[str, object]]] = []
    while not hand.is_over:
        for seat in (0, 1):
            moments.append((SeatMoment(hand, seat), seat_view_values(hand, seat)))
        hand.apply(greedy_choice(hand.cards(hand.current_player or 0), hand.legal_actions(), rng))
    assert len(moments) > 20
    for moment, then in moments:
        view = moment.view()
        assert seat_view_values_of(view) == then
    still = SeatMoment(hand, 0)  # the hand is over: it stands still from now on
    assert seat_view_values_of(still.view()) == seat_view_values(hand, 0)

