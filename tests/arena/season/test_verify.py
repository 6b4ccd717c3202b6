"""The outcome verifier (arena/season/verify.py): a true outcome passes; each kind of
tampering is refused with the check that caught it."""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

import pytest

from arena.core.faults import BotFault, FaultKind
from arena.core.series import SeriesOutcome, outcome_of
from arena.season.verify import OutcomeMismatch, verify_outcome
from engine.actions import Action, ActionKind
from engine.profiles import CLASSIC, FRIENDLY
from engine.series import Series

SEED = 7
MAX_HANDS = 30


def play(seed: int = SEED, *, stop_after: int | None = None, swap: bool = False) -> Series:
    """A series played by a fixed policy (knock when possible, else the first legal
    action), stopped after ``stop_after`` actions if given."""
    series = Series(seed, FRIENDLY, max_hands=MAX_HANDS, swap_seats=swap)
    played = 0
    while not series.is_over and (stop_after is None or played < stop_after):
        legal = series.legal_actions()
        knocks = [a for a in legal if a.kind is ActionKind.KNOCK]
        series.apply(knocks[0] if knocks else legal[0])
        played += 1
    return series


def played_out(seed: int = SEED, swap: bool = False) -> SeriesOutcome:
    series = play(seed, swap=swap)
    assert series.result is not None
    return outcome_of("1-1", series, series.result.winner, None, (1.0, 1.0), 2.0)


def check(outcome: SeriesOutcome, *, seed: int = SEED, swap: bool = False) -> None:
    verify_outcome(outcome, seed=seed, profile=FRIENDLY, max_hands=MAX_HANDS, swap_seats=swap)


def rejected(outcome: SeriesOutcome, **planned: object) -> OutcomeMismatch:
    with pytest.raises(OutcomeMismatch) as caught:
        check(outcome, **planned)  # type: ignore[arg-type]
    return caught.value


def action_indices(outcome: SeriesOutcome) -> list[int]:
    return [i for i, event in enumerate(outcome.log) if event["type"] == "action"]


def test_a_true_outcome_passes() -> None:
    outcome = played_out()
    # The policy's series of seed 7, worked out once and written here: seat 1 wins
    # 2 games to 1 in 16 hands.
    assert (outcome.winner, outcome.games_won, outcome.hands_played) == (1, (1, 2), 16)
    check(outcome)
    check(played_out(swap=True), swap=True)


def test_a_forfeit_at_the_point_the_log_stops_passes() -> None:
    series = play(stop_after=25)
    seat, hand = series.current_player, series.hand_number
    assert seat is not None
    fault = BotFault(FaultKind.TIMEOUT, "slow", seat=seat, hand_number=hand, decision_number=26)
    check(outcome_of("1-1", series, 1 - seat, fault, (0.0, 0.0), 0.0))


def test_a_startup_fault_before_any_action_passes() -> None:
    series = Series(SEED, FRIENDLY, max_hands=MAX_HANDS)
    fault = BotFault(FaultKind.STARTUP, "no socket", seat=0)
    check(outcome_of("1-1", series, 1, fault, (0.0, 0.0), 0.0))


def test_another_seed_is_refused_as_another_deal() -> None:
    error = rejected(played_out(seed=SEED + 1))
    assert error.check == "deal"


def test_a_swapped_series_claimed_for_the_unswapped_plan_is_another_deal() -> None:
    assert rejected(played_out(swap=True)).check == "deal"


def test_another_profile_is_refused_as_another_deal() -> None:
    outcome = played_out()
    with pytest.raises(OutcomeMismatch) as caught:
        verify_outcome(outcome, seed=SEED, profile=CLASSIC, max_hands=MAX_HANDS,
                       swap_seats=False)
    assert caught.value.check == "deal"


def test_an_edited_seed_in_the_log_is_refused() -> None:
    outcome = played_out()
    outcome.log[0] = {**outcome.log[0], "seed": SEED + 1}
    assert rejected(outcome).check == "deal"


def test_an_illegal_action_in_the_log_is_refused() -> None:
    outcome = played_out()
    first = action_indices(outcome)[0]
    # The first move of a hand: only draw_discard or pass are legal; a discard is not.
    outcome.log[first] = {**outcome.log[first], "action": {"kind": "discard", "card": "Kd"}}
    error = rejected(outcome)
    assert error.check == "illegal_action"
    assert f"log entry {first}" in str(error)


def test_a_changed_hand_score_in_the_log_is_refused() -> None:
    outcome = played_out()
    end = next(i for i, event in enumerate(outcome.log) if event["type"] == "hand_end"
               and event["winner"] is not None)
    outcome.log[end] = {**outcome.log[end], "points": outcome.log[end]["points"] + 50}
    error = rejected(outcome)
    assert error.check == "log"
    assert f"log entry {end} differs" in str(error)


def with_result(outcome: SeriesOutcome, **changes: Any) -> SeriesOutcome:
    """``outcome`` claiming another result (a forged or broken worker's)."""
    return replace(outcome, result=replace(outcome.result, **changes))


def test_a_changed_winner_is_refused() -> None:
    outcome = played_out()
    assert rejected(with_result(outcome, winner=0)).check == "winner"


@pytest.mark.parametrize("field, value", [
    ("points", (9999, 0)),
    ("games_won", (3, 0)),
    ("hands_won", (16, 0)),
    ("hands_played", 15),
    ("capped", True),
    ("game_scores", ((117, 33, 1), (47, 129, 119))),
    ("game_winners", (0, 0, 0)),
])
def test_a_changed_figure_of_the_result_is_refused(field: str, value: object) -> None:
    error = rejected(with_result(played_out(), **{field: value}))
    assert error.check == "result"
    assert field in str(error)


