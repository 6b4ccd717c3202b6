"""Engine details pinned by hand-made fixtures, one per mutant that the other engine
tests let through (docs/testing.md, "Mutation testing"). Every expected value is
written by hand from RULES.md or from the documented message texts."""

from __future__ import annotations

import pytest

from engine.actions import Action, ActionParseError
from engine.scoresheet import ScoreSheet, ScoreSheetError


def _sheet(scores: list[list[int]], winners: list[int | None]) -> dict[str, object]:
    return {"game_target": 100, "scores": scores,
            "opened": [[True, True, False], [True, False, False]],
            "game_winners": winners, "hands_won": [2, 1]}


def test_a_game_score_exactly_at_the_target_has_reached_it() -> None:
    # Exactly 100 in game A wins it (RULES: a game is won on reaching the target).
    sheet = ScoreSheet.from_dict(_sheet([[100, 20, 0], [40, 0, 0]], [0, None, None]))
    assert [sheet.game_winner(game) for game in range(3)] == [0, None, None]
    with pytest.raises(ScoreSheetError, match="^game I reached the target but has no winner$"):
        ScoreSheet.from_dict(_sheet([[100, 20, 0], [40, 0, 0]], [None, None, None]))


def test_an_action_that_is_not_text_is_refused_naming_its_type() -> None:
    with pytest.raises(ActionParseError) as caught:
        Action.parse(5)  # type: ignore[arg-type]
    assert str(caught.value) == "an action must be text, got int"


def test_unknown_action_text_is_refused_listing_the_actions() -> None:
    with pytest.raises(ActionParseError) as caught:
        Action.parse("fold")
    assert str(caught.value) == (
        "not an action: 'fold' (expected 'draw stock', 'draw discard', 'pass', "
        "'discard <card>' or 'knock <card> [<meld>] ...')"
    )
