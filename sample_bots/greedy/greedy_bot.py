"""The `greedy` sample bot.

* Takes the upcard / top discard when that lowers its deadwood (after its best
  discard), otherwise passes or draws from the stock.
* Discards the card that leaves the least deadwood (ties: the highest-value card,
  which costs most if it stays).
* Knocks as soon as it may, with the discard that leaves the least deadwood.
"""

from __future__ import annotations

import hollywood_sdk as hs
from hollywood_sdk import ActionKind, Card


class GreedyBot(hs.Bot):
    def decide(self, observation: hs.Observation) -> hs.Action:
        if observation.phase is hs.Phase.DISCARD:
            return self._discard(observation)
        return self._draw(observation)

    def _draw(self, observation: hs.Observation) -> hs.Action:
        top = observation.top_discard
        if (
            top is not None
            and observation.can(ActionKind.DRAW_DISCARD)
            and observation.deadwood_with(top) < observation.deadwood()
        ):
            # A debug note: shown to this bot's owner alone, beside the move
            # (docs/bot-guide.md, "Debug notes").
            self.debug(f"take {top}: it lowers my deadwood")
            return hs.Action.draw_discard()
        if observation.can(ActionKind.PASS):
            return hs.Action.pass_()
        return hs.Action.draw_stock()

    def _discard(self, observation: hs.Observation) -> hs.Action:
        knocks = observation.actions_of(ActionKind.KNOCK)
        if knocks:
            return min(knocks, key=lambda action: self._after_discard(observation, action.card))
        deadwood, best = observation.best_discards()
        card = max(best, key=lambda c: (c.value, c.index))
        self.debug(f"discard {card}: deadwood {deadwood} after it")
        return hs.Action.discard(card)

    @staticmethod
    def _after_discard(observation: hs.Observation, card: Card | None) -> tuple[int, int]:
        remaining = [c for c in observation.hand if c != card]
        value = card.value if card is not None else 0
        return hs.min_deadwood(remaining), -value


if __name__ == "__main__":
    hs.serve(GreedyBot())
