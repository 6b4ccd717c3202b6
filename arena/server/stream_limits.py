"""Readers cannot starve the server: a cap on open server streams (``WatchSeason``).

In the synchronous gRPC server every open stream holds one thread of the pool until
it ends, so enough watchers would leave no thread for unary calls (admin calls
included). ``StreamLimitInterceptor`` refuses a stream beyond ``per_client`` from one
client (``arena.core.peers.client_of``: an address, an IPv6 /64) or ``total``
overall with RESOURCE_EXHAUSTED, and the server's pool keeps ``total`` below its
size, so unary calls are always served.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import grpc

from arena.core.peers import client_of

RequestT = TypeVar("RequestT")
ResponseT = TypeVar("ResponseT")


class StreamSlots:
    """Counts open streams per client and in total."""

    def __init__(self, total: int, per_client: int) -> None:
        if not 1 <= per_client <= total:
            raise ValueError(f"stream caps must satisfy 1 <= per_client <= total, got "
                             f"{per_client} and {total}")
        self.total = total
        self.per_client = per_client
        self._lock = threading.Lock()
        self._open: Counter[str] = Counter()

    def acquire(self, client: str) -> str | None:
        """Take a slot for ``client``; the reason it is refused, or None."""
        with self._lock:
            in_use = sum(self._open.values())
            if in_use >= self.total:
                return (f"the server has {in_use} streams open, its limit; close one or "
                        "retry later")
            if self._open[client] >= self.per_client:
                return (f"this client has {self._open[client]} streams open, the limit per "
                        "client; close one or retry later")
            self._open[client] += 1
            return None

    def open_count(self) -> int:
        """Streams open now, of every client."""
        with self._lock:
            return sum(self._open.values())

    def release(self, client: str) -> None:
        with self._lock:
            self._open[client] -= 1
            if self._open[client] <= 0:
                del self._open[client]

    def open_streams(self) -> int:
        with self._lock:
            return sum(self._open.values())


class StreamLimitInterceptor(grpc.ServerInterceptor):
    """Applies ``StreamSlots`` to every server-streaming method."""

    def __init__(self, slots: StreamSlots) -> None:
        self.slots = slots

    def intercept_service(
        self,
        continuation: Callable[
            [grpc.HandlerCallDetails], grpc.RpcMethodHandler[RequestT, ResponseT] | None],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[RequestT, ResponseT] | None:
        handler = continuation(handler_call_details)
        if handler is None or handler.unary_stream is None:
            return handler
        behaviour = handler.unary_stream
        slots = self.slots

        def limited(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
            client = client_of(context.peer())
            refusal = slots.acquire(client)
            if refusal is not None:
                context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, refusal)
            try:
                yield from behaviour(request, context)
            finally:
                slots.release(client)

        return grpc.unary_stream_rpc_method_handler(
            limited, request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer)
