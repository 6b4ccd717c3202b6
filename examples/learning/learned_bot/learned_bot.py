"""The `learned` example bot: the policy network trained by ``examples/learning/train.py``
(imitating ``greedy`` from the learning environment's decisions), played with the SDK.

It reads ``weights.json`` beside this file (written by the training script; not in git)
and needs nothing but the standard library and the SDK: the 341 features are computed
here from the SDK's observation exactly as ``hollywood_env.encoding`` computes them from
the engine's (a test compares the two at every decision of whole series), and the
network is evaluated in plain Python, summing only the rows of the non-zero features
and scoring only the legal actions.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

import hollywood_sdk as hs
from hollywood_sdk import ActionKind

WEIGHTS: Final = Path(__file__).resolve().with_name("weights.json")
WEIGHTS_FORMAT: Final = "hollywood-learning-mlp-1"
FEATURE_COUNT: Final = 341
ACTION_COUNT: Final = 107
PHASES: Final = (hs.Phase.UPCARD_OFFER, hs.Phase.DRAW, hs.Phase.DISCARD)
MAX_STOCK: Final = 31
SCORE_CEILING: Final = 4.0
_FIXED_INDEX: Final = {ActionKind.DRAW_STOCK: 0, ActionKind.DRAW_DISCARD: 1, ActionKind.PASS: 2}


def action_index(action: hs.Action) -> int:
    """The action's number in the environment's space (``hollywood_env.actions``)."""
    fixed = _FIXED_INDEX.get(action.kind)
    if fixed is not None:
        return fixed
    assert action.card is not None
    return (3 if action.kind is ActionKind.DISCARD else 55) + action.card.index


def features(observation: hs.Observation) -> dict[int, float]:
    """The non-zero features (index -> value) of ``hollywood_env.encoding``'s table."""
    out: dict[int, float] = {}
    for card in observation.hand:
        out[card.index] = 1.0
    for card in observation.discard_pile:
        out[52 + card.index] = 1.0
    if observation.discard_pile:
        out[104 + observation.discard_pile[-1].index] = 1.0
    for card in observation.opponent_known_cards:
        out[156 + card.index] = 1.0
    taken = observation.taken_discard
    if taken is not None:
        out[208 + taken.index] = 1.0
        if observation.profile.no_discard_of_taken_card:
            out[260 + taken.index] = 1.0
    out[312 + PHASES.index(observation.phase)] = 1.0
    me, them = observation.seat, 1 - observation.seat
    sheet, profile = observation.sheet, observation.profile
    out[316] = observation.stock_size / MAX_STOCK
    out[317] = observation.opponent_hand_size / 11
    out[318] = float(observation.dealer == me)
    out[319] = 1.0  # a bot is asked only on its own turn
    cap = profile.max_hands
    out[320] = observation.hand_number / cap
    for offset, seat in ((0, me), (3, them)):
        for game in range(3):
            score = sheet.scores[seat][game]
            finished = sheet.game_finished[game]
            out[321 + offset + game] = min(score / profile.game_target, SCORE_CEILING)
            # The sheet sent to bots has no "opened" row: a seat has opened a game when
            # it won more hands than the game's number while the game was unfinished,
            # which for a finished game shows as a score (every win scores points).
            out[327 + offset + game] = float(sheet.hands_won[seat] > game
                                             and (not finished or score > 0))
            out[333 + offset + game] = float(sheet.game_winner[game] == seat)
    out[339] = sheet.hands_won[me] / cap
    out[340] = sheet.hands_won[them] / cap
    return {index: value for index, value in out.items() if value}


class WeightsMissingError(FileNotFoundError):
    """No trained weights beside the bot; the message says how to make them."""


class LearnedBot(hs.Bot):
    def __init__(self, weights: Path = WEIGHTS) -> None:
        if not weights.is_file():
            raise WeightsMissingError(
                f"{weights} is missing: run `python -m examples.learning.train` first")
        data: Any = json.loads(weights.read_text(encoding="utf-8"))
        if (data.get("format") != WEIGHTS_FORMAT or data.get("features") != FEATURE_COUNT
                or data.get("actions") != ACTION_COUNT):
            raise ValueError(f"{weights} is not a {WEIGHTS_FORMAT} file for "
                             f"{FEATURE_COUNT} features and {ACTION_COUNT} actions")
        self.w1: list[list[float]] = data["w1"]
        self.b1: list[float] = data["b1"]
        self.w2: list[list[float]] = data["w2"]
        self.b2: list[float] = data["b2"]

    def decide(self, observation: hs.Observation) -> hs.Action:
        hidden = list(self.b1)
        for index, value in features(observation).items():
            row = self.w1[index]
            for unit, weight in enumerate(row):
                hidden[unit] += value * weight
        active = [(unit, level) for unit, level in enumerate(hidden) if level > 0]

        def score(action: hs.Action) -> float:
            number = action_index(action)
            row = self.w2[number]
            return self.b2[number] + sum(level * row[unit] for unit, level in active)

        return max(observation.legal_actions, key=score)


if __name__ == "__main__":
    hs.serve(LearnedBot())
