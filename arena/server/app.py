"""Starting the arena server: ``start_server`` wires the database, the admin token,
the season manager (with the runner factory that plays a season's series in its
sandbox backend), the gRPC service with health checking and reflection, and the
read-only website (``arena.web``) on the same event hub and the same standings
(``arena.season.readings``)."""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Sequence
from concurrent import futures
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

import grpc
from grpc_health.v1 import (  # type: ignore[import-untyped]
    health,
    health_pb2,
    health_pb2_grpc,
)
from grpc_reflection.v1alpha import reflection  # type: ignore[import-untyped]
from hollywood.arena.v1 import arena_pb2_grpc

from arena.core.defaults import (
    DEFAULT_DB,
    DEFAULT_HOST,
    DEFAULT_LOG_RETENTION_DAYS,
    DEFAULT_MAX_SEASON_BOTS,
    DEFAULT_PORT,
    token_path_for,
)
from arena.core.operator_files import refuse_unless_regular
from arena.core.series import BotRef, SeriesOutcome, SeriesSpec
from arena.core.settings import SeasonConfig
from arena.core.tls import TlsFiles
from arena.core.token_binding import (
    ServerRecord,
    served_addresses,
    server_record_path_for,
    write_server_record,
)
from arena.execution import ExecutorFactory, RunnerFactory, RunSeries, local_executor_factory
from arena.match.live_moves import MoveBoard
from arena.match.runner import run_series
from arena.sandbox import registry as sandbox_registry
from arena.sandbox.base import Sandbox
from arena.sandbox.build_logs import keep_build_logs_beside
from arena.sandbox.shelf import SandboxShelf
from arena.season.live_feed import LiveFeeds
from arena.season.manager import SeasonManager
from arena.season.readings import SeasonReadings
from arena.server.event_log import LoggingHub, LoggingSeasonManager
from arena.server.exclusive import (
    DatabaseLock,
    ServerConflictError,
    port_in_use_message,
    port_taken,
)
from arena.server.interceptors import DecodeRequestsInterceptor
from arena.server.listening import reachable_addresses, resolve, unbound
from arena.server.log_retention import LogRetention
from arena.server.metrics import ArenaMetrics, LiveSources
from arena.server.service import MUTATING_METHODS, SERVICE_NAME, ArenaService
from arena.server.stream_limits import StreamLimitInterceptor, StreamSlots
from arena.server.tokens import ensure_admin_token
from arena.server.uploads import UploadLimits
from arena.server.vetting import VettingWorker
from arena.server.watch import encoded_watch_handler
from arena.storage import Storage
from arena.web.play_games import PlaySettings

if TYPE_CHECKING:
    from arena.web.serve import WebServer

log = logging.getLogger(__name__)

UNARY_RESERVE_THREADS: Final = 8
"""Threads of the server's pool that open streams can never take: unary calls
(admin calls included) are served however many watchers there are."""
MAX_STREAMS_PER_CLIENT: Final = 8


def sandbox_runner_factory(config: SeasonConfig, board: MoveBoard | None = None,
                           shelf: SandboxShelf | None = None) -> RunSeries:
    """The production runner: ``arena.match.runner.run_series`` in a sandbox of the
    season's backend (``arena.sandbox.registry``), its moves on ``board`` for the
    website's live pages; with a ``shelf`` (the server's), a sandbox kept across
    seasons where the backend reuses bots (``arena.sandbox.shelf``). Raises
    ``ConfigError`` for a backend that is not registered (the season then stops as
    failed, saying so)."""
    if shelf is None:
        return SandboxRunner(sandbox_registry.create(
            config.sandbox, series_per_container=config.series_per_container), board)
    sandbox, kept = shelf.lend(config.sandbox, config.series_per_container)
    return SandboxRunner(sandbox, board, owned=not kept)


class SandboxRunner:
    """Plays series in one sandbox; ``close`` (called by the executor when the season
    is over) releases what a sandbox of the season's own keeps, e.g. the warm pool's
    spare bots and the containers kept for reuse; one the server's shelf keeps
    (``owned`` False) stays for the next season and is closed with the server."""

    def __init__(self, sandbox: Sandbox, board: MoveBoard | None = None, *,
                 owned: bool = True) -> None:
        self.sandbox = sandbox
        self.board = board
        self.owned = owned

    def __call__(self, spec: SeriesSpec) -> SeriesOutcome:
        if self.board is None:
            return run_series(spec, self.sandbox)
        with self.board.playing(spec.series_id) as moves:
            return run_series(spec, self.sandbox, moves)

    def start_ahead(self, bots: Sequence[BotRef]) -> None:
        """Prepare ``bots`` on a thread of their own (``StartsAhead``): the warm pool
        starts each version's first container now, within the admission limits; a
        version with a container kept for it only has its image seen to."""
        threading.Thread(target=self._prepare_all, args=(list(bots),), name="start-ahead",
                         daemon=True).start()

    def _prepare_all(self, bots: list[BotRef]) -> None:
        for bot in bots:
            try:
                self.sandbox.prepare(bot)
            except Exception as error:  # the bot's series meets it where it belongs
                log.info("%s@%s not started ahead: %s", bot.name, bot.version, error)

    def close(self) -> None:
        if self.owned:
            self.sandbox.close()


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
    database_lock: DatabaseLock
    web: WebServer | None = None
    """The website, when started with ``http``."""
    vetting: VettingWorker | None = None
    """Builds and validates uploads (None: uploads are active at once)."""
    metrics: ArenaMetrics | None = None
    """The operator's metrics (served on ``metrics_port`` when started with ``metrics``)."""
    metrics_port: int = 0

    retention: LogRetention | None = None
    """Prunes old seat logs."""
    shelf: SandboxShelf | None = None
    """The sandboxes kept across seasons (closed last, after the seasons stopped)."""

    def stop(self, grace: float | None = 1.0) -> None:
        if self.retention is not None:
            self.retention.stop()
        if self.metrics is not None:
            self.metrics.stop()
        if self.vetting is not None:
            self.vetting.stop()
        if self.web is not None:
            self.web.stop()
        self.server.stop(grace).wait()
        if self.shelf is not None:
            self.shelf.close()
        self.database_lock.release()


