"""The website's Starlette application: HTML pages and their JSON twins under
``/api/``, the live season stream (Server-Sent Events), static files, and the
headers that keep it safe (a Content-Security-Policy without inline scripts). Every
route is GET but signing in and out (``arena.web.signin``), which changes nothing
stored, and playing a bot yourself (``arena.web.play_pages``), which stores only the
person's own unrated game: nothing else in the arena can be changed over HTTP. A
signed-in owner also sees its bots' owner panes (``arena.web.owner``)."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any, Final
from urllib.parse import quote

import jinja2
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Lifespan, Message, Receive, Scope, Send

from arena.core.auth_limit import AuthLimits, FailedAuthLimiter
from arena.core.progress_text import progress_line
from arena.core.standing_columns import STANDING_COLUMNS, RowValues, legend_terms
from arena.match.live_moves import MoveBoard
from arena.season.events import EventHub
from arena.season.live_feed import LiveFeeds
from arena.season.readings import SeasonReadings
from arena.storage import NotFoundError, Storage, is_sealed
from arena.web import views
from arena.web.browse import SeasonLeaders
from arena.web.browse_routes import BrowsePages
from arena.web.challenge_pages import ChallengePages
from arena.web.chart import RatingPoint, rating_svg
from arena.web.crosstable_html import crosstable_body, visible
from arena.web.front import front_page
from arena.web.league_pages import LeaguePages
from arena.web.live import season_feed
from arena.web.live_pages import LivePages
from arena.web.owner import OwnerViews
from arena.web.paging import Pager
from arena.web.params import BadParameter, query_id, query_page
from arena.web.play_games import HumanGames, PlaySettings
from arena.web.play_pages import PlayPages
from arena.web.replay import UNREPLAYABLE, replay_view
from arena.web.rules_page import RulesMissingError, rules_html
from arena.web.sessions import SessionStore
from arena.web.signin import SignedIn, SignInPages, signed_in
from arena.web.times import when
from arena.web.tv import TvPace
from arena.web.tv_pages import TvPages
from arena.web.twins import get, twins

HERE: Final = Path(__file__).resolve().parent
CONTENT_SECURITY_POLICY: Final = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
SECURITY_HEADERS: Final = (
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
)
SEASON_CACHE_SIZE: Final = 8


def make_templates() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE / "templates"), autoescape=True,
        finalize=visible, undefined=jinja2.StrictUndefined)
    env.filters["url"] = lambda text: quote(str(text), safe="@")
    env.filters["when"] = when
    env.filters["progress_line"] = _progress_line
    env.globals["viewer"] = signed_in
    env.globals["STANDING_COLUMNS"] = STANDING_COLUMNS  # the terminal's columns too
    env.globals["standing_legend"] = legend_terms
    env.filters["row_values"] = RowValues
    env.globals["crosstable_body"] = crosstable_body
    return env


def _progress_line(progress: dict[str, Any]) -> str:
    """The terminal's throughput line (``arena.core.progress_text``) of a page's
    ``progress`` (``arena.season.progress.Progress.to_dict``)."""
    return progress_line(progress["series_per_minute"], progress["done"],
                         progress["expected"], progress["seconds_left"])


class SecurityHeaders:
    """Adds the Content-Security-Policy and friends to every response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *SECURITY_HEADERS]
            await send(message)

        await self.app(scope, receive, send_with_headers)


