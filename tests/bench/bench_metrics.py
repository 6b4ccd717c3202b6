"""Metrics scrape benchmark (plain script; `make bench` runs it). No Docker needed.

What one scrape of ``arena serve --metrics`` costs the server (issue 40): a server
(in this process, fake series) stores a season of ``--series`` results between
``--bots`` bots, then ``/metrics`` is scraped ``--scrapes`` times; the figure is the
mean wall time of a scrape and the server's CPU time per scrape (this process's
CPU: the server's threads, the client's own reads being small beside them).

Options: --bots N (8), --series N (per pair, 4), --scrapes N (200).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from figures import report  # noqa: E402
from hollywood.arena.v1 import arena_pb2  # noqa: E402

from arena.cli.client import ArenaClient  # noqa: E402
from arena.server.app import start_server  # noqa: E402
from tests.helpers.arena_helpers import make_bot_folder, upload_folder  # noqa: E402
from tests.helpers.fake_runner import run_fake_series  # noqa: E402

SCRAPE_TARGET_MS = 50.0
"""A scrape every 15 s (Prometheus's default) then costs the server under 0.4 %."""


def scrape(port: int) -> int:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=30) as response:
        return len(response.read())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bots", type=int, default=8)
    parser.add_argument("--series", type=int, default=4)
    parser.add_argument("--scrapes", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        running = start_server(root / "arena.db", port=0, resume=False,
                               runner_factory=lambda config: run_fake_series,
                               metrics=("127.0.0.1", 0))
        try:
            names = [f"bot{index}" for index in range(args.bots)]
            with ArenaClient(running.address, running.token) as client:
                for name in names:
                    upload_folder(client.stub, client.auth, make_bot_folder(root / "bots", name))
                season = client.stub.CreateSeason(arena_pb2.CreateSeasonRequest(
                    bots=names, config=arena_pb2.SeasonConfig(
                        series_per_pair=args.series, max_hands=5)),
                    metadata=client.auth).season
            assert running.manager.wait(season.id, timeout=600), "the season did not finish"
            stored = running.storage.query("SELECT COUNT(*) FROM series_results")[0][0]
            size = scrape(running.metrics_port)  # the first scrape reads every result once
            wall, cpu = time.perf_counter(), time.process_time()
            for _ in range(args.scrapes):
                scrape(running.metrics_port)
            wall = (time.perf_counter() - wall) / args.scrapes
            cpu = (time.process_time() - cpu) / args.scrapes
        finally:
            running.stop(grace=None)
    print(f"metrics: {args.scrapes} scrapes of {size} bytes after {stored} stored series: "
          f"{1000 * wall:.2f} ms wall, {1000 * cpu:.2f} ms CPU each", flush=True)
    conditions = f"{stored} series stored, {args.scrapes} scrapes"
    report("metrics scrape, wall", 1000 * wall, SCRAPE_TARGET_MS, unit="ms",
           conditions=conditions)
    report("metrics scrape, server CPU", 1000 * cpu, SCRAPE_TARGET_MS, unit="ms",
           conditions=conditions)


if __name__ == "__main__":
    main()
