"""``env()``: the AEC environment with the checks of PettingZoo's usual wrappers for a
board game, built into one class.

PettingZoo's ``TerminateIllegalWrapper``, ``AssertOutOfBoundsWrapper`` and
``OrderEnforcingWrapper`` forward every attribute a learner reads (``rewards``,
``terminations``, ``agent_selection``...) through three layers of ``__getattr__``: more
than half of a step's time. ``CheckedEnv`` makes the same checks with the same
outcomes and PettingZoo's own messages, and forwards nothing:

* an illegal action ends the episode (every agent terminated and truncated) with reward
  -1 for the agent that took it and 0 for the other;
* an action outside the space (or ``None`` for an agent still playing) is an
  ``AssertionError``;
* ``step``, ``observe`` and ``render`` before ``reset`` are errors, and so is reading
  ``rewards``, ``terminations``, ``agent_selection``... before it; a step once every
  agent is done is a warning.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
from pettingzoo.utils.env_logger import EnvLogger  # type: ignore[import-untyped]

from hollywood_env.actions import ACTION_COUNT
from hollywood_env.aec import raw_env

ILLEGAL_REWARD: Final = -1.0
_SET_BY_RESET: Final = frozenset({"rewards", "terminations", "truncations", "infos",
                                  "agent_selection", "num_agents", "agents"})


def in_action_space(action: object) -> bool:
    """What ``gymnasium.spaces.Discrete(107).contains`` accepts: an integer (a numpy
    integer or a 0-dimensional integer array too) from 0 to 106."""
    if type(action) is int:
        return 0 <= action < ACTION_COUNT
    if isinstance(action, np.ndarray):
        if action.shape != () or not np.issubdtype(action.dtype, np.integer):
            return False
        action = action.item()
    if not isinstance(action, int | np.integer):
        return False
    return 0 <= int(action) < ACTION_COUNT


class CheckedEnv(raw_env):
    """``raw_env`` with PettingZoo's board-game checks (the module's list)."""

    def __init__(self, **kwargs: Any) -> None:
        self._has_reset = False
        super().__init__(**kwargs)

    def __getattr__(self, name: str) -> Any:
        # only reached for an attribute the object lacks: those reset() sets
        if name in _SET_BY_RESET and not self.__dict__.get("_has_reset", False):
            raise AttributeError(f"{name} cannot be accessed before reset")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._has_reset = True
        super().reset(seed=seed, options=options)

    def observe(self, agent: str) -> dict[str, Any]:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return super().observe(agent)

    def render(self) -> str | None:
        if not self._has_reset:
            EnvLogger.error_render_before_reset()
        return super().render()

    def step(self, action: int | None) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        if not self.agents:
            EnvLogger.warn_step_after_terminated_truncated()
            return
        agent = self.agent_selection
        done = self.terminations[agent] or self.truncations[agent]
        assert (action is None and done) or in_action_space(action), (
            "action is not in action space")
        if done:
            self._was_dead_step(action)
            return
        assert action is not None
        if not self.legal_bits() >> int(action) & 1:
            self._end_for_illegal_action(agent)
            return
        super().step(action)

    def _end_for_illegal_action(self, agent: str) -> None:
        EnvLogger.warn_on_illegal_move()
        self._cumulative_rewards[agent] = 0.0
        self.terminations = dict.fromkeys(self.agents, True)
        self.truncations = dict.fromkeys(self.agents, True)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.rewards[agent] = ILLEGAL_REWARD
        self._accumulate_rewards()
        self._deads_step_first()


def env(**kwargs: Any) -> CheckedEnv:
    """The environment with the checks of PettingZoo's usual wrappers for a board game
    (``CheckedEnv``): an illegal action ends the episode with reward -1 for the agent
    that took it, an action outside the space is an error, and the API's order is
    enforced."""
    return CheckedEnv(**kwargs)
