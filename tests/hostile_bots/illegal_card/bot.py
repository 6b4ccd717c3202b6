"""Discards a card it does not hold at its first decision (ILLEGAL_ACTION)."""

import hollywood_sdk as hs


class IllegalCard(hs.Bot):
    def decide(self, observation: hs.Observation) -> hs.Action:
        card = next(c for c in hs.FULL_DECK if c not in observation.hand)
        return hs.Action.discard(card)


if __name__ == "__main__":
    hs.serve(IllegalCard())