class Website:
    """The pages over one database connection of their own (reads never wait on
    the season runner's writes), the season event hub, the standings every screen
    shows (``readings``: the server's; without a server, its own) and the board of
    the series in play (``board``; without one, nothing is shown as playing)."""

    def __init__(self, storage: Storage, hub: EventHub, board: MoveBoard | None = None,
                 readings: SeasonReadings | None = None,
                 owner_views: OwnerViews | None = None, tv_pace: TvPace | None = None,
                 feeds: LiveFeeds | None = None) -> None:
        self.storage = storage
        self.owner_views = owner_views or OwnerViews()
        self.readings = readings if readings is not None else SeasonReadings(storage)
        self.templates = make_templates()
        self.feed = season_feed(feeds or LiveFeeds(hub), self.season_snapshot)
        self.leaders = SeasonLeaders(self.readings)
        self.live = LivePages(storage, board or MoveBoard(), self.templates)
        self.tv = TvPages(storage, self.live.board, self.readings, self.live, self.html,
                          tv_pace or TvPace())
        self._season_cache: dict[tuple[int, int], tuple[tuple[Any, ...], dict[str, Any],
                                                        dict[str, Markup]]] = {}
        """(season id, standings page) -> its key, data and sections."""
        self._cache_lock = threading.Lock()
        self.loop: asyncio.AbstractEventLoop | None = None
        """The serving event loop, once started (to close the feed from another thread)."""

    # -- helpers

    def html(self, template: str, status: int = 200, **context: Any) -> HTMLResponse:
        return HTMLResponse(self.templates.get_template(template).render(**context), status)

    def sections(self, page: dict[str, Any]) -> dict[str, Markup]:
        module = self.templates.get_template("_sections.html").module
        return {name: Markup(getattr(module, name)(page))
                for name in ("progress", "standings", "crosstable", "latest", "faults")}

    def season_view(self, season_id: int, number: int = 1
                    ) -> tuple[dict[str, Any], dict[str, Markup]]:
        """A season page's data and rendered live sections (page ``number`` of its
        standings), computed once per change of the season (a stored result or a
        status change) however many read it."""
        season = self.storage.get_season(season_id)
        key = (season.series_done, season.series_total, str(season.status),
               season.updated_at, season.error)
        with self._cache_lock:
            cached = self._season_cache.get((season_id, number))
        if cached is not None and cached[0] == key:
            return cached[1], cached[2]
        page = views.season_page(self.storage, self.readings, season_id,
                                 Pager(number, views.STANDINGS_PER_PAGE))
        sections = self.sections(page)
        with self._cache_lock:
            self._season_cache[(season_id, number)] = (key, page, sections)
            while len(self._season_cache) > SEASON_CACHE_SIZE:
                del self._season_cache[next(iter(self._season_cache))]
        return page, sections

    def clear_cache(self) -> None:
        with self._cache_lock:
            self._season_cache.clear()

    def season_snapshot(self, season_id: int, number: int = 1) -> dict[str, Any]:
        """A season page's live data (page ``number`` of its standings): its numbers
        and its re-rendered sections."""
        page, sections = self.season_view(season_id, number)
        return {"version": page["season"]["series_done"], "status": page["season"]["status"],
                "sections": {name: str(html) for name, html in sections.items()}}

    def bot_chart(self, page: dict[str, Any]) -> Markup:
        points = [RatingPoint(int(p["series"]), p["mu"], p["sigma"])
                  for p in page["rating_history"]]
        return rating_svg(points, visible(f"rating of {page['bot']['id']} after each series"))

    # -- pages

    def seasons_page(self, request: Request) -> dict[str, Any]:
        """A page of the seasons (``?page=``) with who leads or won each (``leader``,
        None before a result)."""
        pager = Pager(query_page(request))
        seasons, links = pager.cut(self.storage.list_seasons(limit=pager.limit,
                                                             offset=pager.offset))
        leaders = self.leaders.of(seasons)
        return {"seasons": [{**views.season_summary(season), "leader": leaders[season.id]}
                            for season in seasons], "pager": links}

    def seasons_with_rows(self, page: dict[str, Any]) -> dict[str, Any]:
        return {**page, "now_playing": self.live.rows(None),
                "front": front_page(self.storage, self.readings), "tv": self.tv.tv_page()}

    def seasons_html(self, page: dict[str, Any]) -> Response:
        """The front page: what this is, Arena TV, the current season's top, the
        latest results, the leagues, now playing and every other season."""
        return self.html("seasons.html", **page, now_playing=self.live.now_playing(None),
                         now_playing_season="", tv=self.tv.tv_page(),
                         front=front_page(self.storage, self.readings))

    def season_html(self, view: tuple[dict[str, Any], dict[str, Markup]]) -> Response:
        page, sections = view
        season_id = page["season"]["id"]
        return self.html("season.html", page=page, sections=sections,
                         now_playing=self.live.now_playing(season_id),
                         now_playing_season=season_id)

    def series_page(self, series_id: str) -> dict[str, Any]:
        """A played series' replay, or, while it is being played, its live view."""
        page = views.series_page(self.storage, series_id)
        viewer = signed_in()
        owner_seats = ([] if viewer is None
                       else self.owner_views.series(self.storage, series_id, viewer))
        return {**page, "live": not page["played"] and self.live.is_live(series_id),
                "owner_seats": owner_seats}

    def bot_page(self, request: Request) -> dict[str, Any]:
        bot_id = request.path_params["bot_id"]
        page = views.bot_page(self.storage, self.readings, bot_id, _season_param(request),
                              Pager(query_page(request)))
        viewer = signed_in()
        page["owner_view"] = (None if viewer is None
                              else self.owner_views.bot(self.storage, page["bot"]["id"], viewer))
        return page

    async def rules(self, request: Request) -> Response:
        try:
            body = rules_html()
        except RulesMissingError as error:
            return self.html("error.html", 404, title="rules missing", message=str(error))
        return self.html("rules.html", body=body)

    # -- API

    async def api_replay(self, request: Request) -> Response:
        series_id = request.path_params["series_id"]
        self.storage.get_planned(series_id)  # NotFoundError for an unknown id
        if is_sealed(self.storage, series_id):  # its log holds the seed and every deal
            return JSONResponse({"error": f"series {series_id} has no replay until it and "
                                          "every series of its round between the same two "
                                          "bots are played"}, 404)
        log, _profile = self.storage.result_log(series_id)
        try:
            view = replay_view(log)
        except UNREPLAYABLE as error:
            return JSONResponse({"error": f"the stored log of series {series_id} cannot be "
                                          f"replayed: {error}"}, 422)
        return JSONResponse({"series_id": series_id, **view})

    async def api_events(self, request: Request) -> Response:
        season_id = request.path_params["season_id"]
        number = query_page(request)
        self.storage.get_season(season_id)  # NotFoundError before the stream starts
        return self.live.stream(self.feed.updates((season_id, number)))


