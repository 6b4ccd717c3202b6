"""The live pages' costs (plain script; ``make bench``):

1. the match loop's side: a series played by the engine with seeded random moves,
   every event fed to a ``MoveBoard`` (what the runner does for the live pages)
   against the same series with no sink: microseconds per move and the ratio, from
   interleaved runs (the board must cost the loop next to nothing: target <= 2 us
   per move, against the ~100 us of a bot's decision over gRPC alone);
2. the website's side, once per watched series whatever the number of viewers: a
   ``SeriesSource`` turning the board's new moves into frames, in microseconds per
   move;
3. the fan-out: VIEWERS Server-Sent Events clients (in another process) watching
   one live series through the real web server: the pumps running (target: 1) and
   the time from a move fed to the board to the last viewer receiving its frame
   (target <= 0.5 s; the pump sends a series at most ten times a second).

``python tests/bench/bench_live_moves.py [ROUNDS [VIEWERS]]``; ``... viewers URL N``
is the client process it starts itself.
"""

from __future__ import annotations

import asyncio
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # the repo root, for tests.*

from arena.match.live_moves import MoveBoard  # noqa: E402
from arena.storage import Storage  # noqa: E402
from arena.web.live_series import SeriesSource  # noqa: E402
from engine import Series  # noqa: E402
from tests.helpers.live_helpers import choose  # noqa: E402
from tests.helpers.web_helpers import create_season, register  # noqa: E402

OVERHEAD_TARGET_US = 2.0
FANOUT_TARGET_S = 0.5
MAX_HANDS = 40


def play(seed: int, board: MoveBoard | None) -> tuple[float, int]:
    """Seconds and moves of one series, fed to ``board`` when given."""
    series = Series(seed, max_hands=MAX_HANDS)
    rng = random.Random(seed)
    moves = 0
    started = time.perf_counter()
    if board is None:
        while not series.is_over:
            series.apply(choose(series.legal_actions(), rng))
            moves += 1
    else:
        with board.playing(f"b-{seed}") as sink:
            while not series.is_over:
                for event in series.apply(choose(series.legal_actions(), rng)):
                    sink(event)
                moves += 1
    return time.perf_counter() - started, moves


def loop_overhead(rounds: int) -> tuple[float, float]:
    bare: list[float] = []
    fed: list[float] = []
    board = MoveBoard()
    for seed in range(rounds):  # interleaved: the machine's load hits both alike
        seconds, moves = play(seed, None)
        bare.append(seconds / moves)
        seconds, moves = play(seed, board)
        fed.append(seconds / moves)
    return statistics.median(bare) * 1e6, statistics.median(fed) * 1e6


def frames_per_move(rounds: int) -> float:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        storage = Storage(root / "bench.db")
        ids = [register(storage, root, name) for name in ("alpha", "beta")]
        season_id = create_season(storage, ids, max_hands=MAX_HANDS)
        planned = storage.planned_series(season_id)[0]
        profile = storage.get_season(season_id).profile
        costs = []
        for round_number in range(rounds):
            board = MoveBoard()
            board.begin(planned.series_id)
            series = Series(planned.seed, profile, max_hands=MAX_HANDS,
                            swap_seats=planned.swap_seats)
            rng = random.Random(round_number)
            while not series.is_over:
                for event in series.apply(choose(series.legal_actions(), rng)):
                    board.feed(planned.series_id, event)
            moves = sum(1 for entry in series.log if entry["type"] == "action")
            source = SeriesSource(storage, board, planned.series_id)
            started = time.perf_counter()
            source.first()
            costs.append((time.perf_counter() - started) / moves)
        storage.close()
    return statistics.median(costs) * 1e6


