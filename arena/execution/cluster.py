"""``ClusterExecutor``: a season's series played on a Dask distributed cluster.

Each series is one task keyed by its series id (``SeriesTask.key``), asking for one
``series_slot`` and one slot of the season's sandbox backend, so it lands only on a
worker that offers that sandbox. The task carries the bots' code as content-hash
bundles (``arena.execution.bundles``) and runs entirely on the worker
(``arena.execution.worker.play_clustered``); only the outcome travels back.

A worker lost mid-series (killed, unreachable) makes the scheduler replay the task
elsewhere, from the same specification (same seed, same plan). A task that raises,
or answers anything but the outcome of its own series, has its worker excluded
(``exclude``: no more series from this executor) and is submitted again under a
new key on another worker, ``retries`` times. Who failed it is the scheduler's
view only: the workers the task erred on, or that hold its result
(``arena.execution.cluster_holders`` keeps workers from reporting on tasks they do
not hold). A series played more than once is stored once: the season runner drops
and counts a second result for a stored series.

With ``security`` (``arena.execution.cluster_security``) the client speaks mutual
TLS with the cluster CA's client certificate. Each outcome names the worker that
holds it, as the scheduler knows it (``played_by``), so an outcome the season
refuses is pinned on its worker, which ``exclude`` then keeps out of this
executor's series; the refused series is submitted again under a new key, and a
forfeit is confirmed by a play on another worker (``submit_elsewhere``).
"""

from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import CancelledError, Future
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from arena.core.series import SeriesOutcome, SeriesSpec
from arena.core.settings import SeasonConfig
from arena.execution.base import Executor, ExecutorFactory
from arena.execution.bundles import bundle_of
from arena.execution.cluster_holders import ERRED_ON_OP
from arena.execution.cluster_moves import LIVE_TOPIC, BoardFeeder
from arena.execution.tasks import SERIES_SLOT, SeriesTask, sandbox_resource
from arena.execution.worker import play_clustered
from arena.match.live_moves import MoveBoard

if TYPE_CHECKING:
    from distributed import Security

log = logging.getLogger(__name__)

DEFAULT_RETRIES = 2
"""Plays again of a series whose task raised or answered another series, each on a
worker that did not fail it."""
CONNECT_TIMEOUT_S = 30.0
QUEUE_FACTOR = 2
"""Series kept submitted per slot: the next series waits on its worker, so a slot
that frees up starts it without a round trip to the arena."""
_CAPACITY_TTL_S = 1.0


class ClusterUnavailableError(RuntimeError):
    """The scheduler cannot be reached."""


class WrongAnswerError(RuntimeError):
    """A worker answered a series with something other than that series' outcome."""


