"""The moves of the series being played now, for spectators (the website's live
series pages and its "now playing" lists).

Whoever plays a series feeds its engine events into one ``MoveBoard``: the local
runner through ``run_series``'s event sink (``MoveBoard.playing``), a cluster
executor from the batches its workers publish (``MoveBoard.extend``). The board
keeps, per series in play, only the action entries of the engine's own log (the
same dict objects, not copies: the rest of the log follows from the series'
specification, so a spectator's page replays the actions through the engine) and a
summary (the hand being played, the score sheet after the last hand). A series
leaves the board when its play ends; its stored result is then the replay.

Bounded: at most ``MAX_SERIES`` series at once (more are played but not shown
live) and ``MAX_ACTIONS`` actions each (a longer series stops growing on the board;
its page shows the replay once stored). Nobody watching costs one list append per
move. Readers never block the match loop: feeding takes the board's lock for an
append and a notify of that series' own condition (so a move wakes only the
readers of its series); readers wait with a timeout and read a ``LiveSeries``
snapshot (a tuple of the actions they do not have yet).
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

MAX_SERIES: Final = 1024
MAX_ACTIONS: Final = 50_000
"""Far above a capped series (200 hands of a few dozen moves each)."""

EventSink = Callable[[dict[str, Any]], None]


@dataclass(frozen=True)
class LiveSeries:
    """One series in play as a reader sees it: its ``actions`` (action entries of
    the engine log, in order) from the ``since``-th on, the ``hand`` being played, the score
    ``sheet`` after the last finished hand (None before the first ends) and whether
    the play has ``ended`` (the last move is in, the result is not yet stored).
    ``play`` tells plays apart: a series played again (after a void, on another
    worker) starts with a new one."""

    series_id: str
    since: int
    actions: tuple[dict[str, Any], ...]
    hand: int
    sheet: dict[str, Any] | None
    ended: bool
    play: int


@dataclass(eq=False)
class _Entry:
    play: int
    moved: threading.Condition
    """Notified at each of this series' changes (its readers wait on it alone)."""
    version: int = 0
    actions: list[dict[str, Any]] = field(default_factory=list)
    hand: int = 1
    sheet: dict[str, Any] | None = None
    ended: bool = False
    readers: int = 0
    """Readers waiting on ``moved`` now: a move with none wakes nobody (most series)."""


SeriesToken = tuple[int, int]
"""Where a reader of one series is: (its play, its version); (0, -1) when not in play."""


