"""The Hollywood three-game score sheet (docs/rules.md#the-score-sheet), the rule
text's worked examples 1 and 3 (3 opens docs/rules.md#a-whole-series) and the hand
cap (docs/rules.md#hand-cap)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import parse_cards
from engine.profiles import CLASSIC, FRIENDLY
from engine.scoresheet import ScoreSheet, ScoreSheetError
from engine.settle import settle

ALEXANDRA, BOB = 0, 1


def test_worked_example_1_classic() -> None:
    sheet = ScoreSheet(CLASSIC.game_target)
    sheet.record_win(BOB, 10)
    sheet.record_win(ALEXANDRA, 18)
    sheet.record_win(BOB, 30)
    sheet.record_win(BOB, 4)
    assert sheet.scores(ALEXANDRA) == (18, 0, 0)
    assert sheet.scores(BOB) == (44, 34, 4)
    assert sheet.opened(ALEXANDRA) == (True, False, False)
    assert sheet.opened(BOB) == (True, True, True)
    assert sheet.hands_won(ALEXANDRA) == 1 and sheet.hands_won(BOB) == 3
    assert sheet.finished_games == ()
    assert not sheet.is_over and sheet.winner is None


def test_worked_example_3_friendly() -> None:
    a, b = 0, 1
    sheet = ScoreSheet(FRIENDLY.game_target)
    assert sheet.record_win(a, 30) == (0,)
    assert sheet.scores(a) == (30, 0, 0)
    assert sheet.record_win(a, 43) == (0, 1)  # the gin of example 2
    assert sheet.scores(a) == (73, 43, 0)
    assert sheet.opened(a) == (True, True, False)
    assert sheet.record_win(a, 35) == (0, 1, 2)
    assert sheet.scores(a) == (108, 78, 35)
    assert sheet.game_winner(0) == a
    assert sheet.finished_games == (0,)
    assert sheet.opened(a) == (True, True, True)  # the same win opened game III
    assert sheet.scores(b) == (0, 0, 0)  # B's sheet is independent
    assert sheet.opened(b) == (False, False, False)


def test_worked_examples_2_and_3_together() -> None:
    # Example 2's gin (43 points) as A's second win, straight from settle().
    gin = settle(parse_cards("4h 5h 6h 7h 9c 9d 9s Ac 2c 3c"),
                 parse_cards("Kc Kh Ks 2d 3d 4d 5d 7c 8h 3h"), FRIENDLY)
    sheet = ScoreSheet(FRIENDLY.game_target)
    sheet.record_win(0, 30)
    sheet.record_win(0, gin.points)
    assert sheet.scores(0) == (73, 43, 0)


def test_opponent_wins_never_open_games_for_the_winner() -> None:
    sheet = ScoreSheet()
    for _ in range(3):
        sheet.record_win(BOB, 5)
    assert sheet.record_win(ALEXANDRA, 7) == (0,)
    assert sheet.scores(ALEXANDRA) == (7, 0, 0)


def test_finished_game_is_frozen_for_both_players() -> None:
    sheet = ScoreSheet()
    sheet.record_win(ALEXANDRA, 60)
    sheet.record_win(BOB, 99)
    sheet.record_win(BOB, 1)  # Bob reaches exactly 100 in game I
    assert sheet.game_winner(0) == BOB
    assert sheet.scores(BOB) == (100, 1, 0)
    sheet.record_win(ALEXANDRA, 50)
    assert sheet.scores(ALEXANDRA) == (60, 50, 0)  # game I frozen at 60
    assert sheet.record_win(BOB, 10) == (1, 2)
    assert sheet.scores(BOB) == (100, 11, 10)


def test_a_game_finished_before_a_player_opened_it_stays_unopened() -> None:
    sheet = ScoreSheet()
    sheet.record_win(BOB, 100)
    sheet.record_win(ALEXANDRA, 5)
    assert sheet.opened(ALEXANDRA) == (False, False, False)
    assert sheet.scores(ALEXANDRA) == (0, 0, 0)
    assert sheet.record_win(ALEXANDRA, 5) == (1,)
    assert sheet.opened(ALEXANDRA) == (False, True, False)


def test_later_wins_still_open_game_three() -> None:
    sheet = ScoreSheet()
    sheet.record_win(ALEXANDRA, 100)  # game I won at once
    sheet.record_win(ALEXANDRA, 100)  # game II won by the second win
    assert sheet.finished_games == (0, 1)
    assert sheet.scores(ALEXANDRA) == (100, 100, 0)
    assert not sheet.is_over  # the series runs until game III is finished too
    assert sheet.winner is None
    assert sheet.record_win(ALEXANDRA, 40) == (2,)
    assert sheet.record_win(BOB, 100) == ()  # game I is already finished
    assert sheet.scores(BOB) == (0, 0, 0)  # Bob's first win only credits finished game I
    sheet.record_win(ALEXANDRA, 60)
    assert sheet.is_over and sheet.winner == ALEXANDRA
    assert sheet.games_won(ALEXANDRA) == 3 and sheet.games_won(BOB) == 0


def test_series_winner_holds_two_games() -> None:
    sheet = ScoreSheet(game_target=10)
    sheet.record_win(BOB, 10)        # Bob: game I
    sheet.record_win(ALEXANDRA, 3)   # Alexandra's 1st win: game I finished, nothing credited
    sheet.record_win(ALEXANDRA, 10)  # 2nd win: game II
    sheet.record_win(BOB, 4)         # Bob's 2nd: game II finished, so nothing
    sheet.record_win(BOB, 10)        # Bob's 3rd: game III
    assert [sheet.game_winner(game) for game in range(3)] == [BOB, ALEXANDRA, BOB]
    assert sheet.is_over and sheet.winner == BOB
    assert sheet.games_won(BOB) == 2 and sheet.games_won(ALEXANDRA) == 1
    with pytest.raises(ScoreSheetError) as over:
        sheet.record_win(ALEXANDRA, 1)
    assert str(over.value) == "the series is over: all three games are finished"


def test_award_at_cap_higher_score_wins_unfinished_games() -> None:
    sheet = ScoreSheet()
    sheet.record_win(ALEXANDRA, 20)
    sheet.record_win(BOB, 30)
    sheet.record_win(BOB, 5)
    award = sheet.award_at_cap()
    assert award.game_winners == (BOB, BOB, None)  # game III 0-0 is a tie
    assert award.games_won == (0, 2) and award.winner == BOB
    assert sheet.scores(BOB) == (35, 5, 0)  # the award does not change the sheet


def test_award_at_cap_tie_is_a_draw() -> None:
    sheet = ScoreSheet()
    assert sheet.award_at_cap().winner is None
    sheet.record_win(ALEXANDRA, 100)
    sheet.record_win(BOB, 10)  # game I finished; Bob's win credits nothing
    sheet.record_win(BOB, 10)  # Bob leads game II 10-0
    award = sheet.award_at_cap()
    assert award.game_winners == (ALEXANDRA, BOB, None)
    assert award.winner is None
    assert json.loads(json.dumps(award.to_dict())) == {
        "game_winners": [0, 1, None], "games_won": [1, 1], "winner": None}


def test_is_finished_names_the_finished_games() -> None:
    sheet = ScoreSheet(game_target=10)
    sheet.record_win(BOB, 10)  # game I
    assert [sheet.is_finished(game) for game in range(3)] == [True, False, False]
    with pytest.raises(ScoreSheetError, match="game must be 0, 1 or 2, got 3"):
        sheet.is_finished(3)


@pytest.mark.parametrize(("player", "points", "message"), [
    (2, 10, "player must be 0 or 1"), (-1, 10, "player must be 0 or 1"),
    (True, 10, "player must be 0 or 1"), (0, -3, "non-negative integer, got -3"),
    (0, 2.5, "non-negative integer"),
])
def test_bad_record_win_input(player: int, points: int, message: str) -> None:
    with pytest.raises(ScoreSheetError, match=message):
        ScoreSheet().record_win(player, points)


def test_bad_queries() -> None:
    sheet = ScoreSheet()
    with pytest.raises(ScoreSheetError, match="game must be 0, 1 or 2, got 3"):
        sheet.game_winner(3)
    with pytest.raises(ScoreSheetError, match="player must be 0 or 1"):
        sheet.scores(5)
    with pytest.raises(ScoreSheetError, match="game_target must be a positive integer"):
        ScoreSheet(0)


@pytest.mark.parametrize("target", [0, -5, True, 2.5, "100"])
def test_game_target_must_be_a_positive_integer(target: object) -> None:
    with pytest.raises(ScoreSheetError, match="game_target must be a positive integer"):
        ScoreSheet(target)  # type: ignore[arg-type]


def test_zero_point_win_still_counts_and_opens_games() -> None:
    sheet = ScoreSheet()
    sheet.record_win(BOB, 0)
    assert sheet.hands_won(BOB) == 1 and sheet.opened(BOB) == (True, False, False)


def test_dict_round_trip() -> None:
    sheet = ScoreSheet()
    for player, points in [(0, 30), (1, 70), (0, 43), (1, 35), (0, 35)]:
        sheet.record_win(player, points)
    copy = ScoreSheet.from_dict(json.loads(json.dumps(sheet.to_dict())))
    assert copy == sheet
    assert copy.scores(0) == sheet.scores(0) and copy.opened(1) == sheet.opened(1)
    copy.record_win(1, 1)
    assert copy != sheet


@pytest.mark.parametrize(("change", "message"), [
    ({"scores": [[0, 0], [0, 0, 0]]}, "scores row must be 3 non-negative integers"),
    ({"game_winners": [2, None, None]}, "game_winners must be 3 of null/0/1"),
    ({"hands_won": [1]}, "hands_won must be 2 non-negative integers"),
    ({"opened": [[1, 0, 0], [False] * 3]}, "opened row must be 3 booleans"),
    ({"scores": [[120, 0, 0], [0, 0, 0]], "opened": [[True, False, False], [False] * 3]},
     "reached the target but has no winner"),
    ({"scores": [[5, 0, 0], [0, 0, 0]]}, "score in unopened game I"),
    ({"opened": [[True, True, False], [False] * 3], "hands_won": [1, 0]},
     "opened game II with only 1 hand"),
    ({"extra": 1}, "score sheet fields must be"),
])
def test_from_dict_rejects_malformed_sheets(change: dict[str, object], message: str) -> None:
    data = {**ScoreSheet().to_dict(), **change}
    with pytest.raises(ScoreSheetError, match=message):
        ScoreSheet.from_dict(data)


# Each message in full: they name the field and echo the bad value. Tuples are rejected
# too: a stored sheet is JSON, so anything but lists means it was not made by to_dict().
@pytest.mark.parametrize(("change", "message"), [
    ({"scores": ([0, 0, 0], [0, 0, 0])},
     "scores must be a list of 2 rows, got ([0, 0, 0], [0, 0, 0])"),
    ({"opened": [[False] * 3]}, "opened must be a list of 2 rows, got [[False, False, False]]"),
    ({"scores": [[-5, 0, 0], [0, 0, 0]]},
     "each scores row must be 3 non-negative integers, got [-5, 0, 0]"),
    ({"scores": [[True, 0, 0], [0, 0, 0]]},
     "each scores row must be 3 non-negative integers, got [True, 0, 0]"),
    ({"opened": [(False, False, False), [False] * 3]},
     "each opened row must be 3 booleans, got (False, False, False)"),
    ({"game_winners": (None, None, None)},
     "game_winners must be 3 of null/0/1, got (None, None, None)"),
    ({"hands_won": [-1, 0]}, "hands_won must be 2 non-negative integers, got [-1, 0]"),
    ({"hands_won": [True, 0]}, "hands_won must be 2 non-negative integers, got [True, 0]"),
    ({"scores": [[120, 0, 0], [0, 0, 0]], "opened": [[True, False, False], [False] * 3],
      "game_winners": [1, None, None], "hands_won": [1, 0]},
     "game I winner does not match its scores"),
])
def test_from_dict_says_exactly_what_is_wrong(change: dict[str, object], message: str) -> None:
    data = {**ScoreSheet().to_dict(), **change}
    with pytest.raises(ScoreSheetError) as caught:
        ScoreSheet.from_dict(data)
    assert str(caught.value) == message


def test_from_dict_of_a_non_mapping_names_the_type() -> None:
    with pytest.raises(ScoreSheetError) as caught:
        ScoreSheet.from_dict([1, 2])  # type: ignore[arg-type]
    assert str(caught.value) == "a score sheet must be a mapping, got list"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 80)), max_size=40),
       st.integers(1, 150))
def test_sheet_invariants(wins: list[tuple[int, int]], target: int) -> None:
    sheet = ScoreSheet(target)
    recorded = 0
    for player, points in wins:
        if sheet.is_over:
            break
        before = {game: (sheet.scores(0)[game], sheet.scores(1)[game])
                  for game in sheet.finished_games}
        credited = sheet.record_win(player, points)
        recorded += 1
        expected = [game for game in range(min(sheet.hands_won(player), 3))
                    if game not in before]
        assert list(credited) == expected
        for game, frozen in before.items():  # finished games never change
            assert (sheet.scores(0)[game], sheet.scores(1)[game]) == frozen
    assert sheet.hands_won(0) + sheet.hands_won(1) == recorded
    for game in range(3):
        top = [p for p in (0, 1) if sheet.scores(p)[game] >= target]
        winner = sheet.game_winner(game)
        assert top == ([] if winner is None else [winner])
        for p in (0, 1):
            if sheet.scores(p)[game]:
                assert sheet.opened(p)[game]
    assert sheet.is_over == (len(sheet.finished_games) == 3)
    if sheet.is_over:
        assert sheet.winner is not None and sheet.games_won(sheet.winner) >= 2
        assert sheet.award_at_cap().winner == sheet.winner
    assert ScoreSheet.from_dict(sheet.to_dict()) == sheet