def start_server(
    db_path: Path | str = DEFAULT_DB,
    *,
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    runner_factory: RunnerFactory | None = None,
    executor_factory: ExecutorFactory | None = None,
    resume: bool = True,
    max_workers: int = 32,
    max_streams_per_client: int = MAX_STREAMS_PER_CLIENT,
    http: tuple[str, int] | None = None,
    max_season_bots: int = DEFAULT_MAX_SEASON_BOTS,
    upload_limits: UploadLimits | None = None,
    vetting_sandbox: str | None = None,
    tls: TlsFiles | None = None,
    interceptors: Sequence[grpc.ServerInterceptor] = (),
    board: MoveBoard | None = None,
    metrics: tuple[str, int] | None = None,
    log_retention_days: float = DEFAULT_LOG_RETENTION_DAYS,
    play: PlaySettings | None = None,
) -> RunningServer:
    """Open the database, start serving on ``host:port`` (port 0 = any free port),
    the website on ``http`` (host, port) if given, and resume interrupted seasons.
    Seasons play on ``executor_factory``'s executors (e.g.
    ``arena.execution.cluster.cluster_executor_factory``), by default on a local thread pool
    running ``runner_factory``. With ``vetting_sandbox`` (a sandbox backend's name)
    every uploaded version is built and validated in that backend before it may
    play (``arena.server.vetting``); without, uploads are active at once (trusted
    use: tests, tools that vet nothing). With ``tls`` the API and the website serve
    TLS only. ``interceptors`` run before the server's own (e.g. a test's recorder).
    ``board`` (one of its own by default) gets the moves of the series in play for the
    website's live pages: the default runner feeds it, a cluster executor made with
    the same board (``cluster_executor_factory(..., board=)``) too. With ``metrics``
    (host, port) the operator's metrics are served there (``arena.server.metrics``).
    Each seat's log of a series is kept ``log_retention_days`` (0: for ever;
    ``arena.server.log_retention``).
    ``play`` says who may play the bots on the website and how many at once.
    The addresses served are recorded next to the database
    (``arena.core.token_binding``): the clients of this folder send the admin token
    only there. Raises ``RuntimeError`` if a port cannot be bound and
    ``ServerConflictError`` (a ``RuntimeError``) if another live server holds the
    database or the port."""
    db_path = Path(db_path)
    refuse_unless_regular(db_path, "database")  # before its lock is made beside it
    if tls is not None:
        tls.read()  # a missing or bad file is named before anything starts
    database_lock = DatabaseLock(db_path)
    try:
        total_streams = max(1, max_workers - UNARY_RESERVE_THREADS)
        slots = StreamSlots(total=total_streams,
                            per_client=min(max_streams_per_client, total_streams))
        listening = _Listening(host, port, max_workers, slots, http, tls, tuple(interceptors),
                               metrics, play or PlaySettings())
        board = board or MoveBoard()
        shelf = SandboxShelf()
        executors = executor_factory or local_executor_factory(
            runner_factory or functools.partial(sandbox_runner_factory, board=board,
                                                shelf=shelf))
        running = _start(db_path, database_lock, listening, executors, resume,
                         max_season_bots, upload_limits, vetting_sandbox, board)
        running.shelf = shelf
        running.retention = LogRetention(running.storage, log_retention_days)
        running.retention.start()
        return running
    except BaseException:
        database_lock.release()
        raise


@dataclass(frozen=True)
class _Listening:
    """Where and how the server listens."""

    host: str
    port: int
    max_workers: int
    slots: StreamSlots
    http: tuple[str, int] | None
    tls: TlsFiles | None
    interceptors: tuple[grpc.ServerInterceptor, ...]
    metrics: tuple[str, int] | None
    play: PlaySettings


