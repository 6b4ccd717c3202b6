"""Policies for the other seat: a callable given what its seat sees and its legal moves,
answering one of them. ``random_policy`` and ``greedy_policy`` play as the ``random``
and ``greedy`` sample bots do, on the engine's own types."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from engine import Action, ActionKind, Card, Observation, Phase, best_discards, min_deadwood

Policy = Callable[[Observation, Sequence[Action]], Action]
"""Answers one of the legal actions for the observing seat."""


def random_policy(seed: int | None = None) -> Policy:
    """Uniformly random legal moves (seeded: the same seed, the same choices)."""
    rng = random.Random(seed)

    def choose(observation: Observation, legal: Sequence[Action]) -> Action:
        del observation
        return rng.choice(list(legal))

    return choose


def greedy_policy(observation: Observation, legal: Sequence[Action]) -> Action:
    """The ``greedy`` sample bot's rule: take the top discard when it lowers the
    deadwood, discard what leaves the least deadwood (the highest card on a tie), and
    knock as soon as it may with the discard that leaves the least deadwood."""
    kinds = {action.kind: action for action in legal}
    if observation.phase is Phase.DISCARD:
        knocks = [action for action in legal if action.kind is ActionKind.KNOCK]
        if knocks:
            return min(knocks, key=lambda action: _after(observation.hand, action.card))
        _, best = best_discards(list(observation.hand))
        allowed = {action.card: action for action in legal
                   if action.kind is ActionKind.DISCARD and action.card is not None}
        choices = [card for card in best if card in allowed] or list(allowed)
        card = max(choices, key=lambda c: (c.value, c.index))
        return allowed[card]
    top = observation.discard_pile[-1] if observation.discard_pile else None
    if (top is not None and ActionKind.DRAW_DISCARD in kinds
            and best_discards([*observation.hand, top])[0] < min_deadwood(observation.hand)):
        return kinds[ActionKind.DRAW_DISCARD]
    if ActionKind.PASS in kinds:
        return kinds[ActionKind.PASS]
    return kinds.get(ActionKind.DRAW_STOCK) or legal[0]


def _after(hand: Sequence[Card], card: Card | None) -> tuple[int, int]:
    remaining = [c for c in hand if c != card]
    return min_deadwood(remaining), -(card.value if card is not None else 0)