class MoveBoard:
    """The series in play and their moves (see the module docstring).
    ``summary_version`` changes when a series starts or ends or a hand ends (what
    the "now playing" lists show); each series has a version of its own. A reader
    of one series waits on that series alone (``wait_series``): a move wakes only
    its own series' readers, however many series are watched."""

    def __init__(self, *, max_series: int = MAX_SERIES, max_actions: int = MAX_ACTIONS) -> None:
        self.max_series = max_series
        self.max_actions = max_actions
        self._entries: dict[str, _Entry] = {}
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)  # summary changes
        self._plays = 0
        self.summary_version = 0

    # -- the players' side

    def begin(self, series_id: str) -> bool:
        """A series starts (again: a replayed series starts afresh); False when the
        board is full and the series is not shown."""
        with self._lock:
            old = self._entries.get(series_id)
            if old is None and len(self._entries) >= self.max_series:
                return False
            self._entries[series_id] = self._new_entry()
            if old is not None:
                old.moved.notify_all()
            self._summary_changed()
            return True

    def feed(self, series_id: str, event: dict[str, Any]) -> None:
        """One engine event of a series in play (``run_series``'s ``on_event``)."""
        with self._lock:
            entry = self._entries.get(series_id)
            if entry is None:
                return
            if event.get("type") == "action":  # the common case, kept short
                if len(entry.actions) < self.max_actions:
                    entry.actions.append(event)
                entry.version += 1
                if entry.readers:
                    entry.moved.notify_all()
            else:
                self._changed_entry(entry, self._apply(entry, (event,)))

    def extend(self, series_id: str, first: int | None,
               events: Sequence[dict[str, Any]]) -> None:
        """Events of a series in play; ``first`` is the index of the first action
        among them in the series (from a cluster worker: a batch that does not
        continue what the board has is ignored, a batch from 0 restarts the series)."""
        with self._lock:
            entry = self._entries.get(series_id)
            if first == 0 and (entry is None or entry.actions):
                if entry is None and len(self._entries) >= self.max_series:
                    return
                if entry is not None:
                    entry.moved.notify_all()
                entry = self._entries[series_id] = self._new_entry()
                self._summary_changed()
            if entry is None or (first is not None and first != len(entry.actions)):
                return
            self._changed_entry(entry, self._apply(entry, events))

    def _apply(self, entry: _Entry, events: Sequence[dict[str, Any]]) -> bool:
        """Put ``events`` on ``entry``; whether what the lists show changed."""
        summary = False
        for event in events:
            kind = event.get("type")
            if kind == "action":
                if len(entry.actions) < self.max_actions:
                    entry.actions.append(event)
            elif kind == "hand_end":
                entry.sheet = event.get("sheet")
                summary = True
            elif kind == "hand_start" and isinstance(event.get("hand"), int):
                entry.hand = event["hand"]
            elif kind in ("series_end", "fault"):
                entry.ended = summary = True
        return summary

    def finish(self, series_id: str) -> None:
        """The play of a series is over (its outcome goes to the season): off the board."""
        with self._lock:
            entry = self._entries.pop(series_id, None)
            if entry is not None:
                entry.moved.notify_all()
                self._summary_changed()

    @contextlib.contextmanager
    def playing(self, series_id: str) -> Iterator[EventSink]:
        """The event sink of one play of ``series_id``, on the board while it lasts."""
        self.begin(series_id)
        try:
            yield functools.partial(self.feed, series_id)
        finally:
            self.finish(series_id)

    def _new_entry(self) -> _Entry:
        self._plays += 1
        return _Entry(self._plays, threading.Condition(self._lock))

    def _changed_entry(self, entry: _Entry, summary: bool) -> None:
        entry.version += 1
        entry.moved.notify_all()
        if summary:
            self._summary_changed()

    def _summary_changed(self) -> None:
        self.summary_version += 1
        self._changed.notify_all()

    # -- the spectators' side

    def has(self, series_id: str) -> bool:
        """Whether ``series_id`` is in play (on the board)."""
        with self._lock:
            return series_id in self._entries

    def get(self, series_id: str, since: int = 0) -> LiveSeries | None:
        """``series_id`` with its actions from the ``since``-th on (a reader that
        has the first ``since`` copies only the rest); None when not in play."""
        with self._lock:
            entry = self._entries.get(series_id)
            if entry is None:
                return None
            return LiveSeries(series_id, since, tuple(entry.actions[since:]), entry.hand,
                              entry.sheet, entry.ended, entry.play)

    def in_play(self) -> list[LiveSeries]:
        """Every series on the board, without its moves (for the lists)."""
        with self._lock:
            return [LiveSeries(series_id, len(entry.actions), (), entry.hand, entry.sheet,
                               entry.ended, entry.play)
                    for series_id, entry in self._entries.items()]

    def wait(self, seen: int, timeout: float) -> int:
        """``summary_version`` once it differs from ``seen``, or as it is after
        ``timeout`` seconds."""
        with self._lock:
            self._changed.wait_for(lambda: self.summary_version != seen, timeout)
            return self.summary_version

    def wait_series(self, series_id: str, seen: SeriesToken, timeout: float) -> SeriesToken:
        """``series_id``'s token once it differs from ``seen`` (a move, a new play,
        the end of its play), or as it is after ``timeout`` seconds. A series not in
        play is waited for on the board's summary changes (its start is one)."""
        def token() -> SeriesToken:
            entry = self._entries.get(series_id)
            return (0, -1) if entry is None else (entry.play, entry.version)

        with self._lock:
            entry = self._entries.get(series_id)
            if entry is None:
                self._changed.wait_for(lambda: token() != seen, timeout)
                return token()
            entry.readers += 1
            try:
                entry.moved.wait_for(lambda: token() != seen, timeout)
            finally:
                entry.readers -= 1
            return token()
