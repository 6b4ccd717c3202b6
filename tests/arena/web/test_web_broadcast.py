"""The fan-out of the live pages (arena/web/broadcast.py): one source and one pump
per watched key however many clients watch it, every client gets the source's
first message then every update, a client that falls behind is dropped without
holding up the others, a finished source ends every stream after its last
messages, and nothing is pumped once nobody watches."""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
import time
from collections.abc import Callable, Hashable

from arena.web.broadcast import Broadcast, Message

BOUND = 10.0


async def wait_until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + BOUND
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.005)


class ScriptedSource:
    """A source whose updates the test pushes (``push``); counts its calls."""

    def __init__(self, key: Hashable) -> None:
        self.key = key
        self.firsts = 0
        self.nexts = 0
        self.closes = 0
        self.updates: queue.Queue[tuple[list[Message], bool]] = queue.Queue()

    def push(self, *data: str, finished: bool = False) -> None:
        self.updates.put(([("update", text) for text in data], finished))

    def first(self) -> list[Message]:
        self.firsts += 1
        return [("snapshot", f"{self.key} first {self.firsts}")]

    def next(self, timeout: float) -> tuple[list[Message], bool]:
        self.nexts += 1
        try:
            return self.updates.get(timeout=timeout)
        except queue.Empty:
            return [], False

    def close(self) -> None:
        self.closes += 1


class Sources:
    """``make_source`` for a Broadcast, keeping every source it made."""

    def __init__(self) -> None:
        self.made: list[ScriptedSource] = []

    def __call__(self, key: Hashable) -> ScriptedSource:
        self.made.append(ScriptedSource(key))
        return self.made[-1]


def test_one_source_per_key_reaches_every_client_and_ends_with_it() -> None:
    sources = Sources()
    feed = Broadcast(sources, poll_seconds=0.02)

    async def scenario() -> list[list[Message]]:
        received: list[list[Message]] = [[] for _ in range(4)]

        async def client(number: int) -> None:
            async for message in feed.updates("1-0"):
                received[number].append(message)

        tasks = [asyncio.create_task(client(n)) for n in range(4)]
        await wait_until(lambda: all(received), "every client's first message")
        assert len(sources.made) == 1 and feed.pumps() == 1 and feed.clients("1-0") == 4
        source = sources.made[0]
        source.push("a", "b")
        await wait_until(lambda: all(len(r) == 3 for r in received), "the updates")
        source.push("last", finished=True)
        await asyncio.wait_for(asyncio.gather(*tasks), BOUND)
        await wait_until(lambda: feed.pumps() == 0, "the pump to stop")
        return received

    received = asyncio.run(scenario())
    assert sources.made[0].firsts == 4  # one snapshot per connection, none per update
    assert sorted(messages[0] for messages in received) == [
        ("snapshot", f"1-0 first {n}") for n in (1, 2, 3, 4)]
    for messages in received:
        assert messages[1:] == [("update", "a"), ("update", "b"), ("update", "last")]
    assert feed.dropped == 0


def test_a_client_that_falls_behind_is_dropped_and_the_others_go_on() -> None:
    sources = Sources()
    feed = Broadcast(sources, queue_size=2, poll_seconds=0.02)

    async def scenario() -> tuple[list[Message], list[Message]]:
        fast: list[Message] = []
        slow_stream = feed.updates("2-0")
        slow = [await anext(slow_stream)]  # connected, then never reads again

        async def reader() -> None:
            async for message in feed.updates("2-0"):
                fast.append(message)

        task = asyncio.create_task(reader())
        await wait_until(lambda: len(fast) == 1 and feed.pumps() == 1, "both connected")
        source = sources.made[0]
        for number in range(4):
            source.push(f"u{number}")
            await wait_until(lambda n=number: len(fast) == n + 2, f"update {number}")
        assert feed.dropped == 1
        # The slow client's stream ends with what its queue held when it was dropped:
        # nothing (it reconnects and starts from a fresh first message).
        slow += [message async for message in slow_stream]
        source.push(finished=True)
        await asyncio.wait_for(task, BOUND)
        return fast, slow

    fast, slow = asyncio.run(scenario())
    assert fast[1:] == [("update", f"u{n}") for n in range(4)]
    assert slow == [("snapshot", "2-0 first 1")]
    assert len(sources.made) == 1


def test_nothing_is_pumped_once_nobody_watches() -> None:
    sources = Sources()
    feed = Broadcast(sources, poll_seconds=0.02)

    async def scenario() -> None:
        stream = feed.updates("3-0")
        assert (await anext(stream))[0] == "snapshot"
        await wait_until(lambda: sources.made[0].nexts > 0, "the pump's first read")
        await stream.aclose()  # the browser went away
        await wait_until(lambda: feed.pumps() == 0, "the pump to stop")
        reads = sources.made[0].nexts
        assert sources.made[0].closes == 1  # released with its pump
        await asyncio.sleep(0.1)  # would be several polls of a running pump
        assert sources.made[0].nexts == reads
        # Watching again makes a new source (the old one is gone with its pump).
        again = feed.updates("3-0")
        assert (await anext(again)) == ("snapshot", "3-0 first 1")
        assert len(sources.made) == 2
        await again.aclose()

    asyncio.run(scenario())


def test_keys_are_pumped_apart() -> None:
    sources = Sources()
    feed = Broadcast(sources, poll_seconds=0.02)

    async def scenario() -> tuple[list[Message], list[Message]]:
        first: list[Message] = []
        second: list[Message] = []

        async def client(key: str, into: list[Message]) -> None:
            async for message in feed.updates(key):
                into.append(message)

        tasks = [asyncio.create_task(client("4-0", first)),
                 asyncio.create_task(client("4-1", second))]
        await wait_until(lambda: bool(first and second) and feed.pumps() == 2, "both pumps")
        by_key = {source.key: source for source in sources.made}
        by_key["4-0"].push("for 4-0", finished=True)
        by_key["4-1"].push("for 4-1", finished=True)
        await asyncio.wait_for(asyncio.gather(*tasks), BOUND)
        return first, second

    first, second = asyncio.run(scenario())
    assert first[1:] == [("update", "for 4-0")] and second[1:] == [("update", "for 4-1")]


def test_a_closed_feed_sends_the_first_message_and_ends() -> None:
    sources = Sources()
    feed = Broadcast(sources)
    feed.close()

    async def scenario() -> list[Message]:
        return [message async for message in feed.updates("5-0")]

    assert asyncio.run(scenario()) == [("snapshot", "5-0 first 1")]
    assert sources.made[0].closes == 1


class GatedFirst(ScriptedSource):
    """A source whose ``first`` waits until the test opens ``gate``."""

    gate = threading.Event()

    def first(self) -> list[Message]:
        self.gate.wait(BOUND)
        return super().first()


def test_a_client_gone_before_its_first_message_releases_the_source() -> None:
    made: list[GatedFirst] = []

    def make_source(key: Hashable) -> GatedFirst:
        made.append(GatedFirst(key))
        return made[-1]

    feed = Broadcast(make_source, poll_seconds=0.02)

    async def scenario() -> None:
        stream = feed.updates("6-0")

        async def take() -> Message:
            return await anext(stream)

        task = asyncio.create_task(take())
        await wait_until(lambda: feed.clients("6-0") == 1, "the client to join")
        task.cancel()  # the browser went away while its snapshot was being made
        GatedFirst.gate.set()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await wait_until(lambda: made[0].closes == 1, "the source to be closed")
        assert feed.pumps() == 0 and feed.clients("6-0") == 0 and made[0].nexts == 0

    asyncio.run(scenario())
