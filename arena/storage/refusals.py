"""The count of a season's outcomes refused by verification (``arena.season.verify``):
kept in the season's row so that the organiser sees it after a restart too."""

from __future__ import annotations

from arena.storage.records import NotFoundError
from arena.storage.store import Storage


def count_refused_outcome(storage: Storage, season_id: int) -> int:
    """Count one more refused outcome of ``season_id``; returns the count."""
    with storage.transaction() as db:
        db.execute("UPDATE seasons SET outcomes_refused = outcomes_refused + 1 WHERE id=?",
                   (season_id,))
        row = db.execute("SELECT outcomes_refused FROM seasons WHERE id=?",
                         (season_id,)).fetchone()
    if row is None:
        raise NotFoundError(f"unknown season {season_id}")
    return int(row[0])
