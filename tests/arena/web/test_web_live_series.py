"""The live series page and "now playing" over a scripted series (a series that
makes a move only when the test allows it, tests/helpers/live_helpers.py), through
Starlette's TestClient: the SSE stream of a series follows its moves (both hands as
the engine has them), two viewers share one source, the stream ends by sending the
viewer to the replay, whose frames are the ones the live page showed; the home and
season pages list the series in play, their stream updates when a hand ends and
when the series ends."""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from arena.match.live_moves import MoveBoard
from arena.season.events import EventHub
from arena.storage import PlannedSeries, Storage
from arena.web.app import create_app
from arena.web.live_series import SeriesSource
from engine import Action, Series
from tests.helpers.live_helpers import SteppedRunner, choose
from tests.helpers.polling import wait_until
from tests.helpers.season_play import play
from tests.helpers.web_helpers import create_season, register

BOUND = 60.0
Event = tuple[str, dict[str, Any]]


def sse(lines: Iterator[str]) -> Iterator[Event]:
    """The (event, data) pairs of a Server-Sent Events stream."""
    event, data = "", None
    for line in lines:
        if line.startswith("event:"):
            event = line[6:].strip()
        elif line.startswith("data:"):
            data = json.loads(line[5:])
        elif not line and event:
            yield event, data
            event, data = "", None


class Scripted:
    """A season of alpha and beta (2 hands a series) played by a ``SteppedRunner``
    in a thread, and the website over the same database and board."""

    def __init__(self, root: Path) -> None:
        storage = Storage(root / "live.db")
        ids = [register(storage, root, name) for name in ("alpha", "beta")]
        self.season_id = create_season(storage, ids, max_hands=2)
        self.first: PlannedSeries = storage.planned_series(self.season_id)[0]
        self.profile = storage.get_season(self.season_id).profile
        self.board, self.hub = MoveBoard(), EventHub()
        self.runner = SteppedRunner(self.board)
        self.thread = threading.Thread(target=play, daemon=True,
                                       args=(storage, self.season_id, self.runner),
                                       kwargs={"hub": self.hub})
        self.thread.start()
        assert self.runner.started.wait(BOUND)
        self.web_storage = Storage(root / "live.db")
        self.app = create_app(self.web_storage, self.hub, board=self.board)
        # The test reads its streams only when it expects a message: no keep-alive
        # ping may wait unread (the server cuts off a viewer that leaves one unread).
        self.app.state.website.live.ping_s = 3600
        # Nor may a message time out while the test is busy elsewhere (load).
        self.app.state.website.live.send_timeout_s = None

    def engine_after(self, moves: int) -> Series:
        """The first series after its first ``moves`` moves, by the engine alone."""
        series = Series(self.first.seed, self.profile, max_hands=2,
                        swap_seats=self.first.swap_seats)
        for action in self.runner.moves[:moves]:
            series.apply(action)
        return series

    def finish(self) -> None:
        self.runner.allow(10**6)
        self.thread.join(BOUND)
        assert not self.thread.is_alive()
        self.web_storage.close()


@pytest.fixture
def scripted(tmp_path: Path) -> Iterator[Scripted]:
    season = Scripted(tmp_path)
    try:
        yield season
    finally:
        season.runner.allow(10**6)
        season.thread.join(BOUND)


def frames_until(stream: Iterator[Event], frames: list[dict[str, Any]], count: int
                 ) -> list[Event]:
    """Read ``frames`` messages into ``frames`` (placed by their ``at``) until it
    holds ``count`` frames; the messages read."""
    read = []
    while len(frames) < count:
        event, data = next(stream)
        read.append((event, data))
        assert event == "frames", (event, data)
        del frames[data["at"]:]
        frames.extend(data["frames"])
    return read


def test_the_live_stream_follows_the_moves_and_becomes_the_replay(scripted: Scripted) -> None:
    series_id = scripted.first.series_id
    site = scripted.app.state.website
    with TestClient(scripted.app) as client:
        page = client.get(f"/series/{series_id}")
        assert 'data-live="true"' in page.text and 'id="live-banner"' in page.text
        assert client.get(f"/api/series/{series_id}").json()["live"] is True
        with client.stream("GET", f"/api/series/{series_id}/live") as one:
            viewer = sse(one.iter_lines())
            event, snapshot = next(viewer)
            assert event == "snapshot" and snapshot["state"] == "live"
            assert snapshot["at"] == 0 and [f["kind"] for f in snapshot["frames"]] == ["deal"]
            with client.stream("GET", f"/api/series/{series_id}/live") as two:
                second = sse(two.iter_lines())  # kept: a dropped generator closes the stream
                assert next(second)[0] == "snapshot"
                # Two viewers, one source and one pump.
                assert site.live.series_feed.clients(series_id) == 2
                assert site.live.series_feed.pumps() == 1
            wait_until(lambda: site.live.series_feed.clients(series_id) == 1,
                       what="the second viewer to leave", bound_s=BOUND)
            frames = list(snapshot["frames"])
            scripted.runner.allow(5)
            frames_until(viewer, frames, 6)
            played = scripted.engine_after(5)
            hand = played.hand
            last = frames[-1]
            assert last["action"] == str(scripted.runner.moves[4])
            for seat in (0, 1):  # both hands face up, as the engine holds them
                assert set(last["hands"][seat]) == {str(card) for card in hand.cards(seat)}
            assert last["pile"] == [str(card) for card in hand.discard_pile]
            assert last["stock"] == hand.stock_size
            scripted.runner.allow(10**6)
            hands: list[dict[str, Any]] = []
            while True:
                event, data = next(viewer)
                if event == "finished":
                    break
                assert event == "frames"
                del frames[data["at"]:]
                frames.extend(data["frames"])
                hands = data.get("hands", hands)
            assert data == {"url": f"/series/{series_id}"}
        replay = client.get(f"/api/series/{series_id}/replay").json()
        assert frames == replay["frames"]  # the live page showed the replay's frames
        assert hands == replay["hands"]
        page = client.get(f"/series/{series_id}")
        assert "data-live" not in page.text and 'class="outcome"' in page.text
    scripted.finish()


