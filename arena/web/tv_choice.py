"""Which series Arena TV features (``arena.web.tv``), by one stated rule:

1. Among the series being played now, the one whose two bots stand closest in
   their season's table: the smallest gap between their ranks, then the better
   ranked pair (so the leaders' meeting comes first), then the season's plan order.
2. With none being played, the latest finished series.

A series the TV has already shown is passed over while another qualifies; when
every one has been shown, the rule starts again from all of them.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Final

from arena.match.live_moves import MoveBoard
from arena.season.readings import SeasonReadings
from arena.storage import NotFoundError, Storage
from arena.web.live_series import now_playing_rows

RULE: Final = ("the series being played now between the two bots closest in their "
               "season's table (the leaders' meeting first); with none being played, "
               "the latest finished series")
"""The rule in one line, as the TV page states it."""

LATEST_LOOKED_AT: Final = 50
"""Finished series the rule looks back over (newest first)."""

Choose = Callable[[Collection[str]], str | None]
"""The featured series' id, passing over the ids given (None: nothing to show)."""


def featured_chooser(storage: Storage, board: MoveBoard, readings: SeasonReadings) -> Choose:
    """The rule over ``storage``, the series in play on ``board`` and the tables of
    ``readings``."""

    def choose(avoid: Collection[str]) -> str | None:
        return (_closest_in_play(storage, board, readings, avoid)
                or _latest_finished(storage, avoid)
                or _closest_in_play(storage, board, readings, ())
                or _latest_finished(storage, ()))
    return choose


def _closest_in_play(storage: Storage, board: MoveBoard, readings: SeasonReadings,
                     avoid: Collection[str]) -> str | None:
    best: tuple[int, int, int, int, str] | None = None
    ranks: dict[int, dict[str, int]] = {}
    for row in now_playing_rows(storage, board):
        if row["ended"] or row["series_id"] in avoid:
            continue
        season_id = row["season_id"]
        if season_id not in ranks:
            ranks[season_id] = _ranks(readings, season_id)
        table = ranks[season_id]
        first, second = (table.get(bot, len(table) + 1) for bot in row["bots"])
        key = (abs(first - second), min(first, second), season_id, row["index"],
               row["series_id"])
        if best is None or key < best:
            best = key
    return None if best is None else best[-1]


def _ranks(readings: SeasonReadings, season_id: int) -> dict[str, int]:
    try:
        rows = readings.read(season_id).standings.rows
    except NotFoundError:
        return {}
    return {row.bot_id: place for place, row in enumerate(rows, 1)}


def _latest_finished(storage: Storage, avoid: Collection[str]) -> str | None:
    for series_id in storage.latest_result_ids(LATEST_LOOKED_AT):
        if series_id not in avoid:
            return series_id
    return None
