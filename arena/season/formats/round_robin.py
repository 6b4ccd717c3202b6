"""The round-robin format.

**round-robin** (the first format) plans everything in its first round, since no
pairing depends on a result (and so no round waits for the slowest series):

* every pair of bots meets ``series_per_pair`` times;
* the series of a pair come in **duplicate pairs**: two series on the same seed, the
  second with the bots exchanged between the seats. The engine deals by seat (seat
  0 always gets the same cards of a seed, and the first dealer is a seat), so the
  exchange alone gives each bot the other's cards and first deal: each bot plays
  both hands of every deal. ``swap_seats`` stays False: setting it as well would
  swap the cards back, and each bot would be dealt its own cards twice (the engine's
  ``swap_seats`` is the other way to a duplicate, with bots kept in their seats,
  which would leave seats unbalanced). An odd ``series_per_pair`` adds one single
  series;
* seats are fair: a duplicate pair gives each bot one series in each seat, and the
  single series are oriented by a balanced round-robin rule, so every bot's seat-0
  and seat-1 counts differ by at most one;
* the order follows the circle method (round by round, every bot once per round),
  so a season stopped halfway has spread its games over all the bots.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Self

from arena.core.settings import SeasonConfig
from arena.season.formats.base import (
    Pairing,
    PlannedUpFront,
    circle_rounds,
    derive_seed,
    home_seat_first,
)


class RoundRobin(PlannedUpFront):
    """Every pair meets ``series_per_pair`` times, in duplicate pairs, all planned
    in the first round; see the module docstring."""

    ranks_every_bot = True

    def __init__(self, series_per_pair: int) -> None:
        if series_per_pair < 1:
            raise ValueError("series_per_pair must be at least 1")
        self.series_per_pair = series_per_pair

    @classmethod
    def from_config(cls, config: SeasonConfig) -> Self:
        return cls(config.series_per_pair)

    def first_round(self, bot_ids: Sequence[str], seed: int) -> list[Pairing]:
        if len(bot_ids) < 2:
            raise ValueError("a season needs at least two bots")
        if len(set(bot_ids)) != len(bot_ids):
            raise ValueError("a season's bots must be distinct")
        count = len(bot_ids)
        plan: list[Pairing] = []
        cycles = (self.series_per_pair + 1) // 2
        for cycle in range(cycles):
            duplicate = 2 * (cycle + 1) <= self.series_per_pair
            for round_pairs in circle_rounds(count):
                for i, j in round_pairs:
                    home_first = home_seat_first(i, j, count)
                    if cycle % 2:
                        home_first = not home_first
                    first, second = (i, j) if home_first else (j, i)
                    seed_ij = derive_seed(seed, i, j, cycle)
                    plan.append(Pairing(seed_ij, False, bot_ids[first], bot_ids[second]))
                    if duplicate:
                        plan.append(Pairing(seed_ij, False, bot_ids[second], bot_ids[first]))
        return plan

    def planned_count(self, bot_count: int) -> int | None:
        return bot_count * (bot_count - 1) // 2 * self.series_per_pair


def plan_season(bot_ids: Sequence[str], series_per_pair: int, seed: int) -> list[Pairing]:
    """The whole round-robin plan of a season (its first and only round)."""
    return RoundRobin(series_per_pair).first_round(bot_ids, seed)
