"""Standings checkpoints (issue 42): a big season's standings are saved every
``CHECKPOINT_EVERY`` results, and a server's first read after a restart starts from
the checkpoint and applies only the results stored since, giving exactly (every
float, not rounded) the numbers of a rebuild from every result. A checkpoint that no
longer ends with its season's stored result, or that does not decode, is ignored."""

from __future__ import annotations

import json
import random
import zlib
from pathlib import Path
from typing import Any

import pytest

from arena.season import standings_checkpoint, standings_live
from arena.season.standings import Standings, compute_standings
from arena.season.standings_live import StandingsBoard
from arena.storage import Storage
from arena.storage import standings_checkpoint as stored_checkpoint
from tests.arena.season.test_standings_live import random_outcome, season_with_plan


def exact(standings: Standings) -> list[dict[str, Any]]:
    """Every row's values, ratings unrounded, and the crosstable."""
    return [row.values() for row in standings.rows] + [
        {bot: {other: vars(cell) for other, cell in cells.items()}
         for bot, cells in standings.crosstable.items()}]


def store(storage: Storage, board: StandingsBoard | None, season_id: int,
          series: list[Any], rng: random.Random) -> None:
    for planned in series:
        record = storage.store_result(planned, random_outcome(rng, planned.series_id), {})
        assert record is not None
        if board is not None:
            board.record(season_id, record)


def full(storage: Storage, season_id: int) -> Standings:
    return compute_standings(storage.get_season(season_id).bot_ids,
                             storage.results_stored_after(season_id))


@pytest.fixture
def every_three(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(standings_live, "CHECKPOINT_EVERY", 3)


@pytest.mark.usefixtures("every_three")
def test_a_restart_applies_only_the_results_after_the_checkpoint(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    storage = Storage(tmp_path / "a.db")
    season_id = season_with_plan(storage)
    planned = storage.planned_series(season_id)
    rng = random.Random(4)
    store(storage, StandingsBoard(storage), season_id, planned[:7], rng)
    blob = stored_checkpoint(storage, season_id)
    assert blob is not None and standings_checkpoint.decode(blob).sequence == 6
    store(storage, None, season_id, planned[7:9], rng)  # stored by a server that then stopped

    reads: list[int] = []
    original = storage.results_stored_after

    def counted(season: int, after: int = 0, until: int | None = None) -> Any:
        reads.append(after)
        return original(season, after) if until is None else original(season, after, until)

    monkeypatch.setattr(storage, "results_stored_after", counted)
    restarted = StandingsBoard(storage)
    first = restarted.latest(season_id)  # the first read catches up from the checkpoint
    assert reads == [6] and first.sequence == 9
    monkeypatch.setattr(storage, "results_stored_after", original)
    assert exact(first.standings) == exact(full(storage, season_id))
    store(storage, restarted, season_id, planned[9:14], rng)  # and plays on from there
    assert exact(restarted.snapshot(season_id).standings) == exact(full(storage, season_id))
    blob = stored_checkpoint(storage, season_id)
    assert blob is not None and standings_checkpoint.decode(blob).sequence == 12
    storage.close()


@pytest.mark.usefixtures("every_three")
def test_a_checkpoint_not_ending_with_the_stored_result_or_damaged_is_ignored(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    storage = Storage(tmp_path / "a.db")
    season_id = season_with_plan(storage)
    planned = storage.planned_series(season_id)
    store(storage, StandingsBoard(storage), season_id, planned[:4], random.Random(5))
    with storage.transaction() as db:
        db.execute("UPDATE standings_checkpoints SET last_series='1-99'")
    assert stored_checkpoint(storage, season_id) is None  # restored under it, say
    rebuilt = StandingsBoard(storage).snapshot(season_id)
    assert rebuilt.sequence == 4 and exact(rebuilt.standings) == exact(full(storage, season_id))
    blob = stored_checkpoint(storage, season_id)  # the rebuild saved a good one again
    assert blob is not None and standings_checkpoint.decode(blob).sequence == 4
    with storage.transaction() as db:
        db.execute("UPDATE standings_checkpoints SET state=?", (b"not zlib",))
    rebuilt = StandingsBoard(storage).snapshot(season_id)
    assert exact(rebuilt.standings) == exact(full(storage, season_id))
    assert f"season {season_id}: its standings checkpoint cannot be read" in caplog.text
    storage.close()


def test_a_checkpoint_of_another_layout_is_refused(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "a.db")
    season_id = season_with_plan(storage)
    store(storage, None, season_id, storage.planned_series(season_id)[:2], random.Random(6))
    table = full(storage, season_id)
    blob = standings_checkpoint.encode(table, storage.get_season(season_id).bot_ids, 2)
    assert exact(standings_checkpoint.decode(blob).table()) == exact(table)
    data = json.loads(zlib.decompress(blob))
    data["row_fields"] = data["row_fields"][:-1]
    with pytest.raises(standings_checkpoint.CheckpointError, match="another layout"):
        standings_checkpoint.decode(zlib.compress(json.dumps(data).encode()))
    storage.close()


def test_small_seasons_keep_no_checkpoint(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "a.db")
    season_id = season_with_plan(storage)
    store(storage, StandingsBoard(storage), season_id, storage.planned_series(season_id)[:8],
          random.Random(7))
    assert stored_checkpoint(storage, season_id) is None  # 8 results: far below 50,000
    storage.close()
