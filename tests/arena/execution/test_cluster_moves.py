"""The moves of series played on cluster workers (arena/execution/cluster_moves.py):
the worker's publisher batches a series' events (a batch at every hand's end, the
series' end, or after FLUSH_S of a slow hand; a hand's end travels as its sheet
only), the arena's feeder puts the batches of its own tasks on the board and drops
the rest. The same over a real cluster is tests/arena/execution/test_cluster_live.py."""

from __future__ import annotations

import random
from typing import Any

from arena.execution.cluster_moves import FLUSH_S, MAX_BATCH, BoardFeeder, MovePublisher
from arena.match.live_moves import MoveBoard
from engine import Series
from tests.helpers.live_helpers import choose


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_batches_end_at_each_hand_and_continue_each_other() -> None:
    sent: list[dict[str, Any]] = []
    clock = Clock()
    publisher = MovePublisher("series-1-0-abc", sent.append, clock=clock)
    series = Series(8, max_hands=3)
    rng = random.Random(8)
    while not series.is_over:
        for event in series.apply(choose(series.legal_actions(), rng)):
            publisher(event)
    publisher.flush()
    assert sent[0] == {"key": "series-1-0-abc", "first": 0, "events": []}
    batches = sent[1:]
    ends = [b for b in batches if b["events"][-1]["type"] in ("hand_end", "series_end")]
    assert len(ends) == len(batches)  # the clock never moved: batches end with hands only
    hand_ends = [e for b in batches for e in b["events"] if e["type"] == "hand_end"]
    assert [e["hand"] for e in hand_ends] == [1, 2, 3][:series.hand_number]
    assert hand_ends[-1]["sheet"] == series.sheet.to_dict()
    assert set(hand_ends[0]) == {"type", "hand", "sheet"}  # not the exposed hands
    # Each batch starts where the previous one's actions ended.
    actions = [e for e in series.log if e["type"] == "action"]
    position = 0
    for batch in batches:
        assert batch["first"] == position
        position += sum(1 for e in batch["events"] if e["type"] == "action")
    assert position == len(actions)
    # Replayed into a board, the batches give the series' action entries.
    board = MoveBoard()
    for message in sent:
        board.extend("1-0", message["first"], message["events"])
    live = board.get("1-0")
    assert live is not None and list(live.actions) == actions and live.ended


def test_a_slow_hand_is_sent_every_flush_interval() -> None:
    sent: list[dict[str, Any]] = []
    clock = Clock()
    publisher = MovePublisher("k", sent.append, clock=clock)
    series = Series(8, max_hands=3)
    rng = random.Random(8)
    for step in range(6):
        clock.now = step * FLUSH_S / 2  # a move every half interval
        for event in series.apply(choose(series.legal_actions(), rng)):
            publisher(event)
    # Sent at 0.5 and 1.0 x FLUSH_S after the start (moves 3 and 5), none at hand end.
    assert [len(m["events"]) for m in sent] == [0, 3, 2]
    assert [m["first"] for m in sent] == [0, 0, 3]


def action(n: int) -> dict[str, Any]:
    return {"type": "action", "hand": 1, "seat": n % 2, "action": {"kind": "draw_stock"}}


def test_the_feeder_takes_only_well_formed_batches_of_its_own_tasks() -> None:
    board = MoveBoard()
    feeder = BoardFeeder(board)
    feeder.expect("key-a", "1-0")
    feeder((0.0, {"key": "key-b", "first": 0, "events": []}))  # not ours
    assert board.in_play() == []
    feeder((0.0, {"key": "key-a", "first": 0, "events": []}))
    assert board.has("1-0")
    for bad in ({"key": "key-a", "first": "0", "events": [action(0)]},
                {"key": "key-a", "first": True, "events": [action(0)]},
                {"key": "key-a", "first": -1, "events": [action(0)]},
                {"key": "key-a", "first": 0, "events": [action(0), "not an event"]},
                {"key": "key-a", "first": 0, "events": [{"no": "type"}]},
                {"key": "key-a", "first": 0, "events": [action(n) for n in range(MAX_BATCH + 1)]},
                ["key-a", 0], "junk"):
        feeder((0.0, bad))
    live = board.get("1-0")
    assert live is not None and live.actions == ()
    # As Dask delivers it: lists turned into tuples, turned back.
    feeder((0.0, {"key": "key-a", "first": 0, "events": (action(0), {
        "type": "hand_end", "hand": 1, "sheet": {"hands_won": (1, 0)}})}))
    live = board.get("1-0")
    assert live is not None and list(live.actions) == [action(0)]
    assert live.sheet == {"hands_won": [1, 0]}
    feeder.done("key-a", "1-0")
    assert not board.has("1-0")
    feeder((0.0, {"key": "key-a", "first": 1, "events": [action(1)]}))  # after it settled
    assert not board.has("1-0")
