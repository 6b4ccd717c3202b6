"""Each seat's log of a series (``arena.core.seat_logs.SeatLog``: stderr, decision
times, debug notes), stored in ``seat_logs`` apart from the results: one row per
series and seat, compressed JSON (``arena.storage.logs``), with the time it was
stored so that old logs can be pruned (``prune_seat_logs``, the server's
``--log-retention-days``).

Only the owner of the seat's bot and the admin read them (``arena.server.owner_logs``);
no public page, JSON or RPC does. The results keep the arena's words about a fault
(kind, message, hand, decision) and never the bot's stderr
(``arena.core.faults.BotFault.public_dict``).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from arena.core.faults import BotFault
from arena.core.seat_logs import SeatLog
from arena.storage.logs import EncodedLog, decode_document, encode_document

if TYPE_CHECKING:
    from arena.storage.store import Storage

CREATE_TABLE = (
    "CREATE TABLE seat_logs (series_id TEXT NOT NULL REFERENCES planned_series(id), "
    "seat INTEGER NOT NULL, stored_at TEXT NOT NULL, codec TEXT NOT NULL, "
    "raw_bytes INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (series_id, seat))")
CREATE_INDEX = "CREATE INDEX seat_logs_stored_at ON seat_logs (stored_at)"


@dataclass(frozen=True)
class StoredSeatLog:
    """A seat's log as read back, with the size it takes in the database."""

    log: SeatLog
    stored_bytes: int
    raw_bytes: int


def encode_seat_logs(logs: Sequence[SeatLog], fault: BotFault | None = None
                     ) -> list[tuple[int, EncodedLog]]:
    """Each seat's log compressed (outside the write lock: the slow part). An
    outcome that brings no seat logs (made elsewhere) keeps its fault's stderr
    tails as the seats' logs: the results never keep them."""
    if not logs and fault is not None:
        logs = tail_logs(fault.to_dict())
    return [(log.seat, encode_document(log.to_dict())) for log in logs]


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


def read_seat_logs(storage: Storage, series_id: str) -> list[StoredSeatLog]:
    """The stored seat logs of ``series_id``, seat 0 first (none if pruned or never kept)."""
    return [StoredSeatLog(SeatLog.from_dict(decode_document(row["codec"], row["data"])),
                          len(row["data"]), int(row["raw_bytes"]))
            for row in storage.query("SELECT seat, codec, raw_bytes, data FROM seat_logs "
                                     "WHERE series_id=? ORDER BY seat", (series_id,))]


def prune_seat_logs(storage: Storage, retention_days: float, *,
                    now: datetime | None = None) -> int:
    """Delete the seat logs stored more than ``retention_days`` ago; how many rows."""
    moment = (now or datetime.now(UTC)) - timedelta(days=retention_days)
    cutoff = moment.strftime("%Y-%m-%dT%H:%M:%SZ")  # as ``utc_now`` writes it
    with storage.transaction() as db:
        return db.execute("DELETE FROM seat_logs WHERE stored_at < ?", (cutoff,)).rowcount


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
