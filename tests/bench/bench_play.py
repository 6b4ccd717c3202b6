"""Benchmark: random-versus-random play, in hands per second and series per second.

Both players pick uniformly among the legal actions (``Series.legal_actions()`` is
called for every decision, as the arena does), profile ``friendly``. Random play
rarely knocks, so most hands run until the dead-hand point: the slowest kind of
hand. A second line measures a knock-happy policy (knock whenever legal), whose
series finish in far fewer hands.
Run: ``.venv/bin/python tests/bench/bench_play.py`` (or ``make bench``); ``--tiny``: a few
hands and series, only to show it runs.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable

from engine import FRIENDLY, Action, ActionKind, Hand, Series, deal_hand

TARGET_HANDS_PER_SECOND = 1000.0
SEED = 20261130
Policy = Callable[[list[Action], random.Random], Action]


def random_policy(legal: list[Action], rng: random.Random) -> Action:
    return rng.choice(legal)


def knock_happy_policy(legal: list[Action], rng: random.Random) -> Action:
    if legal[-1].kind is ActionKind.KNOCK:
        return legal[-1]
    return rng.choice(legal)


class Clock:
    """Wall-clock and this process's CPU time: on a busy machine the CPU rate shows
    the engine's own speed, the wall rate what a caller got."""

    def __init__(self) -> None:
        self.wall = time.perf_counter()
        self.cpu = time.process_time()

    def rates(self, count: float) -> tuple[float, float]:
        """(count per wall second, count per CPU second) since construction."""
        wall = time.perf_counter() - self.wall
        cpu = time.process_time() - self.cpu
        return count / wall, count / cpu


def bench_hands(count: int) -> tuple[tuple[float, float], dict[str, int]]:
    """Hands per second (wall, CPU) for single random hands (new deal each time)."""
    rng = random.Random(SEED)
    kinds: dict[str, int] = {}
    clock = Clock()
    for number in range(1, count + 1):
        hand = Hand(deal_hand(SEED, number), number & 1, FRIENDLY, number)
        while not hand.is_over:
            hand.apply(rng.choice(hand.legal_actions()))
        assert hand.result is not None
        kinds[hand.result.kind] = kinds.get(hand.result.kind, 0) + 1
    return clock.rates(count), kinds


def bench_series(
    count: int, policy: Policy
) -> tuple[tuple[float, float], tuple[float, float], float]:
    """(series per second, hands per second, mean hands per series) over full series;
    rates as (wall, CPU)."""
    rng = random.Random(SEED)
    hands = 0
    clock = Clock()
    for seed in range(count):
        series = Series(seed, FRIENDLY)
        while not series.is_over:
            series.apply(policy(series.legal_actions(), rng))
        assert series.result is not None
        hands += series.result.hands_played
    series_rates = clock.rates(count)
    hand_rates = clock.rates(hands)
    return series_rates, hand_rates, hands / count


def _pair(rates: tuple[float, float], digits: int = 0) -> str:
    return f"{rates[0]:8.{digits}f} wall / {rates[1]:8.{digits}f} cpu"


def main() -> int:
    tiny = "--tiny" in sys.argv[1:]  # that it runs (tests/project/), not a figure
    hand_rates, kinds = bench_hands(30 if tiny else 3000)
    print(f"single hands, random vs random:  hands/s  {_pair(hand_rates)}   outcomes {kinds}")
    series_rates, series_hand_rates, mean_hands = bench_series(2 if tiny else 30, random_policy)
    print(
        f"full series, random vs random:   hands/s  {_pair(series_hand_rates)}   "
        f"series/s {_pair(series_rates, 2)}   ({mean_hands:.0f} hands per series)"
    )
    happy_rates, happy_hand_rates, happy_mean = bench_series(2 if tiny else 200, knock_happy_policy)
    print(
        f"full series, knock when legal:   hands/s  {_pair(happy_hand_rates)}   "
        f"series/s {_pair(happy_rates, 2)}   ({happy_mean:.0f} hands per series)"
    )
    worst_wall = min(hand_rates[0], series_hand_rates[0])
    worst_cpu = min(hand_rates[1], series_hand_rates[1])
    verdict = "ok" if worst_wall >= TARGET_HANDS_PER_SECOND else "BELOW TARGET (wall clock)"
    print(
        f"target >= {TARGET_HANDS_PER_SECOND:.0f} random hands/s: {verdict} "
        f"(slowest: {worst_wall:.0f} wall, {worst_cpu:.0f} cpu)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
