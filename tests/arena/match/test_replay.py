"""arena.match.replay without bot processes: both seats from their stored moves
reproduce the stored log; a stored forfeit of a stored-moves seat is where the replay
stops, reproduced; the verdicts on forfeits in the new series; a log that is no
series' log is refused."""

from __future__ import annotations

from typing import Any

import pytest

from arena.core.faults import BotFault, FaultKind
from arena.match.replay import (
    StoredPath,
    StoredSeries,
    StoredSeriesError,
    replay_series,
)
from engine.actions import ActionKind
from engine.profiles import FRIENDLY
from engine.series import Series


def played_log(seed: int = 3, max_hands: int = 3) -> list[dict[str, Any]]:
    """A series played to its end: knock when allowed, else draw from the stock
    (or pass the upcard), else discard the first card."""
    series = Series(seed, FRIENDLY, max_hands=max_hands)
    order = (ActionKind.KNOCK, ActionKind.DRAW_STOCK, ActionKind.PASS, ActionKind.DISCARD)
    while not series.is_over:
        legal = series.legal_actions()
        series.apply(min(legal, key=lambda action: order.index(action.kind)
                         if action.kind in order else len(order)))
    return series.log


def actions_of(log: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [event for event in log if event["type"] == "action"]


def up_to_action(log: list[dict[str, Any]], count: int) -> list[dict[str, Any]]:
    """The log up to and with its ``count``-th action."""
    positions = [index for index, event in enumerate(log) if event["type"] == "action"]
    return log[:positions[count - 1] + 1]


def test_both_seats_from_stored_moves_reproduce_the_log() -> None:
    log = played_log()
    stored = StoredSeries("4-2", ("a@1", "b@1"), log)
    report = replay_series(stored, {}, None)
    assert report.reproduced
    assert report.outcome is not None and report.outcome.log == log
    assert report.decisions == len(actions_of(log))


def test_a_stored_forfeit_of_a_stored_seat_ends_the_replay_reproduced() -> None:
    log = played_log()
    actions = actions_of(log)
    cut = 7  # the stored series ended at decision 8 with a fault of its seat
    seat = actions[cut]["seat"]
    fault = BotFault(FaultKind.CRASH, "boom", seat=seat, hand_number=actions[cut]["hand"],
                     decision_number=cut + 1)
    stored = StoredSeries("4-2", ("a@1", "b@1"), up_to_action(log, cut), fault=fault)
    report = replay_series(stored, {}, None)
    assert report.reproduced and report.outcome is None
    assert report.decisions == cut


def test_a_new_forfeit_where_the_stored_series_played_on_is_the_divergence() -> None:
    log = played_log()
    actions = actions_of(log)
    path = StoredPath(StoredSeries("4-2", ("a@1", "b@1"), log))
    for event in actions[:4]:
        path.observe(event)
    fault = BotFault(FaultKind.TIMEOUT, "slow", seat=actions[4]["seat"],
                     hand_number=actions[4]["hand"], decision_number=5)
    divergence = path.fault_divergence(fault)
    assert divergence is not None
    assert (divergence.decision, divergence.seat) == (5, actions[4]["seat"])
    assert divergence.new == "forfeit (timeout: slow)"
    assert divergence.stored != divergence.new


def test_a_move_past_the_stored_forfeit_is_the_divergence() -> None:
    log = played_log()
    actions = actions_of(log)
    fault = BotFault(FaultKind.CRASH, "boom", seat=actions[2]["seat"], decision_number=3)
    path = StoredPath(StoredSeries("4-2", ("a@1", "b@1"), up_to_action(log, 2), fault=fault))
    for event in actions[:3]:
        path.observe(event)
    assert path.divergence is not None and path.divergence.decision == 3
    assert path.divergence.stored.startswith("nothing: the stored series ended here with a "
                                             "forfeit (crash: boom)")


@pytest.mark.parametrize("log", [[], [{"type": "hand_start"}], [{"type": "series_start"}]])
def test_a_log_that_is_no_series_is_refused(log: list[dict[str, Any]]) -> None:
    with pytest.raises(StoredSeriesError, match="series 4-2: "):
        StoredSeries("4-2", ("a@1", "b@1"), log)
