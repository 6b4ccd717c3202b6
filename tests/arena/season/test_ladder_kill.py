"""Kill `arena serve` with SIGKILL in the middle of a ladder played by real bots
(the sample bots in the ``inprocess`` sandbox), start it again: the ladder
resumes by itself, plays no series twice, and every stored round is exactly the
round the ladder makes from its stored members and the results stored before it."""

from __future__ import annotations

import signal
import sqlite3
from pathlib import Path

from hollywood.arena.v1 import arena_pb2

from arena.cli.client import ArenaClient
from arena.season.formats import LADDER_FORMAT, format_for
from arena.season.formats.ladder import Ladder
from arena.storage import Storage, deal_key, members_by_round
from tests.helpers.ports import free_port
from tests.helpers.serve_process import (
    register_active,
    start_serve,
    wait_for_series_done,
    wait_ready,
)

ROUNDS = 4


def test_sigkill_mid_ladder_then_resume(tmp_path: Path, processes) -> None:
    db = tmp_path / "arena.db"
    port = free_port()
    target = f"localhost:{port}"
    processes.append(start_serve(db, port))
    wait_ready(target, processes[0])
    token = (tmp_path / "admin.token").read_text().strip()
    config = arena_pb2.SeasonConfig(
        format=LADDER_FORMAT, ladder_rounds=ROUNDS, ladder_meetings=1, series_per_pair=2,
        concurrency=1, max_hands=40, sandbox_backend="inprocess")
    with ArenaClient(target, token) as client:
        register_active(client, ("random", "greedy", "shark"))
        season = client.stub.CreateSeason(arena_pb2.CreateSeasonRequest(
            all_active=True, config=config), metadata=client.auth).season
        wait_for_series_done(client, season.id, 3)
    processes[0].send_signal(signal.SIGKILL)
    processes[0].wait()
    raw = sqlite3.connect(db)
    status_at_kill, = raw.execute("SELECT status FROM seasons").fetchone()
    done_at_kill, = raw.execute("SELECT COUNT(*) FROM series_results").fetchone()
    raw.close()
    assert status_at_kill == "running" and done_at_kill < ROUNDS * 2, "must land mid-ladder"

    processes.append(start_serve(db, port))
    wait_ready(target, processes[1])
    with ArenaClient(target) as client:
        messages = list(client.stub.WatchSeason(
            arena_pb2.WatchSeasonRequest(season_id=season.id), timeout=180))
        assert messages and messages[-1].status == arena_pb2.SEASON_STATUS_FINISHED

    storage = Storage(db)
    stored = storage.get_season(season.id)
    config_back = stored.config
    ladder = format_for(config_back.format, config_back)
    assert isinstance(ladder, Ladder)
    planned = storage.planned_series(season.id)
    results = storage.results_by_round(season.id)
    history = members_by_round(storage, season.id)
    assert len(history) == len(results) == ROUNDS
    assert all(sorted(members) == sorted(stored.bot_ids) for members in history)
    # No series planned or played twice; every planned one played.
    assert len({p.series_id for p in planned}) == len(planned) == ROUNDS * 2
    assert sorted(r.series_id for rs in results for r in rs) == sorted(p.series_id for p in planned)
    # Created without a seed: dealt from the season's secret key, which the arena
    # keeps across the kill (config_back.seed stays 0, the public knows no seed).
    key = deal_key(storage, season.id, config_back.seed)
    assert config_back.seed == 0 and key != 0
    for number in range(1, ROUNDS + 1):
        made = ladder.plan(history[:number], key, results[:number - 1])
        assert made is not None
        assert [p.as_row() for p in made] == [
            (p.seed, p.swap_seats, p.seat0_bot, p.seat1_bot) for p in planned
            if p.round == number]
    assert ladder.plan([*history, history[-1]], key, results) is None
    storage.close()
