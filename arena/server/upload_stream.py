"""An upload's request stream with time limits: no message for ``idle_seconds``, or
an upload still streaming after ``total_seconds``, ends the upload with
DEADLINE_EXCEEDED, nothing stored, and frees its upload slot.

gRPC's synchronous server gives a handler a blocking iterator of the client's
messages and no way to wait on it with a timeout, so a client that stops sending
mid-stream would hold its handler thread and upload slot for as long as it keeps
the connection. ``idle_limited`` reads the iterator on a helper thread, one message
each time the handler asks for one (so no message waits in memory ahead of the
handler), and waits for it with the time left; when the upload ends (limit or
not), the handler's status ends the call, which ends the helper's read.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
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
        self._wanted = threading.Semaphore(0)
        self._received: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._closed = False
        self._ended = False
        self._reader = threading.Thread(target=self._read, args=(requests,), daemon=True,
                                        name="upload-reader")
        self._reader.start()

    def _read(self, requests: Iterator[Message]) -> None:
        while True:
            self._wanted.acquire()
            if self._closed:
                return
            try:
                self._received.put(next(requests, _END))
            except BaseException as error:  # handed over and raised in the handler's thread
                self._received.put(_Failure(error))
                return

    def __iter__(self) -> Iterator[Message]:
        return self

    def __next__(self) -> Message:
        if self._ended:
            raise StopIteration
        left = self._deadline - self._clock()
        if left <= 0:
            raise _timed_out(self._limits, idle=False)
        idle = self._limits.idle_seconds < left
        self._wanted.release()
        try:
            item = self._received.get(timeout=self._limits.idle_seconds if idle else left)
        except queue.Empty:
            raise _timed_out(self._limits, idle=idle) from None
        if item is _END:
            self._ended = True
            raise StopIteration
        if isinstance(item, _Failure):
            self._ended = True
            raise item.error
        return item  # type: ignore[return-value]

    def close(self) -> None:
        """Let the reader thread end once its read (if any) returns."""
        self._closed = True
        self._wanted.release()


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
