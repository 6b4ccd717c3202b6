"""Conversion between the engine's values and ``hollywood.bot.v1`` messages.

Outgoing: observation, legal actions, profile, hand and series results. Incoming:
the bot's action, validated field by field so that every defect gives a
:class:`~arena.core.faults.BotFault` naming the field (MALFORMED) or the action
(ILLEGAL_ACTION).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Final

from hollywood.bot.v1 import bot_pb2

from arena.core.faults import BotFault, FaultKind
from engine.actions import Action, ActionKind
from engine.cards import ALL_CARDS, Card, CardParseError
from engine.profiles import Profile
from engine.scoresheet import ScoreSheet

if TYPE_CHECKING:
    from engine.hand_result import HandResult
    from engine.observation import Observation
    from engine.series import SeriesResult

PROTOCOL_VERSION: Final = bot_pb2.PROTOCOL_VERSION_1
"""The protocol version the arena speaks (``hollywood.bot.v1.PROTOCOL_VERSION_1``)."""

_KIND_TO_PROTO: Final[dict[ActionKind, bot_pb2.ActionKind.ValueType]] = {
    ActionKind.DRAW_STOCK: bot_pb2.ACTION_KIND_DRAW_STOCK,
    ActionKind.DRAW_DISCARD: bot_pb2.ACTION_KIND_DRAW_DISCARD,
    ActionKind.PASS: bot_pb2.ACTION_KIND_PASS,
    ActionKind.DISCARD: bot_pb2.ACTION_KIND_DISCARD,
    ActionKind.KNOCK: bot_pb2.ACTION_KIND_KNOCK,
}
_KIND_FROM_PROTO: Final = {number: kind for kind, number in _KIND_TO_PROTO.items()}
_CARD_KINDS: Final = frozenset({ActionKind.DISCARD, ActionKind.KNOCK})
_CARD_BY_TEXT: Final = {str(card): card for card in ALL_CARDS}
"""The canonical text of each card (what the SDKs send back) to the card."""
_LEGAL_LIST_SHOWN: Final = 12

PHASES: Final[dict[str, bot_pb2.Phase.ValueType]] = {
    "upcard_offer": bot_pb2.PHASE_UPCARD_OFFER,
    "draw": bot_pb2.PHASE_DRAW,
    "discard": bot_pb2.PHASE_DISCARD,
}
HAND_OUTCOMES: Final[dict[str, bot_pb2.HandOutcome.ValueType]] = {
    "dead": bot_pb2.HAND_OUTCOME_DEAD,
    "knock": bot_pb2.HAND_OUTCOME_KNOCK,
    "gin": bot_pb2.HAND_OUTCOME_GIN,
    "undercut": bot_pb2.HAND_OUTCOME_UNDERCUT,
}


def cards_text(cards: Iterable[Card | str]) -> list[str]:
    """Cards in protocol notation (``"As"``)."""
    return [str(card) for card in cards]


# ------------------------------------------------------------------ actions


def action_to_proto(action: Action) -> bot_pb2.Action:
    """An engine action as a protocol ``Action`` (melds included when declared)."""
    return bot_pb2.Action(
        kind=_KIND_TO_PROTO[action.kind],
        card=str(action.card) if action.card is not None else "",
        melds=[bot_pb2.Meld(cards=cards_text(meld)) for meld in action.melds or ()],
    )


def _parse_reply_card(text: str, where: str) -> Card:
    try:
        return Card.parse(text)
    except CardParseError:
        raise BotFault(
            FaultKind.MALFORMED, f"{where} {text!r} is not a card (expected e.g. 'As', 'Td')"
        ) from None


def action_from_proto(message: bot_pb2.Action, where: str = "DecideResponse.action") -> Action:
    """Decode a bot's action, raising ``BotFault(MALFORMED)`` naming the bad field."""
    if message.kind == bot_pb2.ACTION_KIND_UNSPECIFIED:
        raise BotFault(FaultKind.MALFORMED, f"{where}.kind is missing (ACTION_KIND_UNSPECIFIED)")
    kind = _KIND_FROM_PROTO.get(message.kind)
    if kind is None:
        raise BotFault(FaultKind.MALFORMED, f"{where}.kind {message.kind} is not an ActionKind")
    card: Card | None = None
    if kind in _CARD_KINDS:
        if not message.card:
            raise BotFault(FaultKind.MALFORMED, f"{where}.card is missing for a {kind.text}")
        card = _parse_reply_card(message.card, f"{where}.card")
    elif message.card:
        raise BotFault(FaultKind.MALFORMED, f"{where}.card must be empty for a {kind.text}")
    melds: tuple[tuple[Card, ...], ...] | None = None
    if message.melds:
        if kind is not ActionKind.KNOCK:
            raise BotFault(FaultKind.MALFORMED, f"{where}.melds is only allowed on a knock")
        melds = tuple(
            tuple(
                _parse_reply_card(text, f"{where}.melds[{i}].cards[{j}]")
                for j, text in enumerate(meld.cards)
            )
            for i, meld in enumerate(message.melds)
        )
    try:
        return Action(kind, card, melds)
    except ValueError as error:  # defensive: the checks above should make this unreachable
        raise BotFault(FaultKind.MALFORMED, f"{where} is not a valid action: {error}") from None


