"""arena.match.protocol: engine values <-> hollywood.bot.v1 messages."""

from __future__ import annotations

import json

from hollywood.bot.v1 import bot_pb2

from arena.match import protocol
from engine.actions import Action, ActionKind
from engine.cards import Card, parse_cards
from engine.hand_result import HandResult
from engine.profiles import CLASSIC, FRIENDLY
from engine.scoresheet import ScoreSheet
from engine.settle import settle


def test_actions_round_trip_through_the_wire_form() -> None:
    melds = (tuple(parse_cards("As 2s 3s")),)
    actions = [
        Action.draw_stock(), Action.draw_discard(), Action.pass_(),
        Action.discard(Card.parse("Td")), Action.knock(Card.parse("Kd"), melds),
    ]
    for action in actions:
        wire = protocol.action_to_proto(action)
        decoded = protocol.action_from_proto(bot_pb2.Action.FromString(wire.SerializeToString()))
        assert decoded == action and decoded.melds == action.melds
    assert protocol.action_to_proto(actions[3]).card == "Td"
    assert protocol.action_to_proto(actions[0]).kind == bot_pb2.ACTION_KIND_DRAW_STOCK


def test_every_engine_action_kind_has_a_protocol_kind() -> None:
    assert {protocol.action_to_proto(Action(kind, Card.parse("As") if kind in (
        ActionKind.DISCARD, ActionKind.KNOCK) else None)).kind for kind in ActionKind} == {
        bot_pb2.ACTION_KIND_DRAW_STOCK, bot_pb2.ACTION_KIND_DRAW_DISCARD, bot_pb2.ACTION_KIND_PASS,
        bot_pb2.ACTION_KIND_DISCARD, bot_pb2.ACTION_KIND_KNOCK}


def test_profiles_carry_the_switches_bots_need() -> None:
    friendly = protocol.profile_to_proto(FRIENDLY, max_hands=200)
    classic = protocol.profile_to_proto(CLASSIC, max_hands=50)
    assert (friendly.name, friendly.undercut_bonus, friendly.no_discard_of_taken_card) == (
        "friendly", 25, True)
    assert (classic.name, classic.undercut_bonus, classic.no_discard_of_taken_card) == (
        "classic", 10, False)
    assert classic.max_hands == 50 and friendly.knock_limit == 10 and friendly.game_target == 100
    assert json.loads(classic.profile_json) == CLASSIC.to_dict()
    assert (friendly.winner_deals_next, friendly.dead_hand_redeal_same_dealer,
            friendly.knock_discard_face_down) == (False, False, True)
    assert (classic.winner_deals_next, classic.dead_hand_redeal_same_dealer,
            classic.knock_discard_face_down) == (True, True, False)


def test_sheet_shows_scores_hands_won_and_finished_games() -> None:
    sheet = ScoreSheet()
    sheet.record_win(0, 30)
    sheet.record_win(0, 43)
    sheet.record_win(1, 12)
    sheet.record_win(0, 35)  # game I reaches 108: finished, won by seat 0
    wire = protocol.sheet_to_proto(sheet)
    assert list(wire.players[0].game_scores) == [108, 78, 35]
    assert list(wire.players[1].game_scores) == [12, 0, 0]
    assert [p.hands_won for p in wire.players] == [3, 1]
    assert [(g.finished, g.HasField("winner")) for g in wire.games] == [
        (True, True), (False, False), (False, False)]
    assert wire.games[0].winner == 0


def test_hand_end_after_a_knock_exposes_both_hands_and_layoffs() -> None:
    knocker = parse_cards("4h 5h 6h 9c 9d 9s Ac 2c 3c 2d")
    defender = parse_cards("7h 8h Kd Qd Js Ts 4d 5d 8s 3s")
    settlement = settle(knocker, defender, FRIENDLY)
    result = HandResult.knocked(4, 1, (tuple(knocker), tuple(defender)), 0,
                                Card.parse("Kc"), True, settlement)
    sheet = ScoreSheet()
    wire = protocol.hand_ended_request(result, 1, "s-9", sheet)
    assert (wire.series_id, wire.hand_number, wire.seat, wire.knocker) == ("s-9", 4, 1, 0)
    assert wire.outcome == protocol.HAND_OUTCOMES[settlement.kind]
    assert wire.points == settlement.points and wire.winner == result.winner
    assert list(wire.hands[0].cards) == [str(c) for c in knocker]
    assert wire.hands[0].deadwood == 2
    laid = sorted(layoff.card for layoff in wire.layoffs)
    assert laid == ["7h", "8h"]  # onto the knocker's 4h-5h-6h run
    assert wire.knock_discard == ""  # face down: the defender never sees it
    assert "Kc" not in wire.SerializeToString().decode("latin-1")
    assert protocol.hand_ended_request(result, 0, "s-9", sheet).knock_discard == "Kc"


def test_a_dead_hand_reveals_no_cards() -> None:
    hands = (tuple(parse_cards("4h 5h 6h 9c 9d 9s Ac 2c 3c 2d")),
             tuple(parse_cards("7h 8h Kd Qd Js Ts 4d 5d 8s 3s")))
    wire = protocol.hand_ended_request(HandResult.dead(7, 0, hands), 0, "s", ScoreSheet())
    assert wire.outcome == bot_pb2.HAND_OUTCOME_DEAD
    assert not wire.hands and not wire.layoffs and not wire.HasField("winner")


def test_a_knock_during_the_upcard_offer_is_illegal_even_with_melds() -> None:
    import pytest

    from arena.core.faults import BotFault, FaultKind
    from engine import Series

    series = Series(seed=1)
    knock = bot_pb2.Action(kind=bot_pb2.ACTION_KIND_KNOCK, card="Kd", melds=[bot_pb2.Meld()])
    assert protocol.action_from_proto(knock).melds == ((),)
    with pytest.raises(BotFault) as caught:
        protocol.action_from_reply(bot_pb2.DecideResponse(action=knock), series.legal_actions())
    assert caught.value.kind is FaultKind.ILLEGAL_ACTION
    assert caught.value.message == "'knock Kd []' is not legal here; legal: draw discard, pass"
