"""Benchmark: microseconds per call of min_deadwood (10 cards) and best_discards (11 cards).

Every call gets a fresh random hand (generated before timing starts), so no cache
of repeated hands can help. Meld-rich hands are drawn from 4-7 consecutive ranks in
2-4 suits, the hands where set-versus-run choices make deadwood hard.
Run: ``.venv/bin/python tests/bench/bench_deadwood.py`` (or ``make bench``).
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable, Sequence

from engine.cards import ALL_CARDS, Card
from engine.melds import best_discards, deadwood_after_each_discard, min_deadwood
from engine.settle import settle

HANDS = 20_000
SEED = 20261130
TARGETS_US = {
    ("min_deadwood", "meld-rich"): 10.0,
    ("best_discards", "meld-rich"): 60.0,
}


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


def knock_deal(rng: random.Random) -> tuple[list[Card], list[Card]]:
    """A meld-rich knocker hand with deadwood <= 10 and a defender holding cards near
    it (so layoffs are likely)."""
    while True:
        knocker = meld_rich_hand(rng, 10)
        if min_deadwood(knocker) <= 10:
            break
    near = [card for card in ALL_CARDS if card not in knocker
            and any(abs(card.rank - own.rank) <= 2 for own in knocker)]
    rest = [card for card in ALL_CARDS if card not in knocker]
    return knocker, rng.sample(near if len(near) >= 10 else rest, 10)


def microseconds_per_call(function: Callable[[list[Card]], object],
                          hands: Sequence[list[Card]]) -> float:
    start = time.perf_counter_ns()
    for hand in hands:
        function(hand)
    return (time.perf_counter_ns() - start) / len(hands) / 1000


def main() -> None:
    hands = int(sys.argv[1]) if len(sys.argv) > 1 else HANDS
    rng = random.Random(SEED)
    rows = []
    for name, function, size in (
        ("min_deadwood", min_deadwood, 10),
        ("best_discards", best_discards, 11),
        ("deadwood_after_each_discard", deadwood_after_each_discard, 11),
    ):
        for kind, make in (("uniform", uniform_hand), ("meld-rich", meld_rich_hand)):
            sample = [make(rng, size) for _ in range(hands)]
            rows.append((name, size, kind, microseconds_per_call(function, sample)))
    deals = [knock_deal(rng) for _ in range(max(hands // 10, 100))]
    start = time.perf_counter_ns()
    for knocker, defender in deals:
        settle(knocker, defender)
    rows.append(("settle", 10, "knock", (time.perf_counter_ns() - start) / len(deals) / 1000))
    print(f"{'function':<28} {'cards':>5} {'hands':<10} {'us/call':>8} {'target':>7}")
    for name, size, kind, micros in rows:
        target = TARGETS_US.get((name, kind))
        verdict = "" if target is None else (
            f"{target:>7.0f} {'ok' if micros <= target else 'MISSED'}")
        print(f"{name:<28} {size:>5} {kind:<10} {micros:>8.2f} {verdict}")
    print(f"({hands} fresh hands per row, pure Python {sys.version.split()[0]})")


if __name__ == "__main__":
    main()