def describe_actions(actions: Sequence[Action]) -> str:
    """A short list for error messages: ``"discard 7c, discard Kd, ... (14 in all)"``."""
    shown = ", ".join(str(action) for action in actions[:_LEGAL_LIST_SHOWN])
    if len(actions) > _LEGAL_LIST_SHOWN:
        shown += f", ... ({len(actions)} in all)"
    return shown


def action_from_reply(reply: bot_pb2.DecideResponse, legal_actions: Sequence[Action]) -> Action:
    """The engine action a ``DecideResponse`` names, checked against the legal list.

    MALFORMED for a missing or undecodable field, ILLEGAL_ACTION for a well-formed
    action that is not legal now (the message lists the legal ones).
    """
    if not reply.HasField("action"):
        raise BotFault(FaultKind.MALFORMED, "DecideResponse.action is missing")
    message = reply.action
    if not message.melds:  # the usual answer: a legal action named as it was sent
        text = message.card
        card = _CARD_BY_TEXT.get(text) if text else None
        kind = _KIND_FROM_PROTO.get(message.kind)
        if kind is not None and (card is not None or not text):
            for legal in legal_actions:
                if legal.kind is kind and legal.card is card:
                    return legal
    action = action_from_proto(message)
    if action not in legal_actions:
        raise BotFault(
            FaultKind.ILLEGAL_ACTION,
            f"'{action}' is not legal here; legal: {describe_actions(legal_actions)}",
            rejected_action=action.to_dict(),
        )
    return action


# ------------------------------------------------------------------ requests


def millis(seconds: float) -> int:
    """Seconds as whole milliseconds within a uint32 (a request's deadline and reserve)."""
    return max(0, min(int(seconds * 1000), 2**32 - 1))


def observation_to_proto(observation: Observation) -> bot_pb2.Observation:
    """One seat's view (docs/rules.md#hidden-information): built only from the
    engine's ``Observation``, which already holds nothing hidden."""
    return bot_pb2.Observation(
        seat=observation.seat,
        dealer=observation.dealer,
        phase=PHASES.get(observation.phase.value, bot_pb2.PHASE_UNSPECIFIED),
        hand=cards_text(observation.hand),
        discard_pile=cards_text(observation.discard_pile),
        stock_size=observation.stock_size,
        opponent_hand_size=observation.opponent_hand_size,
        opponent_known_cards=cards_text(observation.opponent_known_cards),
        taken_discard=str(observation.taken_card) if observation.taken_card else "",
        sheet=bot_pb2.ScoreSheet(
            players=[
                bot_pb2.PlayerSheet(
                    game_scores=observation.scores[seat], hands_won=observation.hands_won[seat]
                )
                for seat in (0, 1)
            ],
            games=[
                bot_pb2.GameStatus(finished=winner is not None, winner=winner)
                for winner in observation.game_winners
            ],
        ),
    )


def decide_request(
    observation: Observation,
    legal_actions: Sequence[Action],
    profile: bot_pb2.RuleProfile,
    *,
    series_id: str,
    decision_number: int,
    decision_s: float,
    reserve_s: float,
) -> bot_pb2.DecideRequest:
    """The ``DecideRequest`` for the observing seat. ``profile`` is built once per
    series with :func:`profile_to_proto`."""
    return bot_pb2.DecideRequest(
        series_id=series_id,
        hand_number=observation.hand_number,
        decision_number=decision_number,
        observation=observation_to_proto(observation),
        legal_actions=[action_to_proto(action) for action in legal_actions],
        profile=profile,
        deadline_ms=millis(decision_s),
        reserve_ms=millis(reserve_s),
    )


