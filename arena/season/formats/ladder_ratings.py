"""The OpenSkill ratings a ladder's matchmaking reads, over its results in plan
order (the order the rounds were planned in, so the same on every resume,
whatever order the results were stored in).

A round's results never change once the next round is planned, so the ratings
are kept between rounds and only the rounds not rated yet are applied: planning
a round costs the new results, not every result of a ladder that never ends. A
history that does not continue the one rated so far starts again from nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from openskill.models import PlackettLuce

from arena.season.formats.ladder_matchmaking import Rating
from arena.storage import SeriesRecord


class PlanOrderRatings:
    """See the module docstring (the same numbers as the standings' OpenSkill
    ratings over the same results in the same order)."""

    def __init__(self) -> None:
        self._model = PlackettLuce()
        self._ratings: dict[str, Any] = {}
        self._rated: list[tuple[str, ...]] = []

    def ratings(self, members: Sequence[str],
                results_by_round: Sequence[Sequence[SeriesRecord]]) -> dict[str, Rating]:
        """Each member's rating after every result of ``results_by_round``."""
        done = len(self._rated)
        if len(results_by_round) < done or any(
                tuple(result.series_id for result in results_by_round[index]) != rated
                for index, rated in enumerate(self._rated)):
            self._ratings, self._rated, done = {}, [], 0
        for results in results_by_round[done:]:
            for result in results:
                self._apply(result)
            self._rated.append(tuple(result.series_id for result in results))
        return {bot: Rating(float(self._rating(bot).mu), float(self._rating(bot).sigma))
                for bot in members}

    def _rating(self, bot_id: str) -> Any:
        if bot_id not in self._ratings:
            self._ratings[bot_id] = self._model.rating(name=bot_id)
        return self._ratings[bot_id]

    def _apply(self, result: SeriesRecord) -> None:
        first, second = result.bots
        verdicts = result.verdicts
        [[new_first], [new_second]] = self._model.rate(
            [[self._rating(first)], [self._rating(second)]],
            ranks=[verdicts[0].rating_rank, verdicts[1].rating_rank])
        self._ratings[first], self._ratings[second] = new_first, new_second
