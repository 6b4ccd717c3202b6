"""Which cards an 11-card hand may knock with (docs/rules.md#knocking-and-gin).

Called on every discard decision, so it starts with a cheap proof that most hands
cannot knock at all, and runs the exact search on the hand's mask only when that
proof fails.
"""

from __future__ import annotations

from engine.cards import Card, mask_to_cards
from engine.deadwood_search import (
    deadwood_after_each_discard_mask,
    lowest_deadwood_after_discard_mask,
)
from engine.deadwood_tables import ROW_VALUE

__all__ = ["cannot_knock", "knock_cards", "knock_mask"]


def _suit_tables() -> tuple[list[int], list[int]]:
    """Per 13-bit suit row: the cards in some run of 3+ within it, and the largest
    value of its cards."""
    in_run: list[int] = []
    value_max: list[int] = []
    for bits in range(1 << 13):
        starts = bits & (bits >> 1) & (bits >> 2)
        in_run.append(starts | (starts << 1) | (starts << 2))
        values = [min(rank + 1, 10) for rank in range(13) if bits >> rank & 1]
        value_max.append(max(values, default=0))
    return in_run, value_max


_IN_RUN, _VALUE_MAX = _suit_tables()
_VALUE_SUM = ROW_VALUE


def cannot_knock(mask: int, knock_limit: int) -> bool:
    """A cheap proof that no discard from the 11 cards of ``mask`` leaves deadwood
    <= ``knock_limit``.

    A card is "loose" when it is in no possible meld of the hand: not in three
    consecutive ranks of its suit, and its rank held fewer than 3 times. Loose
    cards stay loose in every 10-card subset, so after any discard the deadwood is
    at least their total minus the largest of them (the best one to discard).
    ``False`` means "maybe": the exact computation must decide.
    """
    a = mask & 8191
    b = (mask >> 13) & 8191
    c = (mask >> 26) & 8191
    d = mask >> 39
    set_ranks = (a & b & c) | (a & b & d) | (a & c & d) | (b & c & d)
    in_run = _IN_RUN
    loose_a = a & ~(in_run[a] | set_ranks)
    loose_b = b & ~(in_run[b] | set_ranks)
    loose_c = c & ~(in_run[c] | set_ranks)
    loose_d = d & ~(in_run[d] | set_ranks)
    total = _VALUE_SUM[loose_a] + _VALUE_SUM[loose_b] + _VALUE_SUM[loose_c] + _VALUE_SUM[loose_d]
    largest = max(
        _VALUE_MAX[loose_a], _VALUE_MAX[loose_b], _VALUE_MAX[loose_c], _VALUE_MAX[loose_d]
    )
    return total - largest > knock_limit


def knock_mask(mask: int, knock_limit: int, banned: Card | None) -> int:
    """The cards of the 11-card hand ``mask`` (unchecked) whose discard leaves
    deadwood <= ``knock_limit``, ``banned`` excluded, as a mask."""
    if cannot_knock(mask, knock_limit):
        return 0
    if lowest_deadwood_after_discard_mask(mask) > knock_limit:
        return 0
    knocks = 0
    for card, deadwood in deadwood_after_each_discard_mask(mask).items():
        if deadwood <= knock_limit:
            knocks |= card.bit
    return knocks & ~banned.bit if banned is not None else knocks


def knock_cards(mask: int, knock_limit: int, banned: Card | None) -> list[Card]:
    """``knock_mask`` as cards, in card (suit, rank) order."""
    return mask_to_cards(knock_mask(mask, knock_limit, banned))
