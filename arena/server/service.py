"""The ``hollywood.arena.v1.ArenaService`` implementation over the database.

Calls that change anything need ``authorization: Bearer <token>`` metadata, else
they fail with UNAUTHENTICATED; reads and ``WatchSeason`` are open. Bad input fails
with INVALID_ARGUMENT / NOT_FOUND / ALREADY_EXISTS and a specific message, and
changes nothing. (The server is started by ``arena.server.app.start_server``.)
"""

from __future__ import annotations

import hmac
import json
import logging
import secrets
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Final, TypeVar

import grpc
from hollywood.arena.v1 import arena_pb2, arena_pb2_grpc

from arena.core.defaults import AUTH_METADATA_KEY
from arena.core.manifest import BotManifest, ManifestError
from arena.core.settings import ConfigError
from arena.core.status import SeasonStatus
from arena.core.text import bounded, neutralise
from arena.season.events import EventHub, SeasonEvent
from arena.season.formats import format_for, format_name
from arena.season.manager import SeasonManager
from arena.season.season_statistics import season_statistics
from arena.season.seeding import current_ratings, seed_order
from arena.season.standings import compute_standings
from arena.server.convert import (
    bot_message,
    season_message,
    series_message,
    standings_message,
)
from arena.server.statistics_convert import add_statistics
from arena.server.story import series_story
from arena.server.validation import check_season_request, inspect_bot_folder
from arena.storage import ConflictError, NotFoundError, Storage

log = logging.getLogger(__name__)

WATCH_POLL_S: Final = 0.5
MAX_STATUS_CHARS: Final = 1000
SERVICE_NAME: Final = arena_pb2.DESCRIPTOR.services_by_name["ArenaService"].full_name
MUTATING_METHODS: Final = frozenset(
    f"/{SERVICE_NAME}/{name}"
    for name in ("RegisterBot", "CreateSeason", "StartSeason", "CancelSeason"))

Response = TypeVar("Response")


class _Abort(Exception):
    """Ends an RPC with a status code and message."""

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _invalid(message: str) -> _Abort:
    return _Abort(grpc.StatusCode.INVALID_ARGUMENT, message)


