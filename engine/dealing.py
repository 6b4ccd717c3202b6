"""Seeded dealing: every deal of a series is a pure function of (series seed, hand number).

The per-hand seed is derived with SHA-256 from the text ``"<seed>:<purpose>"``
and the deck is shuffled by a Fisher-Yates pass driven only by
``random.Random.getrandbits`` (Mersenne Twister seeded from an ``int``). Both are
fixed algorithms, so the same seed deals the same cards on every Python version;
``random.shuffle`` is avoided because its index selection is an implementation
detail of the ``random`` module.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass

from engine.cards import ALL_CARDS, Card

HAND_SIZE = 10
"""Cards dealt to each player."""


@dataclass(frozen=True, slots=True)
class Deal:
    """The cards of one hand, as dealt.

    ``hands[seat]`` is the 10 cards of that seat (in deal order), ``upcard`` starts the
    discard pile, and ``stock`` lists the other 31 cards top first (``stock[0]`` is
    drawn first).
    """

    hands: tuple[tuple[Card, ...], tuple[Card, ...]]
    upcard: Card
    stock: tuple[Card, ...]

    def __post_init__(self) -> None:
        sizes = (len(self.hands[0]), len(self.hands[1]), len(self.stock))
        if sizes != (HAND_SIZE, HAND_SIZE, 52 - 2 * HAND_SIZE - 1):
            raise ValueError(f"a deal is 10 + 10 cards, an upcard and 31 stock cards, got {sizes}")
        cards = (*self.hands[0], *self.hands[1], self.upcard, *self.stock)
        if not all(isinstance(card, Card) for card in cards):
            raise ValueError("a deal must consist of Card values")
        if len(set(cards)) != 52:
            raise ValueError("a deal must hold each of the 52 cards exactly once")

    def swapped(self) -> Deal:
        """The same deal with the two seats' hands exchanged."""
        return Deal((self.hands[1], self.hands[0]), self.upcard, self.stock)


def derive_seed(seed: int, purpose: str) -> int:
    """A 64-bit seed for ``purpose`` (e.g. ``"hand:3"``) derived from the series seed.

    Any ``int`` seed works, negative and huge ones included; distinct seeds and
    purposes give independent streams.
    """
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"a seed must be an int, got {type(seed).__name__}")
    digest = hashlib.sha256(f"{seed}:{purpose}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def _below(rng: random.Random, bound: int) -> int:
    """Uniform integer in ``[0, bound)`` by rejection sampling on fixed-width bits."""
    bits = bound.bit_length()
    while True:
        value = rng.getrandbits(bits)
        if value < bound:
            return value


def shuffled_deck(seed: int) -> list[Card]:
    """The 52 cards in an order determined only by ``seed`` (an already derived seed)."""
    rng = random.Random(seed)
    deck = list(ALL_CARDS)
    for top in range(len(deck) - 1, 0, -1):
        other = _below(rng, top + 1)
        deck[top], deck[other] = deck[other], deck[top]
    return deck


def deal_hand(seed: int, hand_number: int, *, swap_seats: bool = False) -> Deal:
    """The deal of hand ``hand_number`` (1-based) of the series with ``seed``.

    Seat 0 gets the first 10 cards of the shuffled deck, seat 1 the next 10, then the
    upcard and the stock; who deals does not change the cards. ``swap_seats``
    exchanges the two seats' hands (the upcard and stock are unchanged).
    """
    if isinstance(hand_number, bool) or not isinstance(hand_number, int) or hand_number < 1:
        raise ValueError(f"hand_number must be an int >= 1, got {hand_number!r}")
    deck = shuffled_deck(derive_seed(seed, f"hand:{hand_number}"))
    deal = Deal(
        (tuple(deck[:HAND_SIZE]), tuple(deck[HAND_SIZE : 2 * HAND_SIZE])),
        deck[2 * HAND_SIZE],
        tuple(deck[2 * HAND_SIZE + 1 :]),
    )
    return deal.swapped() if swap_seats else deal


def first_dealer(seed: int, *, swap_seats: bool = False) -> int:
    """The seat (0 or 1) that deals the first hand of the series with ``seed``;
    ``swap_seats`` gives the other seat."""
    seat = derive_seed(seed, "first-dealer") & 1
    return seat ^ 1 if swap_seats else seat

