"""Starting the arena server: ``start_server`` wires the database, the admin token,
the season manager (with the runner factory that plays a season's series in its
sandbox backend) and the gRPC service with health checking and reflection."""

from __future__ import annotations

import logging
from concurrent import futures
from dataclasses import dataclass
from pathlib import Path

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
    DEFAULT_MAX_SEASON_BOTS,
    DEFAULT_PORT,
    token_path_for,
)
from arena.core.series import SeriesOutcome, SeriesSpec
from arena.core.settings import SeasonConfig
from arena.execution import RunnerFactory, RunSeries, local_executor_factory
from arena.match.runner import run_series
from arena.sandbox import registry as sandbox_registry
from arena.season.events import EventHub
from arena.season.manager import SeasonManager
from arena.server.interceptors import DecodeRequestsInterceptor
from arena.server.service import MUTATING_METHODS, SERVICE_NAME, ArenaService
from arena.server.tokens import ensure_admin_token
from arena.storage import Storage

log = logging.getLogger(__name__)


def sandbox_runner_factory(config: SeasonConfig) -> RunSeries:
    """The production runner: ``arena.match.runner.run_series`` in a new sandbox of
    the season's backend (``arena.sandbox.registry``). Raises ``ConfigError`` for a
    backend that is not registered (the season then stops as failed, saying so)."""
    sandbox = sandbox_registry.create(config.sandbox)

    def run(spec: SeriesSpec) -> SeriesOutcome:
        return run_series(spec, sandbox)

    return run


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
    max_season_bots: int = DEFAULT_MAX_SEASON_BOTS,
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
    service = ArenaService(storage, manager, hub, token, max_season_bots=max_season_bots)
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
