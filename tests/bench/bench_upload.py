"""Upload throughput benchmark (plain script; `make bench` runs it; no Docker).

Packs a bot folder holding a 19.5 MiB file of random bytes (incompressible, so the
archive is just under the 20 MiB limit) and uploads it with ``SubmitBot`` to a
real arena server on localhost, as `arena submit` does (1 MiB chunks, checked and
unpacked while streaming, then registered). Prints the median of --runs uploads in
MiB/s of compressed archive, next to the target. Each run uses a new version, so
every upload is stored (never the identical-upload no-op).

Options: --runs N (3), --mib M (19.5).
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from arena.cli.client import ArenaClient
from arena.cli.submit import pack
from arena.server.app import start_server

TARGET_MIB_PER_SECOND = 20.0
"""An upload of the largest bundle allowed (20 MiB) within a second on localhost."""


def bot_folder(root: Path, version: str, payload: bytes) -> Path:
    folder = root / version
    folder.mkdir(parents=True)
    (folder / "bot.toml").write_text(
        f'name = "bulky"\nversion = "{version}"\nlanguage = "python"\n'
        '[run]\ncommand = ["python3", "-m", "bulky"]\n')
    (folder / "Dockerfile").write_text("FROM python:3.11-slim\n")
    (folder / "bulky.py").write_text("pass\n")
    (folder / "weights.bin").write_bytes(payload)
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--mib", type=float, default=19.5)
    args = parser.parse_args()
    payload = random.Random(7).randbytes(int(args.mib * 1024 * 1024))
    with tempfile.TemporaryDirectory() as temporary:
        root = Path(temporary)
        running = start_server(root / "arena.db", port=0)
        try:
            rates = []
            with ArenaClient(running.address, running.token) as client:
                for run in range(args.runs):
                    archive = pack(bot_folder(root / "bots", f"1.0.{run}", payload))
                    started = time.perf_counter()
                    response = client.submit(archive)
                    elapsed = time.perf_counter() - started
                    assert response.created, response
                    mib = len(archive) / (1024 * 1024)
                    rates.append(mib / elapsed)
                    print(f"run {run + 1}: {mib:.2f} MiB in {elapsed:.2f} s "
                          f"({rates[-1]:.1f} MiB/s)")
        finally:
            running.stop(grace=None)
    print(f"upload throughput: {statistics.median(rates):.1f} MiB/s median of {args.runs} "
          f"(target >= {TARGET_MIB_PER_SECOND:.0f} MiB/s: a 20 MiB bundle in a second)")


if __name__ == "__main__":
    main()
