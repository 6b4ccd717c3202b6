"""Playing cards and the text notation used everywhere (docs/rules.md#cards).

A card is written as rank ``A 2 3 4 5 6 7 8 9 T J Q K`` followed by suit
``c d h s``: ``As``, ``Td``, ``Kh``, ``7c``. Aces are always low.

There are exactly 52 :class:`Card` values; they are interned, so ``Card`` objects
can be compared with ``is`` as well as ``==`` and are cheap to hash. Each card
also has a dense ``index`` (0..51) and a ``bit`` (``1 << index``) for the fast
bitmask algorithms in :mod:`engine.melds`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from enum import IntEnum
from typing import Final


class Suit(IntEnum):
    """The four suits, ordered clubs < diamonds < hearts < spades."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def symbol(self) -> str:
        return "♣♦♥♠"[self]


RANK_LETTERS: Final = "A23456789TJQK"
SUIT_LETTERS: Final = "cdhs"
RANK_NAMES: Final = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


class CardParseError(ValueError):
    """Raised for text that is not a card or a list of cards; names the bad token."""

    def __init__(self, message: str, token: str) -> None:
        super().__init__(message)
        self.token = token


class DuplicateCardError(CardParseError):
    """Raised when the same card appears twice where a set of cards is expected."""


class Card:
    """One of the 52 cards. Immutable and interned: build with ``Card(rank, suit)``,
    :meth:`Card.parse` or :meth:`Card.from_index`."""

    __slots__ = ("bit", "index", "rank", "suit", "value")

    rank: int
    """1 (ace) to 13 (king)."""
    suit: Suit
    index: int
    """``suit * 13 + rank - 1``: 0..51, clubs first."""
    bit: int
    """``1 << index``."""
    value: int
    """Deadwood value: ace 1, 2-10 face value, J Q K 10."""

    _interned: Final[dict[int, Card]] = {}

    def __new__(cls, rank: int, suit: Suit | int) -> Card:
        if not (isinstance(rank, int) and 1 <= rank <= 13):
            raise ValueError(f"rank must be 1..13, got {rank!r}")
        if not (isinstance(suit, int) and 0 <= suit <= 3):
            raise ValueError(f"suit must be 0..3, got {suit!r}")
        index = int(suit) * 13 + rank - 1
        existing = cls._interned.get(index)
        if existing is not None:
            return existing
        card = super().__new__(cls)
        object.__setattr__(card, "rank", rank)
        object.__setattr__(card, "suit", Suit(suit))
        object.__setattr__(card, "index", index)
        object.__setattr__(card, "bit", 1 << index)
        object.__setattr__(card, "value", min(rank, 10))
        cls._interned[index] = card
        return card

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Card is immutable")

    def __reduce__(self) -> tuple[type[Card], tuple[int, Suit]]:
        return (Card, (self.rank, self.suit))

    @classmethod
    def from_index(cls, index: int) -> Card:
        """The card with dense index ``index`` (0..51)."""
        return ALL_CARDS[index]

    @classmethod
    def parse(cls, token: str) -> Card:
        """Parse one card such as ``"As"`` or ``"Td"`` (case-insensitive; ``10`` for ``T``)."""
        text = token.strip()
        match = _CARD_RE.fullmatch(text)
        if match is None:
            raise CardParseError(f"not a card: {token!r} (expected e.g. 'As', 'Td', '7c')", token)
        rank_text, suit_text = match.group(1).upper(), match.group(2).lower()
        rank = 10 if rank_text == "10" else RANK_LETTERS.index(rank_text) + 1
        return cls(rank, SUIT_LETTERS.index(suit_text))

    @property
    def pretty(self) -> str:
        """Display form such as ``10♦`` (never parsed back)."""
        return f"{RANK_NAMES[self.rank - 1]}{self.suit.symbol}"

    def __str__(self) -> str:
        return _TEXTS[self.index]

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return self is other

    def __hash__(self) -> int:
        return self.index

    def __lt__(self, other: Card) -> bool:
        return self.sort_key < other.sort_key

    def __le__(self, other: Card) -> bool:
        return self.sort_key <= other.sort_key

    def __gt__(self, other: Card) -> bool:
        return self.sort_key > other.sort_key

    def __ge__(self, other: Card) -> bool:
        return self.sort_key >= other.sort_key

    @property
    def sort_key(self) -> tuple[int, int]:
        """Cards sort by suit, then rank: the natural order for reading runs."""
        return (self.suit, self.rank)


_CARD_RE: Final = re.compile(r"(10|[A2-9TJQK])([CDHS])", re.IGNORECASE)
_SEPARATORS: Final = re.compile(r"[\s,]+")

ALL_CARDS: Final[tuple[Card, ...]] = tuple(Card(index % 13 + 1, index // 13) for index in range(52))
"""The 52 cards in index order (clubs A..K, diamonds, hearts, spades)."""
_TEXTS: Final = tuple(RANK_LETTERS[index % 13] + SUIT_LETTERS[index // 13] for index in range(52))
"""``str(card)`` by card index: the event log writes a card at every move."""


def parse_cards(text: str, *, allow_duplicates: bool = False) -> list[Card]:
    """Parse whitespace- or comma-separated cards, e.g. ``"As Td, Kh 7c"``.

    Raises :class:`CardParseError` naming the first bad token, and
    :class:`DuplicateCardError` if a card appears twice (unless allowed).
    """
    tokens = [token for token in _SEPARATORS.split(text.strip()) if token]
    cards: list[Card] = []
    seen: set[Card] = set()
    for token in tokens:
        card = Card.parse(token)
        if card in seen and not allow_duplicates:
            raise DuplicateCardError(f"duplicate card: {token!r}", token)
        seen.add(card)
        cards.append(card)
    return cards


def format_cards(cards: Iterable[Card]) -> str:
    """Format cards in the text notation, space separated, in the given order."""
    return " ".join(str(card) for card in cards)


def cards_to_mask(cards: Iterable[Card]) -> int:
    """The bitmask with the bit of every given card set."""
    mask = 0
    for card in cards:
        mask |= card.bit
    return mask


def _suit_rows(suit: int) -> tuple[tuple[Card, ...], ...]:
    """The cards of every 13-bit row of ``suit`` (bit 0 the ace), in rank order:
    each row is the rows without its top rank, then those rows with it added."""
    rows: list[tuple[Card, ...]] = [()]
    for card in ALL_CARDS[suit * 13:suit * 13 + 13]:
        rows += [(*row, card) for row in rows]
    return tuple(rows)


# One table per suit (~0.8 MB each): a mask's cards are four lookups, in index
# order with no sort and no loop over its bits.
_CLUB_ROWS: Final = _suit_rows(0)
_DIAMOND_ROWS: Final = _suit_rows(1)
_HEART_ROWS: Final = _suit_rows(2)
_SPADE_ROWS: Final = _suit_rows(3)


SUIT_ROWS: Final = (_CLUB_ROWS, _DIAMOND_ROWS, _HEART_ROWS, _SPADE_ROWS)
"""Per suit: the cards of every 13-bit row (bit 0 the ace), in rank order."""


def mask_to_cards(mask: int) -> list[Card]:
    """The cards whose bits are set in ``mask`` (a 52-bit mask), in index order."""
    return [*_CLUB_ROWS[mask & 8191], *_DIAMOND_ROWS[(mask >> 13) & 8191],
            *_HEART_ROWS[(mask >> 26) & 8191], *_SPADE_ROWS[mask >> 39]]
