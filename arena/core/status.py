"""A season's status: one enum, stored and shown by its value."""

from __future__ import annotations

from enum import StrEnum


class SeasonStatus(StrEnum):
    """Where a season stands. ``created`` (planned, not started), ``running``, and
    the terminal ones: ``finished`` (every planned series played), ``cancelled``,
    ``failed`` (an arena-side error stopped it; the season says why)."""

    CREATED = "created"
    RUNNING = "running"
    FINISHED = "finished"
    CANCELLED = "cancelled"
    FAILED = "failed"

    @property
    def is_terminal(self) -> bool:
        return self in _TERMINAL


_TERMINAL = frozenset({SeasonStatus.FINISHED, SeasonStatus.CANCELLED, SeasonStatus.FAILED})
