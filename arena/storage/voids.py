"""Series voided for arena overload: stored apart from results, counted and shown.

A series whose bot the machine starved (``arena.core.faults.ArenaOverload``) has no
result: neither bot faulted, nothing enters the standings or the statistics. It
stays planned (so it is played again from the same seed and seats) and each void is
a row here, saying why.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from arena.core.faults import ARENA_OVERLOAD
from arena.core.text import safe_text
from arena.storage.records import utc_now
from arena.storage.store import Storage

MAX_VOID_MESSAGE_CHARS: Final = 2000


@dataclass(frozen=True)
class VoidedSeries:
    """One void of one series."""

    season_id: int
    series_id: str
    reason: str
    message: str
    voided_at: str


def record_void(storage: Storage, season_id: int, series_id: str, message: str,
                reason: str = ARENA_OVERLOAD) -> int:
    """Store one void of ``series_id``; returns how many times it has been voided."""
    with storage.transaction() as db:
        db.execute("INSERT INTO voided_series (season_id, series_id, reason, message, "
                   "voided_at) VALUES (?, ?, ?, ?, ?)",
                   (season_id, series_id, reason,
                    safe_text(message, MAX_VOID_MESSAGE_CHARS), utc_now()))
        row = db.execute("SELECT COUNT(*) FROM voided_series WHERE season_id=? AND "
                         "series_id=?", (season_id, series_id)).fetchone()
    return int(row[0])


def voids_of(storage: Storage, season_id: int) -> list[VoidedSeries]:
    """Every void of the season, oldest first."""
    with storage.transaction() as db:
        rows = db.execute("SELECT season_id, series_id, reason, message, voided_at FROM "
                          "voided_series WHERE season_id=? ORDER BY id",
                          (season_id,)).fetchall()
    return [VoidedSeries(int(row["season_id"]), str(row["series_id"]), str(row["reason"]),
                         str(row["message"]), str(row["voided_at"])) for row in rows]
