"""The front page's own parts (beside Arena TV and the seasons list): the top of the
current season (the one playing now, else the newest), the latest results of every
season, and the leagues, each with its divisions' seasons grouped under it (those
seasons then leave the plain list of seasons)."""

from __future__ import annotations

from typing import Any, Final

from arena.core.status import SeasonStatus
from arena.season.formats import LADDER_FORMAT
from arena.season.readings import SeasonReadings
from arena.storage import NotFoundError, Storage, league_seasons, list_leagues
from arena.web.views import result_summary, season_summary

TOP_ROWS: Final = 5
LATEST_RESULTS: Final = 8


def front_page(storage: Storage, readings: SeasonReadings) -> dict[str, Any]:
    """The current season's top rows, the latest results and the leagues."""
    seasons = storage.list_seasons()
    playing = [s for s in seasons if s.status == SeasonStatus.RUNNING]
    chosen = playing or seasons
    current = chosen[0] if chosen else None
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
    names = {s.id: s.name for s in seasons}
    latest = [{**result_summary(result), "season_id": result.season_id,
               "season": names.get(result.season_id, "")}
              for result in storage.latest_results(LATEST_RESULTS)]
    by_id = {s.id: s for s in seasons}
    leagues: list[dict[str, Any]] = []
    grouped: set[int] = set()
    for league in list_leagues(storage):
        divisions = [{"round": d.round, "division": d.division,
                      **season_summary(by_id[d.season_id])}
                     for d in league_seasons(storage, league.id) if d.season_id in by_id]
        grouped.update(division["id"] for division in divisions)
        leagues.append({"id": league.id, "name": league.name,
                        "cancelled": bool(league.cancelled_at), "seasons": divisions})
    return {"current": None if current is None else season_summary(current),
            "current_is_ladder": current is not None
            and current.config.format == LADDER_FORMAT, "top": top,
            "latest": latest, "leagues": leagues, "league_seasons": sorted(grouped)}
