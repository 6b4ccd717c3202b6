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

With ``security`` (``arena.execution.cluster_security``) the client speaks mutual
TLS with the cluster CA's client certificate. Each outcome names the worker that
holds it, as the scheduler knows it (``played_by``), so an outcome the season
refuses is pinned on its worker, which ``exclude`` then keeps out of this
executor's series; the refused series is submitted again under a new key.
"""

from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import Future
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from arena.core.series import SeriesOutcome, SeriesSpec
from arena.core.settings import SeasonConfig
from arena.execution.base import Executor, ExecutorFactory
from arena.execution.bundles import bundle_of
from arena.execution.cluster_moves import LIVE_TOPIC, BoardFeeder
from arena.execution.tasks import SERIES_SLOT, SeriesTask, sandbox_resource
from arena.execution.worker import play_clustered
from arena.match.live_moves import MoveBoard

if TYPE_CHECKING:
    from distributed import Security

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
                 connect_timeout: float = CONNECT_TIMEOUT_S,
                 security: Security | None = None, board: MoveBoard | None = None) -> None:
        from distributed import Client

        self.address = address
        self.sandbox = sandbox
        self.retries = retries
        try:
            self._client = Client(address, timeout=connect_timeout, set_as_default=False,
                                  security=security)
        except (OSError, TimeoutError) as error:
            raise ClusterUnavailableError(
                f"cannot reach the Dask scheduler at {address}: {error}") from None
        self._lock = threading.Lock()
        self._held: dict[str, Any] = {}  # key -> the Dask future, kept until it settles
        self._capacity = 1
        self._capacity_at = -_CAPACITY_TTL_S
        self._excluded: set[str] = set()  # worker addresses
        self._replays: dict[str, int] = {}  # series id -> times submitted again
        self._moves = None if board is None else BoardFeeder(board)
        if self._moves is not None:  # the workers' moves, for the website's live pages
            self._client.subscribe_topic(LIVE_TOPIC, self._moves)
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
            for address, info in workers.items() if address not in self._excluded))

    def exclude(self, played_by: str, series_id: str) -> None:
        """No more series on the worker at ``played_by``; ``series_id`` is submitted
        afresh next time (a new key: never joined to the refused result)."""
        with self._lock:
            self._excluded.add(played_by)
            self._replays[series_id] = self._replays.get(series_id, 0) + 1
        self._capacity_at = -_CAPACITY_TTL_S
        log.warning("worker %s gets no more series from this executor", played_by)

    def _allowed_workers(self) -> list[str] | None:
        """The workers a series may go to (None: any), excluded ones left out."""
        with self._lock:
            if not self._excluded:
                return None
            excluded = set(self._excluded)
        workers = self._client.scheduler_info(n_workers=-1).get("workers", {})
        return [address for address in workers if address not in excluded]

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
        with self._lock:
            replays = self._replays.get(spec.series_id, 0)
        key = task.key if not replays else f"{task.key}-again-{replays}"
        allowed = self._allowed_workers()
        if self._moves is not None:
            self._moves.expect(key, spec.series_id)
        remote = self._client.submit(
            play_clustered, task, key=key, pure=False, retries=self.retries,
            resources={SERIES_SLOT: 1, sandbox_resource(self.sandbox): 1},
            workers=allowed, allow_other_workers=False)
        with self._lock:
            self._held[key] = remote

        def settle(done: Any) -> None:
            try:
                outcome: SeriesOutcome = done.result()
                answer.set_result(replace(outcome, played_by=self._holder(done)))
            except BaseException as error:
                answer.set_exception(error)
            finally:
                with self._lock:
                    if self._held.get(key) is done:
                        del self._held[key]
                if self._moves is not None:
                    self._moves.done(key, spec.series_id)

        remote.add_done_callback(settle)
        return answer

    def _holder(self, done: Any) -> str:
        """The worker holding ``done``'s result, as the scheduler knows it (called on
        Dask's callback thread, not its event loop)."""
        try:
            holders = self._client.who_has(done).get(done.key, ())
        except Exception as error:  # the outcome is still verified; only its origin is lost
            log.warning("cannot ask the scheduler where %s was played: %s", done.key, error)
            return "an unknown worker"
        return ",".join(sorted(holders)) or "an unknown worker"

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> ClusterExecutor:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def check_scheduler(address: str, timeout: float = 10.0,
                    security: Security | None = None) -> int:
    """How many workers the scheduler at ``address`` has now; raises
    ``ClusterUnavailableError`` if it does not answer within ``timeout`` seconds."""
    from distributed import Client

    try:
        with Client(address, timeout=timeout, set_as_default=False,
                    security=security) as client:
            return len(client.scheduler_info(n_workers=-1).get("workers", {}))
    except (OSError, TimeoutError, ValueError) as error:
        raise ClusterUnavailableError(
            f"cannot reach the Dask scheduler at {address}: {error}") from None


def cluster_executor_factory(address: str, security: Security | None = None,
                             board: MoveBoard | None = None) -> ExecutorFactory:
    """An ``ExecutorFactory`` playing each season on the cluster at ``address``, in the
    season's sandbox backend (on the workers' machines), the moves of its series on
    ``board`` (the server's, for the website's live pages)."""

    def make(config: SeasonConfig) -> Executor:
        return ClusterExecutor(address, config.sandbox, security=security, board=board)

    return make
