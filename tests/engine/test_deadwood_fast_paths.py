"""The engine's fast deadwood paths agree with an independent reference (issue 29).

The public functions (``min_deadwood``, ``best_discards``,
``deadwood_after_each_discard``: cards checked at the door), the engine's own
unchecked mask functions (``min_deadwood_mask``, ``best_discards_mask``,
``lowest_deadwood_after_discard_mask`` (the knock check's number alone),
``deadwood_after_each_discard_mask``, ``knock_cards``) and
``tests/helpers/reference_deadwood.py`` (the textbook search on plain tuples, itself
checked against ``tests/helpers/brute_force.py`` here) must give the same answers on
random hands: uniform ones (any cards of the deck) and meld-rich ones (4-7
consecutive ranks in 2-4 suits, where sets and runs compete). The fast suite runs
a few thousand; the ``slow`` tests run 100,000 hands of each class. The cards of a
mask (``mask_to_cards``, from suit-row tables, which ``best_discards`` and the
hands' views use) are checked against a scan of the deck the same way.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from engine.cards import (
    ALL_CARDS,
    Card,
    DuplicateCardError,
    cards_to_mask,
    mask_to_cards,
    parse_cards,
)
from engine.deadwood_search import (
    best_discards_mask,
    deadwood_after_each_discard_mask,
    lowest_deadwood_after_discard_mask,
    min_deadwood_mask,
)
from engine.knock_cards import knock_cards
from engine.melds import (
    best_discards,
    deadwood_after_each_discard,
    hand_mask,
    min_deadwood,
)
from tests.helpers.brute_force import brute_best_discards, brute_deadwood
from tests.helpers.reference_deadwood import (
    PlainCard,
    reference_after_each_discard,
    reference_best_discards,
    reference_deadwood,
)

HandMaker = Callable[[random.Random, int], list[Card]]


def uniform_hand(rng: random.Random, size: int) -> list[Card]:
    return rng.sample(ALL_CARDS, size)


def meld_rich_hand(rng: random.Random, size: int) -> list[Card]:
    while True:
        rank_count = rng.randint(4, 7)
        low = rng.randint(1, 14 - rank_count)
        suits = rng.sample(range(4), rng.randint(2, 4))
        pool = [card for card in ALL_CARDS
                if low <= card.rank < low + rank_count and card.suit in suits]
        if len(pool) >= size:
            return rng.sample(pool, size)


MAKERS: dict[str, HandMaker] = {"uniform": uniform_hand, "meld-rich": meld_rich_hand}


def plain(cards: list[Card]) -> list[PlainCard]:
    return [(card.rank, int(card.suit)) for card in cards]


def check_ten_card_hands(kind: str, count: int, seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(count):
        cards = MAKERS[kind](rng, 10)
        expected = reference_deadwood(plain(cards))
        assert min_deadwood(cards) == expected, cards
        assert min_deadwood_mask(cards_to_mask(cards)) == expected, cards


def check_eleven_card_hands(kind: str, count: int, seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(count):
        cards = MAKERS[kind](rng, 11)
        mask = cards_to_mask(cards)
        after = reference_after_each_discard(plain(cards))
        lowest = min(after.values())
        discards = [Card(rank, suit) for (rank, suit), value in after.items() if value == lowest]
        assert best_discards(cards) == (lowest, discards), cards
        assert best_discards_mask(mask) == (lowest, discards), cards
        assert lowest_deadwood_after_discard_mask(mask) == lowest, cards
        by_card = {Card(rank, suit): value for (rank, suit), value in after.items()}
        assert list(deadwood_after_each_discard(cards).items()) == list(by_card.items()), cards
        assert list(deadwood_after_each_discard_mask(mask).items()) == list(by_card.items())
        banned = cards[0]
        assert knock_cards(mask, 10, banned) == [
            card for card, value in by_card.items() if value <= 10 and card is not banned], cards


@pytest.mark.parametrize("kind", MAKERS)
def test_the_reference_agrees_with_brute_force(kind: str) -> None:
    rng = random.Random(29)
    for _ in range(150):
        ten = plain(MAKERS[kind](rng, 10))
        assert reference_deadwood(ten) == brute_deadwood(ten), ten
    for _ in range(40):
        eleven = plain(MAKERS[kind](rng, 11))
        assert reference_best_discards(eleven) == brute_best_discards(eleven), eleven


@pytest.mark.parametrize("kind", MAKERS)
def test_min_deadwood_fast_paths_agree_with_the_reference(kind: str) -> None:
    check_ten_card_hands(kind, 3_000, seed=2901)


@pytest.mark.parametrize("kind", MAKERS)
def test_best_discard_fast_paths_agree_with_the_reference(kind: str) -> None:
    check_eleven_card_hands(kind, 600, seed=2902)


@pytest.mark.slow
@pytest.mark.parametrize("kind", MAKERS)
def test_min_deadwood_fast_paths_agree_on_100000_hands(kind: str) -> None:
    check_ten_card_hands(kind, 100_000, seed=2903)


@pytest.mark.slow
@pytest.mark.parametrize("kind", MAKERS)
def test_best_discard_fast_paths_agree_on_100000_hands(kind: str) -> None:
    check_eleven_card_hands(kind, 100_000, seed=2904)


def check_mask_to_cards(count: int, seed: int) -> None:
    """``mask_to_cards`` (four suit-row lookups) against a scan of the deck, on
    masks of every size: empty, full, one suit, and random ones."""
    rng = random.Random(seed)
    masks = [0, (1 << 52) - 1, 8191, 8191 << 39, 1, 1 << 51]
    masks += [rng.getrandbits(52) & rng.getrandbits(52) for _ in range(count)]
    for mask in masks:
        assert mask_to_cards(mask) == [card for card in ALL_CARDS if mask >> card.index & 1]


def test_mask_to_cards_agrees_with_a_scan_of_the_deck() -> None:
    check_mask_to_cards(5_000, seed=2905)
    assert mask_to_cards(cards_to_mask(parse_cards("Ks 2c Td Ac 3h"))) == parse_cards(
        "Ac 2c Td 3h Ks")


@pytest.mark.slow
def test_mask_to_cards_agrees_on_100000_masks() -> None:
    check_mask_to_cards(100_000, seed=2906)


# -- the check at the door still names every fault ---------------------------------

def test_a_tuple_a_generator_and_text_give_the_same_mask() -> None:
    cards = parse_cards("As 2s 3s Td Kh")
    expected = sum(1 << card.index for card in cards)
    assert hand_mask(tuple(cards)) == expected
    assert hand_mask(card for card in cards) == expected
    assert hand_mask("As 2s 3s Td Kh") == expected
    assert min_deadwood(tuple(cards)) == min_deadwood(iter(cards)) == 20


def test_the_first_fault_in_order_is_named() -> None:
    seven, ace = Card.parse("7d"), Card.parse("As")
    with pytest.raises(DuplicateCardError, match="duplicate card: 7d"):
        hand_mask((seven, ace, seven, "Kh"))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="expected a Card, got 'Kh'"):
        hand_mask(["Kh", seven, seven])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="expected a Card, got 7"):
        min_deadwood([ace, 7])  # type: ignore[list-item]


def test_card_counts_are_still_checked() -> None:
    twelve = list(ALL_CARDS[:12])
    with pytest.raises(ValueError, match="at most 11 cards, got 12"):
        min_deadwood(twelve)
    with pytest.raises(ValueError, match="exactly 11 cards, got 10"):
        best_discards(twelve[:10])
    with pytest.raises(DuplicateCardError, match="duplicate card: Ac"):
        best_discards([*twelve[:10], ALL_CARDS[0]])
    with pytest.raises(ValueError, match="exactly 11 cards, got 12"):
        deadwood_after_each_discard(tuple(twelve))


def test_eleven_cards_with_a_stranger_or_a_repeat_get_the_full_check() -> None:
    """The written-out check of 11 cards (``best_discards``' usual call) hands
    anything odd to the card-by-card check, which names the fault."""

    class LooksLikeACard:
        bit = 1 << 51

    ten = list(ALL_CARDS[13:23])  # Ad..Td: no club
    with pytest.raises(TypeError, match="expected a Card, got <"):
        best_discards([*ten, LooksLikeACard()])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="expected a Card, got 'Ac'"):
        best_discards(("Ac", *ten))  # type: ignore[arg-type]
    # Ac twice: its two bits add up to the bit of 2c, a card not in the hand.
    with pytest.raises(DuplicateCardError, match="duplicate card: Ac"):
        best_discards([ALL_CARDS[0], *ten[:9], ALL_CARDS[0]])
    with pytest.raises(ValueError, match="exactly 11 cards, got 10"):
        best_discards(tuple(ten))


def test_ten_cards_with_a_stranger_or_a_repeat_get_the_full_check() -> None:
    """The written-out check of 10 cards (``min_deadwood``'s usual call) hands
    anything odd to the card-by-card check, which names the fault."""

    class LooksLikeACard:
        bit = 1 << 51

    nine = list(ALL_CARDS[13:22])  # Ad..9d: no club, no spade
    with pytest.raises(TypeError, match="expected a Card, got <"):
        min_deadwood([*nine, LooksLikeACard()])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="expected a Card, got 'Ac'"):
        min_deadwood(("Ac", *nine))  # type: ignore[arg-type]
    # Ac twice: its two bits add up to the bit of 2c, a card not in the hand.
    with pytest.raises(DuplicateCardError, match="duplicate card: Ac"):
        min_deadwood([ALL_CARDS[0], *nine[:8], ALL_CARDS[0]])
    # Ad..9d is one run of 45 points; Kc Kh Ks is a set beside it (no deadwood).
    kings = [Card.parse("Kc"), Card.parse("Kh"), Card.parse("Ks")]
    assert min_deadwood(tuple(nine[:7] + kings)) == 0
    assert min_deadwood([*nine, ALL_CARDS[12]]) == 10


def test_the_list_of_best_discards_is_the_callers_own() -> None:
    hand = parse_cards("Ac 3c 5c 2d 5d 2h 3h 4h As 3s 5s")
    deadwood, discards = best_discards(hand)
    assert (deadwood, discards) == (6, parse_cards("4h"))
    discards.append(ALL_CARDS[0])
    assert best_discards(hand) == (6, parse_cards("4h"))
    no_set = parse_cards("Ac 2c 3c 5d 6d 7d Th Kh Js Qs Ks")  # no set, two ties
    first = best_discards_mask(cards_to_mask(no_set))[1]
    first.clear()
    assert best_discards_mask(cards_to_mask(no_set)) == (10, parse_cards("Th Kh"))
