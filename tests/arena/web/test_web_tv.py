"""Arena TV (issue 38, point 1) on a clock of the test's own: a series is shown from
its start one frame per move delay, a hand's end stays the linger time; the TV
features the pairing closest in its season's table among the series in play, or
the latest finished series; it announces and then shows the queued series; the
pages and the JSON twin state the rule."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from markupsafe import escape
from starlette.testclient import TestClient

from arena.match.live_moves import MoveBoard
from arena.season.events import EventHub
from arena.season.readings import SeasonReadings
from arena.storage import Storage
from arena.web.app import create_app
from arena.web.broadcast import Message
from arena.web.replay import replay_frames
from arena.web.tv import PacedSeries, TvChannel, TvPace
from arena.web.tv_choice import RULE, featured_chooser
from tests.helpers.season_play import play
from tests.helpers.web_helpers import create_season, register, store_knock_series

PACE = TvPace(move_s=2.0, linger_s=7.0)


class FakeTime:
    """A clock that moves only when the source sleeps."""

    def __init__(self) -> None:
        self.now = 100.0

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def data(message: Message) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(message[1])
    return loaded


def test_a_stored_series_is_shown_from_its_start_at_the_set_pace(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "tv.db")
    planned, log = store_knock_series(storage, tmp_path)
    expected = replay_frames(log)
    time = FakeTime()
    source = PacedSeries(storage, MoveBoard(), planned.series_id, PACE, clock=time.clock,
                         sleep=time.sleep)
    (name, first), = source.first()
    assert name == "program" and data((name, first))["frames"] == expected[:1]
    shown: list[tuple[float, dict[str, Any]]] = []
    finished = False
    for _ in range(10_000):
        messages, finished = source.next(0.25)
        for message in messages:
            if message[0] == "frames":
                update = data(message)
                assert update["at"] == len(shown) + 1 and len(update["frames"]) == 1
                shown.append((time.now, update["frames"][0]))
        if finished:
            break
    assert finished and messages[-1][0] == "finished"
    assert [frame for _, frame in shown] == expected[1:]
    # Each frame comes its delay after the one before: 2 s after a move or a deal,
    # 7 s after a hand's end (three hands: three lingers, the last before the end).
    times = [100.0] + [at for at, _ in shown]
    frames = expected
    for index in range(1, len(frames)):
        wait = 7.0 if frames[index - 1]["result"] is not None else 2.0
        assert times[index] - times[index - 1] == wait, index
    assert time.now - times[-1] == 7.0  # the series' end lingers too
    assert sum(1 for frame in frames if frame["result"] is not None) == 3


def _four_bot_season(storage: Storage, root: Path) -> tuple[int, list[str]]:
    ids = [register(storage, root, name) for name in ("a", "b", "c", "d")]
    season_id = create_season(storage, ids, max_hands=2)
    play(storage, season_id)
    return season_id, ids


def test_the_featured_series_is_the_closest_pairing_in_play(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "tv.db")
    season_id, _ = _four_bot_season(storage, tmp_path)
    readings = SeasonReadings(storage)
    order = [row.bot_id for row in readings.read(season_id).standings.rows]
    by_pair = {frozenset(p.bots): p.series_id for p in storage.planned_series(season_id)}
    board = MoveBoard()
    choose = featured_chooser(storage, board, readings)
    latest = storage.latest_result_ids(1)[0]
    assert choose(()) == latest  # nothing in play: the latest finished series
    # In play: 1st v 4th, 2nd v 3rd, 3rd v 4th: gaps 3, 1, 1; of the two closest,
    # the better ranked pair.
    for pair in ((0, 3), (1, 2), (2, 3)):
        board.begin(by_pair[frozenset((order[pair[0]], order[pair[1]]))])
    assert choose(()) == by_pair[frozenset((order[1], order[2]))]
    board.begin(by_pair[frozenset((order[0], order[1]))])  # the leaders' meeting
    leaders = by_pair[frozenset((order[0], order[1]))]
    assert choose(()) == leaders
    assert choose({leaders}) == by_pair[frozenset((order[1], order[2]))]


def _drain(channel: TvChannel, time: FakeTime, until: Any) -> list[Message]:
    """Messages of ``channel`` until ``until(messages)`` holds."""
    seen: list[Message] = []
    for _ in range(10_000):
        messages, _ = channel.next(0.25)
        seen.extend(messages)
        if until(seen):
            return seen
    raise AssertionError("the channel never got there")


def test_the_tv_moves_on_to_the_queued_series(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "tv.db")
    season_id, _ = _four_bot_season(storage, tmp_path)
    board = MoveBoard()
    time = FakeTime()
    channel = TvChannel(storage, board, featured_chooser(storage, board,
                                                         SeasonReadings(storage)),
                        PACE, clock=time.clock, sleep=time.sleep)
    (name, text), = channel.first()
    program = data((name, text))
    latest = storage.latest_result_ids(2)
    assert name == "program" and program["series_id"] == latest[0]
    assert program["next"]["series_id"] == latest[1]  # always one queued
    frames = replay_frames(storage.result_log(latest[0])[0])
    seen = _drain(channel, time, lambda got: got and got[-1][0] == "program")
    assert [data(m)["frames"][0] for m in seen[:-1]] == frames[1:]
    switched = data(seen[-1])
    assert switched["series_id"] == latest[1] and switched["frames"] == frames[:0] + \
        replay_frames(storage.result_log(latest[1])[0])[:1]
    assert switched["next"] is not None and switched["next"]["series_id"] not in latest
    # A series played now takes the queue's next place once the queue is empty.
    assert storage.get_season(season_id).series_done == 6


def test_the_tv_pages_state_the_rule(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "tv.db")
    _four_bot_season(storage, tmp_path)
    with TestClient(create_app(storage, EventHub(), tv_pace=PACE)) as client:
        page = client.get("/tv")
        assert page.status_code == 200
        assert f"Featured by rule: {escape(RULE)}." in page.text
        assert "One move every 2.0 s; each hand's end stays 7.0 s." in page.text
        twin = client.get("/api/tv").json()
        assert twin["rule"] == RULE and twin["featured"] == storage.latest_result_ids(1)[0]
        one = storage.latest_result_ids(1)[0]
        assert f'data-tv="/api/tv/series/{one}/events"' in client.get(f"/tv/series/{one}").text
        assert client.get("/tv/series/9-999").status_code == 404
        front = client.get("/").text
        assert 'data-tv="/api/tv/events"' in front
