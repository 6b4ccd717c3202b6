"""The `random` sample bot: a uniformly random legal action at every decision.

Set ``HOLLYWOOD_BOT_SEED`` to an integer for reproducible choices.
"""

from __future__ import annotations

import os
import random

import hollywood_sdk as hs


class RandomBot(hs.Bot):
    def __init__(self, seed: int | None = None) -> None:
        self._random = random.Random(seed)

    def decide(self, observation: hs.Observation) -> hs.Action:
        legal = observation.legal_actions
        # A debug note: shown to this bot's owner alone, beside the move
        # (docs/bot-guide.md, "Debug notes").
        self.debug(f"random pick of {len(legal)}")
        return self._random.choice(legal)


def seed_from_environment() -> int | None:
    text = os.environ.get("HOLLYWOOD_BOT_SEED", "").strip()
    return int(text) if text else None


if __name__ == "__main__":
    hs.serve(RandomBot(seed_from_environment()))
