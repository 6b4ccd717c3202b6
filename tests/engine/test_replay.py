"""The event log: JSON-serialisable, replays to the identical series, rejects tampering."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from engine import (
    CLASSIC,
    FRIENDLY,
    Action,
    ActionKind,
    Profile,
    ReplayError,
    Series,
    best_arrangement,
    history_from_log,
)
from tests.helpers.deal_helpers import greedy_choice, play_series


def played(seed: int, profile: Profile = FRIENDLY, **kwargs: Any) -> Series:
    series = Series(seed, profile, **kwargs)
    play_series(series, random.Random(seed))
    return series


def round_trip(log: list[dict[str, Any]]) -> list[dict[str, Any]]:
    loaded: list[dict[str, Any]] = json.loads(json.dumps(log))
    return loaded


@pytest.mark.parametrize(
    ("profile", "swap"), [(FRIENDLY, False), (FRIENDLY, True), (CLASSIC, False), (CLASSIC, True)]
)
def test_replay_rebuilds_the_identical_series(profile: Profile, swap: bool) -> None:
    original = played(31, profile, swap_seats=swap, max_hands=50)
    rebuilt = Series.replay(round_trip(original.log))
    assert rebuilt.result == original.result
    assert rebuilt.log == original.log
    assert rebuilt.sheet == original.sheet
    assert rebuilt.hand_results == original.hand_results
    assert rebuilt.history() == original.history()
    assert rebuilt.profile == profile and rebuilt.swap_seats is swap


def test_log_starts_with_everything_needed_to_replay() -> None:
    series = Series(77, CLASSIC.derive(undercut_bonus=20), max_hands=12, swap_seats=True)
    start = series.log[0]
    assert start == {
        "type": "series_start",
        "seed": 77,
        "profile": CLASSIC.derive(undercut_bonus=20).to_dict(),
        "max_hands": 12,
        "swap_seats": True,
        "first_dealer": series.first_dealer,
    }
    assert series.log[1] == {"type": "hand_start", "hand": 1, "dealer": series.first_dealer}


def test_an_unfinished_log_replays_to_an_unfinished_series() -> None:
    series = Series(9)
    for _ in range(15):
        series.apply(series.legal_actions()[0])
    rebuilt = Series.replay(round_trip(series.log))
    assert not rebuilt.is_over
    assert rebuilt.legal_actions() == series.legal_actions()
    assert rebuilt.observation(0) == series.observation(0)


def action_indices(log: list[dict[str, Any]]) -> list[int]:
    return [i for i, event in enumerate(log) if event["type"] == "action"]


def tamper_cases() -> list[tuple[str, Any, str]]:
    def change_card(log: list[dict[str, Any]]) -> None:
        for event in log:
            if event["type"] == "action" and event["action"]["kind"] == "discard":
                event["action"]["card"] = "Kd" if event["action"]["card"] != "Kd" else "Qd"
                return

    def change_points(log: list[dict[str, Any]]) -> None:
        for event in log:
            if event["type"] == "hand_end" and event["winner"] is not None:
                event["points"] += 1
                return

    def change_seed(log: list[dict[str, Any]]) -> None:
        log[0]["seed"] += 1

    def drop_action(log: list[dict[str, Any]]) -> None:
        del log[action_indices(log)[3]]

    def change_winner(log: list[dict[str, Any]]) -> None:
        log[-1]["winner"] = None if log[-1]["winner"] is not None else 0

    def cut_inside_events(log: list[dict[str, Any]]) -> None:
        end = next(i for i, event in enumerate(log) if event["type"] == "hand_end")
        del log[end + 1 :]

    def bad_profile(log: list[dict[str, Any]]) -> None:
        log[0]["profile"]["knock_limit"] = 99

    def missing_field(log: list[dict[str, Any]]) -> None:
        del log[0]["max_hands"]

    def no_start(log: list[dict[str, Any]]) -> None:
        del log[0]

    def garbage_action(log: list[dict[str, Any]]) -> None:
        log[action_indices(log)[0]]["action"] = {"kind": "fold"}

    def hand_start_moved(log: list[dict[str, Any]]) -> None:
        log[1]["dealer"] = 1 - log[1]["dealer"]

    def extra_action(log: list[dict[str, Any]]) -> None:
        log.append({"type": "action", "hand": 99, "seat": 0, "action": {"kind": "pass"}})

    return [
        ("changed discard", change_card, "log entry"),
        ("changed points", change_points, "differs from the replay"),
        ("changed seed", change_seed, "log entry"),
        ("dropped action", drop_action, "log entry"),
        ("changed series winner", change_winner, "differs from the replay"),
        ("cut inside an action's events", cut_inside_events, "ends inside an action's events"),
        ("invalid profile", bad_profile, "knock_limit"),
        ("missing field", missing_field, "lacks the field 'max_hands'"),
        ("no series_start", no_start, "series_start"),
        ("unknown action kind", garbage_action, "unknown action kind"),
        ("hand_start dealer changed", hand_start_moved, "log entry 1 differs"),
        ("action after the end", extra_action, "after the series ended"),
    ]


@pytest.mark.parametrize(("name", "tamper", "fragment"), tamper_cases())
def test_tampered_logs_are_rejected_with_a_clear_error(
    name: str, tamper: Any, fragment: str
) -> None:
    log = round_trip(played(13, CLASSIC).log)
    tampered = copy.deepcopy(log)
    tamper(tampered)
    assert tampered != log, name
    with pytest.raises(ReplayError) as caught:
        Series.replay(tampered)
    assert fragment in str(caught.value), str(caught.value)


@pytest.mark.parametrize("bad", [[], "log", [1, 2], [{"type": "hand_start"}]])
def test_malformed_logs_are_rejected(bad: Any) -> None:
    with pytest.raises(ReplayError):
        Series.replay(bad)


def test_history_from_log_matches_the_series_history() -> None:
    series = played(5, FRIENDLY, max_hands=20)
    assert history_from_log(round_trip(series.log)) == series.history()


def test_log_holds_no_python_only_types() -> None:
    series = played(2, CLASSIC, max_hands=20)
    assert round_trip(series.log) == series.log


def knock_with_declared_melds(seed: int) -> Series:
    """Play greedily until a knock is legal, then knock declaring the best melds."""
    series = Series(seed, CLASSIC, max_hands=30)
    rng = random.Random(seed)
    while not series.is_over:
        legal = series.legal_actions()
        knocks = [a for a in legal if a.kind is ActionKind.KNOCK]
        if knocks:
            card = knocks[0].card
            assert card is not None
            kept = [c for c in series.hand.cards(series.current_player or 0) if c is not card]
            _, melds = best_arrangement(kept)
            series.apply(Action.knock(card, melds))
            return series
        series.apply(greedy_choice(series.hand.cards(series.current_player or 0), legal, rng))
    raise AssertionError("no knock was legal")


def test_declared_melds_are_logged_and_replayed() -> None:
    series = knock_with_declared_melds(17)
    knock_event = next(
        e for e in series.log if e["type"] == "action" and e["action"]["kind"] == "knock"
    )
    assert "melds" in knock_event["action"]
    rebuilt = Series.replay(round_trip(series.log))
    assert rebuilt.log == series.log
    assert rebuilt.hand_results == series.hand_results
    tampered = round_trip(series.log)
    for event in tampered:
        if event["type"] == "action" and event["action"]["kind"] == "knock":
            event["action"]["melds"][0] = event["action"]["melds"][0][:2]
    with pytest.raises(ReplayError, match="invalid declared melds"):
        Series.replay(tampered)
