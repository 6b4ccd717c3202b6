"""Hollywood Gin for one seat as a Gymnasium environment: the other seat is played by a
policy (``hollywood_env.policies``: ``random_policy``, ``greedy_policy``, or any callable).

Observations, actions, the action mask and rewards are the AEC environment's
(``hollywood_env.aec``), for the learning seat; the mask is also in ``info``. An illegal
action ends the episode with reward -1 and ``info["illegal_action"]`` set, as PettingZoo's
board games do, so that a learner sampling the whole space never crashes its run.
"""

from __future__ import annotations

from typing import Any, SupportsFloat

import gymnasium
import numpy as np
from gymnasium import spaces

from engine import DEFAULT_MAX_HANDS, FRIENDLY, Observation, Profile, Series
from hollywood_env.actions import ACTION_COUNT, action_at
from hollywood_env.aec import MAX_SEED, action_mask, observation_space
from hollywood_env.encoding import SeatEncoder
from hollywood_env.policies import Policy, random_policy
from hollywood_env.scoring import Episode, rewards_after

ILLEGAL_REWARD = -1.0


class SingleSeatEnv(gymnasium.Env[dict[str, Any], np.int64]):
    """The learning seat is ``seat`` (0 or 1); ``opponent`` plays the other."""

    metadata: dict[str, Any] = {"render_modes": []}  # noqa: RUF012 (Gymnasium's)

    def __init__(self, opponent: Policy | None = None, seat: int = 0,
                 profile: Profile = FRIENDLY, max_hands: int = DEFAULT_MAX_HANDS,
                 episode: Episode = "series") -> None:
        if seat not in (0, 1):
            raise ValueError(f"seat must be 0 or 1, got {seat!r}")
        if episode not in ("series", "hand"):
            raise ValueError(f"episode must be 'series' or 'hand', got {episode!r}")
        self.opponent = opponent or random_policy(0)
        self.seat = seat
        self.profile = profile
        self.max_hands = max_hands
        self.episode: Episode = episode
        self.observation_space = observation_space()
        self.action_space = spaces.Discrete(ACTION_COUNT)
        self.series = Series(0, profile, max_hands=max_hands)
        self._encode = SeatEncoder()
        self._over = True

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, Any]]:
        super().reset(seed=seed)
        options = options or {}
        deal_seed = int(seed) if seed is not None else int(
            self.np_random.integers(0, MAX_SEED))
        self.series = Series(deal_seed, self.profile, max_hands=self.max_hands,
                             swap_seats=bool(options.get("swap_seats", False)))
        self._over = False
        reward, over = self._opponent_moves()
        self._over = over
        del reward  # nothing can score before the learning seat's first move
        return self._observe(), self._info()

    def step(self, action: np.int64 | int) -> tuple[
            dict[str, Any], SupportsFloat, bool, bool, dict[str, Any]]:
        if self._over:
            raise RuntimeError("the episode is over: call reset()")
        index = int(action)
        mask = action_mask(self.series, self.seat)
        if not 0 <= index < ACTION_COUNT or not mask[index]:
            self._over = True
            return self._observe(), ILLEGAL_REWARD, True, False, {
                **self._info(), "illegal_action": index}
        acted_in = self.series.hand
        self.series.apply(action_at(index))
        rewards, over = rewards_after(self.series, acted_in, self.episode)
        reward = rewards[self.seat]
        if not over:
            later, over = self._opponent_moves()
            reward += later
        self._over = over
        return self._observe(), reward, over, False, self._info()

    def engine_observation(self) -> Observation:
        return self.series.observation(self.seat)

    def _opponent_moves(self) -> tuple[float, bool]:
        """The other seat plays until the learning seat is to act or the episode ends."""
        reward = 0.0
        other = 1 - self.seat
        while self.series.current_player == other:
            acted_in = self.series.hand
            view = self.series.observation(other)
            self.series.apply(self.opponent(view, self.series.legal_actions()))
            rewards, over = rewards_after(self.series, acted_in, self.episode)
            reward += rewards[self.seat]
            if over:
                return reward, True
        return reward, self.series.is_over

    def _observe(self) -> dict[str, Any]:
        return {"observation": self._encode(self.series, self.seat),
                "action_mask": action_mask(self.series, self.seat)}

    def _info(self) -> dict[str, Any]:
        return {"action_mask": action_mask(self.series, self.seat),
                "hand_number": self.series.hand_number}
