"""The TV routes: ``/tv`` (Arena TV, also on the front page) and
``/tv/series/ID`` (any series, live or finished, from its start at human pace),
their streams ``/api/tv/events`` and ``/api/tv/series/ID/events``, and ``/api/tv``
(the rule and what it features now). Each broadcast is one ``Broadcast`` key: one
pump and one ``arena.web.tv`` source for all its viewers."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, Final

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from arena.match.live_moves import MoveBoard
from arena.season.readings import SeasonReadings
from arena.storage import Storage
from arena.web.broadcast import Broadcast, Source
from arena.web.live_pages import LivePages
from arena.web.signin import Render
from arena.web.tv import PacedSeries, TvChannel, TvPace
from arena.web.tv_choice import RULE, featured_chooser
from arena.web.twins import get, twins

CHANNEL: Final = "tv"
"""The broadcast key of the TV (a series' own broadcast is keyed by its id)."""


class TvPages:
    """The TV over the series of ``storage`` and ``board`` at ``pace``."""

    def __init__(self, storage: Storage, board: MoveBoard, readings: SeasonReadings,
                 live: LivePages, html: Render, pace: TvPace) -> None:
        self.storage = storage
        self.board = board
        self.live = live
        self.html = html
        self.pace = pace
        self.choose = featured_chooser(storage, board, readings)
        self.feed = Broadcast(self._source, name="arena-web-tv")

    def routes(self) -> list[Route]:
        return [
            *twins("/tv", lambda request: self.tv_page(),
                   lambda page: self.html("tv.html", page=page)),
            get("/tv/series/{series_id:arena_series_id}", self.series_page),
            get("/api/tv/events", self.tv_events),
            get("/api/tv/series/{series_id:arena_series_id}/events", self.series_events),
        ]

    def tv_page(self) -> dict[str, Any]:
        """The rule, the series it features now, and the pace."""
        return {"rule": RULE, "featured": self.choose(()), "bots": ["", ""],
                "move_s": self.pace.move_s,
                "linger_s": self.pace.linger_s, "stream": "/api/tv/events"}

    async def series_page(self, request: Request) -> Response:
        series_id = request.path_params["series_id"]
        planned = self.storage.get_planned(series_id)  # NotFoundError: a 404
        return self.html("tv.html", page={
            "rule": "", "featured": series_id, "bots": list(planned.bots),
            "move_s": self.pace.move_s, "linger_s": self.pace.linger_s,
            "stream": f"/api/tv/series/{series_id}/events"})

    async def tv_events(self, request: Request) -> Response:
        return self.live.stream(self.feed.updates(CHANNEL))

    async def series_events(self, request: Request) -> Response:
        series_id = request.path_params["series_id"]
        self.storage.get_planned(series_id)  # NotFoundError before the stream starts
        return self.live.stream(self.feed.updates(("series", series_id)))

    def _source(self, key: Hashable) -> Source:
        if key == CHANNEL:
            return TvChannel(self.storage, self.board, self.choose, self.pace)
        assert isinstance(key, tuple)
        return PacedSeries(self.storage, self.board, str(key[1]), self.pace)

    def close(self) -> None:
        self.feed.close()
