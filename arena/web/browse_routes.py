"""The routes of the pages to browse by (``/bots``, ``/authors/NAME``, an SPRT
match's page) and their ``/api/`` twins, over the website's storage, the server's
standings (``readings``) and templates."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from markupsafe import Markup
from starlette.responses import HTMLResponse
from starlette.routing import Route

from arena.season.readings import SeasonReadings
from arena.storage import Storage
from arena.web import browse
from arena.web.paging import Pager
from arena.web.params import query_page
from arena.web.sprt_page import llr_svg, sprt_page
from arena.web.twins import twins

Render = Callable[..., HTMLResponse]


class BrowsePages:
    """The pages and their twins; ``html(template, **context)`` renders a page."""

    def __init__(self, storage: Storage, readings: SeasonReadings, html: Render) -> None:
        self.storage = storage
        self.readings = readings
        self.html = html

    @staticmethod
    def chart(page: dict[str, Any]) -> Markup:
        status = page["test"]
        return llr_svg(page["llr_path"], float(status["lower_bound"]),
                       float(status["upper_bound"]),
                       f"LLR of {status['bot_a']} against {status['bot_b']} after each pair")

    def routes(self) -> list[Route]:
        return [
            *twins("/bots", lambda request: browse.bots_page(
                       self.storage, self.readings, Pager(query_page(request))),
                   lambda page: self.html("bots.html", page=page), also=("/bots/",)),
            *twins("/authors/{name:arena_name}",
                   lambda request: browse.author_page(
                       self.storage, self.readings, request.path_params["name"],
                       Pager(query_page(request))),
                   lambda page: self.html("author.html", page=page)),
            *twins("/seasons/{season_id:arena_id}/sprt",
                   lambda request: sprt_page(self.storage, self.readings,
                                             request.path_params["season_id"]),
                   lambda page: self.html("sprt.html", page=page, chart=self.chart(page))),
        ]