def test_a_truncated_log_is_refused() -> None:
    outcome = played_out()
    cut = replace(outcome, log=copy.deepcopy(outcome.log[:action_indices(outcome)[40]]))
    assert rejected(cut).check == "truncated"


def test_a_log_cut_inside_an_actions_events_is_refused() -> None:
    outcome = played_out()
    end = next(i for i, event in enumerate(outcome.log) if event["type"] == "hand_end")
    assert rejected(replace(outcome, log=outcome.log[:end])).check == "truncated"


def test_an_empty_log_is_refused() -> None:
    assert rejected(replace(played_out(), log=[])).check == "truncated"


def test_a_forfeit_claimed_for_the_seat_not_to_act_is_refused() -> None:
    series = play(stop_after=25)
    seat = series.current_player
    assert seat is not None
    fault = BotFault(FaultKind.TIMEOUT, "slow", seat=1 - seat,
                     hand_number=series.hand_number, decision_number=26)
    error = rejected(outcome_of("1-1", series, seat, fault, (0.0, 0.0), 0.0))
    assert error.check == "fault"


def test_a_forfeit_at_another_decision_than_the_logs_end_is_refused() -> None:
    series = play(stop_after=25)
    seat = series.current_player
    assert seat is not None
    fault = BotFault(FaultKind.CRASH, "gone", seat=seat, hand_number=series.hand_number,
                     decision_number=40)
    assert rejected(outcome_of("1-1", series, 1 - seat, fault, (0.0, 0.0), 0.0)).check == "fault"


def test_a_forfeit_that_names_the_faulty_seat_winner_is_refused() -> None:
    series = play(stop_after=25)
    seat = series.current_player
    assert seat is not None
    fault = BotFault(FaultKind.TIMEOUT, "slow", seat=seat, hand_number=series.hand_number,
                     decision_number=26)
    assert rejected(outcome_of("1-1", series, seat, fault, (0.0, 0.0), 0.0)).check == "winner"


def test_a_forfeit_on_a_finished_series_is_refused() -> None:
    outcome = played_out()
    fault = BotFault(FaultKind.TIMEOUT, "slow", seat=0, hand_number=16, decision_number=1)
    assert rejected(replace(with_result(outcome, winner=1), fault=fault)).check == "fault"


def test_a_startup_fault_after_play_began_is_refused() -> None:
    series = play(stop_after=3)
    fault = BotFault(FaultKind.STARTUP, "no socket", seat=0)
    assert rejected(outcome_of("1-1", series, 1, fault, (0.0, 0.0), 0.0)).check == "fault"


def illegal_fault(series: Series, action: Action) -> BotFault:
    seat = series.current_player
    assert seat is not None
    return BotFault(FaultKind.ILLEGAL_ACTION, "not legal", seat=seat,
                    hand_number=series.hand_number, decision_number=1,
                    rejected_action=action.to_dict())


def test_an_illegal_action_fault_whose_action_is_illegal_passes() -> None:
    series = Series(SEED, FRIENDLY, max_hands=MAX_HANDS)
    # The first decision offers draw_discard or pass (docs/rules.md#the-upcard-offer):
    # a stock draw is refused.
    fault = illegal_fault(series, Action(ActionKind.DRAW_STOCK))
    seat = fault.seat
    assert seat is not None
    check(outcome_of("1-1", series, 1 - seat, fault, (0.0, 0.0), 0.0))


def test_an_illegal_action_fault_whose_action_is_legal_is_refused() -> None:
    series = Series(SEED, FRIENDLY, max_hands=MAX_HANDS)
    fault = illegal_fault(series, Action(ActionKind.PASS))
    seat = fault.seat
    assert seat is not None
    error = rejected(outcome_of("1-1", series, 1 - seat, fault, (0.0, 0.0), 0.0))
    assert error.check == "fault"
    assert "is legal" in str(error)


def test_an_illegal_action_fault_without_its_action_is_refused() -> None:
    series = Series(SEED, FRIENDLY, max_hands=MAX_HANDS)
    fault = illegal_fault(series, Action(ActionKind.DRAW_STOCK))
    fault.rejected_action = None
    seat = fault.seat
    assert seat is not None
    assert rejected(outcome_of("1-1", series, 1 - seat, fault, (0.0, 0.0), 0.0)).check == "fault"


def test_a_forfeits_figures_must_be_the_hands_finished_before_it() -> None:
    series = play(stop_after=200)
    seat = series.current_player
    assert seat is not None and series.hand_number > 1
    fault = BotFault(FaultKind.TIMEOUT, "slow", seat=seat, hand_number=series.hand_number,
                     decision_number=201)
    outcome = outcome_of("1-1", series, 1 - seat, fault, (0.0, 0.0), 0.0)
    check(outcome)
    assert rejected(with_result(outcome, points=(9999, 0))).check == "result"


def test_an_illegal_action_fault_whose_action_cannot_be_read_is_refused() -> None:
    series = Series(SEED, FRIENDLY, max_hands=MAX_HANDS)
    fault = illegal_fault(series, Action(ActionKind.DRAW_STOCK))
    fault.rejected_action = {"kind": "teleport"}
    seat = fault.seat
    assert seat is not None
    error = rejected(outcome_of("1-1", series, 1 - seat, fault, (0.0, 0.0), 0.0))
    assert error.check == "fault" and "cannot be read" in str(error)


def test_an_action_logged_for_the_seat_not_to_act_is_refused() -> None:
    outcome = played_out()
    first = action_indices(outcome)[0]
    entry = outcome.log[first]
    outcome.log[first] = {**entry, "seat": 1 - entry["seat"]}
    error = rejected(outcome)
    assert error.check == "log" and f"log entry {first}" in str(error)
