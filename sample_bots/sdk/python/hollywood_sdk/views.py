"""Friendly, typed views of the protocol messages a bot receives and sends.

Views are frozen, so the parts of a ``DecideRequest`` that recur from one decision
to the next are made once and shared: a legal action without melds (one per kind
and card at most), the rule profile (the same for a whole series) and the score
sheet (the same for a whole hand). Building them anew was most of the time a
decision spent in the SDK.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Final, Generic, TypeVar

from hollywood.bot.v1 import bot_pb2

from .cards import Card, parse_cards
from .melds import best_discards, min_deadwood

UNFILLED: Final = "_unfilled"
"""An arena calling a bot in its own process may leave ``Observation`` fields unfilled
until one is read: its ``__dict__`` then holds, under this key, a callable that fills
the dict it is given (and removes itself)."""

_Message = TypeVar("_Message", bot_pb2.RuleProfile, bot_pb2.ScoreSheet)
_View = TypeVar("_View")


class _LastView(Generic[_Message, _View]):
    """The view of the last message converted, kept while the same message (by its
    bytes) comes again. The entry is replaced whole, so the server's threads may
    share it."""

    def __init__(self) -> None:
        self._last: tuple[bytes, _View] | None = None

    def view(self, message: _Message, build: Callable[[_Message], _View]) -> _View:
        key = message.SerializeToString(deterministic=True)
        last = self._last
        if last is not None and last[0] == key:
            return last[1]
        made = build(message)
        self._last = (key, made)
        return made


class ActionKind(StrEnum):
    """What a player can do (mirrors ``hollywood.bot.v1.ActionKind``)."""

    DRAW_STOCK = "draw_stock"
    DRAW_DISCARD = "draw_discard"
    PASS = "pass"
    DISCARD = "discard"
    KNOCK = "knock"


class Phase(StrEnum):
    """Which step of a turn a decision is for (mirrors ``hollywood.bot.v1.Phase``)."""

    UPCARD_OFFER = "upcard_offer"
    DRAW = "draw"
    DISCARD = "discard"


_KIND_FROM_PROTO = {
    bot_pb2.ACTION_KIND_DRAW_STOCK: ActionKind.DRAW_STOCK,
    bot_pb2.ACTION_KIND_DRAW_DISCARD: ActionKind.DRAW_DISCARD,
    bot_pb2.ACTION_KIND_PASS: ActionKind.PASS,
    bot_pb2.ACTION_KIND_DISCARD: ActionKind.DISCARD,
    bot_pb2.ACTION_KIND_KNOCK: ActionKind.KNOCK,
}
_KIND_TO_PROTO = {kind: number for number, kind in _KIND_FROM_PROTO.items()}
_PHASE_FROM_PROTO = {
    bot_pb2.PHASE_UPCARD_OFFER: Phase.UPCARD_OFFER,
    bot_pb2.PHASE_DRAW: Phase.DRAW,
    bot_pb2.PHASE_DISCARD: Phase.DISCARD,
}


@dataclass(frozen=True)
class Action:
    """An action. ``card`` is set for DISCARD and KNOCK; ``melds`` optionally
    declares the knocker's arrangement (KNOCK only). Equality ignores ``melds``, so
    ``Action.knock(card, melds) in observation.legal_actions`` works."""

    kind: ActionKind
    card: Card | None = None
    melds: tuple[tuple[Card, ...], ...] = field(default=(), compare=False)

    @classmethod
    def draw_stock(cls) -> Action:
        return cls(ActionKind.DRAW_STOCK)

    @classmethod
    def draw_discard(cls) -> Action:
        return cls(ActionKind.DRAW_DISCARD)

    @classmethod
    def pass_(cls) -> Action:
        return cls(ActionKind.PASS)

    @classmethod
    def discard(cls, card: Card) -> Action:
        return cls(ActionKind.DISCARD, card)

    @classmethod
    def knock(cls, card: Card, melds: tuple[tuple[Card, ...], ...] = ()) -> Action:
        return cls(ActionKind.KNOCK, card, melds)

    @classmethod
    def from_proto(cls, message: bot_pb2.Action) -> Action:
        if not message.melds:
            key = (message.kind, message.card)
            known = _ACTIONS.get(key)
            if known is None:
                kind = _KIND_FROM_PROTO[message.kind]
                known = cls(kind, Card.parse(message.card) if message.card else None)
                if len(_ACTIONS) < _ACTIONS_KEPT:
                    _ACTIONS[key] = known
            return known
        kind = _KIND_FROM_PROTO[message.kind]
        card = Card.parse(message.card) if message.card else None
        melds = tuple(tuple(parse_cards(meld.cards)) for meld in message.melds)
        return cls(kind, card, melds)

    def to_proto(self) -> bot_pb2.Action:
        return bot_pb2.Action(
            kind=_KIND_TO_PROTO[self.kind],
            card=str(self.card) if self.card is not None else "",
            melds=[bot_pb2.Meld(cards=[str(card) for card in meld]) for meld in self.melds],
        )

    def __str__(self) -> str:
        words = self.kind.value.replace("_", " ")
        return f"{words} {self.card}" if self.card is not None else words


@dataclass(frozen=True)
class Profile:
    """The rule profile in force (docs/rules.md#profiles)."""

    name: str
    knock_limit: int
    gin_bonus: int
    undercut_bonus: int
    game_target: int
    no_discard_of_taken_card: bool
    dead_hand_stock: int
    max_hands: int
    raw: dict[str, object]
    """The engine's full profile description."""
    winner_deals_next: bool = False
    dead_hand_redeal_same_dealer: bool = False
    knock_discard_face_down: bool = False

    @classmethod
    def from_proto(cls, message: bot_pb2.RuleProfile) -> Profile:
        return _PROFILES.view(message, cls._from_message)

    @classmethod
    def _from_message(cls, message: bot_pb2.RuleProfile) -> Profile:
        try:
            raw = json.loads(message.profile_json) if message.profile_json else {}
        except ValueError:
            raw = {}
        return cls(
            name=message.name,
            knock_limit=message.knock_limit,
            gin_bonus=message.gin_bonus,
            undercut_bonus=message.undercut_bonus,
            game_target=message.game_target,
            no_discard_of_taken_card=message.no_discard_of_taken_card,
            dead_hand_stock=message.dead_hand_stock,
            max_hands=message.max_hands,
            raw=raw if isinstance(raw, dict) else {},
            winner_deals_next=message.winner_deals_next,
            dead_hand_redeal_same_dealer=message.dead_hand_redeal_same_dealer,
            knock_discard_face_down=message.knock_discard_face_down,
        )


@dataclass(frozen=True)
class Sheet:
    """The score sheet: ``scores[seat][game]`` for games I, II, III."""

    scores: tuple[tuple[int, ...], ...]
    hands_won: tuple[int, ...]
    game_finished: tuple[bool, ...]
    game_winner: tuple[int | None, ...]

    @classmethod
    def from_proto(cls, message: bot_pb2.ScoreSheet) -> Sheet:
        return _SHEETS.view(message, cls._from_message)

    @classmethod
    def _from_message(cls, message: bot_pb2.ScoreSheet) -> Sheet:
        return cls(
            scores=tuple(tuple(player.game_scores) for player in message.players),
            hands_won=tuple(player.hands_won for player in message.players),
            game_finished=tuple(game.finished for game in message.games),
            game_winner=tuple(
                game.winner if game.HasField("winner") else None for game in message.games
            ),
        )


_ACTIONS: dict[tuple[int, str], Action] = {}
"""Legal actions without melds by (kind, card text): at most 5 kinds x 53."""
_ACTIONS_KEPT = 5 * 53
_PROFILES: _LastView[bot_pb2.RuleProfile, Profile] = _LastView()
_SHEETS: _LastView[bot_pb2.ScoreSheet, Sheet] = _LastView()


@dataclass(frozen=True)
class SeriesStart:
    """A series begins (every Handshake starts one). ``series_number`` is 1 for a
    freshly started bot and 2, 3, ... when the arena reuses the bot's process."""

    series_id: str
    series_number: int

    @classmethod
    def from_proto(cls, request: bot_pb2.HandshakeRequest) -> SeriesStart:
        return cls(series_id=request.series_id, series_number=max(1, request.series_number))


@dataclass(frozen=True)
class Observation:
    """Everything the bot may see at a decision, plus what it may do and how long
    it has. Cards are SDK :class:`Card` objects."""

    series_id: str
    hand_number: int
    decision_number: int
    seat: int
    dealer: int
    phase: Phase
    hand: tuple[Card, ...]
    discard_pile: tuple[Card, ...]
    """Bottom first; the last card is the top (what DRAW_DISCARD takes)."""
    stock_size: int
    opponent_hand_size: int
    opponent_known_cards: tuple[Card, ...]
    taken_discard: Card | None
    """The card taken from the discard pile this turn, if any."""
    sheet: Sheet
    legal_actions: tuple[Action, ...]
    profile: Profile
    deadline_ms: int
    reserve_ms: int

    @classmethod
    def from_proto(cls, request: bot_pb2.DecideRequest) -> Observation:
        view = request.observation
        return cls(
            series_id=request.series_id,
            hand_number=request.hand_number,
            decision_number=request.decision_number,
            seat=view.seat,
            dealer=view.dealer,
            phase=_PHASE_FROM_PROTO[view.phase],
            hand=tuple(parse_cards(view.hand)),
            discard_pile=tuple(parse_cards(view.discard_pile)),
            stock_size=view.stock_size,
            opponent_hand_size=view.opponent_hand_size,
            opponent_known_cards=tuple(parse_cards(view.opponent_known_cards)),
            taken_discard=Card.parse(view.taken_discard) if view.taken_discard else None,
            sheet=Sheet.from_proto(view.sheet),
            legal_actions=tuple(Action.from_proto(action) for action in request.legal_actions),
            profile=Profile.from_proto(request.profile),
            deadline_ms=request.deadline_ms,
            reserve_ms=request.reserve_ms,
        )

    if not TYPE_CHECKING:  # a type checker still sees a misspelt field as an error

        def __getattr__(self, name: str) -> Any:  # only for what the instance lacks
            fill = self.__dict__.get(UNFILLED)
            if fill is None or name not in _OBSERVATION_FIELDS:
                raise AttributeError(
                    f"'{type(self).__name__}' object has no attribute '{name}'")
            fill(self.__dict__)
            return self.__dict__[name]

    def __getstate__(self) -> dict[str, Any]:
        """Every field, filled (what ``copy`` and ``pickle`` take)."""
        return {name: getattr(self, name) for name in _OBSERVATION_FIELDS}

    @property
    def top_discard(self) -> Card | None:
        """The card DRAW_DISCARD would take, if any."""
        return self.discard_pile[-1] if self.discard_pile else None

    def can(self, kind: ActionKind) -> bool:
        """True when some legal action has this kind."""
        return any(action.kind is kind for action in self.legal_actions)

    def actions_of(self, kind: ActionKind) -> list[Action]:
        """The legal actions of one kind, in the arena's order."""
        return [action for action in self.legal_actions if action.kind is kind]

    @property
    def discardable(self) -> list[Card]:
        """Cards that may be discarded now (by DISCARD or KNOCK)."""
        return [
            action.card
            for action in self.legal_actions
            if action.kind in (ActionKind.DISCARD, ActionKind.KNOCK) and action.card is not None
        ]

    def deadwood(self) -> int:
        """Least deadwood of the current hand (10 or 11 cards)."""
        return min_deadwood(self.hand)

    def best_discards(self) -> tuple[int, list[Card]]:
        """In PHASE_DISCARD: least deadwood after a legal discard, and the cards giving it."""
        return best_discards(self.hand, self.discardable)

    def deadwood_with(self, card: Card) -> int:
        """Least deadwood after adding ``card`` and making the best legal-shaped discard
        (any card of the 11 except ``card`` itself when the profile forbids it)."""
        hand = [*self.hand, card]
        allowed = [c for c in hand if not (self.profile.no_discard_of_taken_card and c == card)]
        return best_discards(hand, allowed)[0]


_OBSERVATION_FIELDS: Final = tuple(item.name for item in fields(Observation))
