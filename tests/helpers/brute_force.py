"""An independent, obviously-correct deadwood oracle for the tests.

It shares no code with ``engine/melds.py``: it lists every legal meld that can be
made from the hand (every set of 3 or 4 cards of a rank, every stretch of 3 or more
consecutive cards of a suit) and tries every combination of pairwise disjoint melds.
Slow, but small enough for 10- and 11-card hands to be checked exhaustively.

Cards are plain ``(rank, suit)`` tuples here (rank 1..13, suit 0..3) so that
nothing from the engine is trusted.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations

PlainCard = tuple[int, int]


def card_value(card: PlainCard) -> int:
    return min(card[0], 10)


def all_melds(hand: Iterable[PlainCard]) -> list[frozenset[PlainCard]]:
    """Every legal meld made of cards of ``hand``."""
    cards = set(hand)
    melds: list[frozenset[PlainCard]] = []
    for rank in range(1, 14):
        same_rank = [card for card in cards if card[0] == rank]
        for size in (3, 4):
            for group in combinations(same_rank, size):
                melds.append(frozenset(group))
    for suit in range(4):
        for low in range(1, 12):
            for high in range(low + 2, 14):
                run = [(rank, suit) for rank in range(low, high + 1)]
                if all(card in cards for card in run):
                    melds.append(frozenset(run))
    return melds


def brute_max_melded(hand: Iterable[PlainCard]) -> int:
    """Largest total value covered by pairwise disjoint melds."""
    melds = all_melds(hand)

    def search(start: int, used: frozenset[PlainCard]) -> int:
        best = 0
        for position in range(start, len(melds)):
            meld = melds[position]
            if meld & used:
                continue
            value = sum(card_value(card) for card in meld) + search(position + 1, used | meld)
            best = max(best, value)
        return best

    return search(0, frozenset())


def brute_deadwood(hand: Iterable[PlainCard]) -> int:
    cards = list(hand)
    return sum(card_value(card) for card in cards) - brute_max_melded(cards)


def brute_best_discards(hand: Iterable[PlainCard]) -> tuple[int, list[PlainCard]]:
    """(lowest deadwood after one discard, every discard reaching it, sorted by suit then rank)."""
    cards = list(hand)
    after = {card: brute_deadwood([other for other in cards if other != card]) for card in cards}
    best = min(after.values())
    return best, sorted((card for card, value in after.items() if value == best),
                        key=lambda card: (card[1], card[0]))


def _is_set(cards: frozenset[PlainCard]) -> bool:
    return len(cards) in (3, 4) and len({card[0] for card in cards}) == 1


def _is_run(cards: frozenset[PlainCard]) -> bool:
    if len(cards) < 3 or len({card[1] for card in cards}) != 1:
        return False
    ranks = sorted(card[0] for card in cards)
    return ranks == list(range(ranks[0], ranks[0] + len(ranks)))


def brute_defender_deadwood(knocker_melds: list[list[PlainCard]],
                            defender: list[PlainCard]) -> int:
    """Smallest defender deadwood using own melds plus layoffs onto the knocker's melds.

    Tries every assignment of every defender card to "keep" or to one knocker meld;
    an assignment is a legal set of layoffs when every knocker meld together with
    the cards assigned to it is still a set or a run (chained run extensions at
    either end produce exactly such runs).
    """
    targets = [frozenset(meld) for meld in knocker_melds]
    best = brute_deadwood(defender)
    # Only cards that fit some meld's rank (set) or suit (run) can be laid off.
    candidates = [card for card in defender
                  if any((_is_set(meld) and card[0] == next(iter(meld))[0])
                         or (_is_run(meld) and card[1] == next(iter(meld))[1])
                         for meld in targets)]

    def assign(position: int, groups: list[frozenset[PlainCard]],
               laid: frozenset[PlainCard]) -> None:
        nonlocal best
        if position == len(candidates):
            for original, grown in zip(targets, groups, strict=True):
                if grown != original and not ((_is_set(original) and _is_set(grown))
                                              or (_is_run(original) and _is_run(grown))):
                    return
            kept = [card for card in defender if card not in laid]
            best = min(best, brute_deadwood(kept))
            return
        assign(position + 1, groups, laid)
        card = candidates[position]
        for index in range(len(groups)):
            grown = list(groups)
            grown[index] = groups[index] | {card}
            assign(position + 1, grown, laid | {card})

    assign(0, list(targets), frozenset())
    return best
