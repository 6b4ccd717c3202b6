"""Hollywood Gin as a PettingZoo AEC environment, on the arena's own engine.

Two agents, ``player_0`` and ``player_1`` (the engine's seats 0 and 1), act in turn.
Each agent observes a dict: ``observation``, its seat's view as 341 numbers
(``hollywood_env.encoding``), and ``action_mask``, 1 for each of the 107 actions
(``hollywood_env.actions``) that is legal now. The engine's own ``Observation`` (what the
seat may see, no more) is ``raw_env.engine_observation(agent)``.

An episode is a whole series (``episode="series"``, the default: three games scored at
once, as the arena plays) or its first hand (``episode="hand"``). ``reset(seed=S,
options={"swap_seats": B})`` deals exactly the cards the arena deals for a series
planned with seed S and that seat swap (``engine.Series``), so a stored series can be
replayed here (``hollywood_env.stored``).

Rewards come from the score sheet, zero-sum: when a hand ends, its winner gets
``+points / 100`` and the loser ``-points / 100`` (a dead hand: 0); when a series ends,
its winner gets ``+1`` more and the loser ``-1`` (a drawn series: 0).
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv  # type: ignore[import-untyped]

from engine import DEFAULT_MAX_HANDS, FRIENDLY, Observation, Profile, Series
from hollywood_env.actions import ACTION_COUNT, DISCARD_BASE, action_at, legal_bits
from hollywood_env.encoding import FEATURE_COUNT, SCORE_CEILING, SeatEncoder
from hollywood_env.scoring import Episode, rewards_after

AGENTS: Final = ("player_0", "player_1")
MAX_SEED: Final = 2**63 - 1


def observation_space() -> spaces.Dict:
    high = np.ones(FEATURE_COUNT, dtype=np.float32)
    high[321:327] = SCORE_CEILING
    return spaces.Dict({
        "observation": spaces.Box(0.0, high, shape=(FEATURE_COUNT,), dtype=np.float32),
        "action_mask": spaces.Box(0, 1, shape=(ACTION_COUNT,), dtype=np.int8),
    })


def action_mask(series: Series, seat: int) -> npt.NDArray[np.int8]:
    """1 for each action ``seat`` may take now (all 0 when it is not its turn)."""
    if series.current_player != seat:
        return np.zeros(ACTION_COUNT, dtype=np.int8)
    return mask_of(legal_bits(series.legal_masks()))


def mask_of(bits: int) -> npt.NDArray[np.int8]:
    """The action mask with a 1 at each index whose bit is set in ``bits``."""
    if bits < len(_FEW_BITS_MASKS):  # a draw or the upcard offer: half of all steps
        return _FEW_BITS_MASKS[bits].copy()
    return _unpacked(bits)


def _unpacked(bits: int) -> npt.NDArray[np.int8]:
    mask: npt.NDArray[np.int8] = np.unpackbits(
        np.frombuffer(bits.to_bytes(_MASK_BYTES, "little"), np.uint8),
        count=ACTION_COUNT, bitorder="little").view(np.int8)
    return mask


_MASK_BYTES: Final = (ACTION_COUNT + 7) // 8
_FEW_BITS_MASKS: Final = tuple(_unpacked(bits) for bits in range(1 << DISCARD_BASE))


class raw_env(AECEnv):  # type: ignore[misc]  # PettingZoo's name for the unwrapped env
    """The environment without the checks ``env()`` makes (``hollywood_env.checked``):
    an illegal action raises ``engine.IllegalActionError`` naming why."""

    agent_selection: str  # set by reset()
    metadata: dict[str, Any] = {  # noqa: RUF012 (PettingZoo reads it off the class)
        "render_modes": ["ansi"], "name": "hollywood_gin_v0", "is_parallelizable": False,
    }

    def __init__(self, profile: Profile = FRIENDLY, max_hands: int = DEFAULT_MAX_HANDS,
                 episode: Episode = "series", render_mode: str | None = None) -> None:
        super().__init__()
        if episode not in ("series", "hand"):
            raise ValueError(f"episode must be 'series' or 'hand', got {episode!r}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.profile = profile
        self.max_hands = max_hands
        self.episode: Episode = episode
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self.observation_spaces = {agent: observation_space() for agent in AGENTS}
        self.action_spaces = {agent: spaces.Discrete(ACTION_COUNT) for agent in AGENTS}
        self._rng = np.random.default_rng()
        self._encode = SeatEncoder()
        self.series = Series(0, profile, max_hands=max_hands)

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        options = options or {}
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            deal_seed = int(seed)
        else:
            deal_seed = int(self._rng.integers(0, MAX_SEED))
        self.series = Series(deal_seed, self.profile, max_hands=self.max_hands,
                             swap_seats=bool(options.get("swap_seats", False)))
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in AGENTS}
        self._select_current()

    def observe(self, agent: str) -> dict[str, Any]:
        seat = AGENTS.index(agent)
        series = self.series
        return {"observation": self._encode(series, seat),
                "action_mask": action_mask(series, seat)}

    def legal_bits(self) -> int:
        """The legal actions now as one number: bit ``i`` set when index ``i`` is legal."""
        return legal_bits(self.series.legal_masks())

    def engine_observation(self, agent: str) -> Observation:
        """What ``agent``'s seat sees now, as the engine (and a bot) sees it."""
        return self.series.observation(AGENTS.index(agent))

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} must act: None is only for an agent that is done")
        series = self.series
        acted_in = series.hand
        series.apply(action_at(action))
        (reward_0, reward_1), over = rewards_after(series, acted_in, self.episode)
        self.rewards = {AGENTS[0]: reward_0, AGENTS[1]: reward_1}
        cumulative = self._cumulative_rewards
        cumulative[agent] = 0.0
        cumulative[AGENTS[0]] += reward_0  # PettingZoo's _accumulate_rewards, inline
        cumulative[AGENTS[1]] += reward_1
        if over:
            self.terminations = dict.fromkeys(AGENTS, True)
        else:
            seat = series.current_player
            self.agent_selection = AGENTS[0 if seat is None else seat]

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        seat = self.series.current_player
        view = self.series.observation(0 if seat is None else seat)
        sheet = " | ".join(f"seat {s}: {view.scores[s]}" for s in (0, 1))
        hand = " ".join(str(card) for card in view.hand)
        top = view.discard_pile[-1] if view.discard_pile else "-"
        return (f"hand {view.hand_number}, {view.phase}, seat {seat} to act; top {top}; "
                f"stock {view.stock_size}\nseat {view.seat} holds {hand}\n{sheet}")

    def close(self) -> None:
        pass

    def _select_current(self) -> None:
        seat = self.series.current_player
        self.agent_selection = AGENTS[0 if seat is None else seat]
