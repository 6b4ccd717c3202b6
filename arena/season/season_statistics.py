"""What the standings show beyond the table of ``standings.py``, computed from a
season's stored plan and results: the Bradley-Terry Elo with its 95 % interval,
the likelihood-of-superiority matrix and the statistically-tied marks (every
format); what the season's format adds (``Format.standings``: its columns, its
order, a note, and typed values such as a bracket or the state of a test); and
the pace, over the series the format expects (``Format.expected_count``).

The row order is the one of ``standings.py`` unless the format gives its own, and
that order need not be the fit's (series points count opponents' strength only
through the fit): each row is compared with the next one both ways. A row is
*tied with the next* when neither's likelihood of superiority over the other
reaches 0.975, and *behind the next* when the next row's does: the row below is
significantly stronger. A row significantly ahead of the next has no mark.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.core.settings import ConfigError
from arena.core.status import SeasonStatus
from arena.season.formats import (
    ExtraColumn,
    FormatStandings,
    SeasonView,
    Section,
    format_for,
    rounds_of,
)
from arena.season.progress import Pace, Progress
from arena.season.standings import Standings
from arena.season.statistics.bradley_terry import BradleyTerryFit, PairResult, fit
from arena.storage import SeasonRecord, SeriesRecord


@dataclass
class SeasonStatistics:
    """See the module docstring; ``order`` is the bot ids in table order,
    ``columns``, ``order_note`` and ``sections`` the format's own (for every screen); the
    ``api`` and ``row_api`` the format's own fields of the API's message."""

    format: str
    order: list[str]
    rating: BradleyTerryFit
    tied_with_next: dict[str, bool]
    behind_next: dict[str, bool] = field(default_factory=dict)
    columns: list[ExtraColumn] = field(default_factory=list)
    order_note: str = ""
    sections: list[Section] = field(default_factory=list)
    api: dict[str, Any] = field(default_factory=dict)
    row_api: dict[str, dict[str, Any]] = field(default_factory=dict)
    progress: Progress = field(default_factory=lambda: Progress(0, 0, None, 0.0, None))

    def ranked_values(self, bot: str, rank: int) -> dict[str, Any]:
        """What the statistics add to ``bot``'s row of the table at ``rank``: the one
        making of the final ranked row (with ``StandingRow.values``), by the names
        of the API's ``StandingRow`` (``arena.server.statistics_convert``) and the
        website's rows (``arena.web.views.standing_rows``); every screen's columns
        read them (``arena.core.standing_columns``)."""
        low, high = self.rating.interval(bot)
        return {"rank": rank, "bt_elo": self.rating.elo[self.rating.index(bot)],
                "bt_elo_low": low, "bt_elo_high": high,
                "tied_with_next": self.tied_with_next.get(bot, False),
                "behind_next": self.behind_next.get(bot, False)}

    def los_matrix(self) -> dict[str, dict[str, float]]:
        """``los[a][b]``: likelihood that a is stronger than b (a != b)."""
        matrix = self.rating.los_matrix()
        return {a: {b: matrix[a][b] for b in self.order if b != a} for a in self.order}


def rating_fit(bot_ids: Sequence[str], results: Sequence[SeriesRecord]) -> BradleyTerryFit:
    """The Bradley-Terry fit of a season's series (a draw half a win each)."""
    return fit(bot_ids, (PairResult(r.seat0_bot, r.seat1_bot, r.scores[0])
                         for r in results))


def season_statistics(season: SeasonRecord, results: Sequence[SeriesRecord],
                      standings: Standings,
                      *, rating: BradleyTerryFit | None = None,
                      pace: Pace | None = None) -> SeasonStatistics:
    """The statistics of ``season`` (see the module docstring) over ``results`` in
    storage order, with its plan (``season.plan``) read when its format reads it
    (``Format.reads_plan``); ``rating``: a Bradley-Terry fit to use instead of
    fitting ``results`` (``statistics_live`` refits only when the results have
    grown); ``pace``: one that has counted at least ``results`` (``statistics_live``
    keeps one per season instead of reparsing every result's time)."""
    name = season.config.format
    bots = list(season.bot_ids)
    if rating is None:
        rating = rating_fit(bots, results)
    stats = SeasonStatistics(name, [row.bot_id for row in standings.rows], rating, {})
    extras, expected = FormatStandings(), None
    try:
        season_format = format_for(name, season.config)
    except ConfigError:
        season_format = None  # a season of a newer arena: its standings still show
    if season_format is not None:
        planned = season.plan.series() if season_format.reads_plan else []
        extras = season_format.standings(SeasonView(
            bots, season.config.seed, planned, results,
            rounds_of(results, planned),
            {row.bot_id: row.rating_ordinal for row in standings.rows}))
        try:
            expected = season_format.expected_count(len(bots), season.series_total)
        except ConfigError:
            expected = None  # settings it cannot use for this field: no count
    stats.order = extras.order or stats.order
    stats.columns, stats.order_note, stats.sections = extras.columns, extras.note, extras.sections
    stats.api, stats.row_api = extras.api, extras.row_api
    if pace is None:
        pace = Pace()
        pace.extend(results)
    stats.progress = pace.progress(len(results), season.series_total, expected,
                                   running=season.status is SeasonStatus.RUNNING)
    stats.tied_with_next, stats.behind_next = next_row_marks(rating, stats.order)
    return stats


def next_row_marks(rating: BradleyTerryFit, order: Sequence[str]
                   ) -> tuple[dict[str, bool], dict[str, bool]]:
    """Per row of ``order``: tied with the next (neither significantly stronger) and
    behind the next (the next significantly stronger); the last row has neither."""
    tied: dict[str, bool] = {}
    behind: dict[str, bool] = {}
    for bot, following in zip(order, [*order[1:], None], strict=True):
        behind[bot] = following is not None and rating.significantly_ahead(following, bot)
        tied[bot] = (following is not None and not behind[bot]
                     and not rating.significantly_ahead(bot, following))
    return tied, behind
