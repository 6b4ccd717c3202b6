"""Engine details pinned by hand-made fixtures, one per mutant that the other engine
tests let through (docs/testing.md, "Mutation testing"). Every expected value is
written by hand from the rules (docs/rules.md) or from the documented message texts."""

from __future__ import annotations

import pytest

from engine import ALL_CARDS, CLASSIC, FRIENDLY, Card, Deal, Hand, Profile, observe, parse_cards
from engine.actions import Action, ActionKind, ActionParseError, IllegalActionError
from engine.cards import DuplicateCardError
from engine.dealing import derive_seed
from engine.hand import Move
from engine.hand_result import HandResult
from engine.knock_cards import cannot_knock
from engine.melds import hand_mask
from engine.observation import Observation
from engine.phase import Phase
from engine.scoresheet import ScoreSheet, ScoreSheetError
from engine.series import Series
from tests.helpers.deal_helpers import make_deal


def _sheet(scores: list[list[int]], winners: list[int | None]) -> dict[str, object]:
    return {"game_target": 100, "scores": scores,
            "opened": [[True, True, False], [True, False, False]],
            "game_winners": winners, "hands_won": [2, 1]}


def test_a_game_score_exactly_at_the_target_has_reached_it() -> None:
    # Exactly 100 in game A wins it (docs/rules.md#the-score-sheet: reaching the target wins).
    sheet = ScoreSheet.from_dict(_sheet([[100, 20, 0], [40, 0, 0]], [0, None, None]))
    assert [sheet.game_winner(game) for game in range(3)] == [0, None, None]
    with pytest.raises(ScoreSheetError, match=r"^game I reached the target but has no winner$"):
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


def test_an_observation_as_a_dict_writes_every_card_as_text() -> None:
    view = Observation(
        seat=1, hand_number=3, dealer=0, current_player=None, phase=Phase.OVER,
        hand=tuple(parse_cards("As 2s 3s")), discard_pile=tuple(parse_cards("Kd 9c")),
        stock_size=17, opponent_hand_size=10, opponent_known_cards=tuple(parse_cards("Th")),
        taken_card=Card.parse("9c"), banned_discard=Card.parse("9c"),
        knock_discard=Card.parse("Qh"),
        scores=((25, 0, 0), (10, 40, 0)), opened=((True, False, False), (True, True, False)),
        game_winners=(None, 1, None), hands_won=(1, 2), profile=FRIENDLY, max_hands=50,
        last_hand_result={"kind": "knock", "laid_off": ("4s",), "seats": {0: 7}},
    )
    data = view.to_dict()
    assert data.pop("profile")["name"] == "friendly"
    assert data == {
        "seat": 1, "hand_number": 3, "dealer": 0, "current_player": None, "phase": "over",
        "hand": ["As", "2s", "3s"], "discard_pile": ["Kd", "9c"], "stock_size": 17,
        "opponent_hand_size": 10, "opponent_known_cards": ["Th"], "taken_card": "9c",
        "banned_discard": "9c", "knock_discard": "Qh",
        "scores": [[25, 0, 0], [10, 40, 0]], "opened": [[True, False, False], [True, True, False]],
        "game_winners": [None, 1, None], "hands_won": [1, 2], "max_hands": 50,
        "last_hand_result": {"kind": "knock", "laid_off": ["4s"], "seats": {"0": 7}},
    }


@pytest.mark.parametrize("melds", [
    [tuple(parse_cards("As 2s 3s"))],  # a list, not a tuple
    (tuple(parse_cards("As 2s 3s")), ["9c", "9d", "9h"]),  # a meld that is a list
    ((Card.parse("As"), "2s", Card.parse("3s")),),  # a tuple holding text
])
def test_a_knock_refuses_melds_that_are_not_tuples_of_cards(melds: object) -> None:
    with pytest.raises(ValueError) as caught:
        Action(ActionKind.KNOCK, Card.parse("Kd"), melds)  # type: ignore[arg-type]
    assert str(caught.value) == "melds must be a tuple of tuples of cards"


