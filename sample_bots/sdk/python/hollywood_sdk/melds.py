"""Meld and deadwood arithmetic for bots (docs/rules.md#melds), independent of the engine.

Small hands only (up to 11 cards): an exhaustive search over the melds the hand
contains, memoised on the set of cards still unplaced, is both simple and fast.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations

from .cards import SUITS, Card


@dataclass(frozen=True)
class Arrangement:
    """A way to split a hand into melds and deadwood."""

    melds: tuple[tuple[Card, ...], ...]
    deadwood_cards: tuple[Card, ...]

    @property
    def deadwood(self) -> int:
        return sum(card.value for card in self.deadwood_cards)


def possible_melds(cards: Iterable[Card]) -> list[tuple[Card, ...]]:
    """Every set (3 or 4 of a rank) and run (3+ consecutive of a suit) within ``cards``."""
    hand = set(cards)
    melds: list[tuple[Card, ...]] = []
    for rank in range(1, 14):
        same_rank = sorted(card for card in hand if card.rank == rank)
        for size in (3, 4):
            melds.extend(combinations(same_rank, size))
    for suit in SUITS:
        for start in range(1, 12):
            end = start
            while end <= 13 and Card(end, suit) in hand:
                if end - start >= 2:
                    melds.append(tuple(Card(rank, suit) for rank in range(start, end + 1)))
                end += 1
    return melds


def is_meld(cards: Sequence[Card]) -> bool:
    """True for a valid set or run."""
    if len(cards) < 3 or len(set(cards)) != len(cards):
        return False
    if len({card.rank for card in cards}) == 1:
        return len(cards) <= 4
    if len({card.suit for card in cards}) != 1:
        return False
    ranks = sorted(card.rank for card in cards)
    return ranks == list(range(ranks[0], ranks[0] + len(ranks)))


class _Solver:
    """Minimum-deadwood search over subsets of one hand, memoised on the subset, so
    the eleven 10-card subsets of an 11-card hand share their work."""

    def __init__(self, cards: Iterable[Card]) -> None:
        self.hand = tuple(sorted(set(cards)))
        position = {card: i for i, card in enumerate(self.hand)}
        self.melds = [
            (sum(1 << position[card] for card in meld), meld) for meld in possible_melds(self.hand)
        ]
        self.search = cache(self._search)

    def mask_without(self, card: Card | None) -> int:
        full = (1 << len(self.hand)) - 1
        return full if card is None else full & ~(1 << self.hand.index(card))

    def _search(self, remaining: int) -> tuple[int, tuple[int, ...]]:
        """(least deadwood of the cards in ``remaining``, meld indices achieving it)."""
        if remaining == 0:
            return 0, ()
        first = (remaining & -remaining).bit_length() - 1
        # Either the lowest remaining card is deadwood...
        rest, chosen = self.search(remaining & ~(1 << first))
        best = (rest + self.hand[first].value, chosen)
        # ...or it belongs to one meld that fits in what remains.
        for meld_index, (mask, _) in enumerate(self.melds):
            if mask >> first & 1 and mask & remaining == mask:
                rest, chosen = self.search(remaining & ~mask)
                if rest < best[0]:
                    best = (rest, (meld_index, *chosen))
        return best

    def arrangement(self, remaining: int) -> Arrangement:
        _, chosen = self.search(remaining)
        melds = tuple(self.melds[i][1] for i in chosen)
        in_melds = {card for meld in melds for card in meld}
        kept = (card for i, card in enumerate(self.hand) if remaining >> i & 1)
        return Arrangement(melds, tuple(card for card in kept if card not in in_melds))


def best_arrangement(cards: Iterable[Card]) -> Arrangement:
    """A minimum-deadwood arrangement of ``cards`` (ties broken deterministically)."""
    solver = _Solver(cards)
    return solver.arrangement(solver.mask_without(None))


def min_deadwood(cards: Iterable[Card]) -> int:
    """The smallest deadwood total of ``cards`` under any arrangement."""
    solver = _Solver(cards)
    return solver.search(solver.mask_without(None))[0]


def best_discards(
    cards: Iterable[Card], allowed: Iterable[Card] | None = None
) -> tuple[int, list[Card]]:
    """For an 11-card hand: the least deadwood reachable by discarding one card, and
    every card (among ``allowed``, default all) whose discard reaches it, sorted."""
    hand = list(cards)
    candidates = sorted(set(hand) if allowed is None else set(allowed) & set(hand))
    if not candidates:
        raise ValueError("no card may be discarded")
    solver = _Solver(hand)
    results = {card: solver.search(solver.mask_without(card))[0] for card in candidates}
    best = min(results.values())
    return best, [card for card in candidates if results[card] == best]
