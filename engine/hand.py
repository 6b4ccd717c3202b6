"""One hand (deal) of Hollywood Gin as a state machine (docs/rules.md#the-deal
to docs/rules.md#scoring-a-hand).

A :class:`Hand` starts from a :class:`~engine.dealing.Deal` and a dealer seat and
accepts one :class:`~engine.actions.Action` at a time from the player whose turn it
is. :meth:`Hand.legal_actions` is exact in every state, and :meth:`Hand.apply`
accepts exactly those actions (compared by kind and card; a knock's declared melds
are checked when it is applied). Anything else raises
:class:`~engine.actions.IllegalActionError` naming the reason, before any change.

Phases::

    UPCARD_OFFER  non-dealer, then dealer: DRAW_DISCARD (take the upcard) or PASS
    DRAW          DRAW_STOCK or DRAW_DISCARD (only DRAW_STOCK right after both passed)
    DISCARD       11 cards in hand: DISCARD <card> or KNOCK <card>
    OVER          no actions; ``result`` holds the outcome
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from engine.actions import Action, ActionKind, IllegalActionError
from engine.cards import Card, mask_to_cards
from engine.dealing import Deal
from engine.hand_result import HandResult
from engine.knock_cards import knock_mask
from engine.legal_moves import (
    MAY_DRAW_DISCARD,
    MAY_DRAW_STOCK,
    MAY_PASS,
    NO_LEGAL_MOVES,
    LegalMasks,
    actions_of,
    allows,
)
from engine.observation import Observation, observe
from engine.phase import Phase
from engine.profiles import FRIENDLY, Profile
from engine.settle import settle

if TYPE_CHECKING:
    from engine.scoresheet import ScoreSheet


@dataclass(frozen=True, slots=True)
class Move:
    """One applied action, for the full history: ``drawn`` is the card a draw took."""

    seat: int
    action: Action
    drawn: Card | None = None


class Hand:
    """One hand from the deal to its end.

    ``dealer`` is the seat (0 or 1) that dealt; the other seat is offered the upcard
    first. ``hand_number`` is only carried into observations and the result.
    """

    def __init__(
        self, deal: Deal, dealer: int, profile: Profile = FRIENDLY, hand_number: int = 1
    ) -> None:
        if isinstance(dealer, bool) or dealer not in (0, 1):
            raise ValueError(f"dealer must be seat 0 or 1, got {dealer!r}")
        self.deal: Final = deal
        self.dealer: Final = dealer
        self.profile: Final = profile
        self.hand_number: Final = hand_number
        self._masks = [sum(card.bit for card in deal.hands[0]), sum(c.bit for c in deal.hands[1])]
        # The stock list is reversed so that drawing the top card is a cheap pop().
        self._stock = list(reversed(deal.stock))
        self._pile = [deal.upcard]
        self._pile_mask = deal.upcard.bit
        self._phase = Phase.UPCARD_OFFER
        self._current: int | None = 1 - dealer
        self._upcard_passes = 0
        self._stock_only = False
        self._taken: Card | None = None
        self._known = [0, 0]
        self._knock_discard: Card | None = None
        self._knocker: int | None = None
        self._legal: LegalMasks | None = None
        # (seat, action, drawn) per move, made into Move objects only when read
        self._played: list[tuple[int, Action, Card | None]] = []
        self._moves: list[Move] = []
        self.result: HandResult | None = None
        """The outcome once the hand is over, else ``None``."""

    # ------------------------------------------------------------------ reading

    @property
    def move_count(self) -> int:
        """How many actions were applied: the hand's moment (``engine.seat_moment``)."""
        return len(self._played)

    @property
    def moves(self) -> list[Move]:
        """Every applied action in order, with the card each draw took."""
        moves = self._moves
        for seat, action, drawn in self._played[len(moves):]:
            moves.append(Move(seat, action, drawn))
        return moves

    @property
    def phase(self) -> Phase:
        return self._phase

    @property
    def current_player(self) -> int | None:
        """The seat to act, or ``None`` once the hand is over."""
        return self._current

    @property
    def is_over(self) -> bool:
        return self._phase is Phase.OVER

    @property
    def stock_size(self) -> int:
        return len(self._stock)

    @property
    def discard_pile(self) -> tuple[Card, ...]:
        """The face-up discard pile, bottom first (the last card is the top)."""
        return tuple(self._pile)

    @property
    def pile_mask(self) -> int:
        """The face-up discard pile's cards as a mask (bit = card index)."""
        return self._pile_mask

    @property
    def top_discard(self) -> Card | None:
        """The top card of the face-up discard pile (``None`` when it is empty)."""
        return self._pile[-1] if self._pile else None

    @property
    def knocker(self) -> int | None:
        return self._knocker

    @property
    def knock_discard(self) -> Card | None:
        """The knocker's discard (face down under a ``knock_discard_face_down`` profile)."""
        return self._knock_discard

    @property
    def taken_card(self) -> Card | None:
        """The card the current player took from the discard pile this turn, if any."""
        return self._taken

    @property
    def banned_discard(self) -> Card | None:
        """The card the current player may not discard (or knock with) this turn."""
        return self._taken if self.profile.ban_discarding_taken_card else None

    def cards(self, seat: int) -> list[Card]:
        """The cards ``seat`` holds now, sorted (suit, then rank). Not for bots."""
        return mask_to_cards(self._masks[seat])

    def masks(self, seat: int) -> tuple[int, int]:
        """``cards(seat)`` and ``known_cards(seat)`` as masks (bit = card index). Not for bots."""
        return self._masks[seat], self._known[seat]

    def known_cards(self, seat: int) -> list[Card]:
        """The cards ``seat`` is known to hold: taken from the pile, not discarded since."""
        return mask_to_cards(self._known[seat])

    def stock(self) -> list[Card]:
        """The stock, top first. Hidden information: never for bots."""
        return self._stock[::-1]

    def knock_cards(self) -> list[Card]:
        """In the discard phase, the cards whose discard leaves deadwood within the
        knock limit (the banned card excluded), sorted; empty in other phases."""
        return mask_to_cards(self.legal_masks()[2])

    def legal_actions(self) -> list[Action]:
        """Every action the current player may take, in a fixed order: draws and pass
        as the phase allows, then ``DISCARD`` of each card, then ``KNOCK`` with each
        knock card (cards in suit-then-rank order). Empty once the hand is over."""
        return actions_of(self.legal_masks())

    def legal_masks(self) -> LegalMasks:
        """``legal_actions()`` as masks (``engine.legal_moves.LegalMasks``): the moves
        without a card (``MAY_*`` bits), the cards that may be discarded, the cards
        that may be knocked with. Kept until the next move."""
        if self._legal is None:
            self._legal = self._compute_legal_masks()
        return self._legal

    def _compute_legal_masks(self) -> LegalMasks:
        phase = self._phase
        if phase is Phase.UPCARD_OFFER:
            return (MAY_DRAW_DISCARD | MAY_PASS, 0, 0)
        if phase is Phase.DRAW:
            moves = MAY_DRAW_STOCK if self._stock else 0
            if self._pile and not self._stock_only:
                moves |= MAY_DRAW_DISCARD
            return (moves, 0, 0)
        if phase is Phase.DISCARD:
            assert self._current is not None
            banned = self.banned_discard
            mask = self._masks[self._current]
            discards = mask & ~banned.bit if banned is not None else mask
            return (0, discards, knock_mask(mask, self.profile.knock_limit, banned))
        return NO_LEGAL_MOVES

    # ------------------------------------------------------------------ acting

    def observation(self, player: int, sheet: ScoreSheet | None = None) -> Observation:
        """What ``player`` (0 or 1) may see of this hand
        (docs/rules.md#hidden-information); ``sheet`` is the series' score sheet (an
        empty one when ``None``). See ``engine.observe``."""
        return observe(self, player, sheet)

    def apply(self, action: Action) -> None:
        """Apply ``action`` for the current player.

        Raises :class:`IllegalActionError` (state untouched) when the action is not
        legal now, or when a knock's declared melds are invalid.
        """
        if not isinstance(action, Action):
            raise IllegalActionError(f"not an action: {action!r}")
        seat = self._current
        if seat is None:
            raise IllegalActionError("the hand is over: no action is legal")
        legal = self._legal
        if legal is None or not allows(legal, action):  # else legal: nothing to explain
            reason = self._why_illegal(seat, action)
            if reason is not None:
                raise IllegalActionError(f"illegal action {action}: {reason}")
        kind = action.kind
        card = action.card
        if kind is ActionKind.DISCARD:
            assert card is not None
            self._discard(seat, card, action)
        elif kind is ActionKind.DRAW_STOCK:
            self._draw_stock(seat, action)
        elif kind is ActionKind.DRAW_DISCARD:
            self._draw_discard(seat, action)
        elif kind is ActionKind.PASS:
            self._pass_upcard(seat, action)
        else:
            assert card is not None
            self._knock(seat, card, action)
        self._legal = None

    def _why_illegal(self, seat: int, action: Action) -> str | None:
        """Why ``action`` is not legal for ``seat`` now, or ``None`` if it is (a knock's
        deadwood and declared melds are checked when it is applied)."""
        kind = action.kind
        phase = self._phase
        if kind is ActionKind.PASS:
            if phase is not Phase.UPCARD_OFFER:
                return "pass is only legal during the upcard offer"
        elif kind is ActionKind.DRAW_DISCARD:
            if phase is Phase.DISCARD:
                return _NOT_DRAW_PHASE
            if self._stock_only:
                return "after both players passed the upcard, the first draw is from the stock"
            if not self._pile:
                return "the discard pile is empty"
        elif kind is ActionKind.DRAW_STOCK:
            if phase is Phase.UPCARD_OFFER:
                return (
                    "during the upcard offer the only choices are to take the upcard "
                    "(draw discard) or pass"
                )
            if phase is not Phase.DRAW:
                return _NOT_DRAW_PHASE
            if not self._stock:
                return "the stock is empty"
        else:
            card = action.card
            assert card is not None
            if phase is not Phase.DISCARD:
                return f"a {kind.text} is only legal after drawing (phase is {phase.value})"
            if not self._masks[seat] & card.bit:
                return f"{card} is not in your hand"
            if card is self._taken and self.profile.ban_discarding_taken_card:
                return (
                    f"{card} was just taken from the discard pile and may not be discarded "
                    f"this turn (profile {self.profile.name})"
                )
        return None

    def _pass_upcard(self, seat: int, action: Action) -> None:
        self._played.append((seat, action, None))
        self._upcard_passes += 1
        if self._upcard_passes == 1:
            self._current = self.dealer
        else:
            self._phase = Phase.DRAW
            self._current = 1 - self.dealer
            self._stock_only = True

    def _draw_discard(self, seat: int, action: Action) -> None:
        card = self._pile.pop()
        self._pile_mask &= ~card.bit
        self._played.append((seat, action, card))
        self._masks[seat] |= card.bit
        self._known[seat] |= card.bit
        self._taken = card
        self._phase = Phase.DISCARD

    def _draw_stock(self, seat: int, action: Action) -> None:
        card = self._stock.pop()
        self._played.append((seat, action, card))
        self._masks[seat] |= card.bit
        self._taken = None
        self._stock_only = False
        self._phase = Phase.DISCARD

    def _discard(self, seat: int, card: Card, action: Action) -> None:
        self._played.append((seat, action, None))
        self._masks[seat] &= ~card.bit
        self._known[seat] &= ~card.bit
        self._pile.append(card)
        self._pile_mask |= card.bit
        self._taken = None
        if len(self._stock) <= self.profile.dead_hand_stock_size:
            self._finish(HandResult.dead(self.hand_number, self.dealer, self._final_hands()))
        else:
            self._phase = Phase.DRAW
            self._current = 1 - seat

    def _knock(self, seat: int, card: Card, action: Action) -> None:
        if not self.legal_masks()[2] & card.bit:
            raise IllegalActionError(
                f"illegal action {action}: discarding {card} leaves more than "
                f"{self.profile.knock_limit} deadwood"
            )
        kept = mask_to_cards(self._masks[seat] & ~card.bit)
        defender = mask_to_cards(self._masks[1 - seat])
        try:
            settlement = settle(kept, defender, self.profile, knocker_melds=action.melds)
        except ValueError as error:
            raise IllegalActionError(
                f"illegal action {action}: invalid declared melds: {error}"
            ) from error
        # From here on nothing can fail: the state changes.
        self._played.append((seat, action, None))
        self._masks[seat] &= ~card.bit
        self._known[seat] &= ~card.bit
        self._knock_discard = card
        self._knocker = seat
        if not self.profile.knock_discard_face_down:
            self._pile.append(card)
            self._pile_mask |= card.bit
        self._taken = None
        self._finish(
            HandResult.knocked(
                self.hand_number,
                self.dealer,
                self._final_hands(),
                seat,
                card,
                self.profile.knock_discard_face_down,
                settlement,
            )
        )

    def _final_hands(self) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
        return (tuple(mask_to_cards(self._masks[0])), tuple(mask_to_cards(self._masks[1])))

    def _finish(self, result: HandResult) -> None:
        self.result = result
        self._phase = Phase.OVER
        self._current = None

    # ------------------------------------------------------------------ checks

    def card_count(self) -> int:
        """Cards accounted for (both hands, stock, pile, face-down knock discard): always 52."""
        face_down = (
            1 if self._knock_discard is not None and self.profile.knock_discard_face_down else 0
        )
        return (
            self._masks[0].bit_count()
            + self._masks[1].bit_count()
            + len(self._stock)
            + len(self._pile)
            + face_down
        )


_NOT_DRAW_PHASE: Final = "you have drawn already: discard or knock"
