"""Live season pages: the season event hub's events fanned out to browsers over
Server-Sent Events.

One pump per watched season (an asyncio task on the web server's loop) subscribes
to the hub once, waits for events off the loop, and on a stored result or a status
change builds ONE snapshot (in a worker thread) that every client of that season
receives, so a hundred browsers cost the arena what one does. Each client has a
bounded queue: a client that falls that far behind is dropped (its stream ends and
the browser's EventSource reconnects). A connecting client gets the current snapshot
first, so a reconnect, also after a server restart, always catches up.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Final

from arena.season.events import EventHub

CLIENT_QUEUE_SIZE: Final = 8
POLL_SECONDS: Final = 0.25
"""How long a pump waits for an event before it checks whether anyone still watches."""
UPDATE_KINDS: Final = frozenset({"series_finished", "status"})
MAX_WATCHED_SEASONS: Final = 64
"""Seasons watched at once with no delay (more wait their turn, a poll at a time)."""

Snapshot = Callable[[int], str]
"""season id -> the event data (text) describing the season now."""


@dataclass(eq=False)
class _Client:
    queue: asyncio.Queue[str | None] = field(
        default_factory=lambda: asyncio.Queue(CLIENT_QUEUE_SIZE))
    dropped: bool = False


@dataclass(eq=False)
class _Channel:
    clients: set[_Client] = field(default_factory=set)
    pump: asyncio.Task[None] | None = None


class LiveFeed:
    """Per-season fan-out of snapshots to SSE clients (see the module docstring).
    ``dropped`` counts clients dropped for falling behind."""

    def __init__(self, hub: EventHub, snapshot: Snapshot, *,
                 queue_size: int = CLIENT_QUEUE_SIZE, poll_seconds: float = POLL_SECONDS
                 ) -> None:
        self.hub = hub
        self.snapshot = snapshot
        self.queue_size = queue_size
        self.poll_seconds = poll_seconds
        self.dropped = 0
        self._channels: dict[int, _Channel] = {}
        self._closing = False
        # Each pump waits on the hub in a thread of its own pool, so that many watched
        # seasons never tie up the loop's default pool, which builds the snapshots.
        self._waiters = ThreadPoolExecutor(max_workers=MAX_WATCHED_SEASONS,
                                           thread_name_prefix="arena-web-live")

    def clients(self, season_id: int) -> int:
        channel = self._channels.get(season_id)
        return 0 if channel is None else len(channel.clients)

    async def updates(self, season_id: int) -> AsyncIterator[str]:
        """The snapshots one client receives: the current one, then one per update,
        until the client is dropped or the feed closes."""
        client = _Client(asyncio.Queue(self.queue_size))
        channel = self._channels.setdefault(season_id, _Channel())
        channel.clients.add(client)
        if channel.pump is None or channel.pump.done():
            channel.pump = asyncio.create_task(self._pump(season_id, channel))
        try:
            yield await asyncio.to_thread(self.snapshot, season_id)
            while not self._closing:
                item = await client.queue.get()
                if item is None:
                    return
                yield item
        finally:
            channel.clients.discard(client)

    async def _pump(self, season_id: int, channel: _Channel) -> None:
        subscription = self.hub.subscribe(season_id)
        try:
            while channel.clients and not self._closing:
                event = await asyncio.get_running_loop().run_in_executor(
                    self._waiters, subscription.get, self.poll_seconds)
                if event is None:
                    continue
                kinds = {event.kind}
                while (more := subscription.get(0)) is not None:  # coalesce a burst
                    kinds.add(more.kind)
                if kinds & UPDATE_KINDS:
                    data = await asyncio.to_thread(self.snapshot, season_id)
                    self._fan_out(channel, data)
        finally:
            subscription.close()
            if self._channels.get(season_id) is channel and not channel.clients:
                del self._channels[season_id]

    def _fan_out(self, channel: _Channel, data: str) -> None:
        for client in list(channel.clients):
            if client.dropped:
                continue
            try:
                client.queue.put_nowait(data)
            except asyncio.QueueFull:
                self._drop(client)

    def _drop(self, client: _Client) -> None:
        client.dropped = True
        self.dropped += 1
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