@dataclass(frozen=True)
class _Play:
    """One submitted series: its task, the future the season holds, how many more
    times it may be played after a failure, and the workers it should avoid."""

    task: SeriesTask
    answer: Future[SeriesOutcome]
    tries_left: int
    avoid: frozenset[str]


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
        """No more series on the worker(s) at ``played_by``; ``series_id`` is submitted
        afresh next time (a new key: never joined to the refused result)."""
        for worker in played_by.split(","):
            self._exclude_worker(worker)
        self._next_key(series_id)

    def _exclude_worker(self, worker: str) -> None:
        with self._lock:
            if worker in self._excluded:
                return
            self._excluded.add(worker)
        self._capacity_at = -_CAPACITY_TTL_S
        log.warning("worker %s gets no more series from this executor", worker)

    def _next_key(self, series_id: str) -> None:
        with self._lock:
            self._replays[series_id] = self._replays.get(series_id, 0) + 1

    def _allowed_workers(self, avoid: frozenset[str] = frozenset()) -> list[str] | None:
        """The workers a series may go to (None: any), excluded ones left out, and
        ``avoid`` too while another worker is left."""
        with self._lock:
            excluded = set(self._excluded)
        if not excluded and not avoid:
            return None
        workers = self._client.scheduler_info(n_workers=-1).get("workers", {})
        allowed = [address for address in workers if address not in excluded]
        elsewhere = [address for address in allowed if address not in avoid]
        return elsewhere or allowed

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
        return self._start(spec, frozenset())

    def submit_elsewhere(self, spec: SeriesSpec, avoid: str) -> Future[SeriesOutcome]:
        """Play ``spec`` again, under a new key, on a worker other than ``avoid`` (an
        outcome's ``played_by``) if one is left, else where it can."""
        self._next_key(spec.series_id)
        return self._start(spec, frozenset(avoid.split(",")))

    def _start(self, spec: SeriesSpec, avoid: frozenset[str]) -> Future[SeriesOutcome]:
        task = SeriesTask(spec, (bundle_of(spec.bots[0].folder), bundle_of(spec.bots[1].folder)),
                          self.sandbox)
        answer: Future[SeriesOutcome] = Future()
        answer.set_running_or_notify_cancel()
        self._launch(_Play(task, answer, self.retries, avoid))
        return answer

    def _launch(self, play: _Play) -> None:
        spec = play.task.spec
        with self._lock:
            replays = self._replays.get(spec.series_id, 0)
        key = play.task.key if not replays else f"{play.task.key}-again-{replays}"
        try:
            allowed = self._allowed_workers(play.avoid)
            if allowed == []:  # Dask reads an empty list as "anywhere"
                raise ClusterUnavailableError(
                    f"no worker is left to play series {spec.series_id}: every worker of "
                    f"{self.address} was excluded for failing a series")
            if self._moves is not None:
                self._moves.expect(key, spec.series_id)
            # Dask's own retries would replay a failed task on the same worker.
            remote = self._client.submit(
                play_clustered, play.task, key=key, pure=False, retries=0,
                resources={SERIES_SLOT: 1, sandbox_resource(self.sandbox): 1},
                workers=allowed, allow_other_workers=False)
        except Exception as error:
            play.answer.set_exception(error)
            return
        with self._lock:
            self._held[key] = remote
        remote.add_done_callback(lambda done: self._settle(play, key, done))

    def _settle(self, play: _Play, key: str, done: Any) -> None:
        """Answer ``play`` with ``done``'s outcome; a task that raised, or answered
        anything but an outcome of its series, has its worker excluded and is played
        elsewhere (called on Dask's callback thread, not its event loop)."""
        series_id = play.task.spec.series_id
        try:
            try:
                outcome = done.result()
            except CancelledError as error:
                play.answer.set_exception(error)
                return
            except Exception as error:
                self._again(play, error, self._erred_on(key))
                return
            holders = self._holders(done)
            played_by = ",".join(holders) or "an unknown worker"
            if not isinstance(outcome, SeriesOutcome) or outcome.series_id != series_id:
                what = (f"series {outcome.series_id}" if isinstance(outcome, SeriesOutcome)
                        else f"a {type(outcome).__name__}")
                self._again(play, WrongAnswerError(
                    f"{played_by} answered series {series_id} with the outcome of {what}"),
                    holders)
                return
            play.answer.set_result(replace(outcome, played_by=played_by))
        except BaseException as error:  # the season must hear of it, whatever it is
            if not play.answer.done():
                play.answer.set_exception(error)
        finally:
            with self._lock:
                if self._held.get(key) is done:
                    del self._held[key]
            if self._moves is not None:
                self._moves.done(key, series_id)

    def _again(self, play: _Play, error: Exception, blamed: list[str]) -> None:
        """Exclude ``blamed`` and play ``play`` again under a new key, or, out of
        tries, answer ``error``."""
        series_id = play.task.spec.series_id
        log.warning("series %s failed on %s: %s", series_id,
                    ", ".join(blamed) or "a worker the scheduler does not name", error)
        for worker in blamed:
            self._exclude_worker(worker)
        if play.tries_left <= 0:
            play.answer.set_exception(error)
            return
        self._next_key(series_id)
        self._launch(replace(play, tries_left=play.tries_left - 1))

    def _erred_on(self, key: str) -> list[str]:
        """The workers the task ``key`` erred on, as the scheduler saw it (none
        named by a scheduler without ``arena.execution.cluster_holders``)."""
        try:
            answer = self._client.sync(getattr(self._client.scheduler, ERRED_ON_OP),
                                       keys=[key], callback_timeout=CONNECT_TIMEOUT_S)
        except Exception as error:
            log.warning("cannot ask the scheduler where %s erred: %s", key, error)
            return []
        return [str(w) for w in answer.get(key, ())] if isinstance(answer, dict) else []

    def _holders(self, done: Any) -> list[str]:
        """The workers holding ``done``'s result, as the scheduler knows it."""
        try:
            return sorted(self._client.who_has(done).get(done.key, ()))
        except Exception as error:  # the outcome is still verified; only its origin is lost
            log.warning("cannot ask the scheduler where %s was played: %s", done.key, error)
            return []

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
