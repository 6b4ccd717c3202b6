"""Demonstrations to imitate: (features, legal mask, action taken) for each decision.

Two sources: ``play_demonstrations`` plays series with the engine, recording the
decisions of a demonstrator policy (``greedy_policy`` by default) against a mix of
opponents; ``read_decisions`` reads ``decisions.jsonl`` from ``arena export --decisions``
(``arena.cli.decisions``), keeping the decisions of the bots whose name starts with a
given prefix, so that an author imitates whatever bot the arena has stored.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from engine import (
    DEFAULT_MAX_HANDS,
    FRIENDLY,
    Action,
    Card,
    Observation,
    Phase,
    Profile,
    Series,
)
from hollywood_env import ACTION_COUNT, Policy, action_index, encode_observation, random_policy
from hollywood_env.encoding import FEATURE_COUNT


class DecisionsFileError(ValueError):
    """A decisions file line that is not an exported decision; names the line."""


@dataclass
class Demonstrations:
    features: list[npt.NDArray[np.float32]] = field(default_factory=list)
    masks: list[npt.NDArray[np.int8]] = field(default_factory=list)
    targets: list[int] = field(default_factory=list)

    def add(self, observation: Observation, legal: Iterable[Action], taken: Action) -> None:
        mask = np.zeros(ACTION_COUNT, dtype=np.int8)
        for action in legal:
            mask[action_index(action)] = 1
        target = action_index(taken)
        if not mask[target]:
            raise ValueError(f"the demonstrated action {taken} is not among the legal ones")
        self.features.append(encode_observation(observation))
        self.masks.append(mask)
        self.targets.append(target)

    def arrays(self) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8],
                              npt.NDArray[np.int64]]:
        if not self.targets:
            return (np.zeros((0, FEATURE_COUNT), np.float32),
                    np.zeros((0, ACTION_COUNT), np.int8), np.zeros(0, np.int64))
        return (np.stack(self.features), np.stack(self.masks),
                np.asarray(self.targets, dtype=np.int64))


def play_demonstrations(series_count: int, seed: int, demonstrator: Policy,
                        opponents: Sequence[Policy] | None = None,
                        profile: Profile = FRIENDLY, max_hands: int = DEFAULT_MAX_HANDS
                        ) -> Demonstrations:
    """The demonstrator's decisions over ``series_count`` series (seeds ``seed``,
    ``seed + 1``, ...; seats alternating), each against the next of ``opponents``
    (by default the demonstrator itself and a random player, in turn)."""
    rivals = list(opponents) if opponents else [demonstrator, random_policy(seed)]
    out = Demonstrations()
    for number in range(series_count):
        series = Series(seed + number, profile, max_hands=max_hands)
        learner_seat = number % 2
        seats = {learner_seat: demonstrator, 1 - learner_seat: rivals[number % len(rivals)]}
        while not series.is_over:
            seat = series.current_player
            assert seat is not None
            view, legal = series.observation(seat), series.legal_actions()
            action = seats[seat](view, legal)
            if seat == learner_seat:
                out.add(view, legal, action)
            series.apply(action)
    return out


def read_decisions(path: Path, bot_prefix: str) -> Demonstrations:
    """The decisions in an exported ``decisions.jsonl`` made by bots named
    ``bot_prefix...`` (``"greedy@"``, or ``"greedy"`` for every version)."""
    out = Demonstrations()
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            try:
                record = json.loads(line)
                if not str(record["bot"]).startswith(bot_prefix):
                    continue
                out.add(observation_from_dict(record["observation"]),
                        [Action.parse(text) for text in record["legal_actions"]],
                        Action.parse(record["action"]))
            except (KeyError, TypeError, ValueError) as error:
                raise DecisionsFileError(f"{path}:{number}: not an exported decision "
                                         f"({error})") from None
    return out


def observation_from_dict(data: dict[str, Any]) -> Observation:
    """The inverse of ``engine.Observation.to_dict`` (what the export writes)."""

    def cards(texts: Iterable[str]) -> tuple[Card, ...]:
        return tuple(Card.parse(text) for text in texts)

    def card(text: str | None) -> Card | None:
        return None if text is None else Card.parse(text)

    scores = tuple(tuple(int(s) for s in row) for row in data["scores"])
    opened = tuple(tuple(bool(o) for o in row) for row in data["opened"])
    return Observation(
        seat=int(data["seat"]), hand_number=int(data["hand_number"]),
        dealer=int(data["dealer"]), current_player=data["current_player"],
        phase=Phase(data["phase"]), hand=cards(data["hand"]),
        discard_pile=cards(data["discard_pile"]), stock_size=int(data["stock_size"]),
        opponent_hand_size=int(data["opponent_hand_size"]),
        opponent_known_cards=cards(data["opponent_known_cards"]),
        taken_card=card(data["taken_card"]), banned_discard=card(data["banned_discard"]),
        knock_discard=card(data["knock_discard"]),
        scores=(scores[0], scores[1]),  # type: ignore[arg-type]
        opened=(opened[0], opened[1]),  # type: ignore[arg-type]
        game_winners=tuple(data["game_winners"]),
        hands_won=(int(data["hands_won"][0]), int(data["hands_won"][1])),
        profile=Profile.from_dict(data["profile"]), max_hands=int(data["max_hands"]),
        last_hand_result=data["last_hand_result"],
    )
