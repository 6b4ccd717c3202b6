"""``ClusterExecutor``: a season's series played on a Dask distributed cluster.

Each series is one task keyed by its series id (``SeriesTask.key``), asking for one
``series_slot`` and one slot of the season's sandbox backend, so it lands only on a
worker that offers that sandbox. The task carries the bots' code as content-hash
bundles (``arena.execution.bundles``) and runs entirely on the worker
(``arena.execution.worker.play_clustered``); only the outcome travels back.

A worker lost mid-series (killed, unreachable) makes the scheduler replay the task
elsewhere, from the same specification (same seed, same plan); a task that raises
is retried ``retries`` times. A series played more than once is stored once: the
season runner drops and counts a second result for a stored series.
"""

from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import Future
from typing import Any

from arena.core.series import SeriesOutcome, SeriesSpec
from arena.core.settings import SeasonConfig
from arena.execution.base import Executor, ExecutorFactory
from arena.execution.bundles import bundle_of
from arena.execution.tasks import SERIES_SLOT, SeriesTask, sandbox_resource
from arena.execution.worker import play_clustered

log = logging.getLogger(__name__)

DEFAULT_RETRIES = 2
"""Retries of a series whose task raised (an arena-side failure on one worker)."""
CONNECT_TIMEOUT_S = 30.0
QUEUE_FACTOR = 2
"""Series kept submitted per slot: the next series waits on its worker, so a slot
that frees up starts it without a round trip to the arena."""
_CAPACITY_TTL_S = 1.0


class ClusterUnavailableError(RuntimeError):
    """The scheduler cannot be reached."""


class ClusterExecutor:
    """Plays submitted series on the Dask cluster at ``address`` in ``sandbox``."""

    def __init__(self, address: str, sandbox: str, *, retries: int = DEFAULT_RETRIES,
                 connect_timeout: float = CONNECT_TIMEOUT_S) -> None:
        from distributed import Client

        self.address = address
        self.sandbox = sandbox
        self.retries = retries
        try:
            self._client = Client(address, timeout=connect_timeout, set_as_default=False)
        except (OSError, TimeoutError) as error:
            raise ClusterUnavailableError(
                f"cannot reach the Dask scheduler at {address}: {error}") from None
        self._lock = threading.Lock()
        self._held: dict[str, Any] = {}  # key -> the Dask future, kept until it settles
        self._capacity = 1
        self._capacity_at = -_CAPACITY_TTL_S
        if self.capacity_now() == 0:
            log.warning("no worker of %s offers the %s sandbox yet: series wait for one "
                        "(start `arena worker --scheduler %s --sandbox %s`)",
                        address, sandbox, address, sandbox)

    def capacity_now(self) -> int:
        """The slots of the connected workers that offer this sandbox (0 if none)."""
        wanted = sandbox_resource(self.sandbox)
        workers = self._client.scheduler_info(n_workers=-1).get("workers", {})
        return int(sum(
            min(info.get("resources", {}).get(SERIES_SLOT, 0),
                info.get("resources", {}).get(wanted, 0))
            for info in workers.values()))

    @property
    def capacity(self) -> int:
        """``QUEUE_FACTOR`` x the cluster's slots for this sandbox (at least 1, so a
        season waits for a worker rather than stalling), re-read at most once a second."""
        now = time.monotonic()
        if now - self._capacity_at >= _CAPACITY_TTL_S:
            self._capacity = max(1, QUEUE_FACTOR * self.capacity_now())
            self._capacity_at = now
        return self._capacity

    def submit(self, spec: SeriesSpec) -> Future[SeriesOutcome]:
        task = SeriesTask(spec, (bundle_of(spec.bots[0].folder), bundle_of(spec.bots[1].folder)),
                          self.sandbox)
        answer: Future[SeriesOutcome] = Future()
        answer.set_running_or_notify_cancel()
        remote = self._client.submit(
            play_clustered, task, key=task.key, pure=False, retries=self.retries,
            resources={SERIES_SLOT: 1, sandbox_resource(self.sandbox): 1})
        with self._lock:
            self._held[task.key] = remote

        def settle(done: Any) -> None:
            try:
                answer.set_result(done.result())
            except BaseException as error:
                answer.set_exception(error)
            finally:
                with self._lock:
                    if self._held.get(task.key) is done:
                        del self._held[task.key]

        remote.add_done_callback(settle)
        return answer

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> ClusterExecutor:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def check_scheduler(address: str, timeout: float = 10.0) -> int:
    """How many workers the scheduler at ``address`` has now; raises
    ``ClusterUnavailableError`` if it does not answer within ``timeout`` seconds."""
    from distributed import Client

    try:
        with Client(address, timeout=timeout, set_as_default=False) as client:
            return len(client.scheduler_info(n_workers=-1).get("workers", {}))
    except (OSError, TimeoutError, ValueError) as error:
        raise ClusterUnavailableError(
            f"cannot reach the Dask scheduler at {address}: {error}") from None


def cluster_executor_factory(address: str) -> ExecutorFactory:
    """An ``ExecutorFactory`` playing each season on the cluster at ``address``, in the
    season's sandbox backend (on the workers' machines)."""

    def make(config: SeasonConfig) -> Executor:
        return ClusterExecutor(address, config.sandbox)

    return make
