"""Current ratings: a bot's current standings row is its row in the most recent
finished season it played (a bot that played none has none). Its rating, shown
as OpenSkill μ ± σ (``bots show``, ``/bots``), is that row's; the formats that
seed by rating (``Format.seeded``) order by its ordinal (μ − 3σ)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from arena.core.status import SeasonStatus
from arena.season.standings import StandingRow, Standings, compute_standings
from arena.storage import SeasonRecord, Storage


def current_ratings(storage: Storage, bot_ids: Sequence[str]) -> dict[str, float]:
    """The current rating ordinal (μ − 3σ) of each of ``bot_ids`` that has one."""
    return {bot: row.rating_ordinal for bot, row in current_rows(storage, bot_ids).items()}


def current_rows(storage: Storage, bot_ids: Sequence[str],
                 table_of: Callable[[SeasonRecord], Standings] | None = None
                 ) -> dict[str, StandingRow]:
    """The current standings row of each of ``bot_ids`` that has one; ``table_of``
    gives a finished season's standings (default: computed from its stored
    results; a reader that asks often passes a cache)."""
    ratings: dict[str, StandingRow] = {}
    for season in sorted(storage.list_seasons(), key=lambda season: -season.id):
        if season.status != SeasonStatus.FINISHED:
            continue
        missing = [bot for bot in bot_ids if bot not in ratings and bot in season.bot_ids]
        if not missing:
            continue
        # Storage order: the order the server's standings apply results in.
        table = (table_of(season) if table_of is not None else
                 compute_standings(season.bot_ids, storage.results_stored_after(season.id)))
        for bot in missing:
            ratings[bot] = table.row(bot)
        if len(ratings) == len(bot_ids):
            break
    return ratings
