"""The deadwood search on bare 52-bit hand masks, for the engine's own callers.

Nothing here checks its input: a mask is trusted to be a hand the engine built
(:func:`engine.melds.hand_mask` checks what comes from outside, once). The public,
validating functions of :mod:`engine.melds` call these after the check.

Only ranks held in 3 or 4 suits can form a set (at most three such ranks in 11
cards); for each the choices are: no set, the 3-card set, or (with 4 cards) all
four or any one of the four 3-subsets. Every combination of choices is scored
with four row lookups (:mod:`engine.deadwood_tables`). Most hands have no such
rank, and then the answer is four lookups and no search at all.

The best discards of an 11-card hand are scored as deadwood: each row's idle value
less the largest one-card discard gain, on the rows a choice of sets leaves (a
set's cards are melded). With only ranks held exactly three times (nearly every
hand with a set) a choice is a subset of those ranks whose bits leave every row,
so the choices are a loop over the subsets, not a product of options.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import product

from engine.cards import ALL_CARDS, SUIT_ROWS, Card, mask_to_cards
from engine.deadwood_tables import (
    DROP_CODES,
    DROP_MASKS,
    GAIN_BASE,
    GAIN_BYTES,
    IDLE_BYTES,
    ROW_IDLE,
    ROW_VALUE,
    RUN_VALUE,
    SET_OPTIONS,
    SetChoice,
)

__all__ = [
    "best_discards_mask",
    "best_melded_after_each_discard",
    "deadwood_after_each_discard_mask",
    "lowest_deadwood_after_discard_mask",
    "mask_value",
    "max_meld_value",
    "min_deadwood_mask",
    "rank_options",
    "set_ranks",
]

_DROP_CLUBS, _DROP_DIAMONDS, _DROP_HEARTS, _DROP_SPADES = (
    tuple(rows[cards] for cards in DROP_MASKS) for rows in SUIT_ROWS)
"""Per suit, per code of :data:`engine.deadwood_tables.DROP_CODES`: the best
discards as cards (the tuples of :data:`engine.cards.SUIT_ROWS`)."""

_NO_SETS: tuple[tuple[SetChoice, ...], ...] = (((0, -1),),)
"""The single "no set" choice of a hand without any rank held three times."""


def set_ranks(mask: int) -> int:
    """13-bit mask of the ranks present in at least three suits of ``mask``."""
    s0 = mask & 8191
    s1 = (mask >> 13) & 8191
    s2 = (mask >> 26) & 8191
    s3 = mask >> 39
    return (s0 & s1 & (s2 | s3)) | (s2 & s3 & (s0 | s1))


def rank_options(mask: int, ranks: int) -> list[tuple[SetChoice, ...]]:
    """The set choices (see :func:`engine.deadwood_tables.build_set_options`) of
    every rank in the 13-bit rank mask ``ranks``."""
    choices = []
    while ranks:
        low = ranks & -ranks
        ranks ^= low
        rank = low.bit_length() - 1
        pattern = (
            ((mask >> rank) & 1)
            | ((mask >> (rank + 12)) & 2)
            | ((mask >> (rank + 24)) & 4)
            | ((mask >> (rank + 36)) & 8)
        )
        choices.append(SET_OPTIONS[rank * 16 + pattern])
    return choices


def _choices(mask: int) -> list[tuple[SetChoice, ...]] | tuple[tuple[SetChoice, ...], ...]:
    ranks = set_ranks(mask)
    return rank_options(mask, ranks) if ranks else _NO_SETS


def mask_value(mask: int) -> int:
    """The total deadwood value of the cards in ``mask``."""
    value = ROW_VALUE
    return (value[mask & 8191] + value[(mask >> 13) & 8191] + value[(mask >> 26) & 8191]
            + value[mask >> 39])


def _runs_value(mask: int) -> int:
    run = RUN_VALUE
    return run[mask & 8191] + run[(mask >> 13) & 8191] + run[(mask >> 26) & 8191] + run[mask >> 39]


def max_meld_value(mask: int) -> int:
    """The largest total value of cards that can be melded from the hand ``mask``
    (meant for hands of up to 11 cards: the set choices multiply beyond that)."""
    ranks = set_ranks(mask)
    if not ranks:
        return _runs_value(mask)
    return _max_meld_value_with_sets(mask, ranks)


def _one_rank_options(mask: int, ranks: int) -> tuple[SetChoice, ...]:
    """The set choices of the only rank in ``ranks`` (a single bit)."""
    rank = ranks.bit_length() - 1
    return SET_OPTIONS[rank * 16 + (
        ((mask >> rank) & 1)
        | ((mask >> (rank + 12)) & 2)
        | ((mask >> (rank + 24)) & 4)
        | ((mask >> (rank + 36)) & 8)
    )]


def _max_meld_value_with_sets(mask: int, ranks: int) -> int:
    run = RUN_VALUE
    best = 0
    if not ranks & (ranks - 1):  # one rank held three or four times: the usual case
        for value, keep in _one_rank_options(mask, ranks):
            rest = mask & keep
            total = (
                value + run[rest & 8191] + run[(rest >> 13) & 8191]
                + run[(rest >> 26) & 8191] + run[rest >> 39]
            )
            if total > best:
                best = total
        return best
    choices = rank_options(mask, ranks)
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


def min_deadwood_mask(mask: int) -> int:
    """The minimum deadwood of the hand ``mask`` (at most 11 cards, unchecked)."""
    s0 = mask & 8191
    s1 = (mask >> 13) & 8191
    s2 = (mask >> 26) & 8191
    s3 = mask >> 39
    idle = ROW_IDLE
    lowest = idle[s0] + idle[s1] + idle[s2] + idle[s3]
    ranks = (s0 & s1 & (s2 | s3)) | (s2 & s3 & (s0 | s1))
    if not ranks:
        return lowest
    if s0 & s1 & s2 & s3:  # a rank held four times: its set may leave any card out
        value = ROW_VALUE
        return (value[s0] + value[s1] + value[s2] + value[s3]
                - _max_meld_value_with_sets(mask, ranks))
    # Every rank of ``ranks`` held exactly three times (a quarter of uniform hands):
    # a choice of sets takes some of these ranks' bits out of every row (a no-op on
    # the row without them); the set cards are melded, so the deadwood is the idle
    # value of the rows left. One loop over the subsets of the ranks.
    taken = ranks
    while taken:
        kept = ~taken
        deadwood = idle[s0 & kept] + idle[s1 & kept] + idle[s2 & kept] + idle[s3 & kept]
        if deadwood < lowest:
            lowest = deadwood
        taken = (taken - 1) & ranks
    return lowest


def best_discards_mask(mask: int) -> tuple[int, list[Card]]:
    """For the 11-card hand ``mask`` (unchecked): the lowest deadwood reachable by
    one discard, and every discard reaching it, in card (suit, then rank) order."""
    s0 = mask & 8191
    s1 = (mask >> 13) & 8191
    s2 = (mask >> 26) & 8191
    s3 = mask >> 39
    gain = GAIN_BYTES
    g0 = gain[s0]
    g1 = gain[s1]
    g2 = gain[s2]
    g3 = gain[s3]
    top = g0 if g0 >= g1 else g1  # comparisons: cheaper than a call of max()
    if g2 > top:
        top = g2
    if g3 > top:
        top = g3
    ranks = (s0 & s1 & (s2 | s3)) | (s2 & s3 & (s0 | s1))
    # Deadwood without sets: each row's idle value, less the best discard. A set's
    # cards are melded, so a choice of sets is scored on the rows left without them.
    idle = IDLE_BYTES
    lowest = idle[s0] + idle[s1] + idle[s2] + idle[s3] + GAIN_BASE - top
    if ranks:
        if s0 & s1 & s2 & s3:  # a rank held four times: its set may leave any card out
            lowest, reached = _best_discard_over(
                mask, _with_sets(mask, ranks), lowest,
                _drop_mask(s0, s1, s2, s3, g0, g1, g2, g3, top))
            return lowest, mask_to_cards(reached)
        # Every rank of ``ranks`` held exactly three times (a third of uniform hands,
        # nearly all with one such rank): a choice of sets takes some of these ranks'
        # bits out of every row (a no-op on the row without them). Rows win in place.
        o0, o1, o2, o3 = s0, s1, s2, s3
        tied = 0  # the discards of the choices tied with the lowest so far
        taken = ranks
        while taken:
            kept = ~taken
            taken = (taken - 1) & ranks  # the next subset of the ranks
            r0 = o0 & kept
            r1 = o1 & kept
            r2 = o2 & kept
            r3 = o3 & kept
            h0 = gain[r0]
            h1 = gain[r1]
            h2 = gain[r2]
            h3 = gain[r3]
            high = h0 if h0 >= h1 else h1
            if h2 > high:
                high = h2
            if h3 > high:
                high = h3
            deadwood = idle[r0] + idle[r1] + idle[r2] + idle[r3] + GAIN_BASE - high
            if deadwood < lowest:
                lowest = deadwood
                s0, s1, s2, s3, g0, g1, g2, g3, top = r0, r1, r2, r3, h0, h1, h2, h3, high
                tied = 0
            elif deadwood == lowest:
                tied |= _drop_mask(r0, r1, r2, r3, h0, h1, h2, h3, high)
        if tied:
            return lowest, mask_to_cards(tied | _drop_mask(s0, s1, s2, s3, g0, g1, g2, g3, top))
    # The answer: the best discards of every row whose gain is the top one. Written
    # out here (not a function of its own): the call cost a tenth of the search.
    code = DROP_CODES
    return lowest, [*(_DROP_CLUBS[code[s0]] if g0 == top else ()),
                    *(_DROP_DIAMONDS[code[s1]] if g1 == top else ()),
                    *(_DROP_HEARTS[code[s2]] if g2 == top else ()),
                    *(_DROP_SPADES[code[s3]] if g3 == top else ())]


def _drop_mask(m0: int, m1: int, m2: int, m3: int, g0: int, g1: int, g2: int, g3: int,
               top: int) -> int:
    """The best discards (those gaining ``top``, the largest of the rows' gains ``g0``
    .. ``g3``) of the suit rows ``m0`` .. ``m3`` as a 52-bit mask, for merging the
    discards of tied choices."""
    cards = DROP_MASKS
    code = DROP_CODES
    return ((cards[code[m0]] if g0 == top else 0)
            | (cards[code[m1]] << 13 if g1 == top else 0)
            | (cards[code[m2]] << 26 if g2 == top else 0)
            | (cards[code[m3]] << 39 if g3 == top else 0))


def lowest_deadwood_after_discard_mask(mask: int) -> int:
    """:func:`best_discards_mask`'s deadwood alone, for the 11-card hand ``mask``
    (unchecked): what the knock check asks."""
    return best_discards_mask(mask)[0]


def _with_sets(mask: int, ranks: int) -> Sequence[SetChoice]:
    """Every set choice of the hand ``mask`` but "no set" (scored on its own by the
    callers), for the ranks held three or four times (``ranks``, not empty)."""
    if not ranks & (ranks - 1):  # one rank held three or four times: the usual case
        rank = ranks.bit_length() - 1
        return SET_OPTIONS[rank * 16 + (
            ((mask >> rank) & 1)
            | ((mask >> (rank + 12)) & 2)
            | ((mask >> (rank + 24)) & 4)
            | ((mask >> (rank + 36)) & 8)
        )][1:]
    return _set_combinations(mask, ranks)


def _set_combinations(mask: int, ranks: int) -> list[SetChoice]:
    """Every combination of the set choices of two or more ranks, as one choice:
    ``(set value, mask of the cards kept for runs)``; all but the first, "no set"
    for every rank, which :func:`best_discards_mask` scores on its own."""
    combined = []
    combos = product(*rank_options(mask, ranks))
    next(combos)
    for combo in combos:
        kept = -1
        total = 0
        for value, keep in combo:
            kept &= keep
            total += value
        combined.append((total, kept))
    return combined


def _best_discard_over(mask: int, choices: Sequence[SetChoice], lowest: int, lowest_cards: int
                       ) -> tuple[int, int]:
    """The lowest deadwood after one discard, and every discard reaching it, over the
    set ``choices`` for the hand ``mask``, starting from ``lowest`` reached by the
    discards ``lowest_cards``."""
    idle = IDLE_BYTES
    gain = GAIN_BYTES
    for _, keep in choices:
        rest = mask & keep
        m0 = rest & 8191
        m1 = (rest >> 13) & 8191
        m2 = (rest >> 26) & 8191
        m3 = rest >> 39
        g0 = gain[m0]
        g1 = gain[m1]
        g2 = gain[m2]
        g3 = gain[m3]
        top = g0 if g0 >= g1 else g1
        if g2 > top:
            top = g2
        if g3 > top:
            top = g3
        deadwood = idle[m0] + idle[m1] + idle[m2] + idle[m3] + GAIN_BASE - top
        if deadwood > lowest:
            continue
        reached = _drop_mask(m0, m1, m2, m3, g0, g1, g2, g3, top)
        if deadwood < lowest:
            lowest = deadwood
            lowest_cards = reached
        else:
            lowest_cards |= reached
    return lowest, lowest_cards


def best_melded_after_each_discard(mask: int) -> dict[int, int]:
    """Card bit -> the largest melded value of ``mask`` without that card.

    One pass over the set choices: under a choice, discarding a card outside its
    sets changes only that card's suit, so each card costs one table lookup. Every
    card is outside all sets under the "no sets" choice, so every card gets a value.
    """
    run = RUN_VALUE
    best: dict[int, int] = {}
    for combo in product(*_choices(mask)):
        rest = mask
        set_value = 0
        for value, keep in combo:
            rest &= keep
            set_value += value
        rows = (rest & 8191, (rest >> 13) & 8191, (rest >> 26) & 8191, rest >> 39)
        base = set_value + run[rows[0]] + run[rows[1]] + run[rows[2]] + run[rows[3]]
        for suit, row in enumerate(rows):
            others = base - run[row]
            shift = 13 * suit
            remaining = row
            while remaining:
                low = remaining & -remaining
                remaining ^= low
                melded = others + run[row ^ low]
                bit = low << shift
                if melded > best.get(bit, -1):
                    best[bit] = melded
    return best


def deadwood_after_each_discard_mask(mask: int) -> dict[Card, int]:
    """For the 11-card hand ``mask`` (unchecked): the minimum deadwood of the 10
    cards left after each discard, keyed in card (suit, then rank) order."""
    total = mask_value(mask)
    best_melded = best_melded_after_each_discard(mask)
    result: dict[Card, int] = {}
    rest = mask
    while rest:
        low = rest & -rest
        rest ^= low
        card = ALL_CARDS[low.bit_length() - 1]
        result[card] = total - card.value - best_melded[low]
    return result
