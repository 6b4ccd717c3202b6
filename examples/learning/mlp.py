"""A one-hidden-layer policy network over the environment's features, trained with numpy.

Input: the 341 features of ``hollywood_env.encoding``; a ReLU hidden layer; output: one
logit per action of ``hollywood_env.actions``, the illegal ones masked out before the
softmax. Training minimises the cross-entropy of the demonstrated action (imitation)
with Adam on minibatches. The weights are saved as JSON that the SDK bot reads with
plain Python (``examples/learning/learned_bot/learned_bot.py``), so the bot needs no
numpy: ``w1`` one row of hidden weights per feature (a sparse input sums only its
non-zero rows), ``w2`` one row per action (only the legal actions are scored).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from engine import Action, Observation
from hollywood_env import ACTION_COUNT, FEATURE_COUNT, action_at, action_index, encode_observation

WEIGHTS_FORMAT: Final = "hollywood-learning-mlp-1"
MASKED: Final = np.float32(-1e9)
Floats = npt.NDArray[np.float32]


class WeightsError(ValueError):
    """A weights file that is not this network's; the message says what is wrong."""


@dataclass
class Network:
    w1: Floats  # (features, hidden)
    b1: Floats  # (hidden,)
    w2: Floats  # (hidden, actions)
    b2: Floats  # (actions,)

    @classmethod
    def initial(cls, hidden: int, seed: int) -> Network:
        rng = np.random.default_rng(seed)
        return cls(
            w1=(rng.standard_normal((FEATURE_COUNT, hidden)) * np.sqrt(2 / FEATURE_COUNT)
                ).astype(np.float32),
            b1=np.zeros(hidden, dtype=np.float32),
            w2=(rng.standard_normal((hidden, ACTION_COUNT)) * np.sqrt(1 / hidden)
                ).astype(np.float32),
            b2=np.zeros(ACTION_COUNT, dtype=np.float32),
        )

    def logits(self, features: Floats, masks: npt.NDArray[np.int8]) -> Floats:
        hidden = np.maximum(features @ self.w1 + self.b1, 0)
        out: Floats = hidden @ self.w2 + self.b2
        return np.where(masks.astype(bool), out, MASKED)

    def choose(self, features: Floats, mask: npt.NDArray[np.int8]) -> int:
        """The legal action with the highest logit."""
        return int(np.argmax(self.logits(features[None, :], mask[None, :])[0]))

    def to_json(self) -> dict[str, Any]:
        return {
            "format": WEIGHTS_FORMAT, "features": FEATURE_COUNT, "actions": ACTION_COUNT,
            "hidden": int(self.b1.shape[0]),
            "w1": _rounded(self.w1), "b1": _rounded(self.b1),
            "w2": _rounded(self.w2.T), "b2": _rounded(self.b2),
        }

    @classmethod
    def from_json(cls, data: Any) -> Network:
        if not isinstance(data, dict) or data.get("format") != WEIGHTS_FORMAT:
            raise WeightsError(f"not a {WEIGHTS_FORMAT} weights file")
        try:
            network = cls(w1=np.asarray(data["w1"], dtype=np.float32),
                          b1=np.asarray(data["b1"], dtype=np.float32),
                          w2=np.asarray(data["w2"], dtype=np.float32).T,
                          b2=np.asarray(data["b2"], dtype=np.float32))
        except (KeyError, TypeError, ValueError) as error:
            raise WeightsError(f"unreadable weights: {error}") from None
        hidden = network.b1.shape
        if (network.w1.shape != (FEATURE_COUNT, *hidden) or network.w2.shape != (
                *hidden, ACTION_COUNT) or network.b2.shape != (ACTION_COUNT,)):
            raise WeightsError("the weights' shapes do not fit 341 features and 107 actions")
        return network

    def save(self, path: Path) -> None:
        path.write_text(json.dumps(self.to_json(), separators=(",", ":")), encoding="utf-8")

    @classmethod
    def load(cls, path: Path) -> Network:
        return cls.from_json(json.loads(path.read_text(encoding="utf-8")))


def _rounded(values: Floats) -> Any:
    # Four decimals keep the file small and change no decision a test can see.
    return np.round(values.astype(np.float64), 4).tolist()


def train(network: Network, features: Floats, masks: npt.NDArray[np.int8],
          targets: npt.NDArray[np.int64], *, epochs: int, seed: int,
          batch: int = 256, rate: float = 3e-3) -> list[float]:
    """Fits ``network`` to the demonstrated ``targets`` in place (Adam); the mean
    cross-entropy of each epoch."""
    rng = np.random.default_rng(seed)
    params = [network.w1, network.b1, network.w2, network.b2]
    first = [np.zeros_like(p) for p in params]
    second = [np.zeros_like(p) for p in params]
    beta1, beta2, steps, losses = 0.9, 0.999, 0, []
    for _ in range(epochs):
        order = rng.permutation(len(targets))
        total = 0.0
        for start in range(0, len(order), batch):
            rows = order[start:start + batch]
            x, mask, y = features[rows], masks[rows].astype(bool), targets[rows]
            pre = x @ network.w1 + network.b1
            hidden = np.maximum(pre, 0)
            logits = np.where(mask, hidden @ network.w2 + network.b2, MASKED)
            logits -= logits.max(axis=1, keepdims=True)
            probs = np.exp(logits)
            probs /= probs.sum(axis=1, keepdims=True)
            picked = probs[np.arange(len(y)), y]
            total += float(-np.log(np.maximum(picked, 1e-12)).sum())
            d_logits = probs
            d_logits[np.arange(len(y)), y] -= 1
            d_logits /= len(y)
            d_hidden = (d_logits @ network.w2.T) * (pre > 0)
            grads = [x.T @ d_hidden, d_hidden.sum(axis=0),
                     hidden.T @ d_logits, d_logits.sum(axis=0)]
            steps += 1
            for param, grad, m, v in zip(params, grads, first, second, strict=True):
                m *= beta1
                m += (1 - beta1) * grad
                v *= beta2
                v += (1 - beta2) * grad * grad
                m_hat = m / (1 - beta1 ** steps)
                v_hat = v / (1 - beta2 ** steps)
                np.subtract(param, rate * m_hat / (np.sqrt(v_hat) + 1e-8), out=param,
                            casting="same_kind")
        losses.append(total / len(targets))
    return losses


class NetworkPolicy:
    """A ``hollywood_env.Policy``: the network's best legal action for what it sees."""

    def __init__(self, network: Network) -> None:
        self.network = network

    def __call__(self, observation: Observation, legal: Sequence[Action]) -> Action:
        mask = np.zeros(ACTION_COUNT, dtype=np.int8)
        for action in legal:
            mask[action_index(action)] = 1
        chosen = action_at(self.network.choose(encode_observation(observation), mask))
        # a knock the engine lists carries its declared melds: answer the listed action
        return next(action for action in legal if action_index(action) == action_index(chosen))
