"""An upload's request stream with time limits: no message for ``idle_seconds``, or
an upload still streaming after ``total_seconds``, ends the upload with
DEADLINE_EXCEEDED, nothing stored, and frees its upload slot.

gRPC's synchronous server gives a handler a blocking iterator of the client's
messages and no way to wait on it with a timeout, so a client that stops sending
mid-stream would hold its handler thread and upload slot for as long as it keeps
the connection. ``idle_limited`` reads the iterator on a helper thread into a
one-message queue and waits on the queue with the time left; when the upload ends
(limit or not), the handler's status ends the call, which ends the helper's read.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Final, Generic, TypeVar

import grpc

from arena.server.uploads import UploadLimits, UploadRefused

Message = TypeVar("Message")

_END: Final = object()


class _Failure:
    """An exception raised by the request iterator, handed to the handler's thread."""

    def __init__(self, error: BaseException) -> None:
        self.error = error


class _IdleLimited(Generic[Message]):
    def __init__(self, requests: Iterator[Message], limits: UploadLimits,
                 clock: Callable[[], float]) -> None:
        self._limits = limits
        self._clock = clock
        self._deadline = clock() + limits.total_seconds
        self._queue: queue.Queue[object] = queue.Queue(maxsize=1)
        self._closed = threading.Event()
        self._reader = threading.Thread(target=self._read, args=(requests,), daemon=True,
                                        name="upload-reader")
        self._reader.start()

    def _read(self, requests: Iterator[Message]) -> None:
        try:
            for message in requests:
                self._queue.put(message)
                if self._closed.is_set():
                    return
            self._queue.put(_END)
        except BaseException as error:  # handed over and raised in the handler's thread
            self._queue.put(_Failure(error))

    def __iter__(self) -> Iterator[Message]:
        return self

    def __next__(self) -> Message:
        left = self._deadline - self._clock()
        if left <= 0:
            raise _timed_out(self._limits, idle=False)
        idle = self._limits.idle_seconds < left
        try:
            item = self._queue.get(timeout=self._limits.idle_seconds if idle else left)
        except queue.Empty:
            raise _timed_out(self._limits, idle=idle) from None
        if item is _END:
            self._queue.put(_END)  # every later call ends too
            raise StopIteration
        if isinstance(item, _Failure):
            raise item.error
        return item  # type: ignore[return-value]

    def close(self) -> None:
        """Let the reader thread end: it stops after the message it may be handing over."""
        self._closed.set()
        with suppress(queue.Empty):
            self._queue.get_nowait()


def _timed_out(limits: UploadLimits, *, idle: bool) -> UploadRefused:
    if idle:
        reason = f"no bytes for {limits.idle_seconds:g} s"
    else:
        reason = f"the upload took over {limits.total_seconds:g} s, the limit"
    return UploadRefused(grpc.StatusCode.DEADLINE_EXCEEDED,
                         f"{reason}: the upload was ended and nothing was stored; send it "
                         "again")


@contextmanager
def idle_limited(requests: Iterator[Message], limits: UploadLimits,
                 clock: Callable[[], float] = time.monotonic) -> Iterator[Iterator[Message]]:
    """``requests`` ended by ``UploadRefused`` (DEADLINE_EXCEEDED) when the client
    stays silent for ``limits.idle_seconds`` or streams past ``limits.total_seconds``."""
    stream = _IdleLimited(requests, limits, clock)
    try:
        yield stream
    finally:
        stream.close()
