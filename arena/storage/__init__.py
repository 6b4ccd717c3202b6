"""The arena's database (SQLite): bots, seasons, their plans and results, with a
versioned schema that migrates forward on open."""

from arena.storage.records import (
    BotRecord,
    ConflictError,
    NotFoundError,
    PlannedSeries,
    SeasonRecord,
    SeriesRecord,
    StorageError,
)
from arena.storage.store import Storage

__all__ = [
    "BotRecord",
    "ConflictError",
    "NotFoundError",
    "PlannedSeries",
    "SeasonRecord",
    "SeriesRecord",
    "Storage",
    "StorageError",
]