class ArenaService(arena_pb2_grpc.ArenaServiceServicer):
    """The ``ArenaService`` implementation."""

    def __init__(
        self, storage: Storage, manager: SeasonManager, hub: EventHub, token: str
    ) -> None:
        self.storage = storage
        self.manager = manager
        self.hub = hub
        self._token = token
        self._register_lock = threading.Lock()

    # -- plumbing

    def _call(
        self,
        context: grpc.ServicerContext,
        body: Callable[[], Response],
        *,
        mutating: bool = False,
    ) -> Response:
        if mutating:
            self.authorize(context)
        try:
            return body()
        except _Abort as abort:
            code, message = abort.code, abort.message
        except NotFoundError as error:
            code, message = grpc.StatusCode.NOT_FOUND, str(error.args[0])
        except ConflictError as error:
            code, message = grpc.StatusCode.ALREADY_EXISTS, str(error)
        except (ConfigError, ManifestError) as error:
            code, message = grpc.StatusCode.INVALID_ARGUMENT, str(error)
        except Exception as error:  # a bug or e.g. a locked database: say so, keep serving
            if isinstance(error, grpc.RpcError):  # an abort raised by a nested call
                raise
            log.exception("internal error")
            code = grpc.StatusCode.INTERNAL
            message = f"internal error: {type(error).__name__}: {error}"
        # Messages may quote what a client sent: never echo it whole or raw.
        context.abort(code, bounded(neutralise(message), MAX_STATUS_CHARS))
        raise AssertionError("unreachable: context.abort raises")

    def authorize(self, context: grpc.ServicerContext) -> None:
        """Abort with UNAUTHENTICATED unless the call carries the admin token."""
        presented = ""
        for key, value in context.invocation_metadata():
            if key == AUTH_METADATA_KEY:
                presented = value if isinstance(value, str) else value.decode(errors="replace")
        scheme, _, token = presented.partition(" ")
        if scheme.lower() != "bearer" or not token:
            context.abort(
                grpc.StatusCode.UNAUTHENTICATED,
                "this call changes the arena and needs the admin token: send metadata "
                "'authorization: Bearer <token>' (the token is in admin.token next to the "
                "server's database)",
            )
        if not hmac.compare_digest(token.strip().encode(), self._token.encode()):
            context.abort(grpc.StatusCode.UNAUTHENTICATED, "wrong admin token")

    def _season_id(self, requested: int) -> int:
        return requested if requested else self.storage.latest_season_id()

    # -- bots

    def RegisterBot(
        self, request: arena_pb2.RegisterBotRequest, context: grpc.ServicerContext
    ) -> arena_pb2.RegisterBotResponse:
        return self._call(context, lambda: self._register(request), mutating=True)

    def _register(self, request: arena_pb2.RegisterBotRequest) -> arena_pb2.RegisterBotResponse:
        if not request.folder.strip():
            raise _invalid("folder is required: the path of a bot folder holding bot.toml")
        bot = inspect_bot_folder(Path(request.folder))
        try:
            with self._register_lock:
                record, created = self.storage.register_bot(
                    name=bot.manifest.name, version=bot.manifest.version,
                    language=bot.manifest.language, author=bot.manifest.author,
                    description=bot.manifest.description, content_hash=bot.content_hash,
                    source_folder=bot.folder, files=bot.files,
                )
        except OSError as error:  # unreadable file, vanished folder, disk full
            raise _invalid(f"cannot read or copy the bot folder {bot.folder}: {error}") from None
        return arena_pb2.RegisterBotResponse(bot=bot_message(record), created=created)

    def ListBots(
        self, request: arena_pb2.ListBotsRequest, context: grpc.ServicerContext
    ) -> arena_pb2.ListBotsResponse:
        return self._call(context, lambda: arena_pb2.ListBotsResponse(
            bots=[bot_message(bot) for bot in self.storage.list_bots()]))

    # -- seasons

    def CreateSeason(
        self, request: arena_pb2.CreateSeasonRequest, context: grpc.ServicerContext
    ) -> arena_pb2.CreateSeasonResponse:
        return self._call(context, lambda: self._create_season(request), mutating=True)

    def _create_season(
        self, request: arena_pb2.CreateSeasonRequest
    ) -> arena_pb2.CreateSeasonResponse:
        ids, config = check_season_request(
            request, lambda reference: self.storage.resolve_bot(reference).id,
            lambda bot_id: BotManifest.load(self.storage.get_bot(bot_id).folder))
        if not request.config.seed:
            config = config.with_changes(seed=secrets.randbelow(2**62) + 1)
        stored_config = config.to_dict()
        if format_name(stored_config) == "knockout":
            ids = seed_order(ids, current_ratings(self.storage, ids))
        first_round = format_for(format_name(stored_config), config).first_round(
            ids, config.seed)
        season = self.storage.create_season(
            name=request.name.strip(), config=stored_config,
            profile=config.profile().to_dict(), bot_ids=ids,
            plan=[pairing.as_row() for pairing in first_round],
        )
        if not request.hold:
            self.manager.start(season.id)
            season = self.storage.get_season(season.id)
        return arena_pb2.CreateSeasonResponse(season=season_message(season))

    def StartSeason(
        self, request: arena_pb2.StartSeasonRequest, context: grpc.ServicerContext
    ) -> arena_pb2.StartSeasonResponse:
        def body() -> arena_pb2.StartSeasonResponse:
            season = self.storage.get_season(self._required_id(request.season_id))
            if season.status == SeasonStatus.FINISHED:
                raise _Abort(grpc.StatusCode.FAILED_PRECONDITION,
                             f"season {season.id} is finished: nothing left to play")
            self.manager.start(season.id)
            return arena_pb2.StartSeasonResponse(
                season=season_message(self.storage.get_season(season.id)))
        return self._call(context, body, mutating=True)

    def CancelSeason(
        self, request: arena_pb2.CancelSeasonRequest, context: grpc.ServicerContext
    ) -> arena_pb2.CancelSeasonResponse:
        def body() -> arena_pb2.CancelSeasonResponse:
            season = self.storage.get_season(self._required_id(request.season_id))
            if season.status.is_terminal:
                raise _Abort(grpc.StatusCode.FAILED_PRECONDITION,
                             f"season {season.id} is already {season.status}")
            self.manager.cancel(season.id)
            return arena_pb2.CancelSeasonResponse(
                season=season_message(self.storage.get_season(season.id)))
        return self._call(context, body, mutating=True)

    def _required_id(self, season_id: int) -> int:
        if season_id <= 0:
            raise _invalid("season_id is required (a season number, see `arena season list`)")
        return season_id

    def GetSeason(
        self, request: arena_pb2.GetSeasonRequest, context: grpc.ServicerContext
    ) -> arena_pb2.GetSeasonResponse:
        return self._call(context, lambda: arena_pb2.GetSeasonResponse(
            season=season_message(self.storage.get_season(self._season_id(request.season_id)))))

    def ListSeasons(
        self, request: arena_pb2.ListSeasonsRequest, context: grpc.ServicerContext
    ) -> arena_pb2.ListSeasonsResponse:
        return self._call(context, lambda: arena_pb2.ListSeasonsResponse(
            seasons=[season_message(season) for season in self.storage.list_seasons()]))

    # -- standings and live

    def standings(self, season_id: int) -> arena_pb2.Standings:
        season = self.storage.get_season(season_id)
        results = self.storage.results(season_id)
        table = compute_standings(season.bot_ids, results)
        message = standings_message(season, table)
        add_statistics(message, season_statistics(
            season, self.storage.planned_series(season_id), results, table))
        return message

    def GetStandings(
        self, request: arena_pb2.GetStandingsRequest, context: grpc.ServicerContext
    ) -> arena_pb2.GetStandingsResponse:
        return self._call(context, lambda: arena_pb2.GetStandingsResponse(
            standings=self.standings(self._season_id(request.season_id))))

    def WatchSeason(
        self, request: arena_pb2.WatchSeasonRequest, context: grpc.ServicerContext
    ) -> Iterator[arena_pb2.WatchSeasonResponse]:
        season_id = self._call(context, lambda: self._season_id(request.season_id))
        self._call(context, lambda: self.storage.get_season(season_id))
        with self.hub.subscribe(season_id) as subscription:
            yield self._watch_message(season_id, standings=True)
            while context.is_active():
                event = subscription.get(WATCH_POLL_S)
                if event is None:
                    season = self.storage.get_season(season_id)
                    if season.status.is_terminal and not self.manager.is_active(
                            season_id):
                        yield self._watch_message(season_id, standings=True)
                        return
                    continue
                yield from self._event_messages(event)
                if event.kind == "status" and SeasonStatus(event.status).is_terminal:
                    return

    def _event_messages(self, event: SeasonEvent) -> Iterator[arena_pb2.WatchSeasonResponse]:
        if event.kind == "series_started":
            planned = self.storage.get_planned(event.series_id)
            message = self._watch_message(event.season_id)
            message.series_started.CopyFrom(arena_pb2.SeriesStarted(
                series_id=planned.id, seat0_bot_id=planned.seat0_bot,
                seat1_bot_id=planned.seat1_bot))
            yield message
        elif event.kind == "series_finished":
            planned = self.storage.get_planned(event.series_id)
            message = self._watch_message(event.season_id)
            message.series_finished.series.CopyFrom(
                series_message(planned, self.storage.get_result(planned.id)))
            yield message
            yield self._watch_message(event.season_id, standings=True)
        elif SeasonStatus(event.status).is_terminal:
            yield self._watch_message(event.season_id, standings=True)

    def _watch_message(
        self, season_id: int, *, standings: bool = False
    ) -> arena_pb2.WatchSeasonResponse:
        season = self.storage.get_season(season_id)
        message = arena_pb2.WatchSeasonResponse(
            status=season_message(season).status, series_done=season.series_done,
            series_total=season.series_total)
        if standings:
            message.standings.CopyFrom(self.standings(season_id))
        return message

    # -- series

    def ListSeries(
        self, request: arena_pb2.ListSeriesRequest, context: grpc.ServicerContext
    ) -> arena_pb2.ListSeriesResponse:
        def body() -> arena_pb2.ListSeriesResponse:
            season_id = self._season_id(request.season_id)
            self.storage.get_season(season_id)
            results = {result.series_id: result for result in self.storage.results(season_id)}
            return arena_pb2.ListSeriesResponse(series=[
                series_message(planned, results.get(planned.id))
                for planned in self.storage.planned_series(season_id)])
        return self._call(context, body)

    def GetSeries(
        self, request: arena_pb2.GetSeriesRequest, context: grpc.ServicerContext
    ) -> arena_pb2.GetSeriesResponse:
        def body() -> arena_pb2.GetSeriesResponse:
            series_id = request.series_id.strip()
            if not series_id:
                raise _invalid("series_id is required, e.g. 3-17")
            planned = self.storage.get_planned(series_id)
            result = self.storage.get_result(series_id)
            response = arena_pb2.GetSeriesResponse(series=series_message(planned, result))
            if result is None:
                season = self.storage.get_season(planned.season_id)
                response.profile_json = json.dumps(season.profile, sort_keys=True)
                return response
            events, profile = self.storage.result_log(series_id)
            response.profile_json = json.dumps(profile, sort_keys=True)
            response.event_log_json = json.dumps(events)
            story = series_story(events, planned.bots, result.fault)
            for number, lines in enumerate(story, start=1):
                response.hands.add(number=number, lines=lines)
            return response
        return self._call(context, body)
