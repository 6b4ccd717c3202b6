"""`arena backup` taken from a real server's database while a season plays on it
restores to a database on which `arena serve` resumes the season and finishes it
exactly: the planned series, each stored once, with the results the original server
stored for them (the bots are deterministic, the seeds stored with the plan)."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

from hollywood.arena.v1 import arena_pb2

from arena.cli.client import ArenaClient
from tests.helpers.arena_helpers import REPO_ROOT
from tests.helpers.ports import free_port
from tests.helpers.serve_process import (
    register_active,
    start_serve,
    wait_for_series_done,
    wait_ready,
)

BOTS = ("greedy", "shark")


def results(db: Path) -> dict[str, tuple[object, ...]]:
    connection = sqlite3.connect(db)
    try:
        return {row[0]: tuple(row[1:]) for row in connection.execute(
            "SELECT series_id, winner_seat, points_0, points_1, hands_played, fault_json, "
            "seat0_bot, seat1_bot "
            "FROM series_results")}
    finally:
        connection.close()


def planned(db: Path) -> list[str]:
    connection = sqlite3.connect(db)
    try:
        return sorted(row[0] for row in connection.execute("SELECT id FROM planned_series"))
    finally:
        connection.close()


def finish(target: str, season_id: int) -> None:
    with ArenaClient(target) as client:
        messages = list(client.stub.WatchSeason(
            arena_pb2.WatchSeasonRequest(season_id=season_id), timeout=300))
    assert messages and messages[-1].status == arena_pb2.SEASON_STATUS_FINISHED


def test_a_backup_taken_mid_season_resumes_and_finishes_exactly(
    tmp_path: Path, processes: list[subprocess.Popen[bytes]]
) -> None:
    db = tmp_path / "live" / "arena.db"
    db.parent.mkdir()
    port = free_port()
    target = f"localhost:{port}"
    processes.append(start_serve(db, port))
    wait_ready(target, processes[0])
    token = (db.parent / "admin.token").read_text().strip()
    with ArenaClient(target, token) as client:
        register_active(client, BOTS)
        season = client.stub.CreateSeason(arena_pb2.CreateSeasonRequest(
            bots=list(BOTS), config=arena_pb2.SeasonConfig(
                series_per_pair=10, concurrency=2, max_hands=30, sandbox_backend="inprocess")),
            metadata=client.auth).season
        wait_for_series_done(client, season.id, 2)

    archive = tmp_path / "mid-season.backup"
    made = subprocess.run(
        [sys.executable, "-m", "arena.cli", "backup", "--db", str(db), "--to", str(archive)],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert made.returncode == 0, made.stderr
    finish(target, season.id)
    original = results(db)
    assert len(original) == season.series_total

    restored_db = tmp_path / "restored" / "arena.db"
    put_back = subprocess.run(
        [sys.executable, "-m", "arena.cli", "restore", str(archive), "--db", str(restored_db)],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert put_back.returncode == 0, put_back.stderr
    at_backup = results(restored_db)
    assert 2 <= len(at_backup) < season.series_total, "the backup must land mid-season"
    assert all(original[series] == row for series, row in at_backup.items())

    restored_port = free_port()
    restored_target = f"localhost:{restored_port}"
    processes.append(start_serve(restored_db, restored_port))
    wait_ready(restored_target, processes[1])
    finish(restored_target, season.id)
    assert planned(restored_db) == planned(db)
    assert results(restored_db) == original
