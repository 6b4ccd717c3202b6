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

from datetime import UTC, datetime, timedelta

from arena.core.seat_logs import SeatLog
from arena.storage.logs import decode_document
from arena.storage.store import Storage


def read_seat_logs(storage: Storage, series_id: str) -> list[SeatLog]:
    """The stored seat logs of ``series_id``, seat 0 first (none if pruned or never kept)."""
    return [SeatLog.from_dict(decode_document(row["codec"], row["data"]))
            for row in storage.query("SELECT codec, data FROM seat_logs "
                                     "WHERE series_id=? ORDER BY seat", (series_id,))]


def prune_seat_logs(storage: Storage, retention_days: float, *,
                    now: datetime | None = None) -> int:
    """Delete the seat logs stored more than ``retention_days`` ago; how many rows."""
    moment = (now or datetime.now(UTC)) - timedelta(days=retention_days)
    cutoff = moment.strftime("%Y-%m-%dT%H:%M:%SZ")  # as ``utc_now`` writes it
    with storage.transaction() as db:
        return db.execute("DELETE FROM seat_logs WHERE stored_at < ?", (cutoff,)).rowcount
