"""Regenerate ``tests/fixtures/deadwood_hands.json`` deterministically.

Every answer comes from the brute force in ``tests/helpers/brute_force.py``, never from the
engine. Run from the repository root: ``.venv/bin/python tests/helpers/make_deadwood_fixture.py``.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.helpers.brute_force import PlainCard, brute_deadwood

SEED = 2026
FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "deadwood_hands.json"
RANKS = "A23456789TJQK"
SUITS = "cdhs"
DECK: list[PlainCard] = [(rank, suit) for suit in range(4) for rank in range(1, 14)]


def text(cards: list[PlainCard]) -> str:
    return " ".join(RANKS[rank - 1] + SUITS[suit] for rank, suit in cards)


def uniform(rng: random.Random, size: int) -> list[PlainCard]:
    return rng.sample(DECK, size)


def meld_rich(rng: random.Random, size: int) -> list[PlainCard]:
    while True:
        rank_count = rng.randint(4, 7)
        low = rng.randint(1, 14 - rank_count)
        suits = rng.sample(range(4), rng.randint(2, 4))
        pool = [(rank, suit) for rank, suit in DECK
                if low <= rank < low + rank_count and suit in suits]
        if len(pool) >= size:
            return rng.sample(pool, size)


def set_run_overlap(rng: random.Random, size: int) -> list[PlainCard]:
    """A set of 3-4 cards whose members also sit in runs of their suits: the hands
    where taking the set, or the runs through it, or a 3-card set leaving the 4th
    card to a run, give different deadwood."""
    rank = rng.randint(1, 13)
    hand = set(rng.sample([(rank, suit) for suit in range(4)], rng.randint(3, 4)))
    for suit in rng.sample(range(4), rng.randint(1, 3)):
        low = rng.randint(max(1, rank - 3), min(rank, 11))
        for run_rank in range(low, min(13, low + rng.randint(2, 4)) + 1):
            if len(hand) < size:
                hand.add((run_rank, suit))
    while len(hand) < size:
        hand.add(rng.choice(DECK))
    return sorted(hand, key=lambda card: (card[1], card[0]))


def ten_card_entry(kind: str, cards: list[PlainCard]) -> dict[str, Any]:
    return {"kind": kind, "cards": text(cards), "deadwood": brute_deadwood(cards)}


def eleven_card_entry(kind: str, cards: list[PlainCard]) -> dict[str, Any]:
    after = {card: brute_deadwood([other for other in cards if other != card]) for card in cards}
    best = min(after.values())
    ordered = sorted(cards, key=lambda card: (card[1], card[0]))
    return {
        "kind": kind,
        "cards": text(cards),
        "best_deadwood": best,
        "best_discards": [text([card]) for card in ordered if after[card] == best],
        "deadwood_after_discard": {text([card]): after[card] for card in ordered},
    }


def build() -> dict[str, Any]:
    rng = random.Random(SEED)
    ten = [ten_card_entry("uniform", uniform(rng, 10)) for _ in range(100)]
    ten += [ten_card_entry("meld-rich", meld_rich(rng, 10)) for _ in range(100)]
    ten += [ten_card_entry("set-run-overlap", set_run_overlap(rng, 10)) for _ in range(60)]
    eleven = [eleven_card_entry("uniform", uniform(rng, 11)) for _ in range(40)]
    eleven += [eleven_card_entry("meld-rich", meld_rich(rng, 11)) for _ in range(60)]
    eleven += [eleven_card_entry("set-run-overlap", set_run_overlap(rng, 11)) for _ in range(40)]
    return {
        "about": "Deadwood answers from tests/helpers/brute_force.py; regenerate with "
                 "tests/helpers/make_deadwood_fixture.py (seeded, deterministic).",
        "seed": SEED,
        "ten_card_hands": ten,
        "eleven_card_hands": eleven,
    }


def main() -> None:
    FIXTURE.parent.mkdir(parents=True, exist_ok=True)
    FIXTURE.write_text(json.dumps(build(), indent=1) + "\n")
    print(f"wrote {FIXTURE}")


if __name__ == "__main__":
    main()
