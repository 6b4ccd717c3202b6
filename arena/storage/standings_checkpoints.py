"""Each big season's last standings checkpoint (``arena.season.standings_checkpoint``
writes and reads what it holds). A checkpoint is read only while the result it
ends with is still the season's result of that sequence number, so a database
restored or renumbered under it rebuilds the standings from every result instead."""

from __future__ import annotations

from arena.storage.records import utc_now
from arena.storage.store import Storage


def save_standings_checkpoint(storage: Storage, season_id: int, sequence: int,
                              state: bytes) -> None:
    """Keep ``state``, the season's standings after ``sequence`` stored results (it
    replaces the season's checkpoint before it)."""
    with storage.transaction() as db:
        db.execute(
            "INSERT OR REPLACE INTO standings_checkpoints (season_id, sequence, last_series, "
            "state, saved_at) SELECT ?1, ?2, series_id, ?3, ?4 FROM series_results "
            "WHERE season_id=?1 AND stored_seq=?2", (season_id, sequence, state, utc_now()))


def standings_checkpoint(storage: Storage, season_id: int) -> bytes | None:
    """The season's checkpoint, if it has one that still ends with its stored result."""
    rows = storage.query(
        "SELECT c.state FROM standings_checkpoints c JOIN series_results r "
        "ON r.season_id = c.season_id AND r.stored_seq = c.sequence "
        "AND r.series_id = c.last_series WHERE c.season_id=?", (season_id,))
    return bytes(rows[0][0]) if rows else None