# Seat 1 draws the 9d and knocks with the Kc: melds As-2s-3s, 4h-5h-6h, 7c-7d-7h and 9
# deadwood; seat 0 holds no meld and nothing to lay off: 2+3+10+4+5+8+9+10+8+10 = 69.
KNOCKER_CARDS = "As 2s 3s 4h 5h 6h 7c 7d 7h Kc"
DEFENDER_CARDS = "2c 3c 5d 8d 9h Jh Js Tc 4d 8s"
DEFENDER_EXPOSED = {
    "cards": ["2c", "3c", "Tc", "4d", "5d", "8d", "9h", "Jh", "8s", "Js"],
    "melds": [],
    "deadwood_cards": ["2c", "3c", "Tc", "4d", "5d", "8d", "9h", "Jh", "8s", "Js"],
    "deadwood": 69,
}


def knocked_result(profile: Profile) -> HandResult:
    hand = Hand(make_deal(DEFENDER_CARDS, KNOCKER_CARDS, "Qd", "9d"), dealer=0, profile=profile)
    for text in ("pass", "pass", "draw stock", "knock Kc"):
        hand.apply(Action.parse(text))
    assert hand.result is not None
    return hand.result


@pytest.mark.parametrize(("profile", "seen_by"), [(FRIENDLY, ["", "Kc"]), (CLASSIC, ["Kc", "Kc"])])
def test_after_a_knock_each_seat_learns_both_hands_and_the_discard_if_it_may(
    profile: Profile, seen_by: list[str]
) -> None:
    result = knocked_result(profile)
    for seat in (0, 1):
        data = result.public_dict(seat)
        exposed = data.pop("exposed")
        assert data == {"hand": 1, "dealer": 0, "kind": "knock", "winner": 1, "points": 60,
                        "knocker": 1, "knock_discard": seen_by[seat] or None, "layoffs": [],
                        "defender_deadwood_before_layoffs": 69}
        assert exposed[0] == DEFENDER_EXPOSED
        assert exposed[1]["cards"] == ["7c", "7d", "9d", "4h", "5h", "6h", "7h", "As", "2s", "3s"]
        assert sorted(exposed[1]["melds"]) == [["4h", "5h", "6h"], ["7c", "7d", "7h"],
                                               ["As", "2s", "3s"]]
        assert (exposed[1]["deadwood_cards"], exposed[1]["deadwood"]) == (["9d"], 9)


def test_after_a_dead_hand_nothing_is_exposed() -> None:
    hand = Hand(make_deal(DEFENDER_CARDS, KNOCKER_CARDS, "Qd"), dealer=1, profile=FRIENDLY)
    hand.apply(Action.parse("pass"))
    hand.apply(Action.parse("pass"))
    while not hand.is_over:
        hand.apply(Action.parse("draw stock"))
        hand.apply(Action.parse(f"discard {hand.moves[-1].drawn}"))
    assert hand.result is not None
    for seat in (0, 1):
        assert hand.result.public_dict(seat) == {
            "hand": 1, "dealer": 1, "kind": "dead", "winner": None, "points": 0,
            "knocker": None, "knock_discard": None, "exposed": [], "layoffs": [],
            "defender_deadwood_before_layoffs": None}
    assert (hand.result.melds(0), hand.result.deadwood_cards(1), hand.result.deadwood(0)) == (
        (), (), None)


def test_an_unknown_kind_in_a_dict_is_named() -> None:
    with pytest.raises(ActionParseError) as caught:
        Action.from_dict({"kind": "fold", "card": "Kd"})
    assert str(caught.value) == "unknown action kind: 'fold'"


def test_an_action_kind_must_be_an_action_kind() -> None:
    with pytest.raises(ValueError) as caught:
        Action("knock", Card.parse("Kd"))  # type: ignore[arg-type]
    assert str(caught.value) == "action kind must be an ActionKind, got 'knock'"


def fresh_hand() -> Hand:
    return Hand(make_deal(DEFENDER_CARDS, KNOCKER_CARDS, "Qd"), dealer=0, profile=FRIENDLY)


@pytest.mark.parametrize("seat", [2, -1, True])
def test_only_seats_0_and_1_observe(seat: object) -> None:
    with pytest.raises(ValueError) as caught:
        observe(fresh_hand(), seat)  # type: ignore[arg-type]
    assert str(caught.value) == f"seat must be 0 or 1, got {seat!r}"


