"""The website's costs (plain script; ``make bench``):

1. season page render time for a stored 20-bot round-robin season of 380 series
   (target <= 50 ms), median of repeated GETs through the ASGI app;
2. 200 concurrent SSE clients (in another process): time from a series result being
   stored and published to the last client receiving the update (target <= 1 s);
3. the arena's decision overhead while 200 SSE clients watch a season of the sample
   bots in the in-process sandbox, versus no client (target: within 10 %).

``python tests/bench/bench_web.py [CLIENTS] [--tiny]`` (``--tiny``: one small season
each way, that it runs); ``... clients URL N`` is the client process it starts itself.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

PAGE_TARGET_S = 0.050
FANOUT_TARGET_S = 1.0
OVERHEAD_TARGET = 0.10


# ---------------------------------------------------------------- the client process

async def _client(host: str, port: int, path: str, number: int, ready: asyncio.Event,
                  counter: list[int], total: int) -> None:
    reader, writer = await asyncio.open_connection(host, port, limit=2**24)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nAccept: text/event-stream\r\n\r\n"
                 .encode())
    await writer.drain()
    first = True
    while line := await reader.readline():
        if line.startswith(b"data: "):
            version = json.loads(line[6:])["version"]
            if first:
                first = False
                counter[0] += 1
                if counter[0] == total:
                    ready.set()
                continue
            print(f"{number} {version} {time.monotonic():.6f}", flush=True)


async def _clients(url: str, count: int) -> None:
    parts = urlsplit(url)
    ready, counter = asyncio.Event(), [0]
    tasks = [asyncio.create_task(_client(parts.hostname or "", parts.port or 80, parts.path,
                                         n, ready, counter, count)) for n in range(count)]
    await ready.wait()
    print("ready", flush=True)
    await asyncio.gather(*tasks, return_exceptions=True)


def start_clients(url: str, count: int) -> subprocess.Popen[str]:
    process = subprocess.Popen([sys.executable, __file__, "clients", url, str(count)],
                               stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "ready"
    return process


# ---------------------------------------------------------------- 1. render time

def render_time() -> None:
    from starlette.testclient import TestClient

    from arena.season.events import EventHub
    from arena.season.readings import SeasonReadings
    from arena.storage import Storage
    from arena.web.app import create_app
    from tests.helpers.season_play import play
    from tests.helpers.web_helpers import create_season, register

    with tempfile.TemporaryDirectory() as tmp:
        storage = Storage(Path(tmp) / "bench.db")
        ids = [register(storage, Path(tmp), f"bot-{n:02d}") for n in range(20)]
        season_id = create_season(storage, ids, series_per_pair=2, max_hands=2)
        play(storage, season_id)
        assert storage.get_season(season_id).series_done == 380
        app = create_app(storage, EventHub())
        client = TestClient(app)
        site = app.state.website
        for mode in ("first read", "rebuilt", "cached"):
            times = []
            for _ in range(30):
                if mode == "first read":  # a server's first read: standings from storage
                    site.readings = SeasonReadings(storage)
                if mode != "cached":  # the page rebuilt, standings from the kept reading
                    site.clear_cache()
                begun = time.perf_counter()
                response = client.get(f"/seasons/{season_id}")
                times.append(time.perf_counter() - begun)
                assert response.status_code == 200
            median = statistics.median(times)
            print(f"season page, 20 bots, 380 series, {mode}: "
                  f"median {median * 1000:.1f} ms, max {max(times) * 1000:.1f} ms, "
                  f"{len(response.text) // 1024} KiB (target <= {PAGE_TARGET_S * 1000:.0f} ms) "
                  f"{'OK' if median <= PAGE_TARGET_S else 'OVER'}")


# ---------------------------------------------------------------- 2. fan-out

def fanout(clients: int) -> None:
    from arena.core.series import BotRef, SeriesSpec
    from arena.season.events import EventHub, SeasonEvent
    from arena.storage import Storage
    from arena.web.serve import start_web
    from engine.profiles import get_profile
    from tests.helpers.fake_runner import run_fake_series
    from tests.helpers.web_helpers import SAMPLE_BOTS, create_season, register

    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "fanout.db"
        storage = Storage(db)
        ids = [register(storage, Path(tmp), f"bot-{n:02d}") for n in range(20)]
        season_id = create_season(storage, ids, series_per_pair=2, max_hands=2)
        hub = EventHub()
        web = start_web(db, hub, "localhost", 0)
        process = start_clients(f"{web.url}/api/seasons/{season_id}/events", clients)
        assert process.stdout is not None
        latencies = []
        bot = BotRef.from_folder(SAMPLE_BOTS / "greedy")
        for planned in storage.planned_series(season_id)[:5]:
            spec = SeriesSpec(series_id=planned.series_id, seed=planned.seed,
                              profile=get_profile("friendly"), max_hands=2,
                              swap_seats=planned.swap_seats, bots=(bot, bot))
            outcome = run_fake_series(spec)
            ended = time.monotonic()
            storage.store_result(planned, outcome, {})
            hub.publish(SeasonEvent("series_finished", season_id, series_id=planned.series_id))
            version = storage.get_season(season_id).series_done
            seen: dict[str, float] = {}
            while len(seen) < clients:
                number, got, at = process.stdout.readline().split()
                if int(got) >= version:
                    seen.setdefault(number, float(at))
            latencies.append(max(seen.values()) - ended)
        process.kill()
        web.stop()
        worst = max(latencies)
        print(f"{clients} SSE clients, series end -> last client's update: "
              f"median {statistics.median(latencies) * 1000:.0f} ms, worst {worst * 1000:.0f} ms "
              f"over {len(latencies)} series (target <= {FANOUT_TARGET_S:.0f} s) "
              f"{'OK' if worst <= FANOUT_TARGET_S else 'OVER'}")


# ---------------------------------------------------------------- 3. decision overhead

def season_seconds_per_decision(clients: int) -> float:
    from arena.server.app import start_server
    from tests.helpers.web_helpers import sample_season

    with tempfile.TemporaryDirectory() as tmp:
        running = start_server(Path(tmp) / "overhead.db", port=0, resume=False,
                               http=("localhost", 0))
        try:
            assert running.web is not None
            season_id = sample_season(running.storage, series_per_pair=1 if TINY else 6,
                                      max_hands=60)
            process = None
            if clients:
                process = start_clients(
                    f"{running.web.url}/api/seasons/{season_id}/events", clients)
                assert process.stdout is not None
                stdout = process.stdout

                def drain() -> None:
                    for _ in stdout:
                        pass

                import threading
                threading.Thread(target=drain, daemon=True).start()
            begun = time.perf_counter()
            running.manager.start(season_id)
            running.manager.wait(season_id)
            elapsed = time.perf_counter() - begun
            if process is not None:
                process.kill()
            decisions = 0
            for planned in running.storage.planned_series(season_id):
                log, _ = running.storage.result_log(planned.series_id)
                decisions += sum(1 for event in log if event.get("type") == "action")
            return elapsed / decisions
        finally:
            running.stop()


def overhead(clients: int) -> None:
    alone, watched = [], []
    for _ in range(1 if TINY else 3):  # interleaved: the machine's load drifts
        alone.append(season_seconds_per_decision(0))
        watched.append(season_seconds_per_decision(clients))
    base, loaded = statistics.median(alone), statistics.median(watched)
    ratio = loaded / base - 1.0
    print(f"decision time, season of the sample bots (in-process): {base * 1e6:.0f} us alone, "
          f"{loaded * 1e6:.0f} us with {clients} SSE clients: {ratio * 100:+.1f} % "
          f"(target within {OVERHEAD_TARGET * 100:.0f} %) "
          f"{'OK' if ratio <= OVERHEAD_TARGET else 'OVER'}")


TINY = "--tiny" in sys.argv[1:]
"""One season each way, of one series per pair: that it runs (tests/project/)."""


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "clients":
        asyncio.run(_clients(sys.argv[2], int(sys.argv[3])))
        return
    clients = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    render_time()
    if "--render-only" in sys.argv:
        return
    fanout(clients)
    overhead(clients)


if __name__ == "__main__":
    main()
