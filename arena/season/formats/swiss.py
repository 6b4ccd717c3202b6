"""The Swiss format: a fixed number of rounds, each pairing bots with equal or
nearest scores.

* A bot's score is its series points (win 1, draw 1/2) plus its byes.
* Each round pairs from the top of the table (score, then season order): the best
  unpaired bot meets the not-yet-met unpaired bot nearest in score (the higher
  placed among equals), with backtracking, so no pairing is ever repeated. When
  no pairing of a round avoids every repeat (or the search for one passes
  ``SEARCH_STEPS`` steps), the season ends early.
* An odd count gives one bot a **bye**: the lowest placed bot that has not had
  one. A bye is not a series: it is the bot a stored round leaves out, so it is
  stored with the round and read back from it (``byes_by_bot``); it scores as a
  won meeting (one series win per series of a meeting), at most once per bot.
* A meeting is ``series_per_pair`` series in duplicate pairs (seats balanced);
  the single series of an odd count seats first the bot with fewer seat-0 series.
* The table breaks equal scores by Buchholz (the sum of the scores of the
  opponents met), then rating (``swiss_order``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Self

from arena.core.setting import FormatSettings, format_setting
from arena.core.settings import ConfigError, SeasonConfig
from arena.season.formats.base import (
    ExtraColumn,
    Format,
    FormatStandings,
    Pairing,
    SeasonView,
    derive_round_seed,
    meeting,
)
from arena.storage import SeriesRecord

SEARCH_STEPS: Final = 200_000


@dataclass(frozen=True)
class SwissScore:
    """A bot's Swiss score, Buchholz and byes."""

    score: float
    buchholz: float
    byes: int


def byes_by_bot(bot_ids: Sequence[str], round_bots: Iterable[set[str]]) -> dict[str, int]:
    """Byes per bot: a bot absent from a stored round (``round_bots``: the bots of
    each round's planned series) had that round's bye."""
    byes = dict.fromkeys(bot_ids, 0)
    for bots in round_bots:
        for bot in bot_ids:
            if bot not in bots:
                byes[bot] += 1
    return byes


def swiss_scores(bot_ids: Sequence[str], results: Iterable[SeriesRecord],
                 byes: Mapping[str, int], series_per_pair: int) -> dict[str, SwissScore]:
    """Scores (series points + byes) and Buchholz of every bot."""
    score = {bot: float(byes.get(bot, 0) * series_per_pair) for bot in bot_ids}
    opponents: dict[str, set[str]] = {bot: set() for bot in bot_ids}
    for result in results:
        for seat, points in enumerate(result.scores):
            score[result.bots[seat]] += points
        opponents[result.seat0_bot].add(result.seat1_bot)
        opponents[result.seat1_bot].add(result.seat0_bot)
    return {bot: SwissScore(score[bot], sum(score[other] for other in opponents[bot]),
                            byes.get(bot, 0)) for bot in bot_ids}


def swiss_order(scores: Mapping[str, SwissScore], rating: Mapping[str, float]) -> list[str]:
    """Bots by score, then Buchholz, then rating, then id."""
    return sorted(scores, key=lambda bot: (-scores[bot].score, -scores[bot].buchholz,
                                           -rating.get(bot, 0.0), bot))


@dataclass(frozen=True)
class SwissSettings(FormatSettings):
    """The Swiss format's own setting."""

    rounds: int = format_setting(0, "swiss: rounds to play (0 = ceil(log2(bots)))", "--rounds",
                                 kind=int, proto_field="rounds", low=0, high=1000)