async def _viewer(host: str, port: int, path: str, number: int, joined: list[int],
                  total: int, ready: asyncio.Event) -> None:
    reader, writer = await asyncio.open_connection(host, port, limit=2**24)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nAccept: text/event-stream\r\n\r\n"
                 .encode())
    await writer.drain()
    event = b""
    while line := await reader.readline():
        if line.startswith(b"event: "):
            event = line[7:].strip()
        elif line.startswith(b"data: ") and event == b"snapshot":
            joined[0] += 1
            if joined[0] == total:
                ready.set()
        elif line.startswith(b"data: ") and event == b"frames":
            print(f"{number} {time.monotonic():.6f}", flush=True)


async def _viewers(url: str, count: int) -> None:
    parts = urlsplit(url)
    ready, joined = asyncio.Event(), [0]
    tasks = [asyncio.create_task(_viewer(parts.hostname or "", parts.port or 80, parts.path,
                                         n, joined, count, ready)) for n in range(count)]
    await ready.wait()
    print("ready", flush=True)
    await asyncio.gather(*tasks, return_exceptions=True)


def fanout(viewers: int) -> None:
    from arena.season.events import EventHub
    from arena.web.serve import start_web

    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        db = root / "fanout.db"
        storage = Storage(db)
        ids = [register(storage, root, name) for name in ("alpha", "beta")]
        season_id = create_season(storage, ids, max_hands=MAX_HANDS)
        planned = storage.planned_series(season_id)[0]
        profile = storage.get_season(season_id).profile
        board = MoveBoard()
        board.begin(planned.series_id)
        web = start_web(db, EventHub(), "localhost", 0, board=board)
        process = subprocess.Popen(
            [sys.executable, __file__, "viewers", f"{web.url}/api/series/{planned.series_id}/live",
             str(viewers)], stdout=subprocess.PIPE, text=True)
        assert process.stdout is not None
        assert process.stdout.readline().strip() == "ready"
        pumps = web.website.live.series_feed.pumps()
        series = Series(planned.seed, profile, max_hands=MAX_HANDS,
                        swap_seats=planned.swap_seats)
        rng = random.Random(1)
        latencies = []
        for _ in range(10):
            time.sleep(0.3)  # past the pump's rest: each move its own update
            moved = time.monotonic()
            for event in series.apply(choose(series.legal_actions(), rng)):
                board.feed(planned.series_id, event)
            last = max(float(process.stdout.readline().split()[1]) for _ in range(viewers))
            latencies.append(last - moved)
        process.kill()
        process.wait()
        web.stop()
        storage.close()
    median = statistics.median(latencies)
    print(f"LIVE-MOVES fan-out: {viewers} viewers of one live series, {pumps} pump(s) "
          f"(target 1); a move reaches the last viewer in median {median * 1000:.0f} ms, "
          f"max {max(latencies) * 1000:.0f} ms (target <= {FANOUT_TARGET_S * 1000:.0f} ms) "
          f"{'OK' if pumps == 1 and median <= FANOUT_TARGET_S else 'OVER'}")


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "viewers":
        asyncio.run(_viewers(sys.argv[2], int(sys.argv[3])))
        return
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    viewers = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    load = os.getloadavg()[0]
    bare_us, fed_us = loop_overhead(rounds)
    overhead = fed_us - bare_us
    print(f"LIVE-MOVES loop: {bare_us:.2f} us/move bare, {fed_us:.2f} us/move fed to the "
          f"board: +{overhead:.2f} us (+{overhead / bare_us * 100:.1f} % of the engine alone; "
          f"target <= {OVERHEAD_TARGET_US:.0f} us) "
          f"{'OK' if overhead <= OVERHEAD_TARGET_US else 'OVER'}, {rounds} series of up to "
          f"{MAX_HANDS} hands, load {load:.1f}")
    frame_us = frames_per_move(max(3, rounds // 10))
    print(f"LIVE-MOVES frames: {frame_us:.1f} us per move turned into a frame "
          "(once per watched series, whatever the viewers)")
    fanout(viewers)


if __name__ == "__main__":
    main()
