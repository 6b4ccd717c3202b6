"""Kill `arena serve` with SIGKILL in the middle of a season, start it again: the
season resumes and ends with exactly the planned series (the round-robin plan of
its seed, one round), none lost, none twice.

The server runs as a real subprocess playing the sample bots in the ``inprocess``
sandbox (real bots over the real match loop, without containers); the kill is sent
as soon as the watch stream reports a few series done, so it lands mid-season."""

from __future__ import annotations

import json
import signal
import sqlite3
from pathlib import Path

import pytest
from hollywood.arena.v1 import arena_pb2

from arena.cli.client import ArenaClient
from arena.season.formats import plan_season
from arena.storage import Storage, deal_key
from tests.helpers.ports import free_port
from tests.helpers.serve_process import (
    register_active,
    start_serve,
    wait_for_series_done,
    wait_ready,
)


def test_sigkill_mid_season_then_resume(tmp_path: Path, processes) -> None:
    db = tmp_path / "arena.db"
    port = free_port()
    target = f"localhost:{port}"
    processes.append(start_serve(db, port))
    wait_ready(target, processes[0])
    token = (tmp_path / "admin.token").read_text().strip()
    with ArenaClient(target, token) as client:
        register_active(client, ("random", "greedy", "shark"))
        season = client.stub.CreateSeason(arena_pb2.CreateSeasonRequest(
            bots=["random", "greedy", "shark"], config=arena_pb2.SeasonConfig(
                series_per_pair=6, concurrency=2, max_hands=40, sandbox_backend="inprocess")),
            metadata=client.auth).season
        total = season.series_total
        assert total == 18
        wait_for_series_done(client, season.id, 4)
    processes[0].send_signal(signal.SIGKILL)
    processes[0].wait()
    raw = sqlite3.connect(db)
    stored_at_kill = raw.execute("SELECT COUNT(*) FROM series_results").fetchone()[0]
    status_at_kill = raw.execute("SELECT status FROM seasons").fetchone()[0]
    raw.close()
    assert 4 <= stored_at_kill < total, "the kill must land mid-season"
    assert status_at_kill == "running"

    processes.append(start_serve(db, port))
    wait_ready(target, processes[1])
    with ArenaClient(target) as client:
        stream = client.stub.WatchSeason(arena_pb2.WatchSeasonRequest(season_id=season.id),
                                         timeout=120)
        messages = list(stream)
        last = messages[-1] if messages else None
        assert last is not None and last.status == arena_pb2.SEASON_STATUS_FINISHED
        assert last.standings.series_done == total
        assert sum(row.series_played for row in last.standings.rows) == 2 * total

    raw = sqlite3.connect(db)
    planned = [row[0] for row in raw.execute("SELECT id FROM planned_series ORDER BY idx")]
    stored = [row[0] for row in raw.execute("SELECT series_id FROM series_results")]
    plan = [(seed, bool(swap), seat0, seat1) for seed, swap, seat0, seat1, round_number in
            raw.execute("SELECT seed, swap_seats, seat0_bot, seat1_bot, round "
                        "FROM planned_series ORDER BY idx") if round_number == 1]
    config = json.loads(raw.execute("SELECT config_json FROM seasons").fetchone()[0])
    bot_ids = [row[0] for row in raw.execute(
        "SELECT bot_id FROM season_bots ORDER BY position")]
    raw.close()
    assert len(planned) == total
    assert sorted(stored) == sorted(planned)  # none lost, none twice
    assert len(bot_ids) == 3
    storage = Storage(db)  # the season's secret deal key, as the operator reads it
    key = deal_key(storage, 1, config["seed"])
    storage.close()
    assert config["seed"] == 0 and key != 0
    assert plan == [p.as_row() for p in plan_season(bot_ids, config["series_per_pair"], key)]


@pytest.mark.docker
def test_sigkill_mid_docker_season_then_resume(
    tmp_path: Path, processes, docker_client, base_image: str
) -> None:
    """The same with real bots in containers: the killed server's containers are
    cleaned up by the next one, and the season still ends with exactly the plan."""
    db = tmp_path / "arena.db"
    port = free_port()
    target = f"localhost:{port}"
    processes.append(start_serve(db, port))
    wait_ready(target, processes[0])
    token = (tmp_path / "admin.token").read_text().strip()
    with ArenaClient(target, token) as client:
        register_active(client, ("random", "greedy"))
        season = client.stub.CreateSeason(arena_pb2.CreateSeasonRequest(
            bots=["random", "greedy"], config=arena_pb2.SeasonConfig(
                series_per_pair=8, concurrency=2, max_hands=30)), metadata=client.auth).season
        wait_for_series_done(client, season.id, 2)
    killed_pid = processes[0].pid
    processes[0].send_signal(signal.SIGKILL)
    processes[0].wait()
    raw = sqlite3.connect(db)
    stored_at_kill = raw.execute("SELECT COUNT(*) FROM series_results").fetchone()[0]
    raw.close()
    assert 2 <= stored_at_kill < season.series_total, "the kill must land mid-season"

    processes.append(start_serve(db, port))
    wait_ready(target, processes[1])
    with ArenaClient(target) as client:
        messages = list(client.stub.WatchSeason(
            arena_pb2.WatchSeasonRequest(season_id=season.id), timeout=300))
        assert messages[-1].status == arena_pb2.SEASON_STATUS_FINISHED
    raw = sqlite3.connect(db)
    planned = sorted(row[0] for row in raw.execute("SELECT id FROM planned_series"))
    stored = sorted(row[0] for row in raw.execute("SELECT series_id FROM series_results"))
    faults = raw.execute("SELECT COUNT(*) FROM series_results WHERE fault_json IS NOT NULL")
    fault_count = faults.fetchone()[0]
    raw.close()
    assert stored == planned and fault_count == 0
    orphans = docker_client.containers.list(
        all=True, filters={"label": f"hollywood.arena.pid={killed_pid}"})
    assert orphans == []
