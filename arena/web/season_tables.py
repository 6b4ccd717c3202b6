"""What the season page's tables add to the standings: the Bradley-Terry Elo of
each row with its 95 % interval and the ``tied`` or ``behind`` mark, as the terminal prints them
(``arena.cli.render_statistics``), read from the one fit the server keeps
(``arena.season.season_statistics.SeasonStatistics``), never fitted again here."""

from __future__ import annotations

from typing import Any

from arena.season.season_statistics import SeasonStatistics


def elo_rows(statistics: SeasonStatistics) -> dict[str, dict[str, Any]]:
    """Per bot: ``elo``, ``low`` and ``high`` (whole Elo, the 95 % interval),
    ``half`` (the interval's half-width: it is symmetric, and the table shows
    ``elo±half`` as the terminal does), ``tied_with_next`` (neither this row nor the
    next significantly stronger, 95 %) and ``behind_next`` (the next row
    significantly stronger), in the order every screen shows."""
    rating = statistics.rating
    rows: dict[str, dict[str, Any]] = {}
    for bot in statistics.order:
        low, high = rating.interval(bot)
        rows[bot] = {
            "elo": round(rating.elo[rating.index(bot)]), "low": round(low), "high": round(high),
            "half": round((high - low) / 2),
            "tied_with_next": statistics.tied_with_next.get(bot, False),
            "behind_next": statistics.behind_next.get(bot, False),
        }
    return rows
