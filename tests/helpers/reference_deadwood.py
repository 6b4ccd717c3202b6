"""A second independent deadwood reference, fast enough for 100,000 random hands.

Like ``brute_force.py`` it shares nothing with the engine (cards are plain ``(rank,
suit)`` tuples; no bitmasks, no tables). It is the textbook search: take the
lowest card left (by suit, then rank); either it is deadwood, or it is in a meld
with other cards left: a run that starts at it (it is the lowest of its suit), or
a set of its rank. Results are memoised per set of cards left, so the 11 ten-card
hands of one 11-card hand share their work. ``tests/engine/test_deadwood_fast_paths.py``
checks this reference against ``brute_force.py`` before trusting it.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations

PlainCard = tuple[int, int]
Memo = dict[frozenset[PlainCard], int]


def _value(card: PlainCard) -> int:
    return min(card[0], 10)


def _sort_key(card: PlainCard) -> tuple[int, int]:
    return card[1], card[0]


def _search(cards: frozenset[PlainCard], memo: Memo) -> int:
    if not cards:
        return 0
    known = memo.get(cards)
    if known is not None:
        return known
    lowest = min(cards, key=_sort_key)
    rank, suit = lowest
    rest = cards - {lowest}
    best = _value(lowest) + _search(rest, memo)
    run = [lowest]
    next_rank = rank + 1
    while (next_rank, suit) in cards:
        run.append((next_rank, suit))
        if len(run) >= 3:
            best = min(best, _search(cards - frozenset(run), memo))
        next_rank += 1
    same_rank = [card for card in rest if card[0] == rank]
    for size in (2, 3):
        for group in combinations(same_rank, size):
            best = min(best, _search(rest - frozenset(group), memo))
    memo[cards] = best
    return best


def reference_deadwood(hand: Iterable[PlainCard]) -> int:
    """The minimum deadwood of ``hand``."""
    return _search(frozenset(hand), {})


def reference_after_each_discard(hand: Iterable[PlainCard]) -> dict[PlainCard, int]:
    """Card -> minimum deadwood of the hand without it, keyed by suit then rank."""
    cards = frozenset(hand)
    memo: Memo = {}
    return {card: _search(cards - {card}, memo) for card in sorted(cards, key=_sort_key)}


def reference_best_discards(hand: Iterable[PlainCard]) -> tuple[int, list[PlainCard]]:
    """(lowest deadwood after one discard, every discard reaching it, by suit then rank)."""
    after = reference_after_each_discard(hand)
    best = min(after.values())
    return best, [card for card, deadwood in after.items() if deadwood == best]
