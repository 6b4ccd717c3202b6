"""Arena TV: series re-broadcast at human pace (the ``/tv`` page, the front page's TV
and ``/tv/series/ID``), each broadcast one ``arena.web.broadcast.Source`` and so one
pump however many watch it.

A broadcast walks a series from its first deal, one frame (a deal or an action, as
in the replay) per ``TvPace.move_s``, and lets each hand's end stay on screen for
``TvPace.linger_s``; it reads the moves of a series in play from the board
(``arena.match.live_moves``) and of a finished one from its stored log, so a live
series is shown behind its play, never ahead of it.

``TvChannel`` is the TV: it shows the featured series (``arena.web.tv_choice``) and
always has the next one queued, so it moves on as soon as a series has been shown.
``PacedSeries`` shows one series, live or finished, from its start, then ends.

Messages: ``program`` (the series now shown: ``series_id``, ``bots``, ``title``,
``url``, ``next`` (the queued series, or None), and ``at``/``frames``: the frames of
the hand being shown so far), ``frames`` (``at``: the series' index of the one new
frame) and, for ``PacedSeries`` only, ``finished`` (``url``: the replay).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from arena.match.live_moves import MoveBoard
from arena.storage import NotFoundError, Storage
from arena.web.broadcast import Message
from arena.web.live_series import series_start, series_url
from arena.web.replay import UNREPLAYABLE, FrameWalker, hand_starts
from arena.web.tv_choice import Choose
from engine.profiles import Profile

Clock = Callable[[], float]
Sleep = Callable[[float], None]

STORE_POLL_S: Final = 1.0
"""How often a series that is not on the board is looked for among the results."""


@dataclass(frozen=True)
class TvPace:
    """Human pace: seconds per frame, and how long a hand's end stays on screen."""

    move_s: float = 1.5
    linger_s: float = 6.0


class SeriesFrames:
    """The frames of one series so far, growing as its moves arrive on the board or
    all at once from its stored log; ``complete`` once the stored log is read,
    ``broken`` (a note) when a move cannot be shown."""

    def __init__(self, storage: Storage, board: MoveBoard, series_id: str, clock: Clock
                 ) -> None:
        planned = storage.get_planned(series_id)  # NotFoundError for an unknown id
        self._start = series_start(storage, series_id)
        self.storage = storage
        self.board = board
        self.series_id = series_id
        self.bots = list(planned.bots)
        self.title = f"season {planned.season_id} · series {series_id}"
        self.clock = clock
        self.walker = FrameWalker(*self._start)
        self.complete = False
        self.broken = ""
        self._play: int | None = None
        self._applied = 0
        self._looked_at: float | None = None
        self.refresh()

    @property
    def frames(self) -> list[dict[str, Any]]:
        return self.walker.frames

    def refresh(self) -> None:
        """Take the moves played since the last call."""
        if self.complete or self.broken:
            return
        live = self.board.get(self.series_id, self._applied)
        if live is not None:
            if self._play is not None and live.play != self._play:
                self.broken = "the series is being played again: watch it from its start"
                return
            self._play = live.play
            self._apply(live.actions)
            return
        now = self.clock()
        if self._looked_at is not None and now - self._looked_at < STORE_POLL_S:
            return
        self._looked_at = now
        try:
            log, _profile = self.storage.result_log(self.series_id)
        except NotFoundError:
            return
        actions = [entry for entry in log if entry.get("type") == "action"]
        if self._play is None:  # never seen in play: the stored log alone, from its deal
            start = log[0]
            try:
                self.walker = FrameWalker(start["seed"], Profile.from_dict(start["profile"]),
                                          start["max_hands"], start["swap_seats"])
            except UNREPLAYABLE as error:
                self.broken = f"the stored log cannot be shown ({error})"
                return
        shown = [entry for entry in self.walker.series.log if entry.get("type") == "action"]
        if actions[:len(shown)] != shown:
            self.broken = "the stored play differs from the one shown: see its replay"
            return
        self._apply(tuple(actions[self._applied:]))
        self.complete = not self.broken

    def _apply(self, actions: tuple[dict[str, Any], ...]) -> None:
        for action in actions:
            try:
                self.walker.apply(action)
            except UNREPLAYABLE as error:
                self.broken = f"move {self._applied + 1} cannot be shown ({error})"
                return
            self._applied += 1


class _Showing:
    """How far a broadcast has shown one series: ``shown`` frames, the next one due
    at ``due`` (clock time)."""

    def __init__(self, frames: SeriesFrames, now: float, pace: TvPace) -> None:
        self.frames = frames
        self.shown = 1  # its first deal
        self.pace = pace
        self.due = now + pace.move_s

    def step(self, now: float) -> dict[str, Any] | None:
        """The next frame if it is due and played, else None."""
        self.frames.refresh()
        frames = self.frames.frames
        if now < self.due or self.shown >= len(frames):
            return None
        frame = frames[self.shown]
        self.shown += 1
        self.due = now + (self.pace.linger_s if frame["result"] is not None
                          else self.pace.move_s)
        return frame

    def over(self, now: float) -> bool:
        """Shown to its end, the end having stayed on screen its time."""
        return ((self.frames.complete and self.shown >= len(self.frames.frames))
                or bool(self.frames.broken)) and now >= self.due

    def program(self, queued: SeriesFrames | None) -> Message:
        """The ``program`` message: what a viewer who comes now needs."""
        frames = self.frames.frames[:self.shown]
        base = hand_starts(frames).get(int(frames[-1]["hand"]), 0)
        return ("program", json.dumps({
            **_about(self.frames), "at": base, "frames": frames[base:],
            "state": "broken" if self.frames.broken else "on-air", "note": self.frames.broken,
            "next": None if queued is None else _about(queued)}))

    def frame_message(self, frame: dict[str, Any]) -> Message:
        return ("frames", json.dumps({"at": self.shown - 1, "frames": [frame],
                                      "state": "on-air"}))


