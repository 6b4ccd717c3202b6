"""Live moves of a series played on a real cluster worker (scheduler and worker
processes as `arena cluster up` starts them, mutual TLS, in-process bots): the
worker publishes the series' moves hand by hand on the Dask event topic, the
arena's executor puts them on its board while the series plays, the board ends
holding exactly the moves of the outcome's log, with every hand sent as it ended,
and the series leaves the board when its outcome is in."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from arena.core.series import BotRef, SeriesSpec
from arena.core.settings import SeasonConfig
from arena.execution.cluster import ClusterExecutor
from arena.execution.local_cluster import LocalCluster, down, is_running, up
from arena.match.live_moves import MoveBoard

pytestmark = [pytest.mark.cluster, pytest.mark.timeout(300)]

SAMPLE_BOTS = Path(__file__).resolve().parent.parent / "sample_bots"
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
    state = tmp_path_factory.mktemp("cluster-live")
    started = up(1, slots=1, sandboxes=["inprocess"], port=0, state_dir=state)
    yield started
    down(state)
    assert not any(is_running(p) for p in started.processes)


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
