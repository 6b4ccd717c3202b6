"""The moves a player can make, their text form, and the error for an illegal move.

An :class:`Action` is a value: two actions are equal when their ``kind`` and
``card`` are equal. A ``KNOCK`` may carry the arrangement the knocker declares
(``melds``); equality ignores it, so ``Action.knock(c)`` is "the same move" as a
knock of ``c`` with any declared melds, and the legality check of a state can
compare against its list of legal actions directly.

Text form (used by the protocol, logs and the CLI)::

    draw stock | draw discard | pass | discard Kd | knock Kd | knock Kd [As 2s 3s] [9c 9d 9h]
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final

from engine.cards import Card, CardParseError, parse_cards

Melds = tuple[tuple[Card, ...], ...]
"""A declared arrangement: each inner tuple is one meld."""


class ActionKind(StrEnum):
    """What an action does. The values are the first words of the text form."""

    DRAW_STOCK = "draw_stock"
    DRAW_DISCARD = "draw_discard"
    PASS = "pass"
    DISCARD = "discard"
    KNOCK = "knock"

    @property
    def text(self) -> str:
        """The words of the text form: ``"draw stock"`` for ``DRAW_STOCK``."""
        return self.value.replace("_", " ")


_CARD_KINDS: Final = frozenset({ActionKind.DISCARD, ActionKind.KNOCK})


class IllegalActionError(ValueError):
    """An action that the current state does not allow. The message names the reason.

    Raised before any change: the state that raised it is exactly as it was.
    """


class ActionParseError(ValueError):
    """Text that is not an action; the message quotes the text and the expected form."""


@dataclass(frozen=True, slots=True)
class Action:
    """One move. ``card`` is set for ``DISCARD`` and ``KNOCK`` (the card put away) and
    ``None`` otherwise; ``melds`` is only allowed on ``KNOCK``.

    Build with the constructors (:meth:`draw_stock`, :meth:`discard`, :meth:`knock`,
    ...), :meth:`parse` or :meth:`from_dict`; a malformed combination raises
    ``ValueError``.
    """

    kind: ActionKind
    card: Card | None = None
    melds: Melds | None = field(default=None, compare=False, hash=False)

    def __post_init__(self) -> None:
        if not isinstance(self.kind, ActionKind):
            raise ValueError(f"action kind must be an ActionKind, got {self.kind!r}")
        if self.kind in _CARD_KINDS:
            if not isinstance(self.card, Card):
                raise ValueError(f"a {self.kind.text} action needs the card it puts away")
        elif self.card is not None:
            raise ValueError(f"a {self.kind.text} action takes no card, got {self.card}")
        if self.melds is not None:
            if self.kind is not ActionKind.KNOCK:
                raise ValueError(f"only a knock may declare melds, not a {self.kind.text}")
            _check_meld_shape(self.melds)

    @classmethod
    def draw_stock(cls) -> Action:
        return DRAW_STOCK

    @classmethod
    def draw_discard(cls) -> Action:
        return DRAW_DISCARD

    @classmethod
    def pass_(cls) -> Action:
        return PASS

    @classmethod
    def discard(cls, card: Card) -> Action:
        return cls(ActionKind.DISCARD, card)

    @classmethod
    def knock(cls, card: Card, melds: Melds | None = None) -> Action:
        return cls(ActionKind.KNOCK, card, melds)

    def __str__(self) -> str:
        if self.card is None:
            return self.kind.text
        text = f"{self.kind.text} {self.card}"
        if self.melds is not None:
            text += "".join(" [" + " ".join(str(c) for c in meld) + "]" for meld in self.melds)
        return text

    @classmethod
    def parse(cls, text: str) -> Action:
        """Inverse of ``str()``: ``"draw stock"``, ``"pass"``, ``"discard Kd"``,
        ``"knock Kd"``, ``"knock Kd [As 2s 3s] [9c 9d 9h]"``. Case-insensitive;
        ``draw_stock`` spelled with an underscore is accepted too."""
        if not isinstance(text, str):
            raise ActionParseError(f"an action must be text, got {type(text).__name__}")
        match = _ACTION_RE.fullmatch(text.strip())
        if match is None:
            raise ActionParseError(
                f"not an action: {text!r} (expected 'draw stock', 'draw discard', 'pass', "
                "'discard <card>' or 'knock <card> [<meld>] ...')"
            )
        kind = ActionKind(re.sub(r"[\s_]+", "_", match.group("kind").lower()))
        card_text, melds_text = match.group("card"), match.group("melds")
        try:
            card = Card.parse(card_text) if card_text else None
            melds = _parse_melds(melds_text) if melds_text and melds_text.strip() else None
            return cls(kind, card, melds)
        except CardParseError as error:
            raise ActionParseError(f"bad card in action {text!r}: {error}") from error
        except ValueError as error:
            raise ActionParseError(f"bad action {text!r}: {error}") from error

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form: ``{"kind": "knock", "card": "Kd", "melds": [["As", "2s", "3s"]]}``;
        ``card`` and ``melds`` are present only when set."""
        data: dict[str, Any] = {"kind": self.kind._value_}  # .value is a slow descriptor
        if self.card is not None:
            data["card"] = str(self.card)
        if self.melds is not None:
            data["melds"] = [[str(c) for c in meld] for meld in self.melds]
        return data

    @classmethod
    def from_dict(cls, data: object) -> Action:
        """Inverse of :meth:`to_dict`; raises :class:`ActionParseError` on bad data."""
        if not isinstance(data, dict):
            raise ActionParseError(f"an action must be a JSON object, got {data!r}")
        unknown = set(data) - {"kind", "card", "melds"}
        if unknown:
            raise ActionParseError(f"unknown action fields: {sorted(unknown)}")
        try:
            kind = ActionKind(str(data.get("kind")))
        except ValueError:
            raise ActionParseError(f"unknown action kind: {data.get('kind')!r}") from None
        card_text = data.get("card")
        melds_data = data.get("melds")
        try:
            card = None if card_text is None else Card.parse(_require_str(card_text))
            melds = None
            if melds_data is not None:
                if not isinstance(melds_data, list):
                    raise ActionParseError(f"melds must be a list of lists, got {melds_data!r}")
                melds = tuple(_parse_meld_list(meld) for meld in melds_data)
            return cls(kind, card, melds)
        except ActionParseError:
            raise
        except ValueError as error:
            raise ActionParseError(f"bad action {data!r}: {error}") from error


