"""``bench_deadwood.py`` times each side's turn as two chunks (``chunk_pairs``): one
straight after the other side's turn, one after that. The chunks of a turn are
neighbours and disjoint, the rounds swap them so that over two rounds every hand is
timed both ways, and a tail shorter than a turn is left out. No speed is measured
here."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = next(folder for folder in Path(__file__).resolve().parents
            if (folder / "pyproject.toml").exists())
sys.path.insert(0, str(ROOT / "tests" / "bench"))

from bench_deadwood import CHUNK, chunk_pairs  # noqa: E402


def test_a_turn_is_two_neighbouring_chunks_and_rounds_swap_them() -> None:
    assert CHUNK == 100
    assert chunk_pairs(450, 0) == [(range(0, 100), range(100, 200)),
                                   (range(200, 300), range(300, 400))]
    assert chunk_pairs(450, 1) == [(range(100, 200), range(0, 100)),
                                   (range(300, 400), range(200, 300))]
    assert chunk_pairs(450, 2) == chunk_pairs(450, 0)


def test_over_two_rounds_every_hand_is_timed_both_ways_once() -> None:
    for way in (0, 1):
        hands = [hand for round_number in (0, 1) for pair in chunk_pairs(1000, round_number)
                 for hand in pair[way]]
        assert sorted(hands) == list(range(1000))


def test_fewer_hands_than_a_turn_give_no_turn() -> None:
    assert chunk_pairs(199, 0) == []
    assert chunk_pairs(200, 0) == [(range(0, 100), range(100, 200))]
