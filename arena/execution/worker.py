"""The cluster worker's side: ``arena worker`` checks its sandboxes, then serves as a
Dask worker; ``play_clustered`` is the task each series runs there.

A series runs entirely on the worker's machine: its bots' bundles are unpacked (once
per content hash) into the worker's cache directory, started in the worker's own
sandbox (its Docker engine, its images, built once per version), and played by the
ordinary match runner; only the ``SeriesOutcome`` travels back.

Before it takes any work a worker checks every sandbox it offers (for Docker: the
engine answers and the base image is ready) and refuses to start, saying why, when
one fails. Creating the Docker sandbox removes the containers, labelled with their
owner's pid, that a killed worker (or arena) left behind.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import threading
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from arena.core.series import BotRef, SeriesOutcome
from arena.execution.bundles import BundleError, unpack
from arena.execution.cluster_moves import worker_publisher
from arena.execution.cluster_roles import WORKER_POLICY, guard_server
from arena.execution.tasks import SERIES_SLOT, SeriesTask, sandbox_resource
from arena.match.runner import run_series
from arena.sandbox import registry
from arena.sandbox.base import Sandbox

if TYPE_CHECKING:
    from distributed import Security

log = logging.getLogger(__name__)

DEFAULT_CACHE_DIR = Path(".arena") / "worker-cache"
CONNECT_TIMEOUT_S = 60.0
"""How long a starting worker tries to reach its scheduler before giving up."""


class WorkerSetupError(RuntimeError):
    """The worker cannot serve (a sandbox it offers does not work); says why."""


class _WorkerState:
    """This process's sandboxes and bundle cache, shared by its series threads."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.sandboxes: dict[str, Sandbox] = {}
        self.cache_root = DEFAULT_CACHE_DIR.resolve()

    def sandbox(self, name: str) -> Sandbox:
        with self.lock:
            sandbox = self.sandboxes.get(name)
            if sandbox is None:  # a worker started without `arena worker` (tests, dask-worker)
                # A fresh bot per series: a worker's sandbox outlives seasons, and
                # a season's series_per_container does not travel with its tasks.
                sandbox = self.sandboxes[name] = registry.create(name, series_per_container=1)
            return sandbox


_STATE = _WorkerState()


def play_clustered(task: SeriesTask) -> SeriesOutcome:
    """Play ``task`` on this worker (the function each series task runs), its moves
    published for the arena's live pages (``arena.execution.cluster_moves``)."""
    bots = (_local_bot(task, 0), _local_bot(task, 1))
    moves = worker_publisher()
    try:
        return run_series(replace(task.spec, bots=bots), _STATE.sandbox(task.sandbox), moves)
    finally:
        if moves is not None:
            moves.flush()


def _local_bot(task: SeriesTask, seat: int) -> BotRef:
    expected = task.spec.bots[seat]
    _check_vetted(task, seat)
    folder = unpack(task.bundles[seat], _STATE.cache_root)
    local = BotRef.from_folder(folder)
    if (local.name, local.version) != (expected.name, expected.version):
        raise BundleError(f"bundle {task.bundles[seat].content_hash[:12]} holds "
                          f"{local.name}@{local.version}, not {expected.name}@{expected.version}")
    return local


def _check_vetted(task: SeriesTask, seat: int) -> None:
    """Issue 25: a worker plays only the code the arena vetted (the bundle's files
    are checked against its name when it is unpacked)."""
    expected, bundle = task.spec.bots[seat], task.bundles[seat]
    if expected.vetted_hash and bundle.content_hash != expected.vetted_hash:
        raise BundleError(
            f"bundle {bundle.content_hash[:12]} is not the code {expected.name}@"
            f"{expected.version} was vetted with ({expected.vetted_hash[:12]}): "
            "refusing to play code that was not vetted")


def check_sandboxes(names: Sequence[str]) -> dict[str, Sandbox]:
    """Create each sandbox this worker will offer and get the host ready for it
    (``Sandbox.prepare_host``, e.g. Docker's base image); ``WorkerSetupError`` naming
    the first that does not work."""
    sandboxes: dict[str, Sandbox] = {}
    for name in names:
        try:
            backend = registry.backend(name)
            sandbox = backend.create(series_per_container=1)
            sandbox.prepare_host()
        except Exception as error:  # an unknown name (ConfigError) or another failure
            raise WorkerSetupError(
                f"this worker cannot offer the {name} sandbox: {error}") from None
        sandboxes[name] = sandbox
    return sandboxes


def worker_resources(slots: int, sandboxes: Sequence[str]) -> dict[str, float]:
    """What the worker advertises: ``slots`` series slots, and as many of each sandbox."""
    resources = {SERIES_SLOT: float(slots)}
    resources.update({sandbox_resource(name): float(slots) for name in sandboxes})
    return resources


def serve(
    scheduler: str,
    *,
    slots: int,
    sandboxes: Sequence[str],
    cache_dir: Path = DEFAULT_CACHE_DIR,
    name: str | None = None,
    ready: threading.Event | None = None,
    listen: Listening | None = None,
    connect_timeout: float = CONNECT_TIMEOUT_S,
) -> None:
    """Check the sandboxes, then serve as a Dask worker of ``scheduler`` until it goes
    away or the process gets SIGTERM/SIGINT. Raises ``WorkerSetupError``."""
    if slots < 1:
        raise WorkerSetupError(f"a worker needs at least 1 slot, got {slots}")
    checked = check_sandboxes(sandboxes)
    with _STATE.lock:
        _STATE.sandboxes.update(checked)
        _STATE.cache_root = cache_dir.resolve()
    asyncio.run(_serve(scheduler, slots, list(sandboxes), name, ready, listen or Listening(),
                       connect_timeout))


@dataclass(frozen=True)
class Listening:
    """Where the worker listens for its peers (the scheduler, other workers): only
    on ``host`` (loopback unless told), over TLS when ``security`` is given."""

    host: str = "127.0.0.1"
    security: Security | None = None


async def _serve(scheduler: str, slots: int, sandboxes: list[str], name: str | None,
                 ready: threading.Event | None, listen: Listening,
                 connect_timeout: float) -> None:
    from distributed import Worker

    worker = Worker(scheduler, nthreads=slots, resources=worker_resources(slots, sandboxes),
                    name=name or f"arena-worker-{os.getpid()}", dashboard=False,
                    death_timeout=connect_timeout, host=listen.host,
                    protocol="tls" if listen.security is not None else "tcp",
                    security=listen.security)
    guard_server(worker, WORKER_POLICY)
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, lambda: asyncio.ensure_future(worker.close()))
    try:
        await worker
    except (OSError, TimeoutError) as error:
        raise WorkerSetupError(f"cannot reach the scheduler at {scheduler}: {error}") from None
    log.info("worker %s serving %s with %d slot(s), sandboxes %s", worker.name, scheduler,
             slots, ", ".join(sandboxes))
    if ready is not None:
        ready.set()
    await worker.finished()
