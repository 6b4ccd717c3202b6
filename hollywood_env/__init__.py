"""Train where you play: Hollywood Gin as a PettingZoo AEC environment and a Gymnasium
single-seat environment, on the arena's own engine (docs/learning.md).

``env()`` / ``raw_env`` are the two-agent environment, ``SingleSeatEnv`` the Gymnasium
one (the other seat played by a policy), ``for_stored_series`` an environment dealing a
series the arena stored. The engine imports nothing of this package.
"""

from hollywood_env.actions import ACTION_COUNT, action_at, action_index
from hollywood_env.aec import raw_env
from hollywood_env.checked import env
from hollywood_env.encoding import FEATURE_COUNT, encode_observation
from hollywood_env.policies import Policy, greedy_policy, random_policy

__all__ = [
    "ACTION_COUNT",
    "FEATURE_COUNT",
    "Policy",
    "action_at",
    "action_index",
    "encode_observation",
    "env",
    "greedy_policy",
    "random_policy",
    "raw_env",
]
