"""Conversion between the engine's values and ``hollywood.bot.v1`` messages.

Outgoing: observation, legal actions, profile, hand and series results. Incoming:
the bot's action, validated field by field so that every defect gives a
:class:`~arena.faults.BotFault` naming the field (MALFORMED) or the action
(ILLEGAL_ACTION).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from hollywood.bot.v1 import bot_pb2

from arena.faults import BotFault, FaultKind
from engine.actions import Action, ActionKind
from engine.cards import Card, CardParseError

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
    return Action(kind, card, melds)


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
    action = action_from_proto(reply.action)
    if action not in legal_actions:
        raise BotFault(
            FaultKind.ILLEGAL_ACTION,
            f"'{action}' is not legal here; legal: {describe_actions(legal_actions)}",
        )
    return action


# ------------------------------------------------------------------ requests


def _field(source: Any, name: str) -> Any:
    """``source[name]`` for mappings, ``source.name`` otherwise."""
    if isinstance(source, Mapping):
        return source[name]
    return getattr(source, name)


def profile_to_proto(profile: Any, max_hands: int) -> bot_pb2.RuleProfile:
    """The rule profile as sent to bots (``profile`` is an engine ``Profile``)."""
    data: dict[str, Any] = profile.to_dict()
    return bot_pb2.RuleProfile(
        name=str(data.get("name", "")),
        knock_limit=int(data.get("knock_limit", 10)),
        gin_bonus=int(data.get("gin_bonus", 25)),
        undercut_bonus=int(data.get("undercut_bonus", 25)),
        game_target=int(data.get("game_target", 100)),
        no_discard_of_taken_card=bool(
            data.get("no_discard_of_taken_card", not data.get("may_discard_taken_card", False))
        ),
        dead_hand_stock=int(data.get("dead_hand_stock", 2)),
        max_hands=max_hands,
        profile_json=json.dumps(data, sort_keys=True, separators=(",", ":")),
    )


def sheet_to_proto(sheet: Any) -> bot_pb2.ScoreSheet:
    """The score sheet, from the engine's ``ScoreSheet`` or its ``to_dict()`` form."""
    data = sheet.to_dict() if hasattr(sheet, "to_dict") else sheet
    scores = _field(data, "scores")
    hands_won = _field(data, "hands_won")
    winners = _field(data, "game_winners")
    return bot_pb2.ScoreSheet(
        players=[
            bot_pb2.PlayerSheet(game_scores=list(scores[seat]), hands_won=hands_won[seat])
            for seat in (0, 1)
        ],
        games=[
            bot_pb2.GameStatus(finished=winner is not None, winner=winner)
            if winner is not None
            else bot_pb2.GameStatus(finished=False)
            for winner in winners
        ],
    )
