"""Cards in the protocol's text notation (``"As"``, ``"Td"``, ``"7c"``).

The SDK has its own small card type so that bots depend on the protocol only,
never on the arena's engine.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

RANKS: Final = "A23456789TJQK"
SUITS: Final = "cdhs"


class CardError(ValueError):
    """Text that is not a card in the protocol notation."""


@dataclass(frozen=True, slots=True)
class Card:
    """A playing card. ``rank`` is 1 (ace, always low) to 13 (king); ``suit`` is one
    of ``"c" "d" "h" "s"``. Cards order by suit, then rank (how runs read)."""

    rank: int
    suit: str

    def __post_init__(self) -> None:
        if not 1 <= self.rank <= 13 or self.suit not in SUITS or len(self.suit) != 1:
            raise CardError(f"no such card: rank={self.rank!r} suit={self.suit!r}")

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse ``"As"``, ``"Td"`` (also ``"10d"``, any letter case)."""
        known = _BY_TEXT.get(text)
        if known is not None:  # the arena always sends the canonical form
            return known
        token = text.strip()
        rank_text, suit_text = token[:-1].upper(), token[-1:].lower()
        if rank_text == "10":
            rank_text = "T"
        if len(rank_text) != 1 or rank_text not in RANKS or suit_text not in SUITS or not suit_text:
            raise CardError(f"not a card: {text!r} (expected e.g. 'As', 'Td', '7c')")
        return cls(RANKS.index(rank_text) + 1, suit_text)

    @property
    def value(self) -> int:
        """Deadwood value: ace 1, 2-10 face value, J Q K 10."""
        return min(self.rank, 10)

    @property
    def index(self) -> int:
        """0..51, clubs first: ``suit_index * 13 + rank - 1``."""
        return SUITS.index(self.suit) * 13 + self.rank - 1

    def __lt__(self, other: Card) -> bool:
        return self.index < other.index

    def __str__(self) -> str:
        return RANKS[self.rank - 1] + self.suit

    def __repr__(self) -> str:
        return f"Card({str(self)!r})"


def parse_cards(texts: Iterable[str]) -> list[Card]:
    """Parse a sequence of card strings, keeping the order."""
    return [Card.parse(text) for text in texts]


def format_cards(cards: Iterable[Card]) -> str:
    """``"As Td 7c"``."""
    return " ".join(str(card) for card in cards)


FULL_DECK: Final[tuple[Card, ...]] = tuple(
    Card(rank, suit) for suit in SUITS for rank in range(1, 14)
)
_BY_TEXT: Final[dict[str, Card]] = {str(card): card for card in FULL_DECK}
