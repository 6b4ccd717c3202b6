"""What the season page's tables add to the standings: the Bradley-Terry Elo of
each row with its 95 % interval and the ``tied`` mark, as the terminal prints them
(``arena.cli.render_statistics``), read from the same fit
(``arena.season.season_statistics.rating_fit``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena.season.season_statistics import rating_fit
from arena.season.standings import Standings
from arena.storage import SeriesRecord


def elo_rows(bot_ids: Sequence[str], results: Sequence[SeriesRecord],
             standings: Standings) -> dict[str, dict[str, Any]]:
    """Per bot: ``elo``, ``low`` and ``high`` (whole Elo, the 95 % interval) and
    ``tied_with_next``: not significantly ahead of the next row of ``standings``
    (95 %), the row order the page shows."""
    rating = rating_fit(bot_ids, results)
    order = [row.bot_id for row in standings.rows]
    rows: dict[str, dict[str, Any]] = {}
    for index, bot in enumerate(order):
        low, high = rating.interval(bot)
        rows[bot] = {
            "elo": round(rating.elo[rating.index(bot)]), "low": round(low), "high": round(high),
            "tied_with_next": index + 1 < len(order)
            and not rating.significantly_ahead(bot, order[index + 1]),
        }
    return rows
