"""An ``arena serve`` subprocess for tests that kill, back up or restart a real server:
start it, wait until it answers, register sample bots, follow a season's progress."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import grpc
from hollywood.arena.v1 import arena_pb2

from arena.cli.client import ArenaClient
from tests.helpers.arena_helpers import REPO_ROOT, upload_folder
from tests.helpers.polling import wait_until


def start_serve(db: Path, port: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "serve", "--db", str(db), "--port", str(port),
         "--no-http", "--vet-sandbox", "inprocess"],
        cwd=REPO_ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def register_active(client: ArenaClient, names: Sequence[str]) -> None:
    """Register the sample bots ``names`` and wait until the server has vetted them."""
    for name in names:
        upload_folder(client.stub, client.auth, REPO_ROOT / "sample_bots" / name)
    for name in names:
        wait_until(lambda: client.stub.GetBot(arena_pb2.GetBotRequest(name=name))  # noqa: B023
                   .versions[-1].bot.status == "active", what=f"{name} vetted", bound_s=60)


def wait_for_series_done(client: ArenaClient, season_id: int, count: int) -> None:
    """Follow the season's watch stream until ``count`` series are stored."""
    stream = client.stub.WatchSeason(arena_pb2.WatchSeasonRequest(season_id=season_id),
                                     timeout=120)
    for message in stream:
        if message.series_done >= count:
            stream.cancel()
            return
    raise AssertionError(f"the season ended before {count} series were done")


def wait_ready(target: str, process: subprocess.Popen[bytes], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"serve exited: {process.stderr.read().decode()[-2000:]}")
        try:
            with grpc.insecure_channel(target) as channel:
                grpc.channel_ready_future(channel).result(timeout=0.5)
                return
        except grpc.FutureTimeoutError:
            continue
    raise AssertionError("serve did not come up")
