"""Seat logs in storage (issue 36): stored with the result in one transaction, apart
from it; pruned by age; and migration 15 moves the stderr tails earlier releases
kept in the results' faults into them."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from arena.core.faults import BotFault, FaultKind
from arena.core.seat_logs import DecisionLog, DecisionRecorder, SeatLog
from arena.storage import Storage
from arena.storage.logs import decode_document
from arena.storage.seat_log_rows import encode_seat_logs
from arena.storage.seat_logs import prune_seat_logs, read_seat_logs
from engine.profiles import FRIENDLY
from tests.helpers.arena_helpers import made_up_outcome, register_bots


def stored_season(tmp_path: Path) -> tuple[Storage, list[str]]:
    storage = Storage(tmp_path / "a.db")
    ids = register_bots(storage, tmp_path, ("ann", "bob"))
    season = storage.create_season(name="", config={"sandbox": "process"},
                                   profile=FRIENDLY, bot_ids=ids,
                                   plan=[(1, False, ids[0], ids[1]), (2, True, ids[1], ids[0])])
    return storage, [planned.series_id for planned in storage.planned_series(season.id)]


def test_seat_logs_are_stored_apart_and_pruned_by_age(tmp_path: Path) -> None:
    storage, series = stored_season(tmp_path)
    logs = (SeatLog(0, "zero\n", 5, (DecisionLog(1, 1, 3.5, "why"),)),
            SeatLog(1, "one\n", 4, (DecisionLog(1, 2, 1.25),)))
    for series_id in series:
        planned = storage.get_planned(series_id)
        storage.store_result(planned, replace(made_up_outcome(series_id, winner=0),
                                              seat_logs=logs), {})
    assert read_seat_logs(storage, series[0]) == list(logs)
    columns = [row[1] for row in storage.query("PRAGMA table_info(series_results)")]
    assert not any("stderr" in column or "debug" in column for column in columns)
    storage.query("UPDATE seat_logs SET stored_at='2026-01-01T00:00:00Z' WHERE series_id=?",
                  (series[0],))
    storage.query("UPDATE seat_logs SET stored_at='2026-01-20T00:00:00Z' WHERE series_id=?",
                  (series[1],))
    now = datetime(2026, 2, 1, tzinfo=UTC)
    assert prune_seat_logs(storage, 30, now=now) == 2  # stored 31 days before
    assert read_seat_logs(storage, series[0]) == []
    assert len(read_seat_logs(storage, series[1])) == 2  # 12 days: kept
    assert storage.get_result(series[0]) is not None  # the result and its replay stay
    assert storage.result_log(series[0])[0] == [{"type": "series_start"}]
    storage.close()


def test_a_recorded_seat_log_is_stored_as_its_to_dict_with_times_to_the_microsecond() -> None:
    # Storage writes the dataclass without building its dict: the same JSON as
    # to_dict, the charged times rounded where the loop records them.
    recorder = DecisionRecorder()
    recorder.record(0, 1, 1, 0.0123456789, "why\nnot")
    recorder.record(0, 1, 3, 2.5)
    recorder.record(1, 1, 2, 0.0000004)
    logs = [recorder.seat_log(0, "err\n", 4), recorder.seat_log(1, fault_words="bye")]
    stored = [(seat, decode_document(encoded.codec, encoded.data))
              for seat, encoded in encode_seat_logs(logs)]
    assert stored == [
        (0, {"seat": 0, "stderr": "err\n", "stderr_bytes": 4, "notes_dropped": 0,
             "fault_words": "", "decisions": [
                 {"hand_number": 1, "decision_number": 1, "think_ms": 12.346,
                  "debug": "why\\x0anot"},
                 {"hand_number": 1, "decision_number": 3, "think_ms": 2500.0, "debug": ""}]}),
        (1, {"seat": 1, "stderr": "", "stderr_bytes": 0, "notes_dropped": 0,
             "fault_words": "bye", "decisions": [
                 {"hand_number": 1, "decision_number": 2, "think_ms": 0.0, "debug": ""}]})]
    assert [document for _, document in stored] == [log.to_dict() for log in logs]


def test_migration_15_moves_the_results_stderr_tails_to_the_seat_logs(tmp_path: Path) -> None:
    storage, series = stored_season(tmp_path)
    planned = storage.get_planned(series[0])
    storage.store_result(planned, made_up_outcome(series[0], winner=0), {})
    storage.close()
    # As release 14 stored a forfeit: the bot's stderr tail inside the result's fault.
    old = BotFault(FaultKind.CRASH, "the bot exited with code 1", seat=1, hand_number=2,
                   decision_number=5, stderr_tail="Traceback: secret plan")
    raw = sqlite3.connect(tmp_path / "a.db", isolation_level=None)
    raw.execute("UPDATE series_results SET fault_json=?, finished_at='2026-03-01T10:00:00Z' "
                "WHERE series_id=?", (json.dumps(old.to_dict()), series[0]))
    raw.execute("DROP TABLE seat_logs")
    raw.execute("DROP TABLE challenges")  # migrations 16's, 17's, 19's and 20's, which follow
    raw.execute("DROP TABLE human_games")
    raw.execute("DROP TABLE standings_checkpoints")
    raw.execute("DROP INDEX series_results_by_seat0")
    raw.execute("DROP INDEX series_results_by_seat1")
    raw.execute("DROP INDEX planned_series_by_meeting")  # migration 20's
    raw.execute("ALTER TABLE planned_series DROP COLUMN meeting")
    raw.execute("UPDATE meta SET value='14' WHERE key='schema_version'")
    raw.close()
    storage = Storage(tmp_path / "a.db")
    stored = storage.get_result(series[0])
    assert stored is not None and stored.fault == replace(old, stderr_tail="")
    assert "secret" not in storage.query("SELECT fault_json FROM series_results")[0][0]
    [moved] = read_seat_logs(storage, series[0])
    assert moved == SeatLog(1, "Traceback: secret plan", 22)
    assert storage.query("SELECT stored_at FROM seat_logs")[0][0] == "2026-03-01T10:00:00Z"
    storage.close()
