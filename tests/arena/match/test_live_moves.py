"""The board of the series in play (arena/match/live_moves.py): what it keeps of a
series (the action entries, the very objects of the engine's log; the hand; the
sheet), its bounds, the batches of a cluster worker (gaps dropped, a restart from 0
starting a new play), and its waits."""

from __future__ import annotations

import random
import threading

from arena.match.live_moves import MoveBoard
from engine import Series
from tests.helpers.live_helpers import choose


def play(board: MoveBoard, series_id: str, moves: int, seed: int = 8) -> Series:
    """``moves`` moves of a series, each event fed to the board as the loop does."""
    series = Series(seed, max_hands=4)
    rng = random.Random(seed)
    for _ in range(moves):
        for event in series.apply(choose(series.legal_actions(), rng)):
            board.feed(series_id, event)
    return series


def test_a_series_in_play_keeps_its_action_entries_hand_and_sheet() -> None:
    board = MoveBoard()
    assert board.begin("1-0")
    series = play(board, "1-0", 40)
    live = board.get("1-0")
    assert live is not None
    actions = [entry for entry in series.log if entry["type"] == "action"]
    assert len(live.actions) == 40 == len(actions)
    # The same dicts as the engine's log: nothing is copied per move.
    assert all(kept is logged for kept, logged in zip(live.actions, actions, strict=True))
    assert live.hand == series.hand_number
    assert series.hand_number > 1  # seed 8 ends hand 1 at its 30th move
    assert live.sheet == series.sheet.to_dict()
    assert not live.ended
    # A reader that has some copies only the rest.
    rest = board.get("1-0", since=35)
    assert rest is not None and rest.since == 35 and rest.actions == live.actions[35:]


def test_before_the_first_hand_ends_there_is_no_sheet_and_finish_removes() -> None:
    board = MoveBoard()
    board.begin("2-1")
    play(board, "2-1", 1)
    live = board.get("2-1")
    assert live is not None and live.hand == 1 and live.sheet is None
    summary = board.summary_version
    board.finish("2-1")
    assert board.get("2-1") is None and not board.has("2-1") and board.in_play() == []
    assert board.summary_version == summary + 1


def test_events_of_a_series_not_begun_are_ignored() -> None:
    board = MoveBoard()
    play(board, "9-9", 5)
    assert board.get("9-9") is None and board.summary_version == 0


def test_the_end_of_the_series_marks_it_ended() -> None:
    board = MoveBoard()
    with board.playing("3-0") as sink:
        series = Series(4, max_hands=2)
        rng = random.Random(4)
        while not series.is_over:
            for event in series.apply(choose(series.legal_actions(), rng)):
                sink(event)
        live = board.get("3-0")
        assert live is not None and live.ended
    assert board.get("3-0") is None  # off the board once the play is over


def test_a_fault_ends_the_series_on_the_board() -> None:
    board = MoveBoard()
    board.begin("4-0")
    board.feed("4-0", {"type": "fault", "kind": "timeout"})
    live = board.get("4-0")
    assert live is not None and live.ended


def test_bounded_series_and_actions() -> None:
    board = MoveBoard(max_series=2, max_actions=5)
    assert board.begin("a") and board.begin("b")
    assert not board.begin("c")  # full: played, not shown
    assert board.get("c") is None
    play(board, "a", 9)
    live = board.get("a")
    assert live is not None and len(live.actions) == 5
    board.finish("b")
    assert board.begin("c")