def _require_str(value: object) -> str:
    if not isinstance(value, str):
        raise ActionParseError(f"a card must be text such as 'Kd', got {value!r}")
    return value


def _parse_meld_list(meld: object) -> tuple[Card, ...]:
    if not isinstance(meld, list):
        raise ActionParseError(f"a meld must be a list of cards, got {meld!r}")
    return tuple(Card.parse(_require_str(token)) for token in meld)


def _parse_melds(text: str) -> Melds:
    groups = _MELD_GROUP_RE.findall(text)
    if _MELD_GROUP_RE.sub("", text).strip():
        raise ActionParseError(f"melds must be written as [As 2s 3s] groups, got {text.strip()!r}")
    return tuple(tuple(parse_cards(group)) for group in groups)


def _check_meld_shape(melds: object) -> None:
    if not isinstance(melds, tuple) or not all(
        isinstance(meld, tuple) and all(isinstance(card, Card) for card in meld) for meld in melds
    ):
        raise ValueError("melds must be a tuple of tuples of cards")


_ACTION_RE: Final = re.compile(
    r"(?P<kind>draw[\s_]+stock|draw[\s_]+discard|pass|discard|knock)"
    r"(?:\s+(?P<card>[^\s\[\]]+))?(?P<melds>(?:\s*\[[^\]]*\])*)\s*",
    re.IGNORECASE,
)
_MELD_GROUP_RE: Final = re.compile(r"\[([^\]]*)\]")

DRAW_STOCK: Final = Action(ActionKind.DRAW_STOCK)
DRAW_DISCARD: Final = Action(ActionKind.DRAW_DISCARD)
PASS: Final = Action(ActionKind.PASS)