def profile_to_proto(profile: Profile, max_hands: int) -> bot_pb2.RuleProfile:
    """The rule profile as sent to bots, with the engine's full description as JSON."""
    return bot_pb2.RuleProfile(
        name=profile.name,
        knock_limit=profile.knock_limit,
        gin_bonus=profile.gin_bonus,
        undercut_bonus=profile.undercut_bonus,
        game_target=profile.game_target,
        no_discard_of_taken_card=profile.ban_discarding_taken_card,
        dead_hand_stock=profile.dead_hand_stock_size,
        max_hands=max_hands,
        profile_json=json.dumps(profile.to_dict(), sort_keys=True, separators=(",", ":")),
        winner_deals_next=profile.winner_deals_next,
        dead_hand_redeal_same_dealer=profile.dead_hand_redeal_same_dealer,
        knock_discard_face_down=profile.knock_discard_face_down,
    )


def sheet_to_proto(sheet: ScoreSheet) -> bot_pb2.ScoreSheet:
    """The Hollywood score sheet (docs/rules.md#the-score-sheet)."""
    data = sheet.to_dict()
    return bot_pb2.ScoreSheet(
        players=[
            bot_pb2.PlayerSheet(game_scores=data["scores"][seat], hands_won=data["hands_won"][seat])
            for seat in (0, 1)
        ],
        games=[
            bot_pb2.GameStatus(finished=winner is not None, winner=winner)
            for winner in data["game_winners"]
        ],
    )


def hand_ended_request(
    result: HandResult, seat: int, series_id: str, sheet: ScoreSheet
) -> bot_pb2.HandEndedRequest:
    """What ``seat`` learns when a hand ends: both exposed hands after a knock (none
    after a dead hand), the layoffs, the points and the sheet after the hand."""
    request = bot_pb2.HandEndedRequest(
        series_id=series_id,
        hand_number=result.hand_number,
        seat=seat,
        outcome=HAND_OUTCOMES[result.kind],
        knocker=result.knocker,
        winner=result.winner,
        points=result.points,
        sheet=sheet_to_proto(sheet),
    )
    if result.knock_discard is not None and (
        not result.knock_discard_face_down or seat == result.knocker
    ):
        request.knock_discard = str(result.knock_discard)
    if result.settlement is not None:
        for player in (0, 1):
            request.hands.append(
                bot_pb2.ExposedHand(
                    cards=cards_text(result.hands[player]),
                    melds=[bot_pb2.Meld(cards=cards_text(m)) for m in result.melds(player)],
                    deadwood_cards=cards_text(result.deadwood_cards(player)),
                    deadwood=result.deadwood(player) or 0,
                )
            )
        for layoff in result.settlement.layoffs:
            request.layoffs.extend(
                bot_pb2.Layoff(card=str(card), meld_index=layoff.meld_index)
                for card in layoff.cards
            )
    return request


def series_ended_request(
    result: SeriesResult | None,
    sheet: ScoreSheet,
    seat: int,
    series_id: str,
    *,
    hands_played: int,
    fault: BotFault | None = None,
) -> bot_pb2.SeriesEndedRequest:
    """The series result for ``seat``. After a forfeit (``fault`` set, ``result``
    None) the winner is the seat that did not fault."""
    request = bot_pb2.SeriesEndedRequest(
        series_id=series_id, seat=seat, sheet=sheet_to_proto(sheet), hands_played=hands_played
    )
    if fault is not None:
        request.end = bot_pb2.SERIES_END_FORFEIT
        if fault.seat is not None:
            request.fault_seat = fault.seat
            request.winner = 1 - fault.seat
        request.fault_kind = str(fault.kind)
        request.games_won.extend([sheet.games_won(0), sheet.games_won(1)])
    elif result is not None:
        request.end = bot_pb2.SERIES_END_HAND_CAP if result.capped else bot_pb2.SERIES_END_COMPLETE
        if result.winner is not None:
            request.winner = result.winner
        request.games_won.extend(result.games_won)
    return request
