"""Serving the website: uvicorn in a daemon thread of the arena's process, on its
own database connection (page reads never wait on the season runner's writes),
with the server's standings (``arena.season.readings``: built once per stored
result on the server's connection, whoever reads them first)."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Final

import uvicorn
from starlette.applications import Starlette

from arena.core.auth_limit import FailedAuthLimiter
from arena.core.defaults import DEFAULT_HTTP_HOST, DEFAULT_HTTP_PORT
from arena.core.tls import TlsFiles
from arena.match.live_moves import MoveBoard
from arena.season.events import EventHub
from arena.season.live_feed import LiveFeeds
from arena.season.readings import SeasonReadings
from arena.storage import Storage
from arena.web.app import Website, create_app
from arena.web.play_games import HumanGames, PlaySettings
from arena.web.sessions import SessionStore
from arena.web.tv import TvPace

START_TIMEOUT: Final = 10.0


class WebServer:
    """The website on ``host:port`` (port 0: any free port; ``port`` tells which
    once started). ``stop`` ends the live streams first, then the server."""

    def __init__(self, app: Starlette, host: str, port: int, storage: Storage | None = None,
                 tls: TlsFiles | None = None) -> None:
        self.app = app
        self.host = host
        self.tls = tls
        self._storage = storage
        self._loop: asyncio.AbstractEventLoop | None = None
        if tls is not None:
            tls.read()  # a missing or non-PEM file is named here, not in uvicorn's thread
        config = uvicorn.Config(
            app, host=host, port=port, log_level="warning", lifespan="on",
            timeout_graceful_shutdown=2,
            ssl_certfile=None if tls is None else str(tls.cert),
            ssl_keyfile=None if tls is None else str(tls.key))
        self._server = uvicorn.Server(config)
        self._thread: threading.Thread | None = None
        self.port = port

    @property
    def website(self) -> Website:
        site: Website = self.app.state.website
        return site

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        scheme = "http" if self.tls is None else "https"
        return f"{scheme}://{host}:{self.port}"

    def start(self) -> None:
        """Start serving; ``RuntimeError`` if the address cannot be bound."""
        try:
            # Bound here, not in uvicorn's thread: a taken port is an error of this
            # call, and port 0 is known at once.
            listening = socket.create_server((self.host, self.port))
        except OSError as error:
            self.close_storage()
            raise RuntimeError(
                f"cannot serve HTTP on {self.host}:{self.port} ({error.strerror}); choose "
                "another address with --http HOST:PORT or turn the website off with "
                "--no-http") from None
        self.port = int(listening.getsockname()[1])
        self._thread = threading.Thread(target=self._server.run, args=([listening],),
                                        name="arena-web", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + START_TIMEOUT
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the website on {self.url} did not start")
            time.sleep(0.01)
        self._loop = self.website.loop

    def stop(self) -> None:
        if self._loop is not None and self._thread is not None and self._thread.is_alive():
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                self._loop.call_soon_threadsafe(self.website.feed.close)
                self._loop.call_soon_threadsafe(self.website.live.close)
                self._loop.call_soon_threadsafe(self.website.tv.close)
        self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=5.0)
        self.close_storage()

    def close_storage(self) -> None:
        if self._storage is not None:
            self._storage.close()
            self._storage = None


def start_web(db_path: Path, hub: EventHub, host: str = DEFAULT_HTTP_HOST,
              port: int = DEFAULT_HTTP_PORT, *, tls: TlsFiles | None = None,
              board: MoveBoard | None = None, readings: SeasonReadings | None = None,
              feeds: LiveFeeds | None = None, admin_token: str | None = None,
              limiter: FailedAuthLimiter | None = None,
              play: PlaySettings | None = None, tv_pace: TvPace | None = None
              ) -> WebServer:
    """The website over the database at ``db_path``, started (HTTPS with ``tls``),
    showing the standings of ``readings`` (the server's; without, its own) and the
    series in play on ``board``, its live pages batched by ``feeds`` (the server's,
    shared with the API's watch streams; without, its own); authors (and, with
    ``admin_token``, the admin) sign in, failed sign-ins counted by ``limiter`` (the
    API's); people play the bots as ``play`` allows (default ``PlaySettings``:
    signed-in authors only); Arena TV broadcasts at ``tv_pace`` (default ``TvPace``)."""
    storage = Storage(db_path)
    app = create_app(storage, hub, lifespan=_remember_loop, board=board, readings=readings,
                     feeds=feeds,
                     sessions=SessionStore(storage, admin_token), limiter=limiter,
                     play=HumanGames(storage, play or PlaySettings()), tv_pace=tv_pace)
    server = WebServer(app, host, port, storage, tls)
    server.start()
    return server


@contextlib.asynccontextmanager
async def _remember_loop(app: Starlette) -> AsyncIterator[None]:
    site: Website = app.state.website
    site.loop = asyncio.get_running_loop()
    yield