def _season_param(request: Request) -> int | None:
    return query_id(request, "season")


async def _not_found(request: Request, error: Exception) -> Response:
    return _error_page(request, error, 404, "Not found")


async def _bad_parameter(request: Request, error: Exception) -> Response:
    return _error_page(request, error, 400, "Bad request")


def _error_page(request: Request, error: Exception, status: int, title: str) -> Response:
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": str(error)}, status)
    env = request.app.state.website.templates
    return HTMLResponse(env.get_template("error.html").render(title=title, message=str(error)),
                        status)


class SecureStarlette(Starlette):
    """Starlette whose every response carries the security headers, the 500 that its
    outermost middleware (ServerErrorMiddleware) answers for an unexpected error
    included: a middleware added with ``add_middleware`` sits inside that one."""

    def build_middleware_stack(self) -> ASGIApp:
        return SecurityHeaders(super().build_middleware_stack())


def create_app(storage: Storage, hub: EventHub, lifespan: Lifespan[Starlette] | None = None,
               board: MoveBoard | None = None, readings: SeasonReadings | None = None, *,
               sessions: SessionStore | None = None, limiter: FailedAuthLimiter | None = None,
               owner_views: OwnerViews | None = None,
               play: HumanGames | None = None, tv_pace: TvPace | None = None,
               feeds: LiveFeeds | None = None) -> Starlette:
    """The website over ``storage`` (best a connection of its own) and ``hub``, showing
    the standings of ``readings`` (the server's; without, its own) and the series in
    play on ``board``; authors sign in to ``sessions`` (without: authors only, no
    admin), failed sign-ins counted by ``limiter`` (the server's API shares it), and
    see the owner panes ``owner_views`` fill; people play the bots in ``play``
    (without: the default ``PlaySettings``, signed-in authors only); Arena TV
    broadcasts at ``tv_pace`` (default ``TvPace``); live season pages follow the
    ticks of ``feeds`` (the server's, which its watch streams share; without, its own)."""
    site = Website(storage, hub, board, readings, owner_views, tv_pace, feeds)
    sessions = sessions or SessionStore(storage)
    sign_in = SignInPages(sessions, limiter or FailedAuthLimiter(AuthLimits()), site.html)
    games = play or HumanGames(storage, PlaySettings())
    routes = [
        *sign_in.routes(),
        *PlayPages(games, site.html).routes(),
        *site.tv.routes(),
        *twins("/", site.seasons_page, site.seasons_html,
               json=site.seasons_with_rows, api="/api/seasons"),
        *BrowsePages(storage, site.readings, site.html).routes(),
        *LeaguePages(storage, site.readings, site.html).routes(),
        *ChallengePages(storage, site.html).routes(),
        *twins("/seasons/{season_id:arena_id}",
               lambda request: site.season_view(request.path_params["season_id"],
                                                query_page(request)),
               site.season_html, json=lambda view: view[0]),
        *twins("/series/{series_id:arena_series_id}",
               lambda request: site.series_page(request.path_params["series_id"]),
               lambda page: site.html("series.html", page=page, live=page["live"])),
        *twins("/bots/{bot_id:arena_bot_id}", site.bot_page,
               lambda page: site.html("bot.html", page=page, chart=site.bot_chart(page))),
        get("/rules", site.rules),
        get("/api/seasons/{season_id:arena_id}/events", site.api_events),
        get("/api/series/{series_id:arena_series_id}/replay", site.api_replay),
        get("/api/series/{series_id:arena_series_id}/live", site.live.series_events),
        get("/api/now-playing", site.live.now_playing_events),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    app = SecureStarlette(routes=routes, lifespan=lifespan, exception_handlers={
        NotFoundError: _not_found, BadParameter: _bad_parameter},
        middleware=[Middleware(SignedIn, sessions=sessions)])
    app.state.website = site
    return app
