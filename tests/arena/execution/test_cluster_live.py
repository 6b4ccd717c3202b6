"""Live moves of a series played on a real cluster worker (scheduler and worker
processes as `arena cluster up` starts them, mutual TLS, in-process bots): the
worker publishes the series' moves hand by hand on the Dask event topic, the
arena's executor puts them on its board while the series plays, the board ends
holding exactly the moves of the outcome's log, with every hand sent as it ended,
and the series leaves the board when its outcome is in; the live series page of a
season played on the cluster shows its hands as they end and ends as the replay."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from arena.core.manifest import BotManifest, content_hash, iter_bot_files
from arena.core.series import BotRef, SeriesSpec
from arena.core.settings import SeasonConfig
from arena.execution.cluster import ClusterExecutor
from arena.execution.local_cluster import LocalCluster
from arena.match.live_moves import MoveBoard
from arena.season.events import EventHub
from arena.season.formats import plan_season
from arena.season.runner import SeasonRunner
from arena.storage import Storage
from arena.web.app import create_app
from tests.helpers.clusters import running_cluster

pytestmark = [pytest.mark.cluster, pytest.mark.timeout(300)]

SAMPLE_BOTS = Path(__file__).resolve().parents[3] / "sample_bots"
BOUND_S = 120.0


def poll(condition: Any, what: str) -> None:
    give_up_at = time.monotonic() + BOUND_S
    while not condition():
        if time.monotonic() > give_up_at:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


class RecordingBoard(MoveBoard):
    """A board that also keeps every batch it was given, with whether the series'
    outcome had arrived at that moment."""

    def __init__(self) -> None:
        super().__init__()
        self.batches: list[tuple[str, int | None, list[dict[str, Any]]]] = []
        self.lock = threading.Lock()

    def extend(self, series_id: str, first: int | None,
               events: Sequence[dict[str, Any]]) -> None:
        with self.lock:
            self.batches.append((series_id, first, list(events)))
        super().extend(series_id, first, events)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    """A scheduler and one single-slot worker offering the in-process sandbox."""
    yield from running_cluster(tmp_path_factory, 1, "cluster-live")


def test_a_clustered_series_reaches_the_board_hand_by_hand(cluster: LocalCluster) -> None:
    bots = (BotRef.from_folder(SAMPLE_BOTS / "greedy"), BotRef.from_folder(SAMPLE_BOTS / "shark"))
    config = SeasonConfig.build(sandbox="inprocess", max_hands=6)
    spec = SeriesSpec(series_id="7-3", seed=21, profile=config.profile(), max_hands=6,
                      swap_seats=False, bots=bots, limits=config.limits)
    board = RecordingBoard()
    with ClusterExecutor(cluster.address, "inprocess", security=cluster.client_security(),
                         board=board) as executor:
        outcome = executor.submit(spec).result(timeout=BOUND_S)
        poll(lambda: not board.has("7-3"), "the series to leave the board")
    actions = [e for e in outcome.log if e["type"] == "action"]
    with board.lock:
        batches = [(first, events) for series_id, first, events in board.batches
                   if series_id == "7-3"]
    assert batches[0] == (0, [])  # the worker said the series started
    received = [e for _, events in batches for e in events if e["type"] == "action"]
    assert received == actions  # every move, in order, none twice
    position = 0
    for first, events in batches:  # each batch continues the one before
        assert first == position
        position += sum(1 for e in events if e["type"] == "action")
    hand_ends = [events[-1] for _, events in batches
                 if events and events[-1]["type"] == "hand_end"]
    logged_ends = [e for e in outcome.log if e["type"] == "hand_end"]
    assert outcome.hands_played >= 2
    # Every hand was sent when it ended, as its number and the sheet after it.
    assert [(e["hand"], e["sheet"]) for e in hand_ends] == [
        (e["hand"], e["sheet"]) for e in logged_ends]


STEADY_BOT = '''import time

import hollywood_sdk as hs


class Steady(hs.Bot):
    """Knocks when it can, else the first legal action, after a short think."""

    def decide(self, observation):
        time.sleep(0.03)
        for action in observation.legal_actions:
            if action.kind == hs.ActionKind.KNOCK:
                return action
        return observation.legal_actions[0]
'''


def steady_folder(root: Path) -> Path:
    folder = root / "steady"
    folder.mkdir()
    (folder / "bot.toml").write_text(
        'name = "steady"\nversion = "1.0.0"\nlanguage = "python"\n'
        '[run]\ncommand = ["python3", "-m", "steady"]\nsdk_class = "steady:Steady"\n')
    (folder / "steady.py").write_text(STEADY_BOT)
    (folder / "Dockerfile").write_text("FROM scratch\n")
    return folder


def test_the_live_page_follows_a_series_played_on_a_worker(cluster: LocalCluster,
                                                           tmp_path: Path) -> None:
    storage = Storage(tmp_path / "arena.db")
    ids = []
    for folder in (steady_folder(tmp_path), SAMPLE_BOTS / "greedy"):
        manifest = BotManifest.load(folder)
        record, _ = storage.register_bot(
            name=manifest.name, version=manifest.version, language=manifest.language,
            author="", description="", content_hash=content_hash(folder),
            source_folder=folder, files=list(iter_bot_files(folder)))
        ids.append(record.id)
    config = SeasonConfig.build(sandbox="inprocess", series_per_pair=1, seed=3, max_hands=2)
    season = storage.create_season(
        name="", config=config.to_dict(), profile=config.profile(), bot_ids=ids,
        plan=[p.as_row() for p in plan_season(ids, 1, 3)])
    series_id = storage.planned_series(season.id)[0].series_id
    board, hub = MoveBoard(), EventHub()
    web_storage = Storage(tmp_path / "arena.db")
    app = create_app(web_storage, hub, board=board)
    app.state.website.live.ping_s = 3600  # the test reads only when it expects a message
    app.state.website.live.send_timeout_s = None  # nor may a message time out under load
    with ClusterExecutor(cluster.address, "inprocess", security=cluster.client_security(),
                         board=board) as executor:
        runner = SeasonRunner(storage, season.id, executor, hub=hub)
        thread = threading.Thread(target=runner.run, daemon=True)
        thread.start()
        poll(lambda: board.has(series_id), "the series on the board")
        messages: list[tuple[str, Any]] = []
        with TestClient(app) as client, client.stream(
                "GET", f"/api/series/{series_id}/live") as response:
            event = ""
            for line in response.iter_lines():
                if line.startswith("event:"):
                    event = line[6:].strip()
                elif line.startswith("data:"):
                    messages.append((event, json.loads(line[5:])))
            replay = client.get(f"/api/series/{series_id}/replay").json()
        thread.join(BOUND_S)
        assert not thread.is_alive()
    web_storage.close()
    assert messages[0][0] == "snapshot" and messages[-1] == (
        "finished", {"url": f"/series/{series_id}"})
    frames: list[dict[str, Any]] = []
    for event, data in messages[:-1]:
        if event == "snapshot":
            frames = list(data["frames"]) if data["at"] == 0 else frames
            assert data["at"] == 0  # joined in the first hand
        else:
            del frames[data["at"]:]
            frames.extend(data["frames"])
    assert frames == replay["frames"]
    # Hand 1's end reached the page while the series was still being played (not
    # only from the stored log at the end, whose frames come with state "ended").
    live_ends = [frame["hand"] for event, data in messages if event == "frames"
                 and data["state"] == "live"
                 for frame in data["frames"] if frame["result"] is not None]
    assert 1 in live_ends
