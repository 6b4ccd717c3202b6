"""The rows of ``seat_logs`` (each seat's log of a series: ``arena.core.seat_logs``)
as written: the table, encoding, the insert in the caller's transaction (the
result's, ``Storage.store_result``) and migration 15's step. Reading and pruning
them is ``arena.storage.seat_logs``."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any

from arena.core.faults import BotFault
from arena.core.seat_logs import SeatLog
from arena.storage.logs import EncodedLog, encode_document

CREATE_TABLE = (
    "CREATE TABLE seat_logs (series_id TEXT NOT NULL REFERENCES planned_series(id), "
    "seat INTEGER NOT NULL, stored_at TEXT NOT NULL, codec TEXT NOT NULL, "
    "raw_bytes INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (series_id, seat))")
CREATE_INDEX = "CREATE INDEX seat_logs_stored_at ON seat_logs (stored_at)"


def encode_seat_logs(logs: Sequence[SeatLog], fault: BotFault | None = None
                     ) -> list[tuple[int, EncodedLog]]:
    """Each seat's log compressed (outside the write lock: the slow part). An
    outcome that brings no seat logs (made elsewhere) keeps its fault's stderr
    tails as the seats' logs: the results never keep them. The dataclass is
    written as it is, the same JSON as its ``to_dict`` (its fields are its stored
    form), without a dict per decision."""
    if not logs and fault is not None:
        logs = tail_logs(fault.to_dict())
    return [(log.seat, encode_document(log)) for log in logs]


def tail_logs(fault: dict[str, Any]) -> list[SeatLog]:
    """The seat logs of a fault's stderr tails and the bot's own words (each seat's,
    seat 0 first)."""
    return [SeatLog(seat, tail, len(tail.encode()), fault_words=words)
            for seat, (tail, words) in sorted(_tails(fault).items())]


def insert_seat_logs(db: sqlite3.Connection, series_id: str,
                     encoded: Sequence[tuple[int, EncodedLog]], now: str) -> None:
    """Store the encoded logs of ``series_id`` (in the caller's transaction)."""
    db.executemany("INSERT OR REPLACE INTO seat_logs VALUES (?,?,?,?,?,?)",
                   [(series_id, seat, now, log.codec, log.raw_bytes, log.data)
                    for seat, log in encoded])


def move_stderr_tails(db: sqlite3.Connection) -> None:
    """Migration step: the stderr tails earlier releases kept in the results' faults
    move to the seats' logs (their owner's alone), and out of the results."""
    rows = db.execute("SELECT series_id, fault_json, finished_at FROM series_results "
                      "WHERE fault_json IS NOT NULL AND fault_json != ''").fetchall()
    for series_id, fault_json, finished_at in rows:
        data: dict[str, Any] = json.loads(fault_json)
        logs = tail_logs(data)
        if not logs:
            continue
        encoded = [(log.seat, encode_document(log.to_dict())) for log in logs]
        insert_seat_logs(db, series_id, encoded, str(finished_at or ""))
        db.execute("UPDATE series_results SET fault_json=? WHERE series_id=?",
                   (json.dumps(BotFault.from_dict(data).public_dict()), series_id))


def _tails(data: dict[str, Any]) -> dict[int, tuple[str, str]]:
    tails: dict[int, tuple[str, str]] = {}
    fault: dict[str, Any] | None = data
    while fault is not None:
        tail, words = str(fault.get("stderr_tail") or ""), str(fault.get("bot_words") or "")
        seat = fault.get("seat")
        if (tail or words) and isinstance(seat, int) and seat in (0, 1):
            tails.setdefault(seat, (tail, words))
        fault = fault.get("other_seat_fault")
    return tails
