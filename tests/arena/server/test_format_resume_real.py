"""Kill `arena serve` with SIGKILL in the middle of a Swiss season and of a
knockout played by real bots (the sample bots in the ``inprocess`` sandbox),
start it again: the season finishes, and every stored round is exactly the round
the format makes from the results stored before it (so the resumed season is the
one an uninterrupted run with those results would have played)."""

from __future__ import annotations

import signal
import sqlite3
from pathlib import Path

import pytest
from hollywood.arena.v1 import arena_pb2

from arena.cli.client import ArenaClient
from arena.season.formats import format_for
from arena.storage import Storage, deal_key
from tests.helpers.ports import free_port
from tests.helpers.serve_process import (
    register_active,
    start_serve,
    wait_for_series_done,
    wait_ready,
)


@pytest.mark.parametrize(("config", "kill_after"), [
    (arena_pb2.SeasonConfig(format="swiss", rounds=3, series_per_pair=2), 3),
    (arena_pb2.SeasonConfig(format="knockout", tiebreak_pairs=2), 2),
])
def test_sigkill_mid_format_season_then_resume(
        tmp_path: Path, processes, config: arena_pb2.SeasonConfig, kill_after: int) -> None:
    db = tmp_path / "arena.db"
    port = free_port()
    target = f"localhost:{port}"
    processes.append(start_serve(db, port))
    wait_ready(target, processes[0])
    token = (tmp_path / "admin.token").read_text().strip()
    config.MergeFrom(arena_pb2.SeasonConfig(concurrency=1, max_hands=40,
                                            sandbox_backend="inprocess"))
    with ArenaClient(target, token) as client:
        register_active(client, ("random", "greedy", "shark"))
        season = client.stub.CreateSeason(arena_pb2.CreateSeasonRequest(
            bots=["random", "greedy", "shark"], config=config), metadata=client.auth).season
        wait_for_series_done(client, season.id, kill_after)
    processes[0].send_signal(signal.SIGKILL)
    processes[0].wait()
    raw = sqlite3.connect(db)
    status_at_kill = raw.execute("SELECT status FROM seasons").fetchone()[0]
    raw.close()
    assert status_at_kill == "running", "the kill must land mid-season"

    processes.append(start_serve(db, port))
    wait_ready(target, processes[1])
    with ArenaClient(target) as client:
        messages = list(client.stub.WatchSeason(
            arena_pb2.WatchSeasonRequest(season_id=season.id), timeout=180))
        assert messages and messages[-1].status == arena_pb2.SEASON_STATUS_FINISHED

    storage = Storage(db)
    stored = storage.get_season(season.id)
    season_format = format_for(stored.config.format, stored.config)
    seed = deal_key(storage, season.id, stored.config.seed)
    planned = storage.planned_series(season.id)
    results = storage.results_by_round(season.id)
    rounds = max(p.round for p in planned)
    assert rounds >= 2 and len(results) == rounds
    assert sorted(r.series_id for rs in results for r in rs) == sorted(p.series_id for p in planned)
    for number in range(1, rounds + 1):
        made = (season_format.first_round(stored.bot_ids, seed) if number == 1 else
                season_format.next_round(stored.bot_ids, seed, results[:number - 1]))
        assert made is not None
        assert [p.as_row() for p in made] == [
            (p.seed, p.swap_seats, p.seat0_bot, p.seat1_bot) for p in planned
            if p.round == number]
    assert season_format.next_round(stored.bot_ids, seed, results) is None
    storage.close()
