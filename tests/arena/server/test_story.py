"""`arena series show`: a series told hand by hand from its stored event log."""

from __future__ import annotations

import random

import pytest

from arena.core.faults import BotFault, FaultKind
from arena.server.story import NO_HAND_PLAYED, series_story
from engine import Series
from engine.series import ReplayError

NAMES = ("alpha@1", "beta@1")


def played_series(seed: int, stop_after: int | None = None) -> Series:
    series = Series(seed, max_hands=30)
    rng = random.Random(seed)
    moves = 0
    while not series.is_over and (stop_after is None or moves < stop_after):
        legal = series.legal_actions()
        knocks = [action for action in legal if action.kind == "knock"]
        series.apply(knocks[0] if knocks else rng.choice(legal))
        moves += 1
    return series


def test_every_hand_is_told_with_deal_moves_result_and_sheet() -> None:
    series = played_series(3)
    hands = series_story(series.log, NAMES)
    assert len(hands) == len(series.hands)
    for lines, hand in zip(hands, series.hands, strict=True):
        deal = hand.deal
        assert lines[0] == f"dealer: {NAMES[hand.dealer]}"
        assert lines[1] == f"deal: {NAMES[0]}: " + " ".join(str(c) for c in deal.hands[0])
        assert lines[3] == f"upcard: {deal.upcard}"
        move_lines = [line for line in lines if line.startswith((f"{NAMES[0]}: ",
                                                                 f"{NAMES[1]}: "))]
        assert len(move_lines) == len(hand.moves)
        assert lines[-1].startswith("sheet after: ")
    knocked = [lines for lines in hands if any(" knocks" in line for line in lines)]
    assert knocked, "a knock-happy policy knocks at least once in 30 hands"
    sample = knocked[0]
    assert any("melds" in line and "deadwood" in line for line in sample)
    assert any(line.startswith(("knock: ", "gin: ", "undercut: ")) and " scores " in line
               for line in sample)


def test_final_sheet_line_matches_the_result() -> None:
    series = played_series(5)
    result = series.result
    assert result is not None
    last = series_story(series.log, NAMES)[-1][-1]
    for seat in (0, 1):
        scores = "/".join(str(s) for s in result.game_scores[seat])
        assert f"{NAMES[seat]} {scores} ({result.hands_won[seat]} won)" in last


def test_a_series_stopped_mid_hand_ends_with_an_unfinished_hand() -> None:
    series = played_series(7, stop_after=5)
    hands = series_story(series.log, NAMES)
    assert hands[-1][-1] == "(hand not finished: the series stopped here)"


def test_a_tampered_log_is_refused() -> None:
    series = played_series(3)
    log = [dict(event) for event in series.log]
    log[0]["seed"] = 4
    with pytest.raises(ReplayError):
        series_story(log, NAMES)


def test_a_series_forfeited_at_start_up_has_no_hand() -> None:
    """A bot that never came up (e.g. its image failed to build): the engine's log
    holds the first deal, but no hand was played, so none is told."""
    log = Series(11).log
    startup = BotFault(FaultKind.STARTUP, "no socket", seat=1)
    assert series_story(log, NAMES, startup) == []
    assert NO_HAND_PLAYED == "no hand was played: the series ended before the first deal"
    # A fault at the first decision of hand 1 comes after the deal: that hand is told.
    timeout = BotFault(FaultKind.TIMEOUT, "slow", seat=0, hand_number=1, decision_number=1)
    hands = series_story(log, NAMES, timeout)
    assert len(hands) == 1 and hands[0][1].startswith(f"deal: {NAMES[0]}: ")
    assert hands[0][-1] == "(hand not finished: the series stopped here)"
    # A fault record never hides hands that were played.
    played = played_series(3)
    assert len(series_story(played.log, NAMES, startup)) == len(played.hands)
