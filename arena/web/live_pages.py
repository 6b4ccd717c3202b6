"""The live parts of the website: the live series stream, the "now playing" list
and its stream (routes of ``arena.web.app``), and the one way every live stream,
the season pages' too, is sent (``LivePages.stream``). Each stream is one
``arena.web.broadcast.Broadcast``: one source per watched key, however many
browsers watch it."""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Hashable
from typing import Any, Final

import jinja2
from markupsafe import Markup
from sse_starlette.event import ServerSentEvent
from sse_starlette.sse import EventSourceResponse
from starlette.requests import Request
from starlette.responses import Response

from arena.match.live_moves import MoveBoard
from arena.storage import Storage
from arena.web.broadcast import Broadcast, Message
from arena.web.live_series import NowPlayingSource, SeriesSource, now_playing_rows
from arena.web.params import query_id

SSE_RETRY_MS: Final = 1000
ENCODED_KEPT: Final = 256
"""Recent updates kept encoded (each broadcast to all of its clients at once)."""
PING_S: Final = 15.0
SEND_TIMEOUT_S: Final = 5.0
"""A viewer that takes no message for this long is cut off (sse-starlette)."""
SERIES_PAUSE_S: Final = 0.1
"""A watched series is sent at most ten times a second (moves between coalesce)."""
LIST_PAUSE_S: Final = 0.5


class LivePages:
    """The live series and "now playing" streams over ``board``."""

    def __init__(self, storage: Storage, board: MoveBoard, templates: jinja2.Environment
                 ) -> None:
        self.storage = storage
        self.board = board
        self.templates = templates
        self.series_feed = Broadcast(self._series_source, pause_seconds=SERIES_PAUSE_S,
                                     name="arena-web-series")
        self.list_feed = Broadcast(self._list_source, pause_seconds=LIST_PAUSE_S,
                                   name="arena-web-playing")
        self.ping_s = PING_S
        """Keep-alive comments on idle streams (a test that reads a stream only now
        and then sets it high: a ping it does not read would cut it off)."""
        self.send_timeout_s: float | None = SEND_TIMEOUT_S
        """How long one message may wait for a viewer to take it before the viewer is
        cut off. A test's client takes a message only when the test reads it, which
        on a loaded machine can be seconds later: tests set None (wait), so their
        verdict does not depend on the load."""

    def is_live(self, series_id: str) -> bool:
        return self.board.has(series_id)

    def rows(self, season_id: int | None) -> list[dict[str, Any]]:
        return now_playing_rows(self.storage, self.board, season_id)

    def now_playing(self, season_id: int | None) -> Markup:
        """The rendered "now playing" list (of a season, or of all)."""
        module = self.templates.get_template("_now_playing.html").module
        return Markup(module.now_playing(self.rows(season_id), season_id is None))  # type: ignore[attr-defined]

    def _series_source(self, key: Hashable) -> SeriesSource:
        assert isinstance(key, str)
        return SeriesSource(self.storage, self.board, key)

    def _list_source(self, key: Hashable) -> NowPlayingSource:
        season_id = key if isinstance(key, int) else None
        return NowPlayingSource(self.board, lambda: str(self.now_playing(season_id)))

    async def series_events(self, request: Request) -> Response:
        series_id = request.path_params["series_id"]
        self.storage.get_planned(series_id)  # NotFoundError before the stream starts
        return self.stream(self.series_feed.updates(series_id))

    async def now_playing_events(self, request: Request) -> Response:
        season_id = query_id(request, "season")
        if season_id is not None:
            self.storage.get_season(season_id)  # NotFoundError before the stream starts
        return self.stream(self.list_feed.updates(season_id or "all"))

    def close(self) -> None:
        self.series_feed.close()
        self.list_feed.close()

    def stream(self, messages: AsyncIterator[Message]) -> EventSourceResponse:
        """``messages`` (of a ``Broadcast``) as the response of an SSE route."""

        async def events() -> Any:
            async for message in messages:
                yield encoded(message)

        return EventSourceResponse(events(), ping=int(self.ping_s),
                                   send_timeout=self.send_timeout_s,
                                   headers={"Cache-Control": "no-store"})


@functools.lru_cache(maxsize=ENCODED_KEPT)
def encoded(message: Message) -> bytes:
    """An update as sent to a browser, encoded once for all its clients: a
    ``Broadcast`` hands every client the same message (its data the same string,
    whose hash Python keeps, so the lookup does not grow with its size)."""
    event, data = message
    return ServerSentEvent(data=data, event=event, retry=SSE_RETRY_MS).encode()
