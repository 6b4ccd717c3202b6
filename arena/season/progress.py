"""Throughput and time left of a season, from its stored results alone (so every
client, and a ``watch`` that reconnects, sees the same numbers): series per
minute over the most recent results (``WINDOW`` of them: recent enough to follow
a change of pace, and a pause before them, e.g. a cancel and a resume, does not
count), and the time the series still expected would take at that pace."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Final

WINDOW: Final = 50


@dataclass(frozen=True)
class Progress:
    """``series_per_minute`` 0 when not yet measurable (fewer than two results, or
    all in the same second); ``seconds_left`` None when unknown."""

    series_per_minute: float
    seconds_left: float | None
    series_expected: int | None


def _parse(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00"))


def season_progress(finished_at: Iterable[str], series_done: int,
                    series_expected: int | None) -> Progress:
    """The pace of the results finished at ``finished_at`` (RFC 3339 stamps) and the
    time left to ``series_expected`` (None: the format cannot say)."""
    stamps = sorted(_parse(stamp) for stamp in finished_at if stamp)[-WINDOW:]
    rate = 0.0
    if len(stamps) >= 2:
        span = (stamps[-1] - stamps[0]).total_seconds()
        if span > 0:
            rate = (len(stamps) - 1) / span * 60.0
    left: float | None = None
    if series_expected is not None:
        remaining = max(0, series_expected - series_done)
        if remaining == 0:
            left = 0.0
        elif rate > 0:
            left = remaining / rate * 60.0
    return Progress(rate, left, series_expected)
