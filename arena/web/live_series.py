"""What the live pages show of the series in play (``arena.match.live_moves``):
a series' frames as its moves arrive (``SeriesSource``, one per watched series,
fanned out by ``arena.web.broadcast``) and the "now playing" rows of the home and
season pages (``now_playing_rows``, ``NowPlayingSource``).

A live series page is a spectator's: both hands face up, as in the replay. The bots
never see it (they see only their ``Observation``); a spectator who also wrote a
bot in the series could read its opponent's hand, which is why the live page is
the web's, not the bots' protocol's: hiding cards from the site's visitors would
protect nothing the arena promises (docs/arena.md, "Live series").

The moves are replayed by the engine from the series' planned seed and seats and
the season's profile (``arena.web.replay.FrameWalker``); a move the engine refuses
stops the live view with a note, and the stored result, verified, is the replay.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any, Final

from arena.match.live_moves import LiveSeries, MoveBoard, SeriesToken
from arena.storage import NotFoundError, Storage
from arena.web.broadcast import Message
from arena.web.hands import hand_list
from arena.web.replay import UNREPLAYABLE, FrameWalker, hand_starts
from engine.profiles import Profile

RESULT_POLL_S: Final = 1.0
"""How often a watched series that left the board is looked for among the results."""


def series_start(storage: Storage, series_id: str) -> tuple[int, Profile, int, bool]:
    """What a ``FrameWalker`` of stored or live series ``series_id`` starts from: its
    seed, profile, hand cap and seat order (``NotFoundError`` for an unknown id)."""
    planned = storage.get_planned(series_id)
    season = storage.get_season(planned.season_id)
    return (planned.seed, season.profile,
            season.config.max_hands, planned.swap_seats)


def series_url(series_id: str) -> str:
    return f"/series/{series_id}"


class SeriesSource:
    """The frames of one series in play, for every viewer of it at once.

    Messages: ``snapshot`` (``at``: the index of its first frame; the frames from
    the start of the previous hand on, the side list of hands and the ``state``:
    waiting, live, ended or broken), ``frames`` (``at`` and the new frames, and the
    side list when a hand ended) and, once the result is stored, ``finished``
    (``url``: the replay's page)."""

    def __init__(self, storage: Storage, board: MoveBoard, series_id: str, *,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._start = series_start(storage, series_id)
        self.storage = storage
        self.board = board
        self.series_id = series_id
        self.clock = clock
        self._walker = FrameWalker(*self._start)
        self._play: int | None = None
        self._applied = 0
        self._sent = 1  # frames every viewer has: the first deal is in every snapshot
        self._hands_sent = 0
        self._restarted = False
        self._seen: SeriesToken = (0, -1)
        self._state = "waiting"
        self._note = ""
        self._checked_at: float | None = None
        self._opened = False

    def first(self) -> list[Message]:
        """The snapshot of what has been sent to every viewer (the first viewer's
        catches up with the board: a viewer who comes later gets the moves since
        in the next update, with the others, never the whole series again)."""
        if not self._opened:
            self._opened = True
            self._catch_up(self.board.get(self.series_id, self._applied))
            self._sent = len(self._walker.frames)
        return [self._snapshot()]

    def next(self, timeout: float) -> tuple[list[Message], bool]:
        self._seen = self.board.wait_series(self.series_id, self._seen, timeout)
        entry = self.board.get(self.series_id, self._applied)
        if (entry is None or entry.ended) and self._result_stored():
            self._catch_up_from_store()
            finished = ("finished", json.dumps({"url": series_url(self.series_id)}))
            return [*self._news(), finished], True
        self._catch_up(entry)
        return self._news(), False

    def close(self) -> None:
        """Nothing to release: the source reads the board and the store."""

    def _news(self) -> list[Message]:
        """What the viewers lack: the new frames, or a snapshot after a restart."""
        if self._restarted:
            self._restarted = False
            self._sent = len(self._walker.frames)
            return [self._snapshot()]
        frames = self._walker.frames
        if len(frames) == self._sent:
            return []
        update: dict[str, Any] = {"at": self._sent, "frames": frames[self._sent:],
                                  "state": self._state}
        self._sent = len(frames)
        hands_done = sum(1 for h in self._walker.series.hands if h.result is not None)
        if hands_done != self._hands_sent:
            self._hands_sent = hands_done
            update["hands"] = hand_list(self._walker.series)
        return [("frames", json.dumps(update))]

    def _catch_up(self, entry: LiveSeries | None) -> None:
        """Apply the moves the board has beyond those applied (from the start again
        when the series is being played anew)."""
        if entry is None:
            if self._state == "live":
                self._state = "ended"
            return
        if entry.play != self._play:
            if self._play is not None:
                self._restarted = True
            self._play, self._applied, self._note = entry.play, 0, ""
            self._walker = FrameWalker(*self._start)
            entry = self.board.get(self.series_id)
            if entry is None:
                return
        self._state = "ended" if entry.ended else "live"
        if self._note:
            self._state = "broken"
            return
        for action in entry.actions:
            try:
                self._walker.apply(action)
            except UNREPLAYABLE as error:
                self._note = (f"move {self._applied + 1} cannot be shown ({error}); "
                              "the replay follows once the result is stored")
                self._state = "broken"
                return
            self._applied += 1

    def _catch_up_from_store(self) -> None:
        """The moves the board no longer had (the series ended between two reads),
        from the stored log: the last frames are the replay's. Not for a series this
        source never saw played: its viewers go to the replay as it is."""
        if self._note or self._play is None:
            return
        try:
            log, _profile = self.storage.result_log(self.series_id)
        except NotFoundError:
            return
        stored = [entry for entry in log if entry.get("type") == "action"]
        shown = [entry for entry in self._walker.series.log if entry.get("type") == "action"]
        if stored[:len(shown)] != shown:  # another play than the one shown: start again
            self._restarted, self._applied = True, 0
            self._walker = FrameWalker(*self._start)
        self._state = "ended"
        for action in stored[self._applied:]:
            try:
                self._walker.apply(action)
            except UNREPLAYABLE:
                return
            self._applied += 1

    def _snapshot(self) -> Message:
        frames = self._walker.frames[:self._sent]
        hand = frames[-1]["hand"]
        base = hand_starts(frames).get(max(1, hand - 1), 0)
        return ("snapshot", json.dumps({
            "at": base, "frames": frames[base:], "hands": hand_list(self._walker.series),
            "state": self._state, "note": self._note}))

    def _result_stored(self) -> bool:
        now = self.clock()
        if self._checked_at is not None and now - self._checked_at < RESULT_POLL_S:
            return False
        self._checked_at = now
        return self.storage.get_result(self.series_id) is not None


def now_playing_rows(storage: Storage, board: MoveBoard,
                     season_id: int | None = None) -> list[dict[str, Any]]:
    """The series in play (of ``season_id``, or of every season): bots by seat, the
    hand being played, hands won and each game's score so far."""
    rows = []
    for live in board.in_play():
        try:
            planned = storage.get_planned(live.series_id)
        except NotFoundError:  # not a season's series (nothing else is on the board)
            continue
        if season_id is not None and planned.season_id != season_id:
            continue
        sheet = live.sheet or {}
        rows.append({
            "series_id": planned.series_id, "season_id": planned.season_id, "index": planned.index,
            "round": planned.round, "bots": list(planned.bots), "hand": live.hand,
            "hands_won": list(sheet.get("hands_won", [0, 0])),
            "games": [[sheet["scores"][0][game], sheet["scores"][1][game]]
                      for game in range(3)] if sheet else [[0, 0]] * 3,
            "ended": live.ended, "url": series_url(planned.series_id),
        })
    rows.sort(key=lambda row: (row["season_id"], row["index"]))
    return rows


class NowPlayingSource:
    """A "now playing" list re-rendered when a series starts or ends or a hand ends
    (``render`` gives its HTML), sent only when it changed."""

    def __init__(self, board: MoveBoard, render: Callable[[], str]) -> None:
        self.board = board
        self.render = render
        self._seen = board.summary_version
        self._last = ""

    def first(self) -> list[Message]:
        self._last = self.render()
        return [("now_playing", json.dumps({"html": self._last}))]

    def next(self, timeout: float) -> tuple[list[Message], bool]:
        seen = self.board.wait(self._seen, timeout)
        if seen == self._seen:
            return [], False
        self._seen = seen
        html = self.render()
        if html == self._last:
            return [], False
        self._last = html
        return [("now_playing", json.dumps({"html": html}))], False

    def close(self) -> None:
        """Nothing to release: the source reads the board."""
