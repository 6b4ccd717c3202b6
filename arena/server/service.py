"""The arena's gRPC server: ``hollywood.arena.v1.ArenaService`` over the database.

``start_server`` opens the database, creates the admin token on first start (a
file next to the database, mode 0600), serves the API with gRPC health checking and
server reflection, and resumes every season a previous server left running.
Calls that change anything need ``authorization: Bearer <token>`` metadata, else
they fail with UNAUTHENTICATED; reads and ``WatchSeason`` are open. Bad input fails
with INVALID_ARGUMENT / NOT_FOUND / ALREADY_EXISTS and a specific message, and
changes nothing; so does a request that cannot be decoded (INVALID_ARGUMENT,
``DecodeRequestsInterceptor``). ``inspect_bot_folder`` and ``check_season_request``
are the checks of RegisterBot and CreateSeason without the change, for clients that
check a whole batch before changing anything (``arena season run``).
"""

from __future__ import annotations

import hmac
import json
import logging
import os
import secrets
import stat
import threading
from collections.abc import Callable, Iterator
from concurrent import futures
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, TypeVar, cast

import grpc
from grpc_health.v1 import (  # type: ignore[import-untyped]
    health,
    health_pb2,
    health_pb2_grpc,
)
from grpc_reflection.v1alpha import reflection  # type: ignore[import-untyped]
from hollywood.arena.v1 import arena_pb2, arena_pb2_grpc

from arena.core.defaults import (
    AUTH_METADATA_KEY,
    DEFAULT_DB,
    DEFAULT_HOST,
    DEFAULT_PORT,
    token_path_for,
)
from arena.core.manifest import BotManifest, ManifestError, iter_bot_files
from arena.core.settings import ConfigError, SeasonConfig
from arena.core.status import SeasonStatus
from arena.execution import RunnerFactory, RunSeries, local_executor_factory
from arena.season.events import EventHub, SeasonEvent
from arena.season.formats import format_for, format_name
from arena.season.manager import SeasonManager
from arena.season.standings import compute_standings
from arena.server.convert import (
    bot_message,
    config_from_message,
    season_message,
    series_message,
    standings_message,
)
from arena.server.story import series_story
from arena.storage import ConflictError, NotFoundError, Storage

log = logging.getLogger(__name__)

MAX_BOT_FILES: Final = 2000
MAX_BOT_BYTES: Final = 50 * 1024 * 1024
MAX_SEASON_BOTS: Final = 64
MAX_PLANNED_SERIES: Final = 100_000
WATCH_POLL_S: Final = 0.5
SERVICE_NAME: Final = arena_pb2.DESCRIPTOR.services_by_name["ArenaService"].full_name
MUTATING_METHODS: Final = frozenset(
    f"/{SERVICE_NAME}/{name}"
    for name in ("RegisterBot", "CreateSeason", "StartSeason", "CancelSeason"))

Response = TypeVar("Response")
RequestT = TypeVar("RequestT")
ResponseT = TypeVar("ResponseT")


# ---------------------------------------------------------------- token


