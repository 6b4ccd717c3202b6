"""Cards and the text notation (docs/rules.md#cards)."""

from __future__ import annotations

import pickle

import pytest

from engine.cards import (
    ALL_CARDS,
    Card,
    CardParseError,
    DuplicateCardError,
    Suit,
    cards_to_mask,
    format_cards,
    mask_to_cards,
    parse_cards,
)


def test_there_are_52_distinct_interned_cards() -> None:
    assert len(ALL_CARDS) == 52 == len(set(ALL_CARDS))
    assert Card(1, Suit.SPADES) is Card.parse("As") is Card.from_index(39)
    assert pickle.loads(pickle.dumps(Card.parse("Td"))) is Card.parse("Td")


@pytest.mark.parametrize(("text", "rank", "suit", "value"), [
    ("As", 1, Suit.SPADES, 1), ("2c", 2, Suit.CLUBS, 2), ("Td", 10, Suit.DIAMONDS, 10),
    ("Jh", 11, Suit.HEARTS, 10), ("Qs", 12, Suit.SPADES, 10), ("Kc", 13, Suit.CLUBS, 10),
    ("9h", 9, Suit.HEARTS, 9),
])
def test_card_fields(text: str, rank: int, suit: Suit, value: int) -> None:
    card = Card.parse(text)
    assert (card.rank, card.suit, card.value, str(card)) == (rank, suit, value, text)
    assert card.index == suit * 13 + rank - 1 and card.bit == 1 << card.index


def test_parse_is_case_insensitive_and_accepts_10() -> None:
    assert parse_cards("as TD kH 7C 10s") == parse_cards("As Td Kh 7c Ts")


def test_whitespace_and_commas_separate_cards() -> None:
    assert parse_cards(" As,Td ,  Kh\n7c\t,2d, ") == parse_cards("As Td Kh 7c 2d")
    assert parse_cards("") == [] and parse_cards(" , ") == []


@pytest.mark.parametrize(("text", "token"), [
    ("As Xd Kh", "Xd"), ("As 1s", "1s"), ("As Tz", "Tz"), ("As Kh7c", "Kh7c"),
    ("A", "A"), ("11c", "11c"), ("♠A", "♠A"),
])
def test_bad_token_is_named(text: str, token: str) -> None:
    with pytest.raises(CardParseError) as caught:
        parse_cards(text)
    assert caught.value.token == token
    assert repr(token) in str(caught.value)
    assert isinstance(caught.value, ValueError)


def test_duplicate_cards_are_an_error() -> None:
    with pytest.raises(DuplicateCardError, match="duplicate card: 'as'") as caught:
        parse_cards("As Kd as")
    assert caught.value.token == "as"
    assert parse_cards("As As", allow_duplicates=True) == [Card.parse("As")] * 2


def test_format_round_trips() -> None:
    text = "As Td Kh 7c"
    assert format_cards(parse_cards(text)) == text
    assert format_cards(ALL_CARDS[:3]) == "Ac 2c 3c"
    assert Card.parse("Td").pretty == "10♦"


def test_masks_round_trip() -> None:
    cards = parse_cards("Kh As 2c")
    mask = cards_to_mask(cards)
    assert mask == Card.parse("Kh").bit | Card.parse("As").bit | Card.parse("2c").bit
    assert mask_to_cards(mask) == sorted(cards, key=lambda card: card.index)


def test_cards_sort_by_suit_then_rank_and_are_immutable() -> None:
    assert sorted(parse_cards("Kc As 2c Ad")) == parse_cards("2c Kc Ad As")
    with pytest.raises(AttributeError):
        Card.parse("As").rank = 2  # type: ignore[misc]
    with pytest.raises(ValueError, match=r"rank must be 1\.\.13"):
        Card(14, 0)


def test_repr_is_the_parse_call() -> None:
    assert repr(Card.parse("Td")) == "Card.parse('Td')"


def test_comparisons_with_an_equal_card_and_across_suits() -> None:
    ace, same = Card.parse("As"), Card.parse("As")
    assert ace <= same and ace >= same
    assert not ace < same and not ace > same
    king_of_clubs, ace_of_diamonds = Card.parse("Kc"), Card.parse("Ad")
    # Suit first, then rank: every club sorts before every diamond.
    assert king_of_clubs < ace_of_diamonds and king_of_clubs <= ace_of_diamonds
    assert ace_of_diamonds > king_of_clubs and ace_of_diamonds >= king_of_clubs
    assert not king_of_clubs >= ace_of_diamonds and not ace_of_diamonds <= king_of_clubs
