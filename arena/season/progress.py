"""A season's progress: the one computation of its pace and time left, which the
server's standings (so the terminal) and the website both show.

The pace is the season's average since it started: the results counted over the
time the season was *active*, i.e. the span from the start of its first series to
its latest result, less the pauses in it (a cancel and a resume, a server that was
down). Each stored result says when it finished (whole seconds) and how long it
played (``wall_seconds``), so the time it was in play is known from the stored
results alone; a stretch of ``PAUSE_S`` or more in which no series was in play is a
pause and is not counted. The time left is the series the format still expects
(``Format.expected_count``: a Swiss season's later rounds, a knockout's ties, an
SPRT's maximum, not only the series planned so far) at that pace.

Why the average and not a window of the latest results: the pace of a season
varies within it (a Swiss round waits for its slowest series before the next is
planned; the first series wait for the bots to start), and a window of a few dozen
results measured one part of that cycle: a web page said 18 s left for a season
that took 2 min 25 s. The average over the active time counts every part of the
cycle in its proportion; ``tests/arena/season/test_progress_recorded.py`` replays a recorded
season through it and holds the error within 25 % from a fifth of the season on.

``Pace`` folds the results in one at a time (the live statistics keep one per
season, so a table of a 40,000-series season does not reparse 40,000 stamps);
``season_progress`` folds a list of them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final, Protocol

PAUSE_S: Final = 60.0
"""A stretch this long with no series in play is a pause, not part of the season's
active time (bots start within seconds; a long series is in play all along)."""

STAMP_RESOLUTION_S: Final = 1.0
"""Stored times have whole seconds."""


class Finished(Protocol):
    """What the pace reads of a stored result (``arena.storage.SeriesRecord``)."""

    @property
    def finished_at(self) -> str: ...

    @property
    def wall_seconds(self) -> float: ...


@dataclass(frozen=True)
class Progress:
    """``series_per_minute`` 0 while not measurable (no time in play yet);
    ``seconds_left`` None when unknown (the format cannot say what it expects, the
    pace is not measurable, or the season is not running), 0 when every expected
    series is done. ``planned``: the series planned so far; ``expected``: what the
    format expects in all (None: it cannot say)."""

    done: int
    planned: int
    expected: int | None
    series_per_minute: float
    seconds_left: float | None

    @property
    def total(self) -> int:
        """The series a progress bar counts to: the expected ones when known."""
        return max(self.expected or 0, self.planned, self.done)

    @property
    def percent(self) -> float:
        return round(100.0 * self.done / self.total, 1) if self.total else 100.0

    def to_dict(self) -> dict[str, Any]:
        return {"done": self.done, "planned": self.planned, "expected": self.expected,
                "total": self.total, "percent": self.percent,
                "series_per_minute": round(self.series_per_minute, 2),
                "seconds_left": (None if self.seconds_left is None
                                 else round(self.seconds_left, 1))}


def stamp_seconds(stamp: str) -> float:
    """An RFC 3339 stamp as seconds since the epoch."""
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


class Pace:
    """The active time of a season after each of its results, in storage order
    (which is finishing order); ``progress`` reads it after any number of them."""

    def __init__(self) -> None:
        self._active = [0.0]  # after 0, 1, 2, ... results
        self._ends = [0.0]
        self._covered_until: float | None = None  # when the last series in play ended

    @property
    def counted(self) -> int:
        return len(self._active) - 1

    def add(self, result: Finished) -> None:
        end = stamp_seconds(result.finished_at) if result.finished_at else self._ends[-1]
        start = end - max(0.0, float(result.wall_seconds))
        covered = self._covered_until
        if covered is None or start - covered >= PAUSE_S:
            added = end - start  # the first series, or the first after a pause
        else:
            added = max(0.0, end - covered)  # its overlap with earlier series counted once
        self._active.append(self._active[-1] + added)
        self._ends.append(end)
        self._covered_until = end if covered is None else max(covered, end)

    def extend(self, results: Iterable[Finished]) -> None:
        for result in results:
            self.add(result)

    def progress(self, done: int, planned: int, expected: int | None, *, running: bool,
                 now: float | None = None) -> Progress:
        """The progress after the first ``done`` results (at most ``counted``), as of
        the latest of them, or of ``now`` (seconds since the epoch) while the season
        runs: the time since its latest result counts as time in play."""
        done = min(done, self.counted)
        active = self._active[done]
        if running and now is not None and done:
            active += max(0.0, now - self._ends[done])
        # Stored times have whole seconds: less than one in play counts as one.
        rate = done / max(active, STAMP_RESOLUTION_S) * 60.0 if done and active > 0 else 0.0
        left: float | None = None
        if expected is not None:
            remaining = max(0, expected - done)
            if remaining == 0:
                left = 0.0
            elif running and rate > 0:
                left = remaining / rate * 60.0
        return Progress(done, planned, expected, rate, left)


def season_progress(results: Iterable[Finished], planned: int, expected: int | None, *,
                    running: bool, now: float | None = None) -> Progress:
    """The progress of a season whose stored results are ``results`` (storage order)."""
    pace = Pace()
    pace.extend(results)
    return pace.progress(pace.counted, planned, expected, running=running, now=now)