def _start(
    db_path: Path,
    database_lock: DatabaseLock,
    listening: _Listening,
    executors: ExecutorFactory,
    resume: bool,
    max_season_bots: int,
    upload_limits: UploadLimits | None,
    vetting_sandbox: str | None,
    board: MoveBoard,
) -> RunningServer:
    host, port, http = listening.host, listening.port, listening.http
    token_path = token_path_for(db_path)
    token = ensure_admin_token(token_path)  # before the database: an unusable file opens nothing
    storage = Storage(db_path)
    keep_build_logs_beside(db_path)
    hub = LoggingHub(storage)  # the operator's log: one line per season event and fault
    manager = LoggingSeasonManager(storage, executors, hub)
    vetting = None if vetting_sandbox is None else VettingWorker(storage, vetting_sandbox)
    # One source of standings, statistics and progress: the API's and the website's.
    readings = SeasonReadings(storage, manager.board)
    # One batcher of live updates: the API's watch streams and the website's.
    feeds = LiveFeeds(hub)
    service = ArenaService(storage, manager, hub, token, max_season_bots=max_season_bots,
                           upload_limits=upload_limits, vetting=vetting, readings=readings,
                           feeds=feeds)
    metrics = ArenaMetrics(storage, LiveSources(listening.slots, service.upload_slots, vetting))
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=listening.max_workers,
                                   thread_name_prefix="arena-rpc"),
        interceptors=[metrics.interceptor(), *listening.interceptors,
                      StreamLimitInterceptor(listening.slots),
                      DecodeRequestsInterceptor(service.auth.check, MUTATING_METHODS)],
        # gRPC sets SO_REUSEPORT by default: a second server on the port would bind
        # and share the clients at random. Without BDP probing a client may send a
        # message ahead of what its call has read, not a growing window of several
        # MiB: three uploads at once held ~30 MiB each in gRPC's buffers with it.
        options=[("grpc.so_reuseport", 0), ("grpc.http2.bdp_probe", 0)])
    # WatchSeason sends bytes encoded once for every stream: its handler goes before
    # the generated one (generic handlers are tried in order) and over it (by name).
    watch_handler = encoded_watch_handler(service.WatchSeason)
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(SERVICE_NAME, watch_handler),))
    arena_pb2_grpc.add_ArenaServiceServicer_to_server(service, server)
    server.add_registered_method_handlers(SERVICE_NAME, watch_handler)
    health_servicer = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(
        (SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME), server)
    address = f"{host}:{port}"
    try:
        bound = _listen(server, address, listening.tls)
    except RuntimeError as error:
        storage.close()
        if port and port_taken(host, port):
            raise ServerConflictError(port_in_use_message(address, port)) from None
        raise RuntimeError(f"cannot listen on {address}: {error}") from None
    if bound == 0:
        storage.close()
        if port and port_taken(host, port):
            raise ServerConflictError(port_in_use_message(address, port))
        raise RuntimeError(f"cannot listen on {address}")
    # What the sockets take, not what was asked: see arena.server.listening.
    reachable = reachable_addresses(bound)
    addresses = served_addresses(host, bound, reachable, resolve)
    missed = unbound(host, reachable)
    if missed:
        log.warning("listening on %s only: %s could not be bound (held by another process?)",
                    ", ".join(addresses) or "nothing found", ", ".join(map(str, missed)))
    service.served = ServerRecord(tuple(addresses), listening.tls is not None)
    write_server_record(server_record_path_for(db_path), service.served)
    web = None
    if http is not None:
        try:
            # The website's stack (Starlette, uvicorn, Jinja) loads only when it is
            # served: `season run --no-http` starts without it.
            from arena.web.serve import start_web

            web = start_web(db_path, hub, *http, tls=listening.tls, board=board,
                            readings=readings, feeds=feeds, admin_token=token,
                            limiter=service.auth.limiter, play=listening.play)
        except RuntimeError:
            storage.close()
            raise
    metrics_port = 0
    if listening.metrics is not None:
        metrics_host, wanted = listening.metrics
        try:
            metrics_port = metrics.serve(metrics_host, wanted)
        except OSError as error:
            if web is not None:
                web.stop()
            storage.close()
            raise RuntimeError(f"cannot serve metrics on {metrics_host}:{wanted}: "
                               f"{error.strerror or error}") from None
    server.start()
    for name in ("", SERVICE_NAME):
        health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    if vetting is not None:
        waiting = vetting.resume()
        if waiting:
            log.info("vetting again: %s", ", ".join(waiting))
    if resume:
        resumed = manager.resume_interrupted()
        if resumed:
            log.info("resumed season(s) %s", ", ".join(map(str, resumed)))
        # A league whose round ended while the server was down moves on now.
        moved = service.leagues.catch_up()
        if moved:
            log.info("league(s) %s moved to their next round", ", ".join(map(str, moved)))
        service.challenges.pump()  # challenges that waited for their turn
    return RunningServer(server, f"{host}:{bound}", bound, storage, manager, service,
                         token, token_path, database_lock, web, vetting, metrics, metrics_port)


def _listen(server: grpc.Server, address: str, tls: TlsFiles | None) -> int:
    """Add the port, in clear or TLS only; the port bound (0: none)."""
    if tls is None:
        return server.add_insecure_port(address)
    chain, key = tls.read()
    return server.add_secure_port(address, grpc.ssl_server_credentials([(key, chain)]))
