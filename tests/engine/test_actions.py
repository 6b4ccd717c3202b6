"""Actions: construction rules, text and dict forms, equality that ignores melds."""

from __future__ import annotations

import json

import pytest

from engine import Action, ActionKind, ActionParseError, Card, IllegalActionError, parse_cards

KD = Card.parse("Kd")


@pytest.mark.parametrize(
    ("text", "kind", "card"),
    [
        ("draw stock", ActionKind.DRAW_STOCK, None),
        ("draw discard", ActionKind.DRAW_DISCARD, None),
        ("pass", ActionKind.PASS, None),
        ("discard Kd", ActionKind.DISCARD, "Kd"),
        ("knock 7c", ActionKind.KNOCK, "7c"),
    ],
)
def test_text_form_round_trips(text: str, kind: ActionKind, card: str | None) -> None:
    parsed = Action.parse(text)
    assert parsed.kind is kind
    assert parsed.card == (None if card is None else Card.parse(card))
    assert str(parsed) == text
    assert Action.parse(str(parsed)) == parsed


def test_parse_is_lenient_about_case_spacing_and_underscores() -> None:
    assert Action.parse("  DRAW_STOCK ") == Action.draw_stock()
    assert Action.parse("Draw   Discard") == Action.draw_discard()
    assert Action.parse("discard kD") == Action.discard(KD)
    assert Action.parse("discard 10h") == Action.discard(Card.parse("Th"))


def test_knock_with_melds_round_trips_through_text_and_dict() -> None:
    melds = (tuple(parse_cards("As 2s 3s")), tuple(parse_cards("9c 9d 9h")))
    knock = Action.knock(KD, melds)
    assert str(knock) == "knock Kd [As 2s 3s] [9c 9d 9h]"
    assert Action.parse(str(knock)).melds == melds
    data = json.loads(json.dumps(knock.to_dict()))
    expected_melds = [["As", "2s", "3s"], ["9c", "9d", "9h"]]
    assert data == {"kind": "knock", "card": "Kd", "melds": expected_melds}
    assert Action.from_dict(data).melds == melds


def test_equality_and_hash_ignore_declared_melds() -> None:
    melds = (tuple(parse_cards("As 2s 3s")),)
    assert Action.knock(KD, melds) == Action.knock(KD)
    assert hash(Action.knock(KD, melds)) == hash(Action.knock(KD))
    assert Action.knock(KD) != Action.discard(KD)
    assert Action.discard(KD) != Action.discard(Card.parse("Kh"))
    assert Action.knock(KD, melds) in [Action.discard(KD), Action.knock(KD)]


@pytest.mark.parametrize(
    "build",
    [
        lambda: Action(ActionKind.DISCARD),
        lambda: Action(ActionKind.KNOCK),
        lambda: Action(ActionKind.PASS, KD),
        lambda: Action(ActionKind.DRAW_STOCK, KD),
        lambda: Action(ActionKind.DISCARD, KD, ((KD,),)),
        lambda: Action("discard", KD),  # type: ignore[arg-type]
        lambda: Action(ActionKind.KNOCK, KD, [[KD]]),  # type: ignore[arg-type]
    ],
)
def test_malformed_actions_are_rejected(build: object) -> None:
    with pytest.raises(ValueError):
        build()  # type: ignore[operator]


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "not an action"),
        ("draw", "not an action"),
        ("fold", "not an action"),
        ("knock", "needs the card"),
        ("pass Kd", "takes no card"),
        ("discard Zz", "'Zz'"),
        ("discard Kd Qd", "not an action"),
        ("knock Kd [As 2s", "not an action"),
        ("knock Kd [As Xx 3s]", "'Xx'"),
        ("discard Kd [As 2s 3s]", "only a knock may declare melds"),
    ],
)
def test_parse_errors_name_the_problem(text: str, fragment: str) -> None:
    with pytest.raises(ActionParseError) as caught:
        Action.parse(text)
    assert fragment in str(caught.value)
    assert isinstance(caught.value, ValueError)


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        ("pass", "JSON object"),
        ({"kind": "fold"}, "unknown action kind"),
        ({"kind": "discard"}, "needs the card"),
        ({"kind": "discard", "card": 7}, "must be text"),
        ({"kind": "discard", "card": "Kd", "extra": 1}, "unknown action fields"),
        ({"kind": "knock", "card": "Kd", "melds": "As 2s 3s"}, "list of lists"),
        ({"kind": "knock", "card": "Kd", "melds": ["As"]}, "list of cards"),
    ],
)
def test_from_dict_errors_name_the_problem(data: object, fragment: str) -> None:
    with pytest.raises(ActionParseError) as caught:
        Action.from_dict(data)
    assert fragment in str(caught.value)


def test_constructors_and_kind_text() -> None:
    assert Action.pass_().kind is ActionKind.PASS
    assert ActionKind.DRAW_STOCK.text == "draw stock"
    assert issubclass(IllegalActionError, ValueError)
    assert Action.discard(KD).to_dict() == {"kind": "discard", "card": "Kd"}
    assert Action.draw_stock().to_dict() == {"kind": "draw_stock"}
