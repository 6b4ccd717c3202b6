"""One server per database and per port (issue 10): a second server is refused with
a message naming the database or port and the process that holds it; the lock goes
with the server (stop, or the process dying)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import grpc
import pytest

from arena.server.app import RunningServer, start_server
from arena.server.exclusive import ServerConflictError
from tests.helpers.arena_helpers import REPO_ROOT
from tests.helpers.ports import free_port
from tests.helpers.servers import ServerFactory


@pytest.fixture
def first(serve: ServerFactory, tmp_path: Path) -> RunningServer:
    return serve(database=tmp_path / "a.db", runner=None, resume=False)


def test_a_second_server_on_the_same_database_is_refused(
    first: RunningServer, tmp_path: Path
) -> None:
    with pytest.raises(ServerConflictError) as refused:
        start_server(tmp_path / "a.db", port=0, resume=False)
    message = str(refused.value)
    assert str(tmp_path / "a.db") in message
    assert f"pid {os.getpid()}" in message


def test_the_database_is_free_again_after_the_server_stops(tmp_path: Path) -> None:
    running = start_server(tmp_path / "a.db", port=0, resume=False)
    running.stop(grace=None)
    again = start_server(tmp_path / "a.db", port=0, resume=False)
    again.stop(grace=None)


def test_a_refused_start_leaves_the_database_free(first: RunningServer, tmp_path: Path) -> None:
    with pytest.raises(ServerConflictError):  # the port is taken, the database free
        start_server(tmp_path / "b.db", port=first.port, resume=False)
    other = start_server(tmp_path / "b.db", port=0, resume=False)
    other.stop(grace=None)


def _serve(db: Path, port: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "serve", "--db", str(db), "--port", str(port),
         "--no-http"],
        cwd=REPO_ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _wait_serving(port: int, process: subprocess.Popen[bytes]) -> None:
    channel = grpc.insecure_channel(f"localhost:{port}")
    try:
        grpc.channel_ready_future(channel).result(timeout=60)
    finally:
        channel.close()
    assert process.poll() is None


def test_a_second_server_on_the_same_port_is_refused_naming_the_holder(tmp_path: Path) -> None:
    port = free_port()
    holder = _serve(tmp_path / "a.db", port)
    try:
        _wait_serving(port, holder)
        done = subprocess.run(
            [sys.executable, "-m", "arena.cli", "serve", "--db", str(tmp_path / "b.db"),
             "--port", str(port), "--no-http"],
            cwd=REPO_ROOT, capture_output=True, text=True, timeout=60)
        assert done.returncode == 1
        assert f"port {port} is held by pid {holder.pid}" in done.stderr
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()


def test_a_killed_server_leaves_no_stale_database_lock(tmp_path: Path) -> None:
    port = free_port()
    holder = _serve(tmp_path / "a.db", port)
    try:
        _wait_serving(port, holder)
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    again = start_server(tmp_path / "a.db", port=0, resume=False)
    again.stop(grace=None)