def test_an_observation_shows_each_seats_own_line_of_the_sheet() -> None:
    sheet = ScoreSheet(100)
    sheet.record_win(0, 25)  # seat 0 wins a hand: 25 in game I
    view = observe(fresh_hand(), 1, sheet)
    assert view.scores == ((25, 0, 0), (0, 0, 0))
    assert view.opened == ((True, False, False), (False, False, False))
    assert view.hands_won == (1, 0)
    assert view.game_winners == (None, None, None)
    assert view.max_hands == 200  # the default hand cap (docs/rules.md#hand-cap)


def test_an_observation_shows_each_games_own_winner() -> None:
    sheet = ScoreSheet.from_dict({
        "game_target": 100, "scores": [[100, 0, 0], [30, 100, 0]],
        "opened": [[True, False, False], [True, True, False]],
        "game_winners": [0, 1, None], "hands_won": [1, 2]})
    assert observe(fresh_hand(), 0, sheet).game_winners == (0, 1, None)


def test_a_layoff_is_listed_with_the_meld_it_extends() -> None:
    # Seat 1 knocks with the Kc (melds As-2s-3s, 4h-5h-6h, 7c-7d-7s; 9d deadwood);
    # seat 0 lays the 7h off on 4h-5h-6h: deadwood 2+3+5+8+9+10+10+10+4+7 = 68 before,
    # 61 after, so the knocker scores 61 - 9 = 52.
    hand = Hand(make_deal("2c 3c 5d 8d 9h Jh Js Tc 4d 7h", "As 2s 3s 4h 5h 6h 7c 7d 7s Kc",
                          "Qd", "9d"), dealer=0, profile=FRIENDLY)
    for text in ("pass", "pass", "draw stock", "knock Kc"):
        hand.apply(Action.parse(text))
    assert hand.result is not None
    for data in (hand.result.to_dict(), hand.result.public_dict(0)):
        melds = data["exposed"][1]["melds"]
        assert data["layoffs"] == [{"meld_index": melds.index(["4h", "5h", "6h"]), "cards": ["7h"]}]
        assert data["defender_deadwood_before_layoffs"] == 68
        assert data["exposed"][0]["deadwood"] == 61 and data["points"] == 52


def test_a_deal_of_anything_but_52_distinct_cards_is_refused_saying_why() -> None:
    deck = list(ALL_CARDS)
    hands = (tuple(deck[:10]), tuple(deck[10:20]))
    with pytest.raises(ValueError) as caught:
        Deal(hands, "Kd", tuple(deck[21:]))  # type: ignore[arg-type]
    assert str(caught.value) == "a deal must consist of Card values"
    with pytest.raises(ValueError) as caught:
        Deal(hands, deck[0], tuple(deck[21:]))  # the first card twice, one card missing
    assert str(caught.value) == "a deal must hold each of the 52 cards exactly once"


def test_a_seed_that_is_not_an_int_is_refused_naming_its_type() -> None:
    with pytest.raises(TypeError) as caught:
        derive_seed("7", "hand:1")  # type: ignore[arg-type]
    assert str(caught.value) == "a seed must be an int, got str"


def test_a_knock_is_settled_under_the_hands_own_profile() -> None:
    # docs/rules.md#gin: seat 0 goes gin (Kd discarded); seat 1's deadwood is 18. With a gin
    # bonus of 31 instead of the friendly 25, the hand is worth 31 + 18 = 49.
    profile = FRIENDLY.derive(gin_bonus=31)
    hand = Hand(make_deal("4h 5h 6h 9c 9d 9s Ac 2c 3c Kd", "Tc Jc Qc 5d 6d 7d Ks 3s 2d 3h",
                          "8s", "7h"), dealer=1, profile=profile)
    for text in ("pass", "pass", "draw stock", "knock Kd"):
        hand.apply(Action.parse(text))
    assert hand.result is not None
    assert (hand.result.kind, hand.result.winner, hand.result.points) == ("gin", 0, 49)


def test_after_a_knock_the_hand_records_the_knocker_and_keeps_what_it_knows() -> None:
    # Seat 1 takes the upcard Qd (now known to seat 0) and knocks with the Kc, keeping
    # the Qd as its 10 deadwood.
    hand = Hand(make_deal(DEFENDER_CARDS, KNOCKER_CARDS, "Qd", "9d"), dealer=0, profile=CLASSIC)
    hand.apply(Action.parse("draw discard"))
    assert hand.taken_card == Card.parse("Qd")
    hand.apply(Action.parse("knock Kc"))
    assert hand.knocker == 1
    assert hand.moves[-1] == Move(1, Action.parse("knock Kc"))
    assert hand.known_cards(1) == [Card.parse("Qd")]
    assert hand.taken_card is None


