"""The operator's metrics in Prometheus's format (``arena serve --metrics HOST:PORT``,
path ``/metrics``): what the server stored, what waits, what its sandboxes started, and
how long its calls take. docs/arena.md has the table of every metric.

Counts of stored things are read from the database when scraped (``arena.storage.tallies``:
index look-ups, and the results stored since the last scrape), so they equal what is
stored, across restarts too; live counts (queues, streams) are read off the objects that
hold them; container starts and reuses come from the process's sandbox tally; each
unary call's duration is observed by an interceptor around every handler.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, TypeVar, cast

import grpc
from prometheus_client import CollectorRegistry, Histogram, start_http_server
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from arena.core.faults import FaultKind
from arena.sandbox.tally import TALLY, SandboxTally
from arena.storage import Storage, StoredResults, outcomes_refused, series_pending, series_voided

if TYPE_CHECKING:
    from wsgiref.simple_server import WSGIServer

    from arena.server.stream_limits import StreamSlots
    from arena.server.uploads import UploadSlots
    from arena.server.vetting import VettingWorker

RequestT = TypeVar("RequestT")
ResponseT = TypeVar("ResponseT")

RPC_BUCKETS_S: Final = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
                        5.0, 10.0, 30.0)
"""From a cached read (~1 ms) to an upload of many MiB (seconds)."""


@dataclass(frozen=True)
class LiveSources:
    """What the metrics read off the running server (None: not part of this server)."""

    streams: StreamSlots
    uploads: UploadSlots
    vetting: VettingWorker | None


class _ArenaCollector(Collector):
    """Reads every count at scrape time (see the module's docstring)."""

    def __init__(self, storage: Storage, live: LiveSources, tally: SandboxTally) -> None:
        self._storage = storage
        self._live = live
        self._tally = tally
        self._results = StoredResults()
        self._lock = threading.Lock()

    def collect(self) -> Iterator[Metric]:
        with self._lock:  # two scrapes at once read the new results once
            self._results.catch_up(self._storage)
            played, faults = self._results.played, dict(self._results.faults)
        yield CounterMetricFamily("arena_series_played", "Series stored with a result.",
                                  value=played)
        by_kind = CounterMetricFamily(
            "arena_faults", "Forfeits stored, by fault kind (a series where both seats "
            "forfeited counts twice).", labels=["kind"])
        for kind in FaultKind:
            by_kind.add_metric([str(kind)], faults.get(str(kind), 0))
        yield by_kind
        yield CounterMetricFamily(
            "arena_series_voided", "Series voided for arena overload (played again).",
            value=series_voided(self._storage))
        yield CounterMetricFamily(
            "arena_outcomes_refused", "Outcomes refused by verification (played again).",
            value=outcomes_refused(self._storage))
        yield GaugeMetricFamily("arena_series_pending",
                                "Series planned and not yet stored in running seasons.",
                                value=series_pending(self._storage))
        yield from self._live_metrics()

    def _live_metrics(self) -> Iterator[Metric]:
        vetting = GaugeMetricFamily("arena_vetting_queue", "Uploaded versions waiting for "
                                    "vetting and being vetted.", labels=["state"])
        waiting, running = (0, 0) if self._live.vetting is None else (
            self._live.vetting.queue_lengths())
        vetting.add_metric(["waiting"], waiting)
        vetting.add_metric(["running"], running)
        yield vetting
        yield GaugeMetricFamily("arena_uploads_in_progress", "Uploads being received.",
                                value=self._live.uploads.in_use)
        yield GaugeMetricFamily("arena_open_streams", "Open server streams (watchers).",
                                value=self._live.streams.open_count())
        yield CounterMetricFamily("arena_container_starts", "Bot containers started.",
                                  value=self._tally.container_starts)
        yield CounterMetricFamily("arena_container_reuses", "Series served by a kept "
                                  "container instead of a new one.",
                                  value=self._tally.container_reuses)
        yield CounterMetricFamily("arena_container_renewals", "Kept containers restarted "
                                  "for a fresh bot process.",
                                  value=self._tally.container_renewals)


class ArenaMetrics:
    """The server's metrics registry, its RPC interceptor and its HTTP listener."""

    def __init__(self, storage: Storage, live: LiveSources,
                 tally: SandboxTally = TALLY) -> None:
        self.registry = CollectorRegistry(auto_describe=False)
        self.registry.register(_ArenaCollector(storage, live, tally))
        self.rpc_seconds = Histogram(
            "arena_rpc_duration_seconds", "Duration of unary gRPC calls, by method and "
            "status code.", ["method", "code"], registry=self.registry,
            buckets=RPC_BUCKETS_S)
        self._http: WSGIServer | None = None

    def interceptor(self) -> grpc.ServerInterceptor:
        return _TimingInterceptor(self.rpc_seconds)

    def serve(self, host: str, port: int) -> int:
        """Serve ``/metrics`` on ``host:port`` (0: any free port); the port bound."""
        server, _ = start_http_server(port, addr=host, registry=self.registry)
        self._http = server
        return int(server.server_port)

    def stop(self) -> None:
        if self._http is not None:
            self._http.shutdown()
            self._http.server_close()
            self._http = None


class _TimingInterceptor(grpc.ServerInterceptor):
    """Observes each unary-response call's duration (streams are counted as open
    streams instead: their length is a watcher's, not the server's)."""

    def __init__(self, histogram: Histogram) -> None:
        self._histogram = histogram

    def intercept_service(
        self,
        continuation: Callable[
            [grpc.HandlerCallDetails], grpc.RpcMethodHandler[RequestT, ResponseT] | None],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[RequestT, ResponseT] | None:
        handler = continuation(handler_call_details)
        if handler is None:
            return handler
        method = handler_call_details.method.rpartition("/")[2]
        if handler.unary_unary is not None:
            return cast("grpc.RpcMethodHandler[RequestT, ResponseT]",
                        grpc.unary_unary_rpc_method_handler(
                            self._timed(handler.unary_unary, method),
                            request_deserializer=handler.request_deserializer,
                            response_serializer=handler.response_serializer))
        if handler.stream_unary is not None:
            return cast("grpc.RpcMethodHandler[RequestT, ResponseT]",
                        grpc.stream_unary_rpc_method_handler(
                            self._timed(handler.stream_unary, method),
                            request_deserializer=handler.request_deserializer,
                            response_serializer=handler.response_serializer))
        return handler

    def _timed(self, behaviour: Callable[[Any, grpc.ServicerContext], Any],
               method: str) -> Callable[[Any, grpc.ServicerContext], Any]:
        def timed(request: Any, context: grpc.ServicerContext) -> Any:
            started = time.perf_counter()
            failed = False
            try:
                return behaviour(request, context)
            except BaseException:
                failed = True
                raise
            finally:
                self._histogram.labels(method, _status_name(context, failed)).observe(
                    time.perf_counter() - started)

        return timed


def _status_name(context: grpc.ServicerContext, failed: bool) -> str:
    """The call's status: the code a handler set or aborted with (gRPC's server context
    has ``code()``, which its type stubs do not declare), else OK, or UNKNOWN when the
    handler raised without one."""
    read = getattr(context, "code", None)
    code = read() if callable(read) else None
    if isinstance(code, grpc.StatusCode):
        return code.name
    return "UNKNOWN" if failed else "OK"
