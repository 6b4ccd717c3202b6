"""The anchors of ``bench_env.py`` (not a benchmark of its own, hence no ``bench_``
prefix): another gin environment stepped with random legal actions, in its own process
and environment, on request.

``python env_anchor.py pettingzoo SEED`` steps PettingZoo's ``gin_rummy_v4`` (RLCard
underneath; run by ``.bench-venv-pettingzoo/bin/python``), ``python env_anchor.py
openspiel SEED`` OpenSpiel's ``gin_rummy`` (``.bench-venv/bin/python``). Each line of
input is a number of steps N; the answer is one line, ``steps cpu_ns``: the steps
taken (N, rounded up to finish the episode in progress only when it ends there) and
the CPU time of this process over them (``time.process_time_ns``). A step is what a
learner's loop does for one decision: read the acting player's observation and legal
actions, pick one at random, apply it; episodes restart as they end (their resets and
OpenSpiel's chance nodes, the deal, are counted in the time but not as steps).
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable
from typing import Any


def pettingzoo_stepper(seed: int) -> Callable[[], None]:
    import numpy as np
    from pettingzoo.classic import gin_rummy_v4  # type: ignore[import-not-found]

    environment: Any = gin_rummy_v4.env()
    environment.reset(seed=seed)
    rng = random.Random(seed)
    episodes = [seed]

    def step() -> None:
        while True:
            observation, _, terminated, truncated, _ = environment.last()
            if terminated or truncated:
                environment.step(None)
                if not environment.agents:
                    episodes[0] += 1
                    environment.reset(seed=episodes[0])
                continue
            environment.step(rng.choice(np.flatnonzero(observation["action_mask"]).tolist()))
            return

    return step


def openspiel_stepper(seed: int) -> Callable[[], None]:
    import pyspiel  # type: ignore[import-not-found]

    game = pyspiel.load_game("gin_rummy")
    rng = random.Random(seed)
    states = [game.new_initial_state()]

    def step() -> None:
        state = states[0]
        while True:
            if state.is_terminal():
                state = states[0] = game.new_initial_state()
            elif state.is_chance_node():
                outcomes, weights = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, weights)[0])
            else:
                break
        player = state.current_player()
        state.observation_tensor(player)
        state.apply_action(rng.choice(state.legal_actions(player)))

    return step


def main() -> None:
    kind, seed = sys.argv[1], int(sys.argv[2])
    step = {"pettingzoo": pettingzoo_stepper, "openspiel": openspiel_stepper}[kind](seed)
    print("ready", flush=True)
    for line in sys.stdin:
        steps = int(line)
        began = time.process_time_ns()
        for _ in range(steps):
            step()
        print(steps, time.process_time_ns() - began, flush=True)


if __name__ == "__main__":
    main()
