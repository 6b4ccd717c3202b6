"""Knock settlement: melds, layoffs and the points of a knocked hand
(docs/rules.md#knocking-and-gin, docs/rules.md#layoffs, docs/rules.md#scoring-a-hand)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import product
from operator import attrgetter
from typing import Any, Literal

from engine.cards import ALL_CARDS, Card, mask_to_cards
from engine.melds import (
    Arrangement,
    InvalidMeldsError,
    best_arrangement_mask,
    hand_mask,
    is_run,
    is_set,
    min_deadwood_mask,
    validate_arrangement,
)
from engine.profiles import FRIENDLY, Profile

__all__ = ["HAND_SIZE", "Layoff", "SettleError", "Settlement", "settle"]

HAND_SIZE = 10
_BY_INDEX = attrgetter("index")
"""Sort key of cards: index order is suit-then-rank order, without ``Card.__lt__``."""

SettlementKind = Literal["gin", "knock", "undercut"]
Side = Literal["knocker", "defender"]


class SettleError(ValueError):
    """The hands given to :func:`settle` are malformed (wrong size or shared cards)."""


@dataclass(frozen=True)
class Layoff:
    """Defender cards laid off onto one knocker meld."""

    meld_index: int
    """Position of the meld in :attr:`Settlement.knocker_melds`."""
    meld: tuple[Card, ...]
    cards: tuple[Card, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "meld_index": self.meld_index,
            "meld": [str(card) for card in self.meld],
            "cards": [str(card) for card in self.cards],
        }


@dataclass(frozen=True)
class Settlement:
    """The outcome of a knock.

    ``points`` go to ``winner``. Deadwood values follow
    docs/rules.md#scoring-a-hand: ``knocker_deadwood`` is ``k``,
    ``defender_deadwood`` is ``d`` (after layoffs) and
    ``defender_deadwood_before_layoffs`` is ``d0``.
    """

    kind: SettlementKind
    winner: Side
    points: int
    knocker_deadwood: int
    defender_deadwood: int
    defender_deadwood_before_layoffs: int
    knocker_melds: Arrangement
    defender_melds: Arrangement
    """The defender's own melds (after the laid-off cards were taken out)."""
    layoffs: tuple[Layoff, ...]
    knocker_deadwood_cards: tuple[Card, ...]
    defender_deadwood_cards: tuple[Card, ...]

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form; cards as text such as ``"Td"``."""

        def melds(arrangement: Arrangement) -> list[list[str]]:
            return [[str(card) for card in meld] for meld in arrangement]

        return {
            "kind": self.kind,
            "winner": self.winner,
            "points": self.points,
            "knocker_deadwood": self.knocker_deadwood,
            "defender_deadwood": self.defender_deadwood,
            "defender_deadwood_before_layoffs": self.defender_deadwood_before_layoffs,
            "knocker_melds": melds(self.knocker_melds),
            "defender_melds": melds(self.defender_melds),
            "layoffs": [layoff.to_dict() for layoff in self.layoffs],
            "knocker_deadwood_cards": [str(card) for card in self.knocker_deadwood_cards],
            "defender_deadwood_cards": [str(card) for card in self.defender_deadwood_cards],
        }


def settle(
    knocker_cards: Iterable[Card],
    defender_cards: Iterable[Card],
    profile: Profile = FRIENDLY,
    knocker_melds: Iterable[Iterable[Card]] | None = None,
) -> Settlement:
    """Settle a knock.

    ``knocker_cards`` are the 10 cards the knocker kept after the knock discard and
    ``defender_cards`` the opponent's 10. ``knocker_melds``, if given, is the
    arrangement the knocker declared; it is validated (legal melds, cards from the
    hand, each used once, deadwood at most ``profile.knock_limit``) and
    :class:`~engine.melds.InvalidMeldsError` names what is wrong. Without it the
    engine uses :func:`~engine.melds.best_arrangement` of the knocker's cards (which
    never looks at the defender's cards).

    Unless the knocker went gin, the defender's own melds and layoffs are chosen
    together to minimise the defender's deadwood; among equally good choices the
    fewest cards are laid off.
    """
    if isinstance(knocker_cards, str) or isinstance(defender_cards, str):
        raise SettleError("settle() takes card lists, not text; use parse_cards() first")
    knocker_mask = _checked_mask(list(knocker_cards), "knocker")
    defender_mask = _checked_mask(list(defender_cards), "defender")
    # Card index order is suit-then-rank order: the cards come out sorted.
    knocker = mask_to_cards(knocker_mask)
    shared = knocker_mask & defender_mask
    if shared:
        names = " ".join(str(card) for card in ALL_CARDS if shared & card.bit)
        raise SettleError(f"cards held by both knocker and defender: {names}")

    if knocker_melds is None:
        knocker_deadwood, melds = best_arrangement_mask(knocker_mask)
        if knocker_deadwood > profile.knock_limit:
            raise InvalidMeldsError(
                f"cannot knock: deadwood {knocker_deadwood} is over the knock limit "
                f"{profile.knock_limit}")
    else:
        declared = _declared_melds(knocker_melds)
        knocker_deadwood = validate_arrangement(knocker, declared, knock_limit=profile.knock_limit)
        melds = tuple(tuple(sorted(meld, key=_BY_INDEX)) for meld in declared)
    knocker_melded = {card for meld in melds for card in meld}
    knocker_idle = tuple(card for card in knocker if card not in knocker_melded)

    defender_before = min_deadwood_mask(defender_mask)
    if knocker_deadwood == 0:
        layoffs: tuple[Layoff, ...] = ()
        kept_mask = defender_mask
        defender_deadwood = defender_before
    else:
        defender_deadwood, layoffs = _best_layoffs(melds, defender_mask)
        kept_mask = defender_mask
        for layoff in layoffs:
            for card in layoff.cards:
                kept_mask &= ~card.bit
    kept = mask_to_cards(kept_mask)
    _, defender_melds = best_arrangement_mask(kept_mask)
    defender_melded = {card for meld in defender_melds for card in meld}
    defender_idle = tuple(card for card in kept if card not in defender_melded)

    kind: SettlementKind
    winner: Side
    if knocker_deadwood == 0:
        kind, winner = "gin", "knocker"
        points = profile.gin_bonus + defender_before
    elif knocker_deadwood < defender_deadwood:
        kind, winner = "knock", "knocker"
        points = defender_deadwood - knocker_deadwood
    else:
        kind, winner = "undercut", "defender"
        points = knocker_deadwood - defender_deadwood + profile.undercut_bonus
    return Settlement(
        kind=kind,
        winner=winner,
        points=points,
        knocker_deadwood=knocker_deadwood,
        defender_deadwood=defender_deadwood,
        defender_deadwood_before_layoffs=defender_before,
        knocker_melds=melds,
        defender_melds=defender_melds,
        layoffs=layoffs,
        knocker_deadwood_cards=knocker_idle,
        defender_deadwood_cards=defender_idle,
    )


def _declared_melds(knocker_melds: object) -> list[list[Card]]:
    """The declared arrangement as lists of cards; :class:`InvalidMeldsError` if it is
    not a list of card lists (the cards themselves are checked by validation)."""
    if isinstance(knocker_melds, str | bytes) or not isinstance(knocker_melds, Iterable):
        raise InvalidMeldsError(
            f"declared melds must be a list of card lists, got {knocker_melds!r}")
    declared = []
    for meld in knocker_melds:
        if isinstance(meld, str | bytes) or not isinstance(meld, Iterable):
            raise InvalidMeldsError(f"a declared meld must be a list of cards, got {meld!r}")
        cards = list(meld)
        for card in cards:
            if not isinstance(card, Card):
                raise InvalidMeldsError(f"not a card in a declared meld: {card!r}")
        declared.append(cards)
    return declared


def _checked_mask(cards: Sequence[Card], who: str) -> int:
    try:
        mask = hand_mask(cards)
    except (TypeError, ValueError) as error:
        raise SettleError(f"bad {who} hand: {error}") from error
    if len(cards) != HAND_SIZE:
        raise SettleError(f"the {who} must hold {HAND_SIZE} cards, got {len(cards)}")
    return mask


def _card_at(rank: int, suit: int) -> Card:
    return ALL_CARDS[suit * 13 + rank - 1]


def _layoff_options(meld: tuple[Card, ...], defender_mask: int) -> list[tuple[Card, ...]]:
    """Every group of defender cards that could be laid off together onto ``meld``."""
    options: list[tuple[Card, ...]] = [()]
    if is_set(meld):
        if len(meld) == 3:
            held_suits = {card.suit for card in meld}
            fourth = next(_card_at(meld[0].rank, suit) for suit in range(4)
                          if suit not in held_suits)
            if defender_mask & fourth.bit:
                options.append((fourth,))
        return options
    if not is_run(meld):  # validated melds are sets or runs; guards against misuse
        return options
    suit = meld[0].suit
    ranks = [card.rank for card in meld]
    below: list[Card] = []
    rank = min(ranks) - 1
    while rank >= 1 and defender_mask & _card_at(rank, suit).bit:
        below.append(_card_at(rank, suit))
        rank -= 1
    above: list[Card] = []
    rank = max(ranks) + 1
    while rank <= 13 and defender_mask & _card_at(rank, suit).bit:
        above.append(_card_at(rank, suit))
        rank += 1
    # Chaining: a card further out can only go on once every card between it and
    # the run has gone on, so each end contributes a prefix of its chain.
    return [tuple(sorted(below[:low] + above[:high], key=_BY_INDEX))
            for low in range(len(below) + 1) for high in range(len(above) + 1)]


def _best_layoffs(melds: Arrangement, defender_mask: int) -> tuple[int, tuple[Layoff, ...]]:
    """The defender's least deadwood with own melds plus layoffs, and those layoffs."""
    per_meld = [_layoff_options(meld, defender_mask) for meld in melds]
    best: tuple[int, int] | None = None
    best_choice: tuple[tuple[Card, ...], ...] = ()
    for choice in product(*per_meld):
        laid = 0
        overlap = False
        for group in choice:
            for card in group:
                if laid & card.bit:
                    overlap = True
                laid |= card.bit
        if overlap:
            continue
        kept = defender_mask & ~laid
        deadwood = min_deadwood_mask(kept)
        key = (deadwood, laid.bit_count())
        if best is None or key < best:
            best = key
            best_choice = choice
    assert best is not None  # the empty choice is always available
    layoffs = tuple(Layoff(index, melds[index], group)
                    for index, group in enumerate(best_choice) if group)
    return best[0], layoffs
