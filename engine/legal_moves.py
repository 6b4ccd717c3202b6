"""The legal actions of a state as three masks, and the ``Action`` list they stand for.

``Hand.legal_masks`` is the one computation of what is legal; ``Hand.legal_actions``
is its list form. The masks let a fast caller (the learning environment, at every
step) read the legal set without building an ``Action`` per move.
"""

from __future__ import annotations

from typing import Final

from engine.actions import DRAW_DISCARD, DRAW_STOCK, PASS, Action, ActionKind
from engine.cards import ALL_CARDS

MAY_DRAW_STOCK: Final = 1
MAY_DRAW_DISCARD: Final = 2
MAY_PASS: Final = 4
"""The bits of a legal-masks triple's first mask (the moves without a card)."""

LegalMasks = tuple[int, int, int]
"""(moves without a card: ``MAY_*`` bits, cards that may be discarded, cards that may be
knocked with), the card masks with bit = card index."""

NO_LEGAL_MOVES: Final[LegalMasks] = (0, 0, 0)

_DISCARD_ACTIONS: Final = tuple(Action(ActionKind.DISCARD, card) for card in ALL_CARDS)
_KNOCK_ACTIONS: Final = tuple(Action(ActionKind.KNOCK, card) for card in ALL_CARDS)
_SUIT_BITS: Final = 0x1FFF
_CHUNKS: dict[int, tuple[Action, ...]] = {}
"""Memo: (knock flag << 17 | suit << 13 | suit mask) -> those cards' DISCARD (or KNOCK)
actions, in card order."""


def _card_actions(mask: int, knock: bool) -> list[Action]:
    """``DISCARD`` (or ``KNOCK``) of every card in ``mask``, in card (suit, rank) order."""
    actions: list[Action] = []
    table = _KNOCK_ACTIONS if knock else _DISCARD_ACTIONS
    for suit in range(4):
        bits = (mask >> (13 * suit)) & _SUIT_BITS
        if not bits:
            continue
        key = knock << 17 | suit << 13 | bits
        chunk = _CHUNKS.get(key)
        if chunk is None:
            chunk = tuple(table[13 * suit + rank] for rank in range(13) if bits >> rank & 1)
            _CHUNKS[key] = chunk
        actions.extend(chunk)
    return actions


def allows(masks: LegalMasks, action: Action) -> bool:
    """Whether ``action`` is among the actions ``masks`` stands for (a knock's declared
    melds aside)."""
    card = action.card
    kind = action.kind
    if card is not None:
        return bool(masks[1 if kind is ActionKind.DISCARD else 2] & card.bit)
    if kind is ActionKind.DRAW_STOCK:
        return bool(masks[0] & MAY_DRAW_STOCK)
    if kind is ActionKind.DRAW_DISCARD:
        return bool(masks[0] & MAY_DRAW_DISCARD)
    return bool(masks[0] & MAY_PASS)


def actions_of(masks: LegalMasks) -> list[Action]:
    """The actions ``masks`` stands for, in the engine's fixed order: draw stock, draw
    discard, pass, then ``DISCARD`` of each card, then ``KNOCK`` with each card."""
    moves, discards, knocks = masks
    actions: list[Action] = []
    if moves & MAY_DRAW_STOCK:
        actions.append(DRAW_STOCK)
    if moves & MAY_DRAW_DISCARD:
        actions.append(DRAW_DISCARD)
    if moves & MAY_PASS:
        actions.append(PASS)
    if discards:
        actions.extend(_card_actions(discards, knock=False))
    if knocks:
        actions.extend(_card_actions(knocks, knock=True))
    return actions
