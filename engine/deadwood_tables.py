"""Lookup tables over the 8192 13-bit suit rows, built once at import (~20 ms).

A hand is a 52-bit mask (bit ``card.index``); its four suit rows are 13-bit masks,
bit 0 the ace. Runs live inside one suit, and once the cards taken by sets are
removed the best runs of a row are simply its maximal stretches of 3 or more
consecutive ranks, so every per-row question the deadwood search asks (value of
the cards, value in runs, best one-card discard) is one list index.
"""

from __future__ import annotations

from typing import Final

SUIT_BITS: Final = 13
SUIT_FULL: Final = (1 << SUIT_BITS) - 1
RANK_VALUE: Final[tuple[int, ...]] = tuple(min(rank, 10) for rank in range(1, 14))
"""Deadwood value by bit position inside a suit row (bit 0 = ace)."""
NO_CARD_GAIN: Final = -(10**6)
"""Discard gain of an empty row: far below any real gain, so never chosen."""


def stretches(row: int) -> list[tuple[int, int]]:
    """The ``(start, stop)`` rank ranges of the consecutive set bits of a suit row."""
    found = []
    rank = 0
    while rank < SUIT_BITS:
        if not (row >> rank) & 1:
            rank += 1
            continue
        start = rank
        while rank < SUIT_BITS and (row >> rank) & 1:
            rank += 1
        found.append((start, rank))
    return found


def build_run_tables() -> tuple[list[int], list[int], list[int], list[int]]:
    """Per suit row: run meld value, cards in runs, best one-card discard gain and
    the cards reaching that gain.

    The discard gain of card ``c`` in row ``m`` is ``value(c) + run(m - c) -
    run(m)``: how much the row's deadwood drops when ``c`` leaves the hand.
    """
    size = 1 << SUIT_BITS
    run_value = [0] * size
    run_cards = [0] * size
    for row in range(1, size):
        value = 0
        cards = 0
        for start, stop in stretches(row):
            if stop - start >= 3:
                value += sum(RANK_VALUE[start:stop])
                cards |= ((1 << (stop - start)) - 1) << start
        run_value[row] = value
        run_cards[row] = cards
    drop_gain = [NO_CARD_GAIN] * size
    drop_cards = [0] * size
    for row in range(1, size):
        base = run_value[row]
        best = NO_CARD_GAIN
        best_cards = 0
        rest = row
        while rest:
            low = rest & -rest
            rest ^= low
            gain = RANK_VALUE[low.bit_length() - 1] + run_value[row ^ low] - base
            if gain > best:
                best = gain
                best_cards = low
            elif gain == best:
                best_cards |= low
        drop_gain[row] = best
        drop_cards[row] = best_cards
    return run_value, run_cards, drop_gain, drop_cards


def build_value_tables(run_value: list[int]) -> tuple[list[int], list[int]]:
    """Per suit row: the total value of its cards, and that total minus its run
    value (the row's deadwood when no card of it is in a set)."""
    row_value = [0] * (1 << SUIT_BITS)
    for row in range(1, 1 << SUIT_BITS):
        low = row & -row
        row_value[row] = row_value[row ^ low] + RANK_VALUE[low.bit_length() - 1]
    return row_value, [total - runs for total, runs in zip(row_value, run_value, strict=True)]


SetChoice = tuple[int, int]
"""``(meld value of the set, 52-bit mask of the cards kept for runs)``."""


def build_set_options() -> list[tuple[SetChoice, ...]]:
    """Set choices for rank ``r`` held in suits ``pattern``: index ``r * 16 + pattern``.

    The first choice is always "no set", then the set of all held cards, and with
    four cards also each 3-card subset (its fourth card may do better in a run, or
    as the discard of an 11-card hand).
    """
    all_ones = (1 << 52) - 1
    options: list[tuple[SetChoice, ...]] = []
    for rank in range(13):
        value = RANK_VALUE[rank]
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
                    taken |= 1 << (suit * SUIT_BITS + rank)
                choices.append((value * len(subset), all_ones ^ taken))
            options.append(tuple(choices))
    return options


RUN_VALUE, RUN_CARDS, DROP_GAIN, DROP_CARDS = build_run_tables()
ROW_VALUE, ROW_IDLE = build_value_tables(RUN_VALUE)
SET_OPTIONS: Final = build_set_options()

GAIN_BASE: Final = 21
"""Added to every discard gain (-20..10) in :data:`GAIN_BYTES`, so that the empty
row's 0 is below every real gain."""
GAIN_BYTES: Final = bytes(gain + GAIN_BASE if row else 0 for row, gain in enumerate(DROP_GAIN))
IDLE_BYTES: Final = bytes(ROW_IDLE)
DROP_MASKS: Final = tuple(sorted(set(DROP_CARDS)))
"""The distinct rows of best discards (147 of them)."""
_CODE_OF_DROP = {cards: code for code, cards in enumerate(DROP_MASKS)}
DROP_CODES: Final = bytes(_CODE_OF_DROP[cards] for cards in DROP_CARDS)
"""Per row: its best discards as an index into :data:`DROP_MASKS`.

These three tables hold the best-discard search's per-row numbers a byte each (8 KB
a table): a few random lookups per call then stay in the processor's caches, where
lists of 8,192 references (64 KB each) and the objects they point to do not."""
