"""The season statistics (``arena.season.season_statistics``) into the
``Standings`` message: Bradley-Terry Elo and tied marks on the rows, the row
order, columns and order note of the format (which every screen shows without
knowing the format), the likelihood-of-superiority matrix, and the format's own
fields of the message (a bracket, the state of a test, Swiss scores) as the
format gives them."""

from __future__ import annotations

import threading
from collections.abc import Iterable

from google.protobuf import json_format
from hollywood.arena.v1 import arena_pb2

from arena.season.season_statistics import SeasonStatistics
from arena.season.statistics.bradley_terry import BradleyTerryFit


class LosCells:
    """The likelihood-of-superiority cells of a fit by bot, each bot's built the
    first time it is asked for (a 200-bot field has 39,800; a live view shows 20
    bots' worth)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._fit: BradleyTerryFit | None = None
        self._matrix: dict[str, dict[str, float]] = {}
        self._by_bot: dict[str, list[arena_pb2.LosCell]] = {}

    def of(self, rating: BradleyTerryFit, bots: Iterable[str]) -> list[arena_pb2.LosCell]:
        """The cells of ``bots`` against every other bot of the fit."""
        cells: list[arena_pb2.LosCell] = []
        with self._lock:
            if rating is not self._fit:
                self._matrix, self._by_bot, self._fit = rating.los_matrix(), {}, rating
            for bot in bots:
                built = self._by_bot.get(bot)
                if built is None:
                    built = self._by_bot[bot] = [
                        arena_pb2.LosCell(bot_id=bot, opponent_id=other, los=value)
                        for other, value in self._matrix.get(bot, {}).items()]
                cells.extend(built)
        return cells


def add_statistics(message: arena_pb2.Standings, stats: SeasonStatistics,
                   los: LosCells | None) -> None:
    """Fill ``message``'s statistics fields and put its rows in the format's order,
    with ``los`` the likelihoods of superiority of its rows' bots (none without).
    ``message`` may hold some of the table's rows only (a page, a live view's top
    rows): each keeps its rank in the whole table."""
    position = {bot: rank for rank, bot in enumerate(stats.order, start=1)}
    rows = {row.bot_id: row for row in message.rows}
    ordered = sorted((row for row in message.rows if row.bot_id in position),
                     key=lambda row: position[row.bot_id])
    for row in ordered:
        row.rank = position[row.bot_id]
        row.bt_elo = stats.rating.elo[stats.rating.index(row.bot_id)]
        row.bt_elo_low, row.bt_elo_high = stats.rating.interval(row.bot_id)
        row.tied_with_next = stats.tied_with_next.get(row.bot_id, False)
        row.behind_next = stats.behind_next.get(row.bot_id, False)
        row.extra_cells.extend(column.cells.get(row.bot_id, "") for column in stats.columns)
        json_format.ParseDict(stats.row_api.get(row.bot_id, {}), row)
    copies = [arena_pb2.StandingRow() for _ in ordered]
    for copy, row in zip(copies, ordered, strict=True):
        copy.CopyFrom(row)
    del message.rows[:]
    message.rows.extend(copies)
    message.format = stats.format
    message.extra_columns.extend(column.label for column in stats.columns)
    message.order_note = stats.order_note
    message.sections.extend(arena_pb2.StandingsSection(
        title=section.title, headers=section.headers,
        rows=[arena_pb2.SectionRow(cells=row) for row in section.rows], lines=section.lines)
        for section in stats.sections)
    # The progress every screen shows (``arena.season.progress``).
    message.series_per_minute = stats.progress.series_per_minute
    left = stats.progress.seconds_left
    message.seconds_left = -1.0 if left is None else left
    message.series_expected = stats.progress.expected or 0
    if los is not None:
        message.los.extend(los.of(stats.rating, rows))
    # The format's own fields (a bracket, the state of a test), as it gives them.
    json_format.ParseDict(stats.api, message)
