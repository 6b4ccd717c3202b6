"""One source, many browsers: the website's one fan-out over Server-Sent Events,
behind the live season pages (``arena.web.live``), the live series pages and the
"now playing" lists (``arena.web.live_series``).

A ``Broadcast`` runs ONE pump per key that anyone watches (a season, a series, a
season's list): the pump asks the key's ``Source`` for its updates, waiting off the event
loop in a thread of the broadcast's own bounded pool, and puts each update into
every watching client's bounded queue. A client whose queue is full is dropped (its
stream ends; the browser's EventSource reconnects and starts again from a fresh
``first``): a slow viewer never slows the pump, let alone the series. When the last
client of a key leaves, the pump goes and its source is closed (a hub subscription
released), so nothing is computed for what nobody watches.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Hashable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Final, Protocol

CLIENT_QUEUE_SIZE: Final = 8
POLL_SECONDS: Final = 0.25
"""How long a pump waits for its source before it checks whether anyone still watches."""
MAX_PUMPS: Final = 64
"""Keys pumped at once with no delay (more wait their turn, a poll at a time)."""

Message = tuple[str, str]
"""(SSE event name, its data)."""


class Source(Protocol):
    """What a pump reads for one key. Both methods may block (they run in threads);
    the broadcast never calls them at the same time for one source."""

    def first(self) -> list[Message]:
        """What a client that joins now receives first (a snapshot)."""
        ...

    def next(self, timeout: float) -> tuple[list[Message], bool]:
        """The updates after waiting at most ``timeout`` seconds for some, and
        whether the source is finished (its last updates are in the list)."""
        ...

    def close(self) -> None:
        """Release what the source holds; called once, when nobody reads it any more."""
        ...


@dataclass(eq=False)
class _Client:
    queue: asyncio.Queue[Message | None]
    dropped: bool = False


@dataclass(eq=False)
class _Channel:
    source: asyncio.Future[Source]
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    clients: set[_Client] = field(default_factory=set)
    pump: asyncio.Task[None] | None = None
    closed: bool = False
    """The pump ended: a client that comes now starts a new channel."""


class Broadcast:
    """Per-key fan-out of a ``Source``'s updates to SSE clients (module docstring).
    ``dropped`` counts clients dropped for falling behind."""

    def __init__(self, make_source: Callable[[Hashable], Source], *,
                 queue_size: int = CLIENT_QUEUE_SIZE, poll_seconds: float = POLL_SECONDS,
                 pause_seconds: float = 0.0, max_pumps: int = MAX_PUMPS,
                 name: str = "arena-web-broadcast") -> None:
        self.make_source = make_source
        self.queue_size = queue_size
        self.poll_seconds = poll_seconds
        self.pause_seconds = pause_seconds
        """The pump's rest after each update (updates of a fast series coalesce)."""
        self.dropped = 0
        self._channels: dict[Hashable, _Channel] = {}
        self._closing = False
        self._waiters = ThreadPoolExecutor(max_workers=max_pumps, thread_name_prefix=name)

    def clients(self, key: Hashable) -> int:
        channel = self._channels.get(key)
        return 0 if channel is None else len(channel.clients)

    def pumps(self) -> int:
        """Keys pumped now (one per key watched, however many watch it)."""
        return sum(1 for c in self._channels.values() if c.pump is not None and not c.pump.done())

    async def updates(self, key: Hashable) -> AsyncIterator[Message]:
        """The messages one client receives: the source's ``first``, then every
        update, until the source finishes, the client is dropped or the feed closes.
        Raises what ``make_source`` raises (e.g. an unknown key) before any message."""
        if self._closing:  # the server is stopping: the snapshot alone, then the end
            source = self.make_source(key)
            try:
                first = source.first()
            finally:
                source.close()
            for message in first:
                yield message
            return
        loop = asyncio.get_running_loop()
        channel = self._channels.get(key)
        if channel is None or channel.closed:  # made here, at once: one per key
            channel = self._channels[key] = _Channel(
                loop.run_in_executor(self._waiters, self.make_source, key))
        try:
            source = await asyncio.shield(channel.source)
        except BaseException:
            if self._channels.get(key) is channel and not channel.clients:
                del self._channels[key]
            raise
        client = _Client(asyncio.Queue(self.queue_size))
        channel.clients.add(client)
        try:
            async with channel.lock:  # never beside the pump's own read of the source
                first = await loop.run_in_executor(self._waiters, source.first)
            if channel.pump is None:
                channel.pump = asyncio.create_task(self._pump(key, channel, source))
            for message in first:
                yield message
            while not self._closing:
                item = await client.queue.get()
                if item is None:
                    return
                yield item
        finally:
            channel.clients.discard(client)
            if channel.pump is None and not channel.clients:
                # Gone before its first message: a pump that finds nobody ends at
                # once and closes the source, which no one else would.
                channel.pump = asyncio.create_task(self._pump(key, channel, source))

    async def _pump(self, key: Hashable, channel: _Channel, source: Source) -> None:
        loop = asyncio.get_running_loop()
        try:
            while channel.clients and not self._closing:
                async with channel.lock:
                    messages, finished = await loop.run_in_executor(
                        self._waiters, source.next, self.poll_seconds)
                for message in messages:
                    self._fan_out(channel, message)
                if finished:
                    for client in list(channel.clients):
                        self._close(client)
                    return
                if messages and self.pause_seconds:
                    await asyncio.sleep(self.pause_seconds)
        finally:
            channel.closed = True
            if self._channels.get(key) is channel:
                del self._channels[key]
            source.close()

    def _fan_out(self, channel: _Channel, message: Message) -> None:
        for client in list(channel.clients):
            if client.dropped:
                continue
            try:
                client.queue.put_nowait(message)
            except asyncio.QueueFull:
                self.dropped += 1
                self._end(client)

    def _close(self, client: _Client) -> None:
        """End ``client``'s stream after what it has queued (the source is finished)."""
        if client.dropped:
            return
        try:
            client.queue.put_nowait(None)
            client.dropped = True
        except asyncio.QueueFull:
            self.dropped += 1
            self._end(client)

    @staticmethod
    def _end(client: _Client) -> None:
        """End ``client``'s stream now (dropped: what it had not read is lost)."""
        if client.dropped:
            return
        client.dropped = True
        while not client.queue.empty():
            client.queue.get_nowait()
        client.queue.put_nowait(None)

    def close(self) -> None:
        """End every stream (the server is stopping)."""
        self._closing = True
        self._waiters.shutdown(wait=False)
        for channel in self._channels.values():
            for client in channel.clients:
                with contextlib.suppress(asyncio.QueueFull):
                    client.queue.put_nowait(None)
