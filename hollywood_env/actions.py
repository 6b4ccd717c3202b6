"""The environment's fixed action space: 107 discrete actions, one per move a seat may
ever make, so that a policy outputs one number and a mask says which are legal now.

====================  =====================================================
index                 move
====================  =====================================================
0                     draw from the stock
1                     draw the top discard (or take the upcard)
2                     pass (the upcard offer)
3 + card.index        discard that card (``card.index``: 0..51, suits then ranks)
55 + card.index       knock with that card (the engine declares the best melds)
====================  =====================================================
"""

from __future__ import annotations

from typing import Final

from engine import ALL_CARDS, Action, ActionKind
from engine.legal_moves import MAY_DRAW_DISCARD, MAY_DRAW_STOCK, MAY_PASS, LegalMasks

DRAW_STOCK_INDEX: Final = 0
DRAW_DISCARD_INDEX: Final = 1
PASS_INDEX: Final = 2
DISCARD_BASE: Final = 3
KNOCK_BASE: Final = DISCARD_BASE + 52
ACTION_COUNT: Final = KNOCK_BASE + 52

_BY_INDEX: Final[tuple[Action, ...]] = (
    Action.draw_stock(), Action.draw_discard(), Action.pass_(),
    *(Action.discard(card) for card in ALL_CARDS),
    *(Action.knock(card) for card in ALL_CARDS),
)


def action_index(action: Action) -> int:
    """The index of ``action`` in the action space (a knock's declared melds aside)."""
    if action.kind is ActionKind.DRAW_STOCK:
        return DRAW_STOCK_INDEX
    if action.kind is ActionKind.DRAW_DISCARD:
        return DRAW_DISCARD_INDEX
    if action.kind is ActionKind.PASS:
        return PASS_INDEX
    assert action.card is not None
    base = DISCARD_BASE if action.kind is ActionKind.DISCARD else KNOCK_BASE
    return base + action.card.index


def action_at(index: int) -> Action:
    """The move at ``index``; ``ValueError`` naming it when it is outside the space."""
    if type(index) is int and 0 <= index < ACTION_COUNT:  # the usual case, checked at once
        return _BY_INDEX[index]
    if isinstance(index, bool) or not 0 <= int(index) < ACTION_COUNT:
        raise ValueError(f"action {index!r} is outside the action space 0..{ACTION_COUNT - 1}")
    return _BY_INDEX[int(index)]


_CARDLESS_BITS: Final = tuple(
    (moves & MAY_DRAW_STOCK and 1 << DRAW_STOCK_INDEX)
    | (moves & MAY_DRAW_DISCARD and 1 << DRAW_DISCARD_INDEX)
    | (moves & MAY_PASS and 1 << PASS_INDEX) for moves in range(8))
"""Per value of the ``MAY_*`` bits: those moves' bits in the action space."""


def legal_bits(masks: LegalMasks) -> int:
    """The engine's legal masks as one number with bit ``i`` set when the action at
    index ``i`` is legal."""
    moves, discards, knocks = masks
    return _CARDLESS_BITS[moves] | discards << DISCARD_BASE | knocks << KNOCK_BASE
