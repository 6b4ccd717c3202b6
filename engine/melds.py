"""Melds, deadwood and meld arrangements (docs/rules.md#melds, docs/rules.md#deadwood).

A **set** is 3 or 4 cards of one rank; a **run** is 3 or more cards of one suit in
consecutive ranks (ace low, no wrap). A card belongs to at most one meld, and a
hand's deadwood is the value of the cards left out of melds under the arrangement
that makes it smallest.

The functions here are the public door: they check what they are given (cards,
no repeats, how many) and then run the search of :mod:`engine.deadwood_search`
on the hand's bitmask (bit ``card.index`` set for each card, see
:mod:`engine.cards`). The engine's own callers, which hold masks they built, call
the ``*_mask`` functions directly and skip the check.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import pairwise, product

from engine.cards import ALL_CARDS, Card, DuplicateCardError, parse_cards
from engine.deadwood_search import (
    best_discards_mask,
    deadwood_after_each_discard_mask,
    mask_value,
    max_meld_value,
    min_deadwood_mask,
    rank_options,
    set_ranks,
)
from engine.deadwood_tables import RUN_CARDS, RUN_VALUE, SUIT_FULL, stretches

__all__ = [
    "Arrangement",
    "InvalidMeldsError",
    "best_arrangement",
    "best_arrangement_mask",
    "best_discards",
    "best_discards_mask",
    "deadwood_after_each_discard",
    "deadwood_after_each_discard_mask",
    "deadwood_of",
    "hand_mask",
    "is_run",
    "is_set",
    "is_valid_meld",
    "mask_value",
    "max_meld_value",
    "min_deadwood",
    "min_deadwood_mask",
    "validate_arrangement",
]

Arrangement = tuple[tuple[Card, ...], ...]
"""A tuple of melds, each a tuple of cards."""

_MAX_SEARCH_CARDS = 11


def hand_mask(cards: Iterable[Card] | str, *, max_cards: int = 52) -> int:
    """The bitmask of ``cards`` (a card iterable or text such as ``"As Td 7c"``).

    Raises :class:`~engine.cards.DuplicateCardError` for a repeated card,
    ``TypeError`` for a non-card and ``ValueError`` for more than ``max_cards`` cards.
    """
    mask = _quick_mask(cards)
    if mask >= 0 and mask.bit_count() <= max_cards:
        return mask
    if isinstance(cards, str):
        cards = parse_cards(cards)
    return _checked_hand_mask(list(cards), max_cards)


def _quick_mask(cards: object) -> int:
    """The mask of a list or tuple of distinct cards, in one pass; -1 for anything
    else (text, another iterable, a non-card, a repeat), which the full check sorts
    out. This is the check every public call pays, so it is kept to one loop."""
    if cards.__class__ is not list and cards.__class__ is not tuple:
        return -1
    mask = 0
    for card in cards:
        if card.__class__ is not Card:
            return -1
        mask |= card.bit
    # A repeated card sets no new bit: fewer bits than cards means a repeat.
    return mask if mask.bit_count() == len(cards) else -1


def _checked_hand_mask(cards: Sequence[Card], max_cards: int) -> int:
    """:func:`hand_mask` card by card, for input that failed its quick check: names
    the first fault in the order the cards come."""
    mask = 0
    for card in cards:
        if not isinstance(card, Card):
            raise TypeError(f"expected a Card, got {card!r}")
        if mask & card.bit:
            raise DuplicateCardError(f"duplicate card: {card}", str(card))
        mask |= card.bit
    if len(cards) > max_cards:
        raise ValueError(f"expected at most {max_cards} cards, got {len(cards)}")
    return mask


def _exact_mask(cards: Iterable[Card] | str, count: int) -> int:
    mask = _quick_mask(cards)
    if mask >= 0 and mask.bit_count() == count:
        return mask
    mask = hand_mask(cards)
    if mask.bit_count() != count:
        raise ValueError(f"expected exactly {count} cards, got {mask.bit_count()}")
    return mask


def min_deadwood(cards: Iterable[Card] | str) -> int:
    """The exact minimum deadwood of a hand of at most 11 cards (docs/rules.md#deadwood)."""
    # The usual call, 10 cards in a list or tuple, checked card by card written out: no
    # loop, and `+` (which Python specialises for ints, unlike `|`). The bits of 10
    # distinct cards add up to 10 set bits; a repeated card carries into fewer. (The
    # search written out here as well measured slower than the call.)
    if (cards.__class__ is list or cards.__class__ is tuple) and len(cards) == 10:
        a, b, c, d, e, f, g, h, i, j = cards
        card = Card
        if (a.__class__ is card and b.__class__ is card and c.__class__ is card
                and d.__class__ is card and e.__class__ is card and f.__class__ is card
                and g.__class__ is card and h.__class__ is card and i.__class__ is card
                and j.__class__ is card):
            mask = a.bit + b.bit + c.bit + d.bit + e.bit + f.bit + g.bit + h.bit + i.bit + j.bit
            if mask.bit_count() == 10:
                return min_deadwood_mask(mask)
    return min_deadwood_mask(hand_mask(cards, max_cards=_MAX_SEARCH_CARDS))


def best_discards(cards: Iterable[Card] | str) -> tuple[int, list[Card]]:
    """For an 11-card hand: the lowest deadwood reachable by discarding one card,
    and every discard that reaches it (sorted by suit, then rank).

    Every discard is weighed, so hands where two arrangements meld equal points but
    leave different cards idle get every right answer.
    """
    # The usual call, 11 cards in a list or tuple, checked card by card written out:
    # no loop, and `+` (which Python specialises for ints, unlike `|`). The bits of
    # 11 distinct cards add up to 11 set bits; a repeated card carries into fewer.
    if (cards.__class__ is list or cards.__class__ is tuple) and len(cards) == 11:
        a, b, c, d, e, f, g, h, i, j, k = cards
        card = Card
        if (a.__class__ is card and b.__class__ is card and c.__class__ is card
                and d.__class__ is card and e.__class__ is card and f.__class__ is card
                and g.__class__ is card and h.__class__ is card and i.__class__ is card
                and j.__class__ is card and k.__class__ is card):
            mask = (a.bit + b.bit + c.bit + d.bit + e.bit + f.bit + g.bit + h.bit + i.bit
                    + j.bit + k.bit)
            if mask.bit_count() == 11:
                return best_discards_mask(mask)
    return best_discards_mask(_exact_mask(cards, 11))


def deadwood_after_each_discard(cards: Iterable[Card] | str) -> dict[Card, int]:
    """For an 11-card hand: the minimum deadwood of the 10 cards left after each
    possible discard (used to list the legal knock discards), keyed in sort order."""
    return deadwood_after_each_discard_mask(_exact_mask(cards, 11))


def _runs_of_row(row: int, suit: int) -> list[tuple[Card, ...]]:
    """The maximal stretches of 3+ consecutive ranks in one suit row, as runs."""
    return [tuple(ALL_CARDS[suit * 13 + rank] for rank in range(start, stop))
            for start, stop in stretches(RUN_CARDS[row])]


def best_arrangement(cards: Iterable[Card] | str) -> tuple[int, Arrangement]:
    """A minimum-deadwood arrangement of at most 11 cards: ``(deadwood, melds)``.

    Among all arrangements of minimum deadwood, runs are always taken whole (a
    stretch of consecutive cards of one suit outside sets is one run, never split)
    and the tie-break, which looks only at these cards, is:

    1. fewest deadwood cards (most cards melded);
    2. fewest cards in sets (prefer runs);
    3. the smallest set-card bitmask, where card ``c`` contributes
       ``2 ** c.index`` (``index = suit * 13 + rank - 1``, clubs first) — i.e. a set
       leaves out the highest-suited card it can.

    Melds are returned sets first (by rank), then runs (by suit, then rank); the
    cards of a meld in sort order (suit, then rank).
    """
    return best_arrangement_mask(hand_mask(cards, max_cards=_MAX_SEARCH_CARDS))


def best_arrangement_mask(mask: int) -> tuple[int, Arrangement]:
    """:func:`best_arrangement` of the hand ``mask`` (at most 11 cards, unchecked)."""
    ranks = set_ranks(mask)
    choices = rank_options(mask, ranks) if ranks else [((0, -1),)]
    best_key: tuple[int, int, int, int] | None = None
    best_rest = mask
    for combo in product(*choices):
        rest = mask
        set_value = 0
        for value, keep in combo:
            rest &= keep
            set_value += value
        set_cards = mask & ~rest
        runs_value = 0
        run_count = 0
        for suit in range(4):
            row = (rest >> (13 * suit)) & SUIT_FULL
            runs_value += RUN_VALUE[row]
            run_count += RUN_CARDS[row].bit_count()
        set_count = set_cards.bit_count()
        key = (set_value + runs_value, set_count + run_count, -set_count, -set_cards)
        if best_key is None or key > best_key:
            best_key = key
            best_rest = rest
    assert best_key is not None
    set_cards = mask & ~best_rest
    melds: list[tuple[Card, ...]] = []
    for rank in range(13):
        members = tuple(ALL_CARDS[suit * 13 + rank] for suit in range(4)
                        if (set_cards >> (suit * 13 + rank)) & 1)
        if members:
            melds.append(members)
    for suit in range(4):
        melds.extend(_runs_of_row((best_rest >> (13 * suit)) & SUIT_FULL, suit))
    return mask_value(mask) - best_key[0], tuple(melds)


# ---------------------------------------------------------------------------
# Checking a declared arrangement


class InvalidMeldsError(ValueError):
    """A declared meld arrangement is not acceptable; the message says why."""


def is_set(cards: Sequence[Card]) -> bool:
    """3 or 4 distinct cards of one rank."""
    return 3 <= len(cards) <= 4 and len({card.rank for card in cards}) == 1 and len(
        set(cards)) == len(cards)


def is_run(cards: Sequence[Card]) -> bool:
    """3 or more cards of one suit in consecutive ranks (ace low, no wrap)."""
    if len(cards) < 3 or len({card.suit for card in cards}) != 1:
        return False
    ranks = sorted(card.rank for card in cards)
    return all(later == earlier + 1 for earlier, later in pairwise(ranks))


def is_valid_meld(cards: Iterable[Card] | str) -> bool:
    """Whether ``cards`` form a set or a run (docs/rules.md#melds)."""
    if isinstance(cards, str):
        try:
            cards = parse_cards(cards, allow_duplicates=True)
        except ValueError:
            return False
    meld = list(cards)
    if not all(isinstance(card, Card) for card in meld):
        return False
    return is_set(meld) or is_run(meld)


def deadwood_of(cards: Iterable[Card], melds: Iterable[Iterable[Card]]) -> int:
    """The value of the cards of ``cards`` that are in none of ``melds`` (unchecked)."""
    melded = {card for meld in melds for card in meld}
    return sum(card.value for card in cards if card not in melded)


def validate_arrangement(
    cards: Iterable[Card], melds: Iterable[Iterable[Card]], *, knock_limit: int | None = None
) -> int:
    """Check a declared arrangement of ``cards`` and return its deadwood.

    Raises :class:`InvalidMeldsError` naming the problem: a meld that is not a set
    or a run, a card not in the hand, a card used twice, or (when ``knock_limit``
    is given) deadwood over the knock limit.
    """
    hand = list(cards)
    in_hand = set(hand)
    used: set[Card] = set()
    for meld_cards in melds:
        meld = list(meld_cards)
        for card in meld:
            if not isinstance(card, Card):
                raise InvalidMeldsError(f"not a card in a meld: {card!r}")
        text = " ".join(str(card) for card in meld)
        for card in meld:
            if card not in in_hand:
                raise InvalidMeldsError(f"card {card} in meld [{text}] is not in the hand")
            if card in used:
                raise InvalidMeldsError(f"card {card} is used twice in the melds")
            used.add(card)
        if not (is_set(meld) or is_run(meld)):
            raise InvalidMeldsError(f"[{text}] is neither a set nor a run")
    deadwood = sum(card.value for card in hand if card not in used)
    if knock_limit is not None and deadwood > knock_limit:
        raise InvalidMeldsError(
            f"deadwood {deadwood} is over the knock limit {knock_limit}")
    return deadwood
