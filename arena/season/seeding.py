"""Current ratings, for the formats that seed by them (``Format.seeded``): a
bot's current rating is its OpenSkill ordinal (μ − 3σ) in the most recent
finished season it played; a bot that played none has no rating."""

from __future__ import annotations

from collections.abc import Sequence

from arena.core.status import SeasonStatus
from arena.season.standings import compute_standings
from arena.storage import Storage


def current_ratings(storage: Storage, bot_ids: Sequence[str]) -> dict[str, float]:
    """The current rating of each of ``bot_ids`` that has one."""
    ratings: dict[str, float] = {}
    for season in sorted(storage.list_seasons(), key=lambda season: -season.id):
        if season.status != SeasonStatus.FINISHED:
            continue
        missing = [bot for bot in bot_ids if bot not in ratings and bot in season.bot_ids]
        if not missing:
            continue
        # Storage order: the order the server's standings apply results in.
        table = compute_standings(season.bot_ids, storage.results_stored_after(season.id))
        for bot in missing:
            ratings[bot] = table.row(bot).rating_ordinal
        if len(ratings) == len(bot_ids):
            break
    return ratings
