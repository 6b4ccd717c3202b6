"""A hand's result as the log and the arena store it (engine.hand_result), checked on
hand-made hands with the values worked out by hand."""

from __future__ import annotations

from deal_helpers import action, make_deal

from engine import CLASSIC, FRIENDLY, Hand, Profile

KNOCKER = "As 2s 3s 4h 5h 6h 7c 7d 7h Kc"
DEFENDER = "2c 3c 5d 8d 9h Jh Js Tc 4d 8s"  # no meld, nothing to lay off: 69 deadwood


def knocked(profile: Profile) -> Hand:
    """Seat 1 draws 9d and knocks with Kc, keeping 9 deadwood."""
    hand = Hand(make_deal(DEFENDER, KNOCKER, "Qd", "9d"), dealer=0, profile=profile)
    for text in ("pass", "pass", "draw stock", "knock Kc"):
        hand.apply(action(text))
    return hand


def test_to_dict_of_a_knock_names_the_discard_and_how_it_lies() -> None:
    for profile, face_down in ((FRIENDLY, True), (CLASSIC, False)):
        result = knocked(profile).result
        assert result is not None
        data = result.to_dict()
        assert data["knock_discard"] == "Kc"
        assert data["knock_discard_face_down"] is face_down
        assert data["defender_deadwood_before_layoffs"] == 69
        assert data["layoffs"] == []
        # Seat 0 defended with no meld; seat 1 knocked with three melds and the 9d.
        assert [seat["deadwood"] for seat in data["exposed"]] == [69, 9]
        assert data["exposed"][1]["deadwood_cards"] == ["9d"]
        assert data["exposed"][0]["melds"] == []


def test_to_dict_of_a_dead_hand_has_no_knock_discard() -> None:
    hand = Hand(make_deal(DEFENDER, KNOCKER, "Qd"), dealer=0, profile=FRIENDLY)
    hand.apply(action("pass"))
    hand.apply(action("pass"))
    while not hand.is_over:
        hand.apply(action("draw stock"))
        seat = hand.current_player
        assert seat is not None
        drawn = hand.moves[-1].drawn
        hand.apply(action(f"discard {drawn}"))
    result = hand.result
    assert result is not None
    data = result.to_dict()
    assert data["knock_discard"] is None
    assert data["knock_discard_face_down"] is False
    assert data["defender_deadwood_before_layoffs"] is None