def test_cluster_batches_continue_restart_or_are_dropped() -> None:
    board = MoveBoard()
    entries = [{"type": "action", "hand": 1, "seat": 0, "action": {"kind": "pass"}}] * 3
    board.extend("5-0", 0, [])  # the worker's start message
    first = board.get("5-0")
    assert first is not None and first.actions == ()
    board.extend("5-0", 0, entries[:2])
    board.extend("5-0", 3, entries[:1])  # a gap: dropped
    board.extend("5-0", 1, entries[:1])  # a repeat: dropped
    live = board.get("5-0")
    assert live is not None and len(live.actions) == 2 and live.play == first.play
    board.extend("5-0", 2, [*entries[:1], {"type": "hand_start", "hand": 2}])
    live = board.get("5-0")
    assert live is not None and len(live.actions) == 3 and live.hand == 2
    board.extend("5-0", 0, [])  # played again (another worker): a new play
    again = board.get("5-0")
    assert again is not None and again.actions == () and again.play != first.play


def test_wait_returns_at_a_change_or_after_the_timeout() -> None:
    board = MoveBoard()
    seen = board.summary_version
    assert board.wait(seen, 0.0) == seen  # nothing changed
    board.begin("6-0")
    woke = threading.Event()
    results: list[int] = []

    def waiter() -> None:
        results.append(board.wait(board.summary_version, 30.0))
        woke.set()

    thread = threading.Thread(target=waiter)
    thread.start()
    summary = board.summary_version
    play(board, "6-0", 1)  # a move: not a summary change
    assert board.summary_version == summary
    board.finish("6-0")  # a summary change: the waiter wakes
    assert woke.wait(30.0)
    thread.join(30.0)
    assert results == [summary + 1]


def test_a_reader_of_one_series_waits_for_that_series_alone() -> None:
    board = MoveBoard()
    assert board.wait_series("7-0", (0, -1), 0.0) == (0, -1)  # not in play
    board.begin("7-0")
    board.begin("7-1")
    start = board.wait_series("7-0", (0, -1), 0.0)  # in play now: a new token
    assert start != (0, -1)
    play(board, "7-1", 3)  # another series' moves leave this one's token alone
    assert board.wait_series("7-0", start, 0.0) == start
    results: list[tuple[int, int]] = []
    thread = threading.Thread(target=lambda: results.append(
        board.wait_series("7-0", start, 30.0)))
    thread.start()
    play(board, "7-0", 1)
    thread.join(30.0)
    assert not thread.is_alive() and results[0] != start
    moved = results[0]
    board.begin("7-0")  # played again: a new play, a new token
    again = board.wait_series("7-0", moved, 0.0)
    assert again[0] != moved[0]
    board.finish("7-0")  # off the board
    assert board.wait_series("7-0", again, 0.0) == (0, -1)


def test_the_production_runner_puts_its_series_on_the_board_while_it_plays() -> None:
    """``arena.server.app.SandboxRunner`` (what `arena serve` plays with) feeds the
    board every move of the series, which is on the board only while it plays."""
    from pathlib import Path

    from arena.core.series import BotRef, SeriesSpec
    from arena.core.settings import SeasonConfig
    from arena.sandbox import registry
    from arena.server.app import SandboxRunner

    class Recording(MoveBoard):
        def __init__(self) -> None:
            super().__init__()
            self.seen: list[tuple[bool, dict[str, object]]] = []

        def feed(self, series_id: str, event: dict[str, object]) -> None:
            self.seen.append((self.has(series_id), event))
            super().feed(series_id, event)

    bots_folder = Path(__file__).resolve().parents[3] / "sample_bots"
    config = SeasonConfig.build(sandbox="inprocess", max_hands=3)
    spec = SeriesSpec(series_id="3-1", seed=5, profile=config.profile(), max_hands=3,
                      swap_seats=False, limits=config.limits,
                      bots=(BotRef.from_folder(bots_folder / "greedy"),
                            BotRef.from_folder(bots_folder / "shark")))
    board = Recording()
    outcome = SandboxRunner(registry.create("inprocess"), board)(spec)
    assert all(on_board for on_board, _ in board.seen)
    fed = [event for _, event in board.seen if event["type"] == "action"]
    assert fed == [entry for entry in outcome.log if entry["type"] == "action"]
    assert board.seen[-1][1]["type"] == "series_end"
    assert not board.has("3-1")