def test_now_playing_lists_the_series_in_play_and_follows_it(scripted: Scripted) -> None:
    series_id, season_id = scripted.first.series_id, scripted.season_id
    with TestClient(scripted.app) as client:
        home = client.get("/").text
        assert f'data-series="{series_id}"' in home and "watch live" in home
        season_page = client.get(f"/seasons/{season_id}").text
        assert f'data-series="{series_id}"' in season_page
        rows = client.get("/api/seasons").json()["now_playing"]
        assert [(r["series_id"], r["bots"], r["hand"], r["hands_won"]) for r in rows] == [
            (series_id, list(scripted.first.bots), 1, [0, 0])]
        with client.stream("GET", f"/api/now-playing?season={season_id}") as response:
            stream = sse(response.iter_lines())
            event, first = next(stream)
            assert event == "now_playing" and f'data-series="{series_id}"' in first["html"]
            # Moves alone change nothing in the list; the end of hand 1 does.
            played = scripted.engine_after(0)
            moves = 0
            while played.hand_number == 1:
                scripted.runner.allow(1)
                moves += 1
                wait_until(lambda n=moves: len(scripted.runner.moves) == n, what="a move",
                           bound_s=BOUND)
                played = scripted.engine_after(moves)
            event, update = next(stream)
            assert event == "now_playing"
            winner = played.hands[0].result.winner  # type: ignore[union-attr]
            won = [0, 0] if winner is None else [int(winner == 0), int(winner == 1)]
            assert f'<td class="num">2</td><td class="num">{won[0]}–{won[1]}</td>' \
                in update["html"]
            scripted.runner.allow(10**6)
            while f'data-series="{series_id}"' in update["html"]:  # until it ends
                event, update = next(stream)
                assert event == "now_playing"
    scripted.finish()


def test_an_unknown_series_or_season_has_no_stream(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "empty.db")
    with TestClient(create_app(storage, EventHub(), board=MoveBoard())) as client:
        assert client.get("/api/series/99-0/live").status_code == 404
        assert client.get("/api/now-playing?season=99").status_code == 404
        assert client.get("/api/now-playing?season=x").status_code == 400
        assert client.get("/series/99-0").status_code == 404
    storage.close()


def test_a_series_already_played_sends_its_viewer_to_the_replay(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "done.db")
    ids = [register(storage, tmp_path, name) for name in ("alpha", "beta")]
    season_id = create_season(storage, ids, max_hands=2)
    assert play(storage, season_id) == "finished"
    series_id = storage.planned_series(season_id)[0].series_id
    with TestClient(create_app(storage, EventHub(), board=MoveBoard())) as client:
        page = client.get(f"/series/{series_id}").text
        assert "data-live" not in page
        with client.stream("GET", f"/api/series/{series_id}/live") as response:
            events = list(sse(response.iter_lines()))
    # The snapshot of a series never seen in play (the first deal), then the replay:
    # not the whole series' frames over the stream.
    assert [event for event, _ in events] == ["snapshot", "finished"]
    assert len(events[0][1]["frames"]) == 1 and events[0][1]["state"] == "waiting"
    assert events[1][1] == {"url": f"/series/{series_id}"}
    storage.close()


def test_a_viewer_who_comes_late_gets_the_recent_frames_not_the_whole_series(
        tmp_path: Path) -> None:
    """Viewers share the source: one who comes mid-series gets a snapshot from the
    previous hand's deal and then the same updates as everyone, never the series'
    earlier frames again."""
    storage = Storage(tmp_path / "late.db")
    ids = [register(storage, tmp_path, name) for name in ("alpha", "beta")]
    season_id = create_season(storage, ids, max_hands=6)
    planned = storage.planned_series(season_id)[0]
    profile = storage.get_season(season_id).profile
    series = Series(planned.seed, profile, max_hands=6, swap_seats=planned.swap_seats)
    rng = random.Random(1)
    board = MoveBoard()
    board.begin(planned.series_id)
    actions: list[Action] = []

    def moves(count: int) -> None:
        for _ in range(count):
            actions.append(choose(series.legal_actions(), rng))
            for event in series.apply(actions[-1]):
                board.feed(planned.series_id, event)

    source = SeriesSource(storage, board, planned.series_id)
    while series.hand_number < 3:  # into hand 3
        moves(1)
    played = sum(1 for entry in series.log if entry["type"] == "action")
    total = 1 + played + (series.hand_number - 1)  # a frame per move, one per deal
    kind, data = source.first()[0]
    first = json.loads(data)
    assert kind == "snapshot" and first["at"] + len(first["frames"]) == total
    assert first["frames"][0]["kind"] == "deal" and first["frames"][0]["hand"] == 2
    hand = series.hand_number
    moves(4)
    assert series.hand_number == hand  # four moves within the hand: four frames
    kind, data = source.first()[0]  # a second viewer, before the pump's next read
    late = json.loads(data)
    assert late["at"] + len(late["frames"]) == total  # what the first viewer has
    messages, finished = source.next(0.0)
    assert not finished and [kind for kind, _ in messages] == ["frames"]
    update = json.loads(messages[0][1])
    assert update["at"] == total  # the new moves only
    assert [f["action"] for f in update["frames"]] == [str(a) for a in actions[-4:]]
    storage.close()
