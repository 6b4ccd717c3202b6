"""Submit-to-active benchmark (plain script; `make bench` runs it; Docker by default).

Uploads the greedy sample bot (renamed, a new version each run so that every run is
stored and vetted) to a real arena server on localhost that vets uploads in the
Docker sandbox, and times from the upload's first byte until the version is
``active``: upload, image build (the first run builds; later runs reuse the cached
layers of the same Dockerfile), and validation (a handshake and a two-hand series
against the random bot). Prints each run and the median, next to the target.

Options: --runs N (3), --sandbox NAME (docker; process/inprocess skip the build).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from hollywood.arena.v1 import arena_pb2

from arena.cli.client import ArenaClient
from arena.cli.submit import pack
from arena.server.app import start_server

GREEDY = Path(__file__).resolve().parents[2] / "sample_bots" / "greedy"
TARGET_SECONDS = 30.0
"""An author waits at most half a minute to see a bot of the sample's size active."""


def greedy_version(root: Path, version: str) -> Path:
    folder = root / version
    shutil.copytree(GREEDY, folder)
    toml = (folder / "bot.toml").read_text()
    toml = toml.replace('name = "greedy"', 'name = "greedy-bench"')
    toml = toml.replace('version = "1.0.0"', f'version = "{version}"')
    (folder / "bot.toml").write_text(toml)
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sandbox", default="docker")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        root = Path(temporary)
        running = start_server(root / "arena.db", port=0, resume=False,
                               vetting_sandbox=args.sandbox)
        times = []
        try:
            with ArenaClient(running.address, running.token) as client:
                for run in range(args.runs):
                    archive = pack(greedy_version(root / "bots", f"1.0.{run}"))
                    started = time.perf_counter()
                    bot_id = client.submit(archive).bot.id
                    while True:
                        [version] = client.stub.GetBot(
                            arena_pb2.GetBotRequest(name=bot_id)).versions
                        if version.bot.status in ("active", "rejected"):
                            break
                        time.sleep(0.05)
                    elapsed = time.perf_counter() - started
                    assert version.bot.status == "active", version.status_detail
                    times.append(elapsed)
                    print(f"run {run + 1}: {bot_id} active in {elapsed:.2f} s")
        finally:
            running.stop(grace=None)
    print(f"submit-to-active ({args.sandbox}): {statistics.median(times):.2f} s median of "
          f"{args.runs} (target <= {TARGET_SECONDS:.0f} s)")


if __name__ == "__main__":
    main()
