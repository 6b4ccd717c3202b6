"""The king-of-the-hill format: the first bot of the season holds the hill, and
every other bot, in season order, challenges whoever holds it then: one meeting of
``series_per_pair`` series (duplicate pairs, the holder in seat 0 first) per
round. The challenger takes the hill with more series points than the holder; a
drawn meeting leaves it where it is. The last holder is king. A season of n bots
plays n - 1 rounds, each planned once the one before is played."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Self

from arena.core.settings import SeasonConfig
from arena.season.formats.base import (
    ExtraColumn,
    Format,
    FormatStandings,
    Pairing,
    SeasonView,
    Section,
    derive_round_seed,
    meeting,
)
from arena.storage import SeriesRecord


class KingOfTheHill(Format):
    """See the module docstring."""

    reads_plan = True  # a stored round is one challenge
    ranks_every_bot = True

    def __init__(self, series_per_pair: int) -> None:
        if series_per_pair < 1:
            raise ValueError("series_per_pair must be at least 1")
        self.series_per_pair = series_per_pair

    @classmethod
    def from_config(cls, config: SeasonConfig) -> Self:
        return cls(config.series_per_pair)

    def holders(self, bot_ids: Sequence[str],
                results_by_round: Sequence[Sequence[SeriesRecord]]) -> list[str]:
        """Who held the hill at the start and after each fully played round."""
        holders = [bot_ids[0]]
        for number, results in enumerate(results_by_round, start=1):
            if len(results) < self.series_per_pair:
                break  # a challenge still being played
            holder, challenger = holders[-1], bot_ids[number]
            points = {holder: 0.0, challenger: 0.0}
            for result in results:
                for seat, score in enumerate(result.scores):
                    points[result.bots[seat]] += score
            holders.append(challenger if points[challenger] > points[holder] else holder)
        return holders

    def first_round(self, bot_ids: Sequence[str], seed: int) -> list[Pairing]:
        if len(set(bot_ids)) != len(bot_ids) or len(bot_ids) < 2:
            raise ValueError("a season needs at least two distinct bots")
        return self._challenge(bot_ids[0], bot_ids[1], seed, 1)

    def next_round(
        self, bot_ids: Sequence[str], seed: int,
        results_by_round: Sequence[Sequence[SeriesRecord]],
    ) -> list[Pairing] | None:
        number = len(results_by_round) + 1
        if number >= len(bot_ids):
            return None
        holder = self.holders(bot_ids, results_by_round)[-1]
        return self._challenge(holder, bot_ids[number], seed, number)

    def planned_count(self, bot_count: int) -> int | None:
        return (bot_count - 1) * self.series_per_pair

    def standings(self, season: SeasonView) -> FormatStandings:
        """Rounds each bot ended holding the hill, and who holds it now."""
        holders = self.holders(season.bot_ids, season.results_by_round)
        reigns = {bot: str(holders[1:].count(bot)) for bot in season.bot_ids}
        return FormatStandings(columns=[ExtraColumn(
            "Reigns", reigns, "rounds the bot ended holding the hill")],
                               sections=[Section("", lines=(f"Holding the hill: {holders[-1]}",))])

    def _challenge(self, holder: str, challenger: str, seed: int, number: int) -> list[Pairing]:
        return meeting(holder, challenger, self.series_per_pair,
                       derive_round_seed(seed, f"hill:{number}"))
