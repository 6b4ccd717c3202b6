"""What the standings show beyond the table of ``standings.py``, computed from a
season's stored plan and results: the Bradley-Terry Elo with its 95 % interval,
the likelihood-of-superiority matrix and the statistically-tied marks (every
format); the Swiss score, byes and Buchholz, and the table in Swiss order; the
knockout bracket; the SPRT state of a match.

The row order is the one of ``standings.py`` except in a Swiss season (score,
Buchholz, rating: ``swiss.swiss_order``). A row is *tied with the next* when the
Bradley-Terry fit does not put it ahead of the next row at 95 % (likelihood of
superiority below 0.975).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from arena.core.settings import ConfigError, SeasonConfig
from arena.season.formats import SprtMatch, format_for, format_name
from arena.season.formats.base import series_scores
from arena.season.formats.knockout import Bracket, replay_bracket
from arena.season.formats.swiss import SwissScore, byes_by_bot, swiss_order, swiss_scores
from arena.season.progress import WINDOW as PACE_WINDOW
from arena.season.progress import Progress, season_progress
from arena.season.standings import Standings
from arena.season.statistics.bradley_terry import BradleyTerryFit, PairResult, fit
from arena.season.statistics.pentanomial import SprtState
from arena.storage import PlannedSeries, SeasonRecord, SeriesRecord


@dataclass
class SeasonStatistics:
    """See the module docstring; ``order`` is the bot ids in table order."""

    format: str
    order: list[str]
    rating: BradleyTerryFit
    tied_with_next: dict[str, bool]
    swiss: dict[str, SwissScore] = field(default_factory=dict)
    bracket: Bracket | None = None
    sprt: SprtState | None = None
    max_pairs: int = 0
    match_bots: tuple[str, str] = ("", "")
    progress: Progress | None = None

    def los_matrix(self) -> dict[str, dict[str, float]]:
        """``los[a][b]``: likelihood that a is stronger than b (a != b)."""
        matrix = self.rating.los_matrix()
        return {a: {b: matrix[a][b] for b in self.order if b != a} for a in self.order}


def _expected_series(name: str, config: SeasonConfig, bot_count: int) -> int | None:
    """The format's planned count; None when it cannot say, or when this arena does
    not know the format (a season of a newer arena: its standings still show)."""
    try:
        return format_for(name, config).planned_count(bot_count)
    except ConfigError:
        return None


def rating_fit(bot_ids: Sequence[str], results: Sequence[SeriesRecord]) -> BradleyTerryFit:
    """The Bradley-Terry fit of a season's series (a draw half a win each)."""
    return fit(bot_ids, (PairResult(r.seat0_bot, r.seat1_bot, series_scores(r)[0])
                         for r in results))


def season_statistics(season: SeasonRecord, planned: Sequence[PlannedSeries],
                      results: Sequence[SeriesRecord], standings: Standings,
                      *, rating: BradleyTerryFit | None = None) -> SeasonStatistics:
    """The statistics of ``season`` (see the module docstring) over ``results`` in
    storage order; ``rating``: a Bradley-Terry fit to use instead of fitting
    ``results`` (``statistics_live`` refits only when the results have grown)."""
    name = format_name(season.config)
    config = SeasonConfig.from_dict(season.config)
    bots = list(season.bot_ids)
    if rating is None:
        rating = rating_fit(bots, results)
    order = [row.bot_id for row in standings.rows]
    stats = SeasonStatistics(name, order, rating, {})
    if name == "swiss":
        rounds: dict[int, set[str]] = {}
        for series in planned:
            rounds.setdefault(series.round, set()).update(series.bots)
        byes = byes_by_bot(bots, rounds.values())
        stats.swiss = swiss_scores(bots, results, byes, config.series_per_pair)
        ordinal = {row.bot_id: row.rating_ordinal for row in standings.rows}
        stats.order = swiss_order(stats.swiss, ordinal)
    elif name in ("knockout", "sprt"):
        by_round: dict[int, list[SeriesRecord]] = {}
        round_of = {series.id: series.round for series in planned}
        for result in results:
            by_round.setdefault(round_of[result.series_id], []).append(result)
        stored = [by_round.get(number, []) for number in range(1, max(round_of.values(),
                                                                       default=0) + 1)]
        if name == "knockout":
            stats.bracket = replay_bracket(bots, config.seed, config.tiebreak_pairs, stored)
        else:
            match = format_for(name, config)
            assert isinstance(match, SprtMatch)
            stats.sprt = match.state(bots, stored)
            stats.max_pairs = config.max_pairs
            stats.match_bots = (bots[0], bots[1])
    expected = _expected_series(name, config, len(bots))
    if name == "knockout":  # at least one duplicate pair per tie; tie-breaks add more
        expected = max(len(planned), 2 * (len(bots) - 1))
    # The pace reads the most recent results only (storage order is finishing order).
    recent = results[-PACE_WINDOW:]
    stats.progress = season_progress((r.finished_at for r in recent), len(results), expected)
    stats.tied_with_next = {
        bot: index + 1 < len(stats.order)
        and not rating.significantly_ahead(bot, stats.order[index + 1])
        for index, bot in enumerate(stats.order)}
    return stats
