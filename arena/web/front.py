"""The front page's own parts (beside Arena TV and the seasons list): the top of the
current season (the one playing now, else the newest), the latest results of every
season but challenges, and the newest leagues, each with its divisions' seasons grouped under it
(those seasons then leave the plain list of seasons)."""

from __future__ import annotations

from typing import Any, Final

from arena.core.status import SeasonStatus
from arena.season.formats import LADDER_FORMAT
from arena.season.readings import SeasonReadings
from arena.storage import (
    NotFoundError,
    SeasonRecord,
    Storage,
    challenge_seasons,
    latest_season_results,
    league_seasons,
    list_leagues,
)
from arena.web.views import result_summary, season_summary

TOP_ROWS: Final = 5
LATEST_RESULTS: Final = 8
FRONT_LEAGUES: Final = 5
"""The newest leagues on the front page (every league: ``/leagues``)."""


def _current(storage: Storage) -> SeasonRecord | None:
    """The newest season playing now (challenges' aside), else the newest."""
    playing = (set(storage.seasons_with_status(SeasonStatus.RUNNING))
               - set(challenge_seasons(storage, SeasonStatus.RUNNING)))
    if playing:
        return storage.get_season(max(playing))
    newest = storage.list_seasons(limit=1)
    return newest[0] if newest else None


def front_page(storage: Storage, readings: SeasonReadings) -> dict[str, Any]:
    """The current season's top rows, the latest results and the newest leagues (each
    read by id: the front page reads no whole list, however many seasons there are)."""
    current = _current(storage)
    top: list[dict[str, Any]] = []
    if current is not None:
        try:
            reading = readings.read(current.id)
        except NotFoundError:
            reading = None
        if reading is not None:
            for rank, bot_id in enumerate(reading.statistics.order[:TOP_ROWS], start=1):
                row = reading.standings.row(bot_id)
                top.append({"rank": rank, "bot": bot_id, "played": row.series_played,
                            "series_points": row.series_points,
                            "rating": f"{row.rating_mu:.1f}±{row.rating_sigma:.1f}"})
    results = latest_season_results(storage, LATEST_RESULTS)
    names = {season_id: storage.get_season(season_id).name
             for season_id in {result.season_id for result in results}}
    latest = [{**result_summary(result), "season_id": result.season_id,
               "season": names[result.season_id]} for result in results]
    leagues: list[dict[str, Any]] = []
    grouped: set[int] = set()
    for league in list_leagues(storage, limit=FRONT_LEAGUES):
        divisions = [{"round": d.round, "division": d.division,
                      **season_summary(storage.get_season(d.season_id))}
                     for d in league_seasons(storage, league.id)]
        grouped.update(division["id"] for division in divisions)
        leagues.append({"id": league.id, "name": league.name,
                        "cancelled": bool(league.cancelled_at), "seasons": divisions})
    return {"current": None if current is None else season_summary(current),
            "current_is_ladder": current is not None
            and current.config.format == LADDER_FORMAT, "top": top,
            "latest": latest, "leagues": leagues, "league_seasons": sorted(grouped)}