def ensure_admin_token(path: Path) -> str:
    """Read the admin token at ``path``, creating it (mode 0600) on first start."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return _read_token(path)
    token = secrets.token_urlsafe(32)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(token + "\n")
    return token


def _read_token(path: Path) -> str:
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        log.warning("%s was readable by others (mode %o); set to 0600", path, mode)
        path.chmod(0o600)
    token = path.read_text().strip()
    if not token:
        raise RuntimeError(f"{path} is empty; delete it to create a new admin token")
    return token


# ---------------------------------------------------------------- errors


class _Abort(Exception):
    """Ends an RPC with a status code and message."""

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _invalid(message: str) -> _Abort:
    return _Abort(grpc.StatusCode.INVALID_ARGUMENT, message)


# ---------------------------------------------------------------- validation


@dataclass(frozen=True)
class BotFolder:
    """A bot folder checked for registration: its manifest, files and fingerprint."""

    folder: Path
    manifest: BotManifest
    files: list[tuple[str, Path]]
    content_hash: str

    @property
    def id(self) -> str:
        return f"{self.manifest.name}@{self.manifest.version}"


def inspect_bot_folder(folder: Path) -> BotFolder:
    """Check that ``folder`` can be registered (valid ``bot.toml``, at most
    ``MAX_BOT_FILES`` files and ``MAX_BOT_BYTES`` bytes, readable) without changing
    anything. Raises ``ManifestError`` saying what is wrong."""
    folder = folder.expanduser().resolve()
    try:
        manifest = BotManifest.load(folder)
        files = list(iter_bot_files(folder))
        if len(files) > MAX_BOT_FILES:
            raise ManifestError(f"{folder}: {len(files)} files, more than {MAX_BOT_FILES}")
        size = sum(path.stat().st_size for _, path in files)
        if size > MAX_BOT_BYTES:
            raise ManifestError(f"{folder}: {size} bytes of files, more than {MAX_BOT_BYTES}")
        fingerprint = manifest.content_hash(folder)
    except OSError as error:  # unreadable file, vanished folder
        raise ManifestError(f"cannot read the bot folder {folder}: {error}") from None
    return BotFolder(folder, manifest, files, fingerprint)


def check_season_request(
    request: arena_pb2.CreateSeasonRequest, resolve: Callable[[str], str]
) -> tuple[list[str], SeasonConfig]:
    """The bot ids and the validated configuration of ``request``, changing nothing.
    ``resolve`` turns a bot reference (``name@version`` or ``name``) into a bot id,
    raising ``NotFoundError`` for an unknown bot. Raises ``ConfigError`` for bad
    settings or bot lists."""
    references = [reference.strip() for reference in request.bots]
    if any(not reference for reference in references):
        raise ConfigError("bots: an empty bot name")
    if len(references) < 2:
        raise ConfigError(
            f"a season needs at least two bots, got {len(references)}"
            + (f" ({references[0]})" if references else ""))
    if len(references) > MAX_SEASON_BOTS:
        raise ConfigError(f"a season takes at most {MAX_SEASON_BOTS} bots")
    ids = [resolve(reference) for reference in references]
    duplicates = sorted({bot_id for bot_id in ids if ids.count(bot_id) > 1})
    if duplicates:
        raise ConfigError(f"bots: {', '.join(duplicates)} named more than once "
                          "(a season needs at least two distinct bots)")
    config = config_from_message(request.config)
    planned = format_for(format_name(config.to_dict()), config).planned_count(len(ids))
    if planned is not None and planned > MAX_PLANNED_SERIES:
        raise ConfigError(f"the season would plan more than {MAX_PLANNED_SERIES} series")
    if len(request.name) > 200:
        raise ConfigError("name is longer than 200 characters")
    return ids, config


# ---------------------------------------------------------------- the service


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
            context.abort(abort.code, abort.message)
        except NotFoundError as error:
            context.abort(grpc.StatusCode.NOT_FOUND, str(error.args[0]))
        except ConflictError as error:
            context.abort(grpc.StatusCode.ALREADY_EXISTS, str(error))
        except (ConfigError, ManifestError) as error:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(error))
        except Exception as error:  # a bug or e.g. a locked database: say so, keep serving
            if isinstance(error, grpc.RpcError):  # an abort raised by a nested call
                raise
            log.exception("internal error")
            context.abort(grpc.StatusCode.INTERNAL,
                          f"internal error: {type(error).__name__}: {error}")
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
            request, lambda reference: self.storage.resolve_bot(reference).id)
        if not request.config.seed:
            config = SeasonConfig.build(**_build_args(config, seed=secrets.randbelow(2**62) + 1))
        stored_config = config.to_dict()
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
        table = compute_standings(season.bot_ids, self.storage.results(season_id))
        return standings_message(season, table)

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


def _build_args(config: SeasonConfig, **changes: Any) -> dict[str, Any]:
    args: dict[str, Any] = {
        "profile_name": config.profile_name, "profile_overrides": config.profile_overrides,
        "series_per_pair": config.series_per_pair, "startup_s": config.limits.startup_s,
        "decision_s": config.limits.decision_s, "reserve_s": config.limits.reserve_s,
        "sandbox": config.sandbox, "concurrency": config.concurrency,
        "max_hands": config.max_hands, "seed": config.seed,
    }
    args.update(changes)
    return args


# ---------------------------------------------------------------- malformed requests


class DecodeRequestsInterceptor(grpc.ServerInterceptor):
    """Decodes every request inside the handler, so a request that is not the
    method's message (corrupt bytes) fails with INVALID_ARGUMENT ("malformed
    CreateSeasonRequest: ...") instead of gRPC's INTERNAL "Exception deserializing
    request!". For the methods in ``guarded`` the admin token is checked first
    (``authorize``), so a call without it still fails with UNAUTHENTICATED."""

    def __init__(
        self, authorize: Callable[[grpc.ServicerContext], None], guarded: frozenset[str]
    ) -> None:
        self._authorize = authorize
        self._guarded = guarded

    def intercept_service(
        self,
        continuation: Callable[
            [grpc.HandlerCallDetails], grpc.RpcMethodHandler[RequestT, ResponseT] | None],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[RequestT, ResponseT] | None:
        handler = continuation(handler_call_details)
        if handler is None or handler.request_deserializer is None:
            return handler
        rewrapped = self._rewrap(handler, handler_call_details.method)
        return cast("grpc.RpcMethodHandler[RequestT, ResponseT]", rewrapped)

    def _rewrap(
        self, handler: grpc.RpcMethodHandler[Any, Any], method: str
    ) -> grpc.RpcMethodHandler[Any, Any]:
        assert handler.request_deserializer is not None
        decode = self._decoder(handler.request_deserializer, method)
        if handler.unary_unary is not None:
            unary_unary = handler.unary_unary
            return grpc.unary_unary_rpc_method_handler(
                lambda raw, context: unary_unary(decode(raw, context), context),
                response_serializer=handler.response_serializer)
        if handler.unary_stream is not None:
            unary_stream = handler.unary_stream
            return grpc.unary_stream_rpc_method_handler(
                lambda raw, context: unary_stream(decode(raw, context), context),
                response_serializer=handler.response_serializer)
        if handler.stream_unary is not None:
            stream_unary = handler.stream_unary
            return grpc.stream_unary_rpc_method_handler(
                lambda raws, context: stream_unary(
                    (decode(raw, context) for raw in raws), context),
                response_serializer=handler.response_serializer)
        if handler.stream_stream is not None:
            stream_stream = handler.stream_stream
            return grpc.stream_stream_rpc_method_handler(
                lambda raws, context: stream_stream(
                    (decode(raw, context) for raw in raws), context),
                response_serializer=handler.response_serializer)
        return handler

    def _decoder(
        self, deserializer: Callable[[bytes], Any], method: str
    ) -> Callable[[bytes, grpc.ServicerContext], Any]:
        message_type = getattr(deserializer, "__self__", None)
        type_name = getattr(message_type, "__name__", "request")
        guarded = method in self._guarded

        def decode(raw: bytes, context: grpc.ServicerContext) -> Any:
            try:
                return deserializer(raw)
            except Exception as error:  # DecodeError, or anything a deserializer raises
                if guarded:
                    self._authorize(context)
                context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                              f"malformed {type_name}: {error}")
                raise AssertionError("unreachable: context.abort raises") from None

        return decode


# ---------------------------------------------------------------- runners


def sandbox_runner_factory(config: SeasonConfig) -> RunSeries:
    """The production runner: ``arena.runner.run_series`` in the season's sandbox.
    With ``HOLLYWOOD_ARENA_RUNNER=inprocess`` in the environment, the built-in
    in-process runner instead (tests and quick trials; see ``arena.inprocess``)."""
    from arena.sandbox.inprocess import RUNNER_ENV, run_inprocess

    choice = os.environ.get(RUNNER_ENV, "")
    if choice == "inprocess":
        return run_inprocess
    if choice not in ("", "sandbox"):
        raise ValueError(f"{RUNNER_ENV}={choice!r}: expected 'inprocess' or 'sandbox'")
    from arena.core.series import SeriesSpec
    from arena.match.runner import run_series

    sandbox: Any
    if config.sandbox == "process":
        from arena.sandbox.process import ProcessSandbox

        sandbox = ProcessSandbox()
    else:
        from arena.sandbox.docker import DockerSandbox

        sandbox = DockerSandbox()

    def run(spec: SeriesSpec) -> Any:
        return run_series(spec, sandbox)

    return run


# ---------------------------------------------------------------- the server


@dataclass
class RunningServer:
    """A started arena server. ``stop`` ends it (season threads are daemons: a
    season interrupted by a stop resumes when a server starts on the database)."""

    server: grpc.Server
    address: str
    port: int
    storage: Storage
    manager: SeasonManager
    service: ArenaService
    token: str
    token_path: Path

    def stop(self, grace: float | None = 1.0) -> None:
        self.server.stop(grace).wait()


def start_server(
    db_path: Path | str = DEFAULT_DB,
    *,
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    runner_factory: RunnerFactory | None = None,
    resume: bool = True,
    max_workers: int = 32,
) -> RunningServer:
    """Open the database, start serving on ``host:port`` (port 0 = any free port) and
    resume interrupted seasons. Raises ``RuntimeError`` if the port cannot be bound."""
    db_path = Path(db_path)
    storage = Storage(db_path)
    token_path = token_path_for(db_path)
    token = ensure_admin_token(token_path)
    hub = EventHub()
    manager = SeasonManager(
        storage, local_executor_factory(runner_factory or sandbox_runner_factory), hub)
    service = ArenaService(storage, manager, hub, token)
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="arena-rpc"),
        interceptors=[DecodeRequestsInterceptor(service.authorize, MUTATING_METHODS)])
    arena_pb2_grpc.add_ArenaServiceServicer_to_server(service, server)
    health_servicer = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(
        (SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME), server)
    address = f"{host}:{port}"
    try:
        bound = server.add_insecure_port(address)
    except RuntimeError as error:
        storage.close()
        raise RuntimeError(f"cannot listen on {address}: {error}") from None
    if bound == 0:
        storage.close()
        raise RuntimeError(f"cannot listen on {address} (in use?)")
    server.start()
    for name in ("", SERVICE_NAME):
        health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    if resume:
        resumed = manager.resume_interrupted()
        if resumed:
            log.info("resumed season(s) %s", ", ".join(map(str, resumed)))
    return RunningServer(server, f"{host}:{bound}", bound, storage, manager, service,
                         token, token_path)
