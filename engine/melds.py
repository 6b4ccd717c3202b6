"""Melds, deadwood and meld arrangements (docs/rules.md#melds, docs/rules.md#deadwood).

A **set** is 3 or 4 cards of one rank; a **run** is 3 or more cards of one suit in
consecutive ranks (ace low, no wrap). A card belongs to at most one meld, and a
hand's deadwood is the value of the cards left out of melds under the arrangement
that makes it smallest.

How the search works (and why it is fast in pure Python): runs live inside one
suit, and in one suit, once the cards taken by sets are removed, the best runs are
simply every maximal stretch of 3 or more consecutive ranks (a run may be any
length, so nothing is gained by leaving part of a stretch out). So a table over all
8192 13-bit suit masks gives the run-only meld value of a suit at a glance, and the
only real choice left is which sets to form. Only ranks held in 3 or 4 suits can
form a set (at most three such ranks in 11 cards); for each the choices are: no
set, the 3-card set, or (with 4 cards) all four or any one of the four 3-subsets.
Every combination of choices is scored with four table lookups. For 11 cards a
second table gives, per suit mask, the best gain from discarding one of its cards.

Hands are bitmasks: bit ``card.index`` set for each card (see :mod:`engine.cards`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import pairwise, product
from typing import Final

from engine.cards import ALL_CARDS, Card, DuplicateCardError, mask_to_cards, parse_cards

__all__ = [
    "Arrangement",
    "InvalidMeldsError",
    "best_arrangement",
    "best_discards",
    "deadwood_after_each_discard",
    "deadwood_of",
    "hand_mask",
    "is_run",
    "is_set",
    "is_valid_meld",
    "mask_value",
    "max_meld_value",
    "min_deadwood",
    "validate_arrangement",
]

Arrangement = tuple[tuple[Card, ...], ...]
"""A tuple of melds, each a tuple of cards."""

_SUIT_BITS: Final = 13
_SUIT_FULL: Final = (1 << _SUIT_BITS) - 1
_RANK_VALUE: Final[tuple[int, ...]] = tuple(min(rank, 10) for rank in range(1, 14))
"""Deadwood value by bit position inside a suit mask (bit 0 = ace)."""
_NO_CARD_GAIN: Final = -(10**6)
"""Discard gain of an empty suit: far below any real gain, so never chosen."""
_MAX_SEARCH_CARDS: Final = 11


def _stretches(mask: int) -> list[tuple[int, int]]:
    """The ``(start, stop)`` rank ranges of the consecutive set bits of a suit mask."""
    stretches = []
    rank = 0
    while rank < _SUIT_BITS:
        if not (mask >> rank) & 1:
            rank += 1
            continue
        start = rank
        while rank < _SUIT_BITS and (mask >> rank) & 1:
            rank += 1
        stretches.append((start, rank))
    return stretches


def _build_run_tables() -> tuple[list[int], list[int], list[int], list[int]]:
    """Per 13-bit suit mask: run meld value, cards in runs, best one-card discard
    gain and the cards reaching that gain.

    The discard gain of card ``c`` in suit mask ``m`` is ``value(c) + run(m - c) -
    run(m)``: how much the suit's deadwood drops when ``c`` leaves the hand.
    """
    size = 1 << _SUIT_BITS
    run_value = [0] * size
    run_cards = [0] * size
    for mask in range(1, size):
        value = 0
        cards = 0
        for start, stop in _stretches(mask):
            if stop - start >= 3:
                value += sum(_RANK_VALUE[start:stop])
                cards |= ((1 << (stop - start)) - 1) << start
        run_value[mask] = value
        run_cards[mask] = cards
    drop_gain = [_NO_CARD_GAIN] * size
    drop_cards = [0] * size
    for mask in range(1, size):
        base = run_value[mask]
        best = _NO_CARD_GAIN
        best_cards = 0
        rest = mask
        while rest:
            low = rest & -rest
            rest ^= low
            gain = _RANK_VALUE[low.bit_length() - 1] + run_value[mask ^ low] - base
            if gain > best:
                best = gain
                best_cards = low
            elif gain == best:
                best_cards |= low
        drop_gain[mask] = best
        drop_cards[mask] = best_cards
    return run_value, run_cards, drop_gain, drop_cards


_RUN_VALUE, _RUN_CARDS, _DROP_GAIN, _DROP_CARDS = _build_run_tables()


def _build_set_options() -> list[tuple[tuple[int, int], ...]]:
    """Set choices for rank ``r`` held in suits ``pattern``: index ``r * 16 + pattern``.

    Each choice is ``(meld value, 52-bit mask of the cards kept for runs)``; the
    first is always "no set", then the set of all held cards, and with four cards
    also each 3-card subset (its fourth card may do better in a run, or as the
    discard of an 11-card hand).
    """
    all_ones = (1 << 52) - 1
    options: list[tuple[tuple[int, int], ...]] = []
    for rank in range(13):
        value = _RANK_VALUE[rank]
        for pattern in range(16):
            suits = [suit for suit in range(4) if (pattern >> suit) & 1]
            if len(suits) < 3:
                options.append(((0, all_ones),))
                continue
            subsets = [suits] if len(suits) == 3 else [suits, *([s for s in suits if s != left]
                                                                 for left in suits)]
            choices = [(0, all_ones)]
            for subset in subsets:
                taken = 0
                for suit in subset:
                    taken |= 1 << (suit * _SUIT_BITS + rank)
                choices.append((value * len(subset), all_ones ^ taken))
            options.append(tuple(choices))
    return options


_SET_OPTIONS: Final = _build_set_options()


def _set_ranks(mask: int) -> int:
    """13-bit mask of the ranks present in at least three suits of ``mask``."""
    s0 = mask & _SUIT_FULL
    s1 = (mask >> 13) & _SUIT_FULL
    s2 = (mask >> 26) & _SUIT_FULL
    s3 = mask >> 39
    return (s0 & s1 & (s2 | s3)) | (s2 & s3 & (s0 | s1))


def _rank_options(mask: int, set_ranks: int) -> list[tuple[tuple[int, int], ...]]:
    """The set choices (see :func:`_build_set_options`) of every rank in ``set_ranks``."""
    choices = []
    while set_ranks:
        low = set_ranks & -set_ranks
        set_ranks ^= low
        rank = low.bit_length() - 1
        pattern = (
            ((mask >> rank) & 1)
            | ((mask >> (rank + 12)) & 2)
            | ((mask >> (rank + 24)) & 4)
            | ((mask >> (rank + 36)) & 8)
        )
        choices.append(_SET_OPTIONS[rank * 16 + pattern])
    return choices


def _runs_value(mask: int) -> int:
    run = _RUN_VALUE
    return (
        run[mask & 8191] + run[(mask >> 13) & 8191] + run[(mask >> 26) & 8191] + run[mask >> 39]
    )


def max_meld_value(mask: int) -> int:
    """The largest total value of cards that can be melded from the hand ``mask``
    (a 52-bit card mask; meant for hands of up to 11 cards, as the number of set
    choices grows quickly beyond that)."""
    set_ranks = _set_ranks(mask)
    run = _RUN_VALUE
    if not set_ranks:
        return (
            run[mask & 8191] + run[(mask >> 13) & 8191] + run[(mask >> 26) & 8191]
            + run[mask >> 39]
        )
    choices = _rank_options(mask, set_ranks)
    best = 0
    if len(choices) == 1:
        for value, keep in choices[0]:
            rest = mask & keep
            total = (
                value + run[rest & 8191] + run[(rest >> 13) & 8191]
                + run[(rest >> 26) & 8191] + run[rest >> 39]
            )
            if total > best:
                best = total
        return best
    if len(choices) == 2:
        second = choices[1]
        for value1, keep1 in choices[0]:
            rest1 = mask & keep1
            for value2, keep2 in second:
                rest = rest1 & keep2
                total = (
                    value1 + value2 + run[rest & 8191] + run[(rest >> 13) & 8191]
                    + run[(rest >> 26) & 8191] + run[rest >> 39]
                )
                if total > best:
                    best = total
        return best
    for combo in product(*choices):
        rest = mask
        total = 0
        for value, keep in combo:
            rest &= keep
            total += value
        total += _runs_value(rest)
        if total > best:
            best = total
    return best


def mask_value(mask: int) -> int:
    """The total deadwood value of the cards in ``mask``."""
    total = 0
    while mask:
        low = mask & -mask
        mask ^= low
        total += ALL_CARDS[low.bit_length() - 1].value
    return total


def hand_mask(cards: Iterable[Card] | str, *, max_cards: int = 52) -> int:
    """The bitmask of ``cards`` (a card iterable or text such as ``"As Td 7c"``).

    Raises :class:`~engine.cards.DuplicateCardError` for a repeated card,
    ``TypeError`` for a non-card and ``ValueError`` for more than ``max_cards`` cards.
    """
    if isinstance(cards, str):
        cards = parse_cards(cards)
    mask = 0
    count = 0
    for card in cards:
        if not isinstance(card, Card):
            raise TypeError(f"expected a Card, got {card!r}")
        if mask & card.bit:
            raise DuplicateCardError(f"duplicate card: {card}", str(card))
        mask |= card.bit
        count += 1
    if count > max_cards:
        raise ValueError(f"expected at most {max_cards} cards, got {count}")
    return mask


def _exact_mask(cards: Iterable[Card] | str, count: int) -> int:
    mask = hand_mask(cards)
    if mask.bit_count() != count:
        raise ValueError(f"expected exactly {count} cards, got {mask.bit_count()}")
    return mask


def min_deadwood(cards: Iterable[Card] | str) -> int:
    """The exact minimum deadwood of a hand of at most 11 cards (docs/rules.md#deadwood)."""
    mask = hand_mask(cards, max_cards=_MAX_SEARCH_CARDS)
    return mask_value(mask) - max_meld_value(mask)


def _best_discard_search(mask: int) -> tuple[int, int]:
    """For an 11-card hand: (largest melded value plus discarded value, mask of every
    discard reaching it). The deadwood after the discard is hand value minus that."""
    set_ranks = _set_ranks(mask)
    choices = _rank_options(mask, set_ranks) if set_ranks else [((0, -1),)]
    run = _RUN_VALUE
    gain = _DROP_GAIN
    gain_cards = _DROP_CARDS
    best = _NO_CARD_GAIN
    best_cards = 0
    for combo in product(*choices):
        rest = mask
        total = 0
        for value, keep in combo:
            rest &= keep
            total += value
        m0 = rest & 8191
        m1 = (rest >> 13) & 8191
        m2 = (rest >> 26) & 8191
        m3 = rest >> 39
        g0 = gain[m0]
        g1 = gain[m1]
        g2 = gain[m2]
        g3 = gain[m3]
        top = max(g0, g1, g2, g3)
        total += run[m0] + run[m1] + run[m2] + run[m3] + top
        if total < best:
            continue
        reached = (
            (gain_cards[m0] if g0 == top else 0)
            | (gain_cards[m1] << 13 if g1 == top else 0)
            | (gain_cards[m2] << 26 if g2 == top else 0)
            | (gain_cards[m3] << 39 if g3 == top else 0)
        )
        if total > best:
            best = total
            best_cards = reached
        else:
            best_cards |= reached
    return best, best_cards


def best_discards(cards: Iterable[Card] | str) -> tuple[int, list[Card]]:
    """For an 11-card hand: the lowest deadwood reachable by discarding one card,
    and every discard that reaches it (sorted by suit, then rank).

    Every discard is weighed, so hands where two arrangements meld equal points but
    leave different cards idle get every right answer.
    """
    mask = _exact_mask(cards, 11)
    best, reached = _best_discard_search(mask)
    discards = [card for card in ALL_CARDS if reached & card.bit]
    discards.sort()
    return mask_value(mask) - best, discards


def deadwood_after_each_discard(cards: Iterable[Card] | str) -> dict[Card, int]:
    """For an 11-card hand: the minimum deadwood of the 10 cards left after each
    possible discard (used to list the legal knock discards), keyed in sort order."""
    mask = _exact_mask(cards, 11)
    total = mask_value(mask)
    best_melded = _best_melded_after_each_discard(mask)
    result: dict[Card, int] = {}
    for card in sorted(mask_to_cards(mask)):
        result[card] = total - card.value - best_melded[card.bit]
    return result


def _best_melded_after_each_discard(mask: int) -> dict[int, int]:
    """Card bit -> the largest melded value of ``mask`` without that card.

    One pass over the set choices: under a choice, discarding a card outside its
    sets changes only that card's suit, so each card costs one table lookup. Every
    card is outside all sets under the "no sets" choice, so every card gets a value.
    """
    set_ranks = _set_ranks(mask)
    choices = _rank_options(mask, set_ranks) if set_ranks else [((0, -1),)]
    run = _RUN_VALUE
    best: dict[int, int] = {}
    for combo in product(*choices):
        rest = mask
        set_value = 0
        for value, keep in combo:
            rest &= keep
            set_value += value
        suit_masks = (rest & 8191, (rest >> 13) & 8191, (rest >> 26) & 8191, rest >> 39)
        base = set_value + run[suit_masks[0]] + run[suit_masks[1]] + run[suit_masks[2]] + run[
            suit_masks[3]]
        for suit, suit_mask in enumerate(suit_masks):
            others = base - run[suit_mask]
            shift = 13 * suit
            remaining = suit_mask
            while remaining:
                low = remaining & -remaining
                remaining ^= low
                melded = others + run[suit_mask ^ low]
                bit = low << shift
                if melded > best.get(bit, -1):
                    best[bit] = melded
    return best


def _runs_of_suit_mask(suit_mask: int, suit: int) -> list[tuple[Card, ...]]:
    """The maximal stretches of 3+ consecutive ranks in one suit, as runs."""
    return [tuple(ALL_CARDS[suit * 13 + rank] for rank in range(start, stop))
            for start, stop in _stretches(_RUN_CARDS[suit_mask])]


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
    mask = hand_mask(cards, max_cards=_MAX_SEARCH_CARDS)
    set_ranks = _set_ranks(mask)
    choices = _rank_options(mask, set_ranks) if set_ranks else [((0, -1),)]
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
            suit_mask = (rest >> (13 * suit)) & _SUIT_FULL
            runs_value += _RUN_VALUE[suit_mask]
            run_count += _RUN_CARDS[suit_mask].bit_count()
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
        melds.extend(_runs_of_suit_mask((best_rest >> (13 * suit)) & _SUIT_FULL, suit))
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