def _about(frames: SeriesFrames) -> dict[str, Any]:
    return {"series_id": frames.series_id, "bots": frames.bots, "title": frames.title,
            "url": series_url(frames.series_id)}


IDLE: Final[Message] = ("program", json.dumps({
    "series_id": None, "bots": ["", ""], "title": "", "url": "", "at": 0, "frames": [],
    "state": "waiting", "note": "no series has been played yet: the TV starts with the "
                                "first one", "next": None}))


class _Paced:
    """What both broadcasts share: a clock, a sleep and the wait for the next step."""

    def __init__(self, pace: TvPace, clock: Clock, sleep: Sleep) -> None:
        self.pace = pace
        self.clock = clock
        self.sleep = sleep

    def rest(self, until: float, timeout: float) -> None:
        """Sleep until ``until`` (clock time), at most ``timeout`` seconds."""
        wait = min(timeout, until - self.clock())
        if wait > 0:
            self.sleep(wait)


class PacedSeries(_Paced):
    """One series, live or finished, at human pace from its start, then ``finished``."""

    def __init__(self, storage: Storage, board: MoveBoard, series_id: str, pace: TvPace, *,
                 clock: Clock = time.monotonic, sleep: Sleep = time.sleep) -> None:
        super().__init__(pace, clock, sleep)
        self.showing = _Showing(SeriesFrames(storage, board, series_id, clock), clock(), pace)

    def first(self) -> list[Message]:
        return [self.showing.program(None)]

    def next(self, timeout: float) -> tuple[list[Message], bool]:
        showing = self.showing
        frame = showing.step(self.clock())
        if frame is not None:
            return [showing.frame_message(frame)], False
        if showing.over(self.clock()):
            return [("finished", json.dumps({"url": series_url(showing.frames.series_id),
                                             "note": showing.frames.broken}))], True
        self.rest(min(showing.due, self.clock() + STORE_POLL_S), timeout)
        return [], False

    def close(self) -> None:
        """Nothing to release: the source reads the board and the store."""


class TvChannel(_Paced):
    """The TV: the featured series (``choose``), then the queued one, and so on."""

    def __init__(self, storage: Storage, board: MoveBoard, choose: Choose, pace: TvPace, *,
                 clock: Clock = time.monotonic, sleep: Sleep = time.sleep) -> None:
        super().__init__(pace, clock, sleep)
        self.storage = storage
        self.board = board
        self.choose = choose
        self.showing: _Showing | None = None
        self.queued: SeriesFrames | None = None
        self.shown_ids: list[str] = []
        """The series broadcast so far, newest last (not chosen again while others are)."""
        self._looked_at: float | None = None

    def first(self) -> list[Message]:
        if self.showing is None:
            self._switch()
        return [self._program()]

    def next(self, timeout: float) -> tuple[list[Message], bool]:
        now = self.clock()
        messages: list[Message] = []
        if self.showing is None or self.showing.over(now):
            if (self.queued is not None or self._may_look(now)) and self._switch():
                messages.append(self._program())
        elif (frame := self.showing.step(now)) is not None:
            messages.append(self.showing.frame_message(frame))
        if self.queued is None and self._may_look(now):
            self.queued = self._pick()
            if self.queued is not None and self.showing is not None:
                messages.append(self._program())  # the viewers learn what is next
        if not messages:
            due = now + STORE_POLL_S if self.showing is None else self.showing.due
            self.rest(min(due, now + STORE_POLL_S), timeout)
        return messages, False

    def close(self) -> None:
        """Nothing to release: the channel reads the board and the store."""

    def _program(self) -> Message:
        return IDLE if self.showing is None else self.showing.program(self.queued)

    def _switch(self) -> bool:
        """Show the queued series (or a freshly chosen one) and queue the next;
        whether the program changed."""
        coming = self.queued or self._pick()
        self.queued = None
        if coming is None:
            return False
        self.showing = _Showing(coming, self.clock(), self.pace)
        self.shown_ids = [*self.shown_ids[-99:], coming.series_id]
        self.queued = self._pick()
        return True

    def _may_look(self, now: float) -> bool:
        if self._looked_at is not None and now - self._looked_at < STORE_POLL_S:
            return False
        self._looked_at = now
        return True

    def _pick(self) -> SeriesFrames | None:
        avoid = set(self.shown_ids)
        if self.showing is not None:
            avoid.add(self.showing.frames.series_id)
        series_id = self.choose(avoid)
        if series_id is None:
            return None
        try:
            return SeriesFrames(self.storage, self.board, series_id, self.clock)
        except NotFoundError:
            return None