def test_each_move_names_its_seat_and_every_card_taken_from_the_pile_stays_known() -> None:
    # Seat 1 takes the upcard Qd and discards the Kc; seat 0 draws the 9d and throws it;
    # seat 1 takes the 9d too: seat 1 is now known to hold both pile cards.
    hand = Hand(make_deal(DEFENDER_CARDS, KNOCKER_CARDS, "Qd", "9d"), dealer=0, profile=CLASSIC)
    for text in ("draw discard", "discard Kc", "draw stock", "discard 9d", "draw discard"):
        hand.apply(Action.parse(text))
    qd, nd = Card.parse("Qd"), Card.parse("9d")
    assert hand.moves == [
        Move(1, Action.parse("draw discard"), qd), Move(1, Action.parse("discard Kc")),
        Move(0, Action.parse("draw stock"), nd), Move(0, Action.parse("discard 9d")),
        Move(1, Action.parse("draw discard"), nd),
    ]
    assert hand.known_cards(1) == [nd, qd]
    assert hand.known_cards(0) == []


def _refusal(hand: Hand, text: str) -> str:
    with pytest.raises(IllegalActionError) as caught:
        hand.apply(Action.parse(text))
    return str(caught.value)


def test_each_illegal_draw_or_pass_is_refused_with_its_whole_reason() -> None:
    hand = fresh_hand()
    assert _refusal(hand, "draw stock") == (
        "illegal action draw stock: during the upcard offer the only choices are to take "
        "the upcard (draw discard) or pass")
    hand.apply(Action.parse("pass"))
    hand.apply(Action.parse("pass"))
    assert _refusal(hand, "draw discard") == (
        "illegal action draw discard: after both players passed the upcard, the first draw "
        "is from the stock")
    assert _refusal(hand, "pass") == (
        "illegal action pass: pass is only legal during the upcard offer")


def test_an_action_after_the_hand_is_over_is_refused_saying_so() -> None:
    hand = Hand(make_deal(DEFENDER_CARDS, KNOCKER_CARDS, "Qd", "9d"), dealer=0, profile=FRIENDLY)
    for text in ("pass", "pass", "draw stock", "knock Kc"):
        hand.apply(Action.parse(text))
    assert _refusal(hand, "draw stock") == "the hand is over: no action is legal"


def test_the_knock_pre_check_discards_the_largest_loose_card_in_any_suit() -> None:
    # Melds 4h-5h-6h, 7c-8c-9c, Jd-Qd-Kd; loose Ks (10) and 9h (9). Discarding the Ks
    # leaves 9 deadwood, within a knock limit of 9: the cheap check must not rule it out.
    mask = sum(card.bit for card in parse_cards("4h 5h 6h 7c 8c 9c Jd Qd Kd Ks 9h"))
    assert cannot_knock(mask, 9) is False
    assert cannot_knock(mask, 8) is True  # 19 - 10 = 9 > 8


def test_a_fresh_hand_has_no_knocker_and_no_taken_card() -> None:
    hand = fresh_hand()
    assert hand.knocker is None
    assert hand.taken_card is None
    assert hand.banned_discard is None  # FRIENDLY bans only a card actually taken


def test_an_action_after_the_series_is_over_is_refused_saying_so() -> None:
    # A one-hand cap: both players pass, then throw every card they draw until the
    # hand is dead, which ends the series.
    series = Series(7, max_hands=1)
    series.apply(Action.parse("pass"))
    series.apply(Action.parse("pass"))
    while not series.is_over:
        series.apply(Action.parse("draw stock"))
        series.apply(Action.parse(f"discard {series.hand.moves[-1].drawn}"))
    with pytest.raises(IllegalActionError) as caught:
        series.apply(Action.parse("pass"))
    assert str(caught.value) == "the series is over: no action is legal"


def test_a_repeated_card_in_a_hand_mask_names_the_card_as_its_token() -> None:
    with pytest.raises(DuplicateCardError) as error:
        hand_mask([Card.parse("7d"), Card.parse("As"), Card.parse("7d")])
    assert str(error.value) == "duplicate card: 7d"
    assert error.value.token == "7d"