class Swiss(Format):
    """See the module docstring; ``rounds`` 0 means ceil(log2(bots))."""

    settings_class = SwissSettings
    reads_plan = True  # the byes are the bots a stored round leaves out
    ranks_every_bot = True

    def __init__(self, rounds: int, series_per_pair: int) -> None:
        self.rounds = rounds
        self.series_per_pair = series_per_pair

    @classmethod
    def from_config(cls, config: SeasonConfig) -> Self:
        return cls(config.settings_for(SwissSettings).rounds, config.series_per_pair)

    def standings(self, season: SeasonView) -> FormatStandings:
        """Score, byes and Buchholz as columns; the table in Swiss order."""
        rounds: dict[int, set[str]] = {}
        for series in season.planned:
            rounds.setdefault(series.round, set()).update(series.bots)
        byes = byes_by_bot(season.bot_ids, rounds.values())
        scores = swiss_scores(season.bot_ids, season.results, byes, self.series_per_pair)
        return FormatStandings(
            order=swiss_order(scores, season.rating_ordinal),
            columns=[
                ExtraColumn("Byes", {bot: f"{item.byes}" for bot, item in scores.items()},
                            "rounds the bot sat out (an odd field); a bye scores as a win"),
                ExtraColumn("Score", {bot: f"{item.score:g}" for bot, item in scores.items()},
                            "Swiss score: series points plus byes; the first sort key"),
                ExtraColumn("Buchholz",
                            {bot: f"{item.buchholz:g}" for bot, item in scores.items()},
                            "the sum of the opponents' Swiss scores (a harder draw "
                            "scores higher); the second sort key"),
            ],
            note="Swiss: ordered by score (series points + byes), Buchholz, rating.",
            row_api={bot: {"byes": item.byes, "swiss_score": item.score,
                           "buchholz": item.buchholz} for bot, item in scores.items()})

    def rounds_for(self, count: int) -> int:
        return self.rounds or max(1, math.ceil(math.log2(count)))

    def _check(self, count: int) -> None:
        most = count if count % 2 else count - 1
        if self.rounds_for(count) > most:
            raise ConfigError(f"swiss: {self.rounds_for(count)} rounds of {count} bots would "
                              f"repeat pairings (at most {most})")

    def first_round(self, bot_ids: Sequence[str], seed: int) -> list[Pairing]:
        if len(set(bot_ids)) != len(bot_ids) or len(bot_ids) < 2:
            raise ValueError("a season needs at least two distinct bots")
        self._check(len(bot_ids))
        plan = self._pair(bot_ids, seed, [])
        if plan is None:
            raise ValueError("swiss: no first round")  # cannot happen with two bots
        return plan

    def next_round(
        self, bot_ids: Sequence[str], seed: int,
        results_by_round: Sequence[Sequence[SeriesRecord]],
    ) -> list[Pairing] | None:
        if len(results_by_round) >= self.rounds_for(len(bot_ids)):
            return None
        return self._pair(bot_ids, seed, results_by_round)

    def planned_count(self, bot_count: int) -> int | None:
        self._check(bot_count)
        return self.rounds_for(bot_count) * (bot_count // 2) * self.series_per_pair

    def _pair(self, bot_ids: Sequence[str], seed: int,
              results_by_round: Sequence[Sequence[SeriesRecord]]) -> list[Pairing] | None:
        results = [result for results in results_by_round for result in results]
        byes = byes_by_bot(bot_ids, ({bot for r in results for bot in r.bots}
                                     for results in results_by_round))
        scores = {bot: item.score for bot, item in
                  swiss_scores(bot_ids, results, byes, self.series_per_pair).items()}
        place = {bot: index for index, bot in enumerate(bot_ids)}
        table = sorted(bot_ids, key=lambda bot: (-scores[bot], place[bot]))
        met = {frozenset(result.bots) for result in results}
        candidates: list[str | None] = [None]
        if len(table) % 2:
            candidates = [bot for bot in reversed(table) if not byes[bot]]
        for bye in candidates:
            pairs = _match([bot for bot in table if bot != bye], scores, met)
            if pairs is not None:
                return self._seat(pairs, place, results, seed, len(results_by_round) + 1)
        return None

    def _seat(self, pairs: list[tuple[str, str]], place: Mapping[str, int],
              results: Sequence[SeriesRecord], seed: int, round_number: int) -> list[Pairing]:
        seat_balance = dict.fromkeys(place, 0)  # seat-0 series minus seat-1 series
        for result in results:
            seat_balance[result.seat0_bot] += 1
            seat_balance[result.seat1_bot] -= 1
        plan: list[Pairing] = []
        for upper, lower in pairs:
            first, second = ((lower, upper) if seat_balance[lower] < seat_balance[upper]
                             else (upper, lower))
            label = f"swiss:{round_number}:{place[upper]}:{place[lower]}"
            plan += meeting(first, second, self.series_per_pair, derive_round_seed(seed, label))
        return plan


class _SearchBudget:
    """Caps the backtracking (late rounds of a big field can make it exponential);
    a count, not a clock, so the answer stays a pure function of the results."""

    def __init__(self, steps: int) -> None:
        self.left = steps

    def spend(self) -> bool:
        self.left -= 1
        return self.left >= 0


def _match(table: list[str], scores: Mapping[str, float], met: set[frozenset[str]],
           budget: _SearchBudget | None = None) -> list[tuple[str, str]] | None:
    """Pairs of ``table`` (in table order) without a repeat: the first bot with the
    nearest-scored opponent that still lets the rest be paired. None when there is
    no such pairing, or when finding one takes more than ``SEARCH_STEPS`` steps."""
    budget = budget or _SearchBudget(SEARCH_STEPS)
    if not table:
        return []
    top, rest = table[0], table[1:]
    options = sorted((bot for bot in rest if frozenset((top, bot)) not in met),
                     key=lambda bot: (abs(scores[top] - scores[bot]), rest.index(bot)))
    for opponent in options:
        if not budget.spend():
            return None
        tail = _match([bot for bot in rest if bot != opponent], scores, met, budget)
        if tail is not None:
            return [(top, opponent), *tail]
    return None
