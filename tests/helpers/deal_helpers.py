"""Helpers for engine play tests: hand-made deals, state snapshots, seeded policies."""

from __future__ import annotations

import random
from typing import Any

from engine import (
    ALL_CARDS,
    Action,
    ActionKind,
    Card,
    Deal,
    Hand,
    Series,
    best_discards,
    parse_cards,
)


def make_deal(seat0: str, seat1: str, upcard: str, stock_top: str = "") -> Deal:
    """A deal from text: each seat's 10 cards, the upcard, and the first stock cards
    (top first); the rest of the stock is every other card in index order."""
    hand0, hand1 = parse_cards(seat0), parse_cards(seat1)
    up = parse_cards(upcard)
    top = parse_cards(stock_top)
    assert len(hand0) == 10 and len(hand1) == 10 and len(up) == 1
    used = set(hand0) | set(hand1) | set(up) | set(top)
    assert len(used) == 21 + len(top), "cards repeat across the deal"
    rest = [card for card in ALL_CARDS if card not in used]
    return Deal((tuple(hand0), tuple(hand1)), up[0], tuple(top) + tuple(rest))


def action(text: str) -> Action:
    return Action.parse(text)


def snapshot(hand: Hand) -> dict[str, Any]:
    """Everything observable about a hand's state, for "state untouched" checks."""
    return {
        "phase": hand.phase,
        "current": hand.current_player,
        "cards": (hand.cards(0), hand.cards(1)),
        "known": (hand.known_cards(0), hand.known_cards(1)),
        "stock": hand.stock(),
        "pile": hand.discard_pile,
        "taken": hand.taken_card,
        "legal": hand.legal_actions(),
        "moves": list(hand.moves),
        "result": hand.result,
    }


def cards_in_play(hand: Hand) -> list[Card]:
    """Every card in both hands, the stock, the pile and a face-down knock discard."""
    cards = hand.cards(0) + hand.cards(1) + hand.stock() + list(hand.discard_pile)
    discard = hand.knock_discard
    if discard is not None and discard not in hand.discard_pile:
        cards.append(discard)
    return cards


def greedy_choice(hand_cards: list[Card], legal: list[Action], rng: random.Random) -> Action:
    """A stronger-than-random policy so that hands end by knocks and series finish:
    knock when possible, otherwise discard a card that keeps deadwood lowest; draws
    and passes at random."""
    knocks = [a for a in legal if a.kind is ActionKind.KNOCK]
    if knocks:
        return rng.choice(knocks)
    discards = [a for a in legal if a.kind is ActionKind.DISCARD]
    if not discards:
        return rng.choice(legal)
    _, best = best_discards(hand_cards)
    preferred = [a for a in discards if a.card in best]
    return rng.choice(preferred or discards)


def never_knock_choice(hand: Hand) -> Action:
    """Pass the upcard, draw from the stock and throw the drawn card back: every hand
    ends dead (for hand-cap tests)."""
    legal = hand.legal_actions()
    for candidate in legal:
        if candidate.kind in (ActionKind.PASS, ActionKind.DRAW_STOCK):
            return candidate
    drawn = hand.moves[-1].drawn
    return Action.discard(drawn) if drawn is not None else legal[0]


def play_series(series: Series, rng: random.Random, greedy: float = 0.7) -> None:
    """Play ``series`` to its end with a seeded mix of greedy and random choices."""
    while not series.is_over:
        legal = series.legal_actions()
        seat = series.current_player
        assert seat is not None
        if rng.random() < greedy:
            series.apply(greedy_choice(series.hand.cards(seat), legal, rng))
        else:
            series.apply(rng.choice(legal))
