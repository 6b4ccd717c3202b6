"""Live season pages: the season feed (a Broadcast of SeasonSources: one snapshot
per update for all clients, bounded queues, slow clients dropped, others
unaffected, the hub subscription released when nobody watches), the SSE stream
of a real arena server while a season plays, a reconnect after a restart catching
up; and the pure parts of the pages (progress pace, rating chart, --http)."""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx2
import pytest

from arena.core import arguments
from arena.season.events import EventHub, SeasonEvent
from arena.season.live_feed import LiveFeeds
from arena.server.app import start_server
from arena.web.chart import RatingPoint, rating_svg
from arena.web.live import season_feed
from tests.helpers.fake_runner import run_fake_series
from tests.helpers.web_helpers import create_season, register

BOUND = 10.0


async def wait_until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + BOUND
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.005)


class CountingSnapshot:
    """A snapshot function that says how often it was asked (its page's version is
    the call's number)."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, season_id: int, page: int = 1) -> dict[str, Any]:
        self.calls += 1
        return {"version": self.calls, "status": "running",
                "sections": {"progress": f"<p>season {season_id} snapshot {self.calls}</p>"}}


def label(event: str, data: str) -> str:
    """An update as 'event seq[/base] version': what a browser checks and applies."""
    update = json.loads(data)
    base = f"/{update['base']}" if "base" in update else ""
    return f"{event} {update['seq']}{base} v{update['version']}"


def test_one_update_per_change_reaches_every_client() -> None:
    hub, snapshot = EventHub(), CountingSnapshot()
    feed = season_feed(LiveFeeds(hub, interval=0.0), snapshot, poll_seconds=0.02,
                       interval=0.0)

    async def scenario() -> list[list[tuple[str, str]]]:
        received: list[list[tuple[str, str]]] = [[] for _ in range(5)]

        async def client(number: int) -> None:
            async for message in feed.updates(7):
                received[number].append(message)
                if len(received[number]) == 3:
                    return

        tasks = [asyncio.create_task(client(n)) for n in range(5)]
        await wait_until(lambda: all(received), "first snapshots")
        await wait_until(lambda: len(hub._subscribers) == 1, "the pump's subscription")
        hub.publish(SeasonEvent("series_started", 7, series_id="7-0"))  # no update
        hub.publish(SeasonEvent("series_finished", 7, series_id="7-0"))
        await wait_until(lambda: all(len(r) == 2 for r in received), "the first update")
        hub.publish(SeasonEvent("status", 7, status="finished"))
        await asyncio.wait_for(asyncio.gather(*tasks), BOUND)
        await wait_until(lambda: not hub._subscribers, "the pump to unsubscribe")
        return received

    received = asyncio.run(scenario())
    # One snapshot every client joining is handed (built and encoded once), then
    # exactly one delta per update, the same string for all five.
    assert snapshot.calls == 3
    assert [label(*m) for m in received[0]] == ["snapshot 1 v1", "delta 2/1 v2", "delta 3/2 v3"]
    assert all(m is first for r in received for m, first in zip(r, received[0], strict=True))
    assert json.loads(received[0][1][1])["sections"] == {
        "progress": {"html": "<p>season 7 snapshot 2</p>"}}
    assert feed.dropped == 0 and feed.clients(7) == 0


def test_a_client_joining_late_gets_what_the_others_hold_and_then_the_same_deltas() -> None:
    from arena.web.live import SeasonSource

    hub, snapshot, now = EventHub(), CountingSnapshot(), [100.0]
    source = SeasonSource(LiveFeeds(hub, interval=0.0), snapshot, 7, interval=0.25,
                          clock=lambda: now[0])
    [early] = source.first()
    hub.publish(SeasonEvent("series_finished", 7, series_id="7-0"))
    [delta], _ = source.next(0.0)
    [late] = source.first()
    assert [label(*m) for m in (early, delta, late)] == [
        "snapshot 1 v1", "delta 2/1 v2", "snapshot 2 v2"]
    assert json.loads(late[1])["sections"] == {"progress": "<p>season 7 snapshot 2</p>"}
    assert source.first()[0] is late  # encoded once for every client that joins
    source.close()


def test_a_client_that_falls_behind_is_dropped_and_the_others_go_on() -> None:
    hub, snapshot = EventHub(), CountingSnapshot()
    feed = season_feed(LiveFeeds(hub, interval=0.0), snapshot, queue_size=2,
                       poll_seconds=0.02, interval=0.0)

    async def scenario() -> tuple[list[str], list[str]]:
        fast: list[str] = []
        slow_stream = feed.updates(3)
        slow = [label(*await anext(slow_stream))]  # connected, then never reads again

        async def reader() -> None:
            async for message in feed.updates(3):
                fast.append(label(*message))

        task = asyncio.create_task(reader())
        await wait_until(lambda: len(fast) == 1 and len(hub._subscribers) == 1, "connection")
        for number in range(4):
            hub.publish(SeasonEvent("series_finished", 3, series_id=f"3-{number}"))
            await wait_until(lambda n=number: len(fast) == n + 2, f"update {number}")
        assert feed.dropped == 1
        # The slow client's stream ends after what its queue held: it reconnects.
        slow += [label(*message) async for message in slow_stream]
        feed.close()
        await asyncio.wait_for(task, BOUND)
        return fast, slow

    fast, slow = asyncio.run(scenario())
    assert fast == ["snapshot 1 v1"] + [f"delta {n}/{n - 1} v{n}" for n in (2, 3, 4, 5)]
    assert slow == ["snapshot 1 v1"]


def free_site(tmp_path: Path, delay: float) -> tuple[object, int]:
    running = start_server(
        tmp_path / "live.db", port=0, resume=False, http=("localhost", 0),
        runner_factory=lambda config: functools.partial(run_fake_series, delay_s=delay))
    storage = running.storage
    ids = [register(storage, tmp_path, name) for name in ("alpha", "beta", "random-gamma")]
    return running, create_season(storage, ids, series_per_pair=2)


def read_versions(url: str, until: int, seen: list[int]) -> None:
    with httpx2.stream("GET", url, timeout=BOUND) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        for line in response.iter_lines():
            if line.startswith("data:"):
                seen.append(json.loads(line[5:])["version"])
                if seen[-1] >= until:
                    return


def test_season_stream_follows_a_playing_season_and_catches_up_after_restart(
    tmp_path: Path
) -> None:
    running, season_id = free_site(tmp_path, delay=0.05)
    web = running.web  # type: ignore[attr-defined]
    url = f"{web.url}/api/seasons/{season_id}/events"
    seen: list[int] = []
    reader = threading.Thread(target=read_versions, args=(url, 6, seen))
    reader.start()
    deadline = time.monotonic() + BOUND
    while web.website.feed.clients(season_id) == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    running.manager.start(season_id)  # type: ignore[attr-defined]
    reader.join(BOUND * 3)
    assert not reader.is_alive()
    assert seen[0] == 0 and seen[-1] == 6 and seen == sorted(seen)
    running.manager.wait(season_id, BOUND)  # type: ignore[attr-defined]
    running.stop()  # type: ignore[attr-defined]
    # A new server on the same database: a browser reconnecting gets the final state.
    again = start_server(tmp_path / "live.db", port=0, resume=False, http=("localhost", 0),
                         runner_factory=lambda config: run_fake_series)
    try:
        assert again.web is not None
        with httpx2.stream("GET", f"{again.web.url}/api/seasons/{season_id}/events",
                           timeout=BOUND) as response:
            first = next(line for line in response.iter_lines() if line.startswith("data:"))
        snapshot = json.loads(first[5:])
        assert snapshot["version"] == 6 and snapshot["status"] == "finished"
        assert "6</span>/6 series" in snapshot["sections"]["progress"]
        assert 'data-bot="alpha@1.0.0"' in snapshot["sections"]["standings"]
    finally:
        again.stop()


def test_stopping_the_server_ends_open_streams(tmp_path: Path) -> None:
    running, season_id = free_site(tmp_path, delay=0.0)
    web = running.web  # type: ignore[attr-defined]
    seen: list[int] = []
    reader = threading.Thread(
        target=read_versions, args=(f"{web.url}/api/seasons/{season_id}/events", 99, seen))
    reader.start()
    deadline = time.monotonic() + BOUND
    while not seen and time.monotonic() < deadline:
        time.sleep(0.01)
    running.stop()  # type: ignore[attr-defined]
    reader.join(BOUND)
    assert seen == [0] and not reader.is_alive()


def test_rating_chart_coordinates() -> None:
    svg = str(rating_svg([RatingPoint(1, 10.0, 1.0), RatingPoint(2, 12.0, 1.0)], "a<b"))
    # low 9, high 13 over y 184..36 and x 36..604: mu 10 -> y 147, mu 12 -> y 73.
    assert '<polyline class="mu" points="36.0,147.0 604.0,73.0"/>' in svg
    assert '<polygon class="band" points="36.0,110.0 604.0,36.0 604.0,110.0 36.0,184.0"/>' in svg
    assert "<title>a&lt;b</title>" in svg
    assert "No rated series" in str(rating_svg([], "x"))


@pytest.mark.parametrize(("text", "expected"), [
    ("localhost:8080", ("localhost", 8080)), ("0.0.0.0:0", ("0.0.0.0", 0)),
    ("[::1]:9000", ("::1", 9000))])
def test_http_address(text: str, expected: tuple[str, int]) -> None:
    assert arguments.http_address(text) == expected


@pytest.mark.parametrize(("text", "message"), [
    ("8080", "is not HOST:PORT"), (":8080", "is not HOST:PORT"),
    ("localhost:http", "is not a port number"), ("localhost:70000", "port must be 0..65535")])
def test_http_address_refuses(text: str, message: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match=message):
        arguments.http_address(text)


def test_a_taken_http_port_is_a_clear_error_and_nothing_stays_open(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("localhost", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(RuntimeError, match=f"cannot serve HTTP on localhost:{port} "
                                               r"\(Address already in use"):
            start_server(tmp_path / "taken.db", port=0, resume=False, http=("localhost", port))
    # The database was closed: a new server opens it and serves.
    running = start_server(tmp_path / "taken.db", port=0, resume=False, http=("localhost", 0))
    try:
        assert running.web is not None
        front = httpx2.get(f"{running.web.url}/api/seasons").json()
        assert front["seasons"] == [] and front["now_playing"] == []
    finally:
        running.stop()


def test_http_and_no_http_exclude_each_other(capsys: pytest.CaptureFixture[str]) -> None:
    from arena.cli import main

    with pytest.raises(SystemExit) as exited:
        main(["demo", "--http", "localhost:0", "--no-http"])
    assert exited.value.code == 2
    assert "argument --no-http: not allowed with argument --http" in capsys.readouterr().err


def test_a_season_source_sends_an_update_at_once_after_a_quiet_spell_then_at_most_once_per_interval(
        ) -> None:
    from arena.web.live import SeasonSource

    hub, snapshot, now = EventHub(), CountingSnapshot(), [100.0]
    source = SeasonSource(LiveFeeds(hub, interval=0.0), snapshot, 7, interval=0.25,
                          clock=lambda: now[0])
    assert [label(*m) for m in source.first()] == ["snapshot 1 v1"]
    hub.publish(SeasonEvent("series_finished", 7, series_id="7-0"))
    # The first change after a quiet spell goes at once (no time has passed) ...
    assert [label(*m) for m in source.next(0.0)[0]] == ["delta 2/1 v2"]
    hub.publish(SeasonEvent("series_finished", 7, series_id="7-1"))
    now[0] += 0.1
    assert source.next(0.0) == ([], False)  # ... the next is held back: within the interval
    now[0] += 0.15
    assert [label(*m) for m in source.next(0.0)[0]] == ["delta 3/2 v3"]
    hub.publish(SeasonEvent("series_started", 7, series_id="7-2"))
    now[0] += 1.0
    assert source.next(0.0) == ([], False)  # a start changes nothing shown
    hub.publish(SeasonEvent("series_finished", 7, series_id="7-2"))
    assert [label(*m) for m in source.next(0.0)[0]] == ["delta 4/3 v4"]  # quiet again: at once
    source.close()
    assert not hub._subscribers
