"""How one hand ended: dead, or a knock settled into gin, knock or undercut
(docs/rules.md#dead-hands, docs/rules.md#scoring-a-hand).

:class:`HandResult` is seat-based (the settlement speaks of "knocker" and
"defender"). It has two JSON forms: :meth:`HandResult.to_dict` shows everything,
for the event log and humans after the fact; :meth:`HandResult.public_dict` is
what one seat may learn at the table (docs/rules.md#hidden-information): no
cards at all for a dead hand (nothing is exposed without a knock), and no face-down
knock discard for the knocker's opponent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from engine.cards import Card
from engine.settle import Settlement

HandKind = Literal["dead", "gin", "knock", "undercut"]


def _texts(cards: tuple[Card, ...]) -> list[str]:
    return [str(card) for card in cards]


@dataclass(frozen=True, slots=True)
class HandResult:
    """The outcome of one hand.

    ``hands[seat]`` is the 10 cards the seat ended with (the knocker's after the knock
    discard), sorted. ``winner`` is the seat that scored ``points`` (``None`` and 0
    for a dead hand). For a knocked hand ``knocker``, ``knock_discard`` and
    ``settlement`` are set.
    """

    hand_number: int
    dealer: int
    kind: HandKind
    winner: int | None
    points: int
    hands: tuple[tuple[Card, ...], tuple[Card, ...]]
    knocker: int | None = None
    knock_discard: Card | None = None
    knock_discard_face_down: bool = False
    settlement: Settlement | None = None

    @classmethod
    def dead(
        cls, hand_number: int, dealer: int, hands: tuple[tuple[Card, ...], tuple[Card, ...]]
    ) -> HandResult:
        return cls(hand_number, dealer, "dead", None, 0, hands)

    @classmethod
    def knocked(
        cls,
        hand_number: int,
        dealer: int,
        hands: tuple[tuple[Card, ...], tuple[Card, ...]],
        knocker: int,
        knock_discard: Card,
        face_down: bool,
        settlement: Settlement,
    ) -> HandResult:
        winner = knocker if settlement.winner == "knocker" else 1 - knocker
        return cls(
            hand_number,
            dealer,
            settlement.kind,
            winner,
            settlement.points,
            hands,
            knocker,
            knock_discard,
            face_down,
            settlement,
        )

    def melds(self, seat: int) -> tuple[tuple[Card, ...], ...]:
        """The seat's melds as exposed: the knocker's declared or chosen arrangement,
        the defender's own melds (laid-off cards excluded). Empty for a dead hand."""
        if self.settlement is None:
            return ()
        if seat == self.knocker:
            return self.settlement.knocker_melds
        return self.settlement.defender_melds

    def deadwood_cards(self, seat: int) -> tuple[Card, ...]:
        """Cards of the seat in no meld (the defender's after layoffs)."""
        if self.settlement is None:
            return ()
        if seat == self.knocker:
            return self.settlement.knocker_deadwood_cards
        return self.settlement.defender_deadwood_cards

    def deadwood(self, seat: int) -> int | None:
        """The seat's deadwood (the defender's after layoffs); ``None`` for a dead hand."""
        if self.settlement is None:
            return None
        if seat == self.knocker:
            return self.settlement.knocker_deadwood
        return self.settlement.defender_deadwood

    def _exposed(self, seat: int) -> dict[str, Any]:
        return {
            "cards": _texts(self.hands[seat]),
            "melds": [_texts(meld) for meld in self.melds(seat)],
            "deadwood_cards": _texts(self.deadwood_cards(seat)),
            "deadwood": self.deadwood(seat),
        }

    def _base_dict(self) -> dict[str, Any]:
        return {
            "hand": self.hand_number,
            "dealer": self.dealer,
            "kind": self.kind,
            "winner": self.winner,
            "points": self.points,
            "knocker": self.knocker,
        }

    def _layoffs(self) -> list[dict[str, Any]]:
        if self.settlement is None:
            return []
        return [
            {"meld_index": layoff.meld_index, "cards": _texts(layoff.cards)}
            for layoff in self.settlement.layoffs
        ]

    def to_dict(self) -> dict[str, Any]:
        """Everything, JSON-safe: both final hands (also of a dead hand), the knock
        discard, melds, deadwood, layoffs (``meld_index`` into the knocker's melds)."""
        data = self._base_dict()
        data["knock_discard"] = None if self.knock_discard is None else str(self.knock_discard)
        data["knock_discard_face_down"] = self.knock_discard_face_down
        data["exposed"] = [self._exposed(0), self._exposed(1)]
        data["layoffs"] = self._layoffs()
        data["defender_deadwood_before_layoffs"] = (
            None if self.settlement is None else self.settlement.defender_deadwood_before_layoffs
        )
        return data

    def public_dict(self, seat: int) -> dict[str, Any]:
        """What ``seat`` may learn when the hand ends
        (docs/rules.md#hidden-information): both exposed hands after a knock, nothing
        after a dead hand, and the knock discard only if it was face up or ``seat`` is
        the knocker."""
        data = self._base_dict()
        discard_visible = self.knock_discard is not None and (
            not self.knock_discard_face_down or seat == self.knocker
        )
        data["knock_discard"] = str(self.knock_discard) if discard_visible else None
        data["exposed"] = [] if self.settlement is None else [self._exposed(0), self._exposed(1)]
        data["layoffs"] = self._layoffs()
        data["defender_deadwood_before_layoffs"] = (
            None if self.settlement is None else self.settlement.defender_deadwood_before_layoffs
        )
        return data
