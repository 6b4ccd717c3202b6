"""Fewer conversions per decision, same answers (issue 29 point 4).

Both sides of a decision keep what recurs instead of converting it again: the
arena names a bot's answer by the legal action it matches (no card parsing, no
new ``Action``) and the SDK shares the views of meld-less legal actions, the rule
profile and the score sheet between decisions. These tests hold the fast paths
to the reference ones: the arena's against decoding every reply in full on
random replies, good and bad; the SDK's against the engine's own values over whole
series, two profiles interleaved so that a view kept from one would show.
"""

from __future__ import annotations

import random

import pytest
from hollywood.bot.v1 import bot_pb2
from hollywood_sdk.views import Action as SdkAction
from hollywood_sdk.views import Observation as SdkObservation

from arena.core.faults import BotFault, FaultKind
from arena.match import protocol
from engine.actions import Action, ActionKind
from engine.cards import ALL_CARDS
from engine.melds import best_discards
from engine.profiles import get_profile
from engine.series import Series


def reference_action_from_reply(reply: bot_pb2.DecideResponse, legal: list[Action]) -> Action:
    """The whole decoding, as the arena did it for every reply."""
    if not reply.HasField("action"):
        raise BotFault(FaultKind.MALFORMED, "DecideResponse.action is missing")
    action = protocol.action_from_proto(reply.action)
    if action not in legal:
        raise BotFault(FaultKind.ILLEGAL_ACTION, f"'{action}' is not legal here; legal: "
                       f"{protocol.describe_actions(legal)}")
    return action


def outcome(call: object, *args: object) -> tuple[str, object, object]:
    try:
        action = call(*args)  # type: ignore[operator]
    except BotFault as fault:
        return ("fault", fault.kind, fault.message)
    assert isinstance(action, Action)
    return ("action", action, action.melds)


def random_replies(rng: random.Random, legal: list[Action]) -> list[bot_pb2.DecideResponse]:
    texts = ["", "10d", "as", "Zz", " Kd", *(str(rng.choice(ALL_CARDS)) for _ in range(3))]
    replies = [bot_pb2.DecideResponse(action=protocol.action_to_proto(action))
               for action in legal]
    replies.append(bot_pb2.DecideResponse())
    for _ in range(12):
        action = bot_pb2.Action(kind=rng.randrange(7), card=rng.choice(texts))
        if rng.random() < 0.2:
            action.melds.add(cards=[str(card) for card in rng.sample(ALL_CARDS, 3)])
        replies.append(bot_pb2.DecideResponse(action=action))
    return replies


def test_the_arena_names_answers_as_the_full_decoding_does() -> None:
    rng = random.Random(2907)
    checked = 0
    for seed in range(6):
        series = Series(seed, get_profile("classic" if seed % 2 else "friendly"))
        while series.current_player is not None and series.hand_number <= 3:
            legal = series.legal_actions()
            for reply in random_replies(rng, legal):
                assert outcome(protocol.action_from_reply, reply, legal) == outcome(
                    reference_action_from_reply, reply, legal), reply
                checked += 1
            series.apply(rng.choice(legal))
    assert checked > 2_000


def test_an_answer_named_in_another_spelling_is_still_the_legal_action() -> None:
    series = Series(3)
    legal = series.legal_actions()
    discard = next((a for a in legal if a.card is not None), None)
    if discard is None:  # the upcard offer: play on to a discard decision
        while not any(a.card is not None for a in series.legal_actions()):
            series.apply(series.legal_actions()[0])
        legal = series.legal_actions()
        discard = next(a for a in legal if a.card is not None)
    assert discard.card is not None
    lower = str(discard.card).lower()
    reply = bot_pb2.DecideResponse(action=bot_pb2.Action(
        kind=bot_pb2.ACTION_KIND_DISCARD, card=lower))
    assert protocol.action_from_reply(reply, legal) == discard
    stock = bot_pb2.DecideResponse(action=bot_pb2.Action(
        kind=bot_pb2.ACTION_KIND_DRAW_STOCK, card="garbage"))
    with pytest.raises(BotFault, match="card must be empty for a draw stock"):
        protocol.action_from_reply(stock, [Action.draw_stock()])


def sdk_view_matches_the_engine(series: Series, request: bot_pb2.DecideRequest,
                                legal: list[Action]) -> None:
    seat = series.current_player
    assert seat is not None
    engine_view = series.observation(seat)
    view = SdkObservation.from_proto(request)
    assert [str(card) for card in view.hand] == [str(card) for card in engine_view.hand]
    assert [str(action) for action in view.legal_actions] == [str(a) for a in legal]
    assert view.sheet.scores == tuple(tuple(row) for row in engine_view.scores)
    assert view.sheet.hands_won == tuple(engine_view.hands_won)
    assert view.sheet.game_winner == tuple(engine_view.game_winners)
    assert (view.profile.name, view.profile.knock_limit, view.profile.game_target) == (
        series.profile.name, series.profile.knock_limit, series.profile.game_target)
    assert view.profile.raw == series.profile.to_dict()


def knocking_player(series: Series, legal: list[Action], rng: random.Random) -> Action:
    """Knocks when it may, else discards towards the least deadwood: hands end with
    points, so the sheet changes."""
    knocks = [action for action in legal if action.kind is ActionKind.KNOCK]
    if knocks:
        return knocks[0]
    seat = series.current_player
    assert seat is not None
    hand = series.observation(seat).hand
    if len(hand) == 11:
        _, cards = best_discards(list(hand))
        for action in legal:
            if action.kind is ActionKind.DISCARD and action.card in cards:
                return action
    return rng.choice(legal)


def test_sdk_views_follow_the_series_through_hands_and_profiles() -> None:
    """Two series with different profiles, decision by decision in turn: a profile
    or sheet view kept past its message would show in the other series."""
    rng = random.Random(2908)
    both = [Series(11, get_profile("friendly")), Series(12, get_profile("classic"))]
    profiles = [protocol.profile_to_proto(series.profile, 200) for series in both]
    decisions = 0
    while any(series.current_player is not None and series.hand_number <= 8
              for series in both):
        for series, profile in zip(both, profiles, strict=True):
            seat = series.current_player
            if seat is None or series.hand_number > 8:
                continue
            legal = series.legal_actions()
            request = protocol.decide_request(
                series.observation(seat), legal, profile, series_id="s",
                decision_number=decisions, decision_s=1.0, reserve_s=30.0)
            sdk_view_matches_the_engine(series, request, legal)
            series.apply(knocking_player(series, legal, rng))
            decisions += 1
    assert decisions > 200
    assert any(sum(row) for series in both for row in series.sheet.to_dict()["scores"])


def test_sdk_actions_without_melds_are_shared_and_melds_are_never_kept() -> None:
    plain = bot_pb2.Action(kind=bot_pb2.ACTION_KIND_KNOCK, card="Kd")
    with_melds = bot_pb2.Action(kind=bot_pb2.ACTION_KIND_KNOCK, card="Kd",
                                melds=[bot_pb2.Meld(cards=["As", "2s", "3s"])])
    first = SdkAction.from_proto(plain)
    assert SdkAction.from_proto(plain) is first
    declared = SdkAction.from_proto(with_melds)
    assert [[str(card) for card in meld] for meld in declared.melds] == [["As", "2s", "3s"]]
    assert SdkAction.from_proto(plain).melds == ()
    assert str(first) == "knock Kd"
