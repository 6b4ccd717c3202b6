"""``arena watch --json`` across a real server restart (issue 10, point 7): start
``arena serve``, watch a season, SIGKILL the server mid-season, start it again on
the same database and port; the same watch continues to the season's end and its
output holds every series' finish exactly once and no standings line twice.

The servers and the watch are real subprocesses playing the sample bots in the
``inprocess`` sandbox; everything waits by bounded polling on the watch's output."""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, Any

from hollywood.arena.v1 import arena_pb2

from arena.cli.client import ArenaClient
from tests.helpers.arena_helpers import REPO_ROOT
from tests.helpers.ports import free_port
from tests.helpers.serve_process import register_active, start_serve, wait_ready

BOUND_S = 120.0


def read_lines(stream: IO[bytes], lines: queue.Queue[str | None]) -> None:
    for raw in stream:
        lines.put(raw.decode())
    lines.put(None)


def next_message(lines: queue.Queue[str | None], deadline: float) -> dict[str, Any] | None:
    """The next JSON line of the watch (None when it has ended)."""
    line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
    return None if line is None else json.loads(line)


def test_watch_continues_across_a_server_restart(
    tmp_path: Path, processes: list[subprocess.Popen[bytes]]
) -> None:
    db = tmp_path / "arena.db"
    port = free_port()
    target = f"localhost:{port}"
    processes.append(start_serve(db, port))
    wait_ready(target, processes[-1])
    token = (tmp_path / "admin.token").read_text().strip()
    with ArenaClient(target, token) as client:
        register_active(client, ("random", "greedy"))
        season = client.stub.CreateSeason(arena_pb2.CreateSeasonRequest(
            bots=["random", "greedy"], hold=True, config=arena_pb2.SeasonConfig(
                series_per_pair=16, concurrency=1, max_hands=6, sandbox_backend="inprocess")),
            metadata=client.auth).season
    total = season.series_total
    assert total == 16

    watch = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "watch", "--json", "--season", str(season.id),
         "--server", target], cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    processes.append(watch)
    lines: queue.Queue[str | None] = queue.Queue()
    assert watch.stdout is not None and watch.stderr is not None
    threading.Thread(target=read_lines, args=(watch.stdout, lines), daemon=True).start()
    deadline = time.monotonic() + BOUND_S
    messages = [next_message(lines, deadline)]  # the watch is connected
    with ArenaClient(target, token) as client:
        client.stub.StartSeason(arena_pb2.StartSeasonRequest(season_id=season.id),
                                metadata=client.auth)
    while sum("series_finished" in message for message in messages if message) < 3:
        messages.append(next_message(lines, deadline))
        assert messages[-1] is not None, "the watch ended before the kill"
    processes[0].send_signal(signal.SIGKILL)
    processes[0].wait()
    processes.append(start_serve(db, port))  # same database, same port: it resumes
    wait_ready(target, processes[-1])
    while messages[-1] is not None:
        messages.append(next_message(lines, deadline))
    assert watch.wait(timeout=max(1.0, deadline - time.monotonic())) == 0
    shown = [message for message in messages if message is not None]

    finished = [m["series_finished"]["series"]["series_id"] for m in shown
                if "series_finished" in m]
    assert sorted(finished) == sorted(f"{season.id}-{index}" for index in range(total))
    assert len(finished) == total  # every series once: none lost, none twice
    started = [m["series_started"]["series_id"] for m in shown if "series_started" in m]
    assert len(started) == len(set(started))
    standings = [(m["standings"]["sequence"], m["status"], m["series_done"])
                 for m in shown if "standings" in m]
    assert len(standings) == len(set(standings))
    assert shown[-1]["status"] == "SEASON_STATUS_FINISHED"
    assert shown[-1]["standings"]["series_done"] == total
    assert "reconnecting in" in watch.stderr.read().decode()
