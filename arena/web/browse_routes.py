"""The routes of the pages to browse by (``/bots``, ``/authors/NAME``, an SPRT
match's page) and their ``/api/`` twins, over the website's storage and templates."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from arena.storage import Storage
from arena.web import browse
from arena.web.sprt_page import llr_svg, sprt_page

Render = Callable[..., HTMLResponse]


class BrowsePages:
    """The handlers; ``html(template, **context)`` renders a page."""

    def __init__(self, storage: Storage, html: Render) -> None:
        self.storage = storage
        self.html = html
        self.tables = browse.FinishedTables(storage)

    async def bots(self, request: Request) -> Response:
        return self.html("bots.html", page=browse.bots_page(self.storage, self.tables))

    async def api_bots(self, request: Request) -> Response:
        return JSONResponse(browse.bots_page(self.storage, self.tables))

    async def author(self, request: Request) -> Response:
        return self.html("author.html",
                         page=browse.author_page(self.storage, request.path_params["name"],
                                              self.tables))

    async def api_author(self, request: Request) -> Response:
        return JSONResponse(browse.author_page(self.storage, request.path_params["name"],
                                              self.tables))

    async def sprt(self, request: Request) -> Response:
        page = sprt_page(self.storage, request.path_params["season_id"])
        return self.html("sprt.html", page=page, chart=self.chart(page))

    async def api_sprt(self, request: Request) -> Response:
        return JSONResponse(sprt_page(self.storage, request.path_params["season_id"]))

    @staticmethod
    def chart(page: dict[str, Any]) -> Markup:
        status = page["test"]
        return llr_svg(page["llr_path"], float(status["lower_bound"]),
                       float(status["upper_bound"]),
                       f"LLR of {status['bot_a']} against {status['bot_b']} after each pair")

    def routes(self) -> list[Route]:
        get = ["GET"]
        return [
            Route("/bots", self.bots, methods=get),
            Route("/bots/", self.bots, methods=get),
            Route("/authors/{name:arena_name}", self.author, methods=get),
            Route("/seasons/{season_id:arena_id}/sprt", self.sprt, methods=get),
            Route("/api/bots", self.api_bots, methods=get),
            Route("/api/authors/{name:arena_name}", self.api_author, methods=get),
            Route("/api/seasons/{season_id:arena_id}/sprt", self.api_sprt, methods=get),
        ]
