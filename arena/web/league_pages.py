"""The league pages, ``/leagues`` and ``/leagues/ID``, and their ``/api/`` twins:
each round's division tables (``LEAGUE_ROUNDS_PER_PAGE`` rounds a page, newest
first) with ▲ promoted and ▼ relegated, from the same
``LeagueTables`` as the API and the terminal (``arena.season.league_tables``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from starlette.responses import HTMLResponse
from starlette.routing import Route

from arena.season.league_tables import league_summary, league_tables
from arena.season.readings import SeasonReadings
from arena.storage import Storage, get_league, list_leagues, rounds_made
from arena.web.paging import Pager
from arena.web.params import query_page
from arena.web.twins import twins

Render = Callable[..., HTMLResponse]
LEAGUE_ROUNDS_PER_PAGE: Final = 10
"""Rounds on a page of a league: each holds a table row per bot of the league."""


class LeaguePages:
    """The league pages over ``storage`` and the standings of ``readings``;
    ``html(template, **context)`` renders a page."""

    def __init__(self, storage: Storage, readings: SeasonReadings, html: Render) -> None:
        self.storage = storage
        self.readings = readings
        self.html = html

    def leagues_page(self, pager: Pager) -> dict[str, Any]:
        """A page of the leagues, newest first, and its links."""
        leagues, links = pager.cut(list_leagues(self.storage, limit=pager.limit,
                                                offset=pager.offset))
        return {"leagues": [league_summary(league) for league in leagues], "pager": links}

    def league_page(self, league_id: int, pager: Pager) -> dict[str, Any]:
        """A league with a page of its rounds, newest first (the round playing now on
        the first page), and the page's links."""
        get_league(self.storage, league_id)  # an unknown league: 404 at any page
        newest = rounds_made(self.storage, league_id) - pager.offset
        numbers, links = pager.cut(list(range(newest, max(newest - pager.limit, 0), -1)))
        shown = range(numbers[0], numbers[-1] - 1, -1) if numbers else range(0)
        return {**league_tables(self.storage, self.readings, league_id, shown).to_dict(),
                "pager": links}

    def routes(self) -> list[Route]:
        return [
            *twins("/leagues", lambda request: self.leagues_page(Pager(query_page(request))),
                   lambda page: self.html("leagues.html", page=page), also=("/leagues/",)),
            *twins("/leagues/{league_id:arena_id}",
                   lambda request: self.league_page(
                       request.path_params["league_id"],
                       Pager(query_page(request), LEAGUE_ROUNDS_PER_PAGE)),
                   lambda page: self.html("league.html", page=page)),
        ]
