"""The counts an operator's metrics read from the database (``arena.server.metrics``),
each by index look-ups or over what is new since the last read, so that a scrape costs
the same on a database of a thousand series or of a million."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import orjson

from arena.core.faults import BotFault, faults_by_seat
from arena.core.status import SeasonStatus
from arena.storage.store import Storage


@dataclass
class StoredResults:
    """Stored series and their forfeits by fault kind, read forward from a cursor (the
    results table's rowid: results are only ever added)."""

    cursor: int = 0
    played: int = 0
    faults: Counter[str] = field(default_factory=Counter)

    def catch_up(self, storage: Storage) -> None:
        """Count the results stored since the last call."""
        rows = storage.query(
            "SELECT rowid, fault_json FROM series_results WHERE rowid > ? ORDER BY rowid",
            (self.cursor,))
        for row in rows:
            self.played += 1
            if row[1]:
                for fault in faults_by_seat(BotFault.from_dict(orjson.loads(row[1]))):
                    if fault is not None:  # both seats may have forfeited
                        self.faults[str(fault.kind)] += 1
        if rows:
            self.cursor = int(rows[-1][0])


def series_voided(storage: Storage) -> int:
    return int(storage.query("SELECT COUNT(*) FROM voided_series")[0][0])


def outcomes_refused(storage: Storage) -> int:
    return int(storage.query("SELECT COALESCE(SUM(outcomes_refused), 0) FROM seasons")[0][0])


def series_pending(storage: Storage) -> int:
    """Series planned and not yet stored, over the running seasons."""
    row = storage.query(
        "SELECT COALESCE(SUM("
        "(SELECT COALESCE(MAX(idx), -1) + 1 FROM planned_series WHERE season_id=s.id) - "
        "(SELECT COALESCE(MAX(stored_seq), 0) FROM series_results WHERE season_id=s.id)"
        "), 0) FROM seasons s WHERE s.status=?", (str(SeasonStatus.RUNNING),))
    return int(row[0][0])
