"""The learning environment's speed (issue 39, point 5): environment steps per CPU
second with random legal actions, ours against the gin environments learners know.

* ``hollywood_env.env()`` (PettingZoo's checking wrappers) against PettingZoo's
  ``gin_rummy_v4.env()`` (RLCard's gin rummy, the same wrappers): target 10x;
* ``hollywood_env.raw_env`` (no wrappers) against OpenSpiel's ``gin_rummy`` (C++,
  ``pyspiel``, no wrappers): target 2x.

A step is one decision of a learner's loop: the acting player's observation and legal
actions, one of them at random (Python's ``random``, for every side), the move applied;
an episode that ends is reset (the reset in the time, not a step). Each anchor runs
in its own process from its own environment, installed from PyPI by ``make
bench-venv`` and never the project's: ``.bench-venv-pettingzoo/`` (``pettingzoo[classic]``
1.24, the last release with ``gin_rummy_v4``, and ``rlcard``) and ``.bench-venv/``
(``open-spiel``), driven by ``tests/bench/env_anchor.py``. CPU time is each process's
own (``time.process_time``); the sides take turns in rounds so the machine's load
moves them alike. An anchor that is not installed is named and left out. ``--tiny``:
a few steps, only to show it runs.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from figures import report

from hollywood_env import env, raw_env

REPO = Path(__file__).resolve().parents[2]
ANCHOR_SCRIPT = Path(__file__).with_name("env_anchor.py")
ANCHORS = {
    "pettingzoo": (REPO / ".bench-venv-pettingzoo" / "bin" / "python",
                   "PettingZoo gin_rummy_v4.env()", "hollywood_env.env()", 10.0),
    "openspiel": (REPO / ".bench-venv" / "bin" / "python",
                  "OpenSpiel gin_rummy (pyspiel)", "hollywood_env.raw_env", 2.0),
}
"""Per anchor: its interpreter, its name, the side of ours it is set against, the target
(our steps per CPU second / the anchor's)."""
STEPS = 4_000
ROUNDS = 6
SEED = 20261207


def stepper(environment: Any, seed: int) -> Callable[[], None]:
    """One learner's step of ``environment`` (as ``env_anchor.py`` steps the anchors)."""
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


class Anchor:
    """An anchor's process: asked for N steps, answers the CPU time they took."""

    def __init__(self, kind: str, python: Path) -> None:
        self.process = subprocess.Popen(
            [str(python), str(ANCHOR_SCRIPT), kind, str(SEED)], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert self.process.stdin is not None and self.process.stdout is not None
        self.requests, self.answers = self.process.stdin, self.process.stdout
        if self.answers.readline().strip() != "ready":
            error = self.process.stderr.read() if self.process.stderr else ""
            self.process.wait()
            raise RuntimeError(error.strip().splitlines()[-1] if error.strip() else "no answer")

    def cpu_ns(self, steps: int) -> int:
        self.requests.write(f"{steps}\n")
        self.requests.flush()
        answer = self.answers.readline().split()
        if len(answer) != 2:
            raise RuntimeError(f"the anchor stopped (exit {self.process.wait()})")
        return int(answer[1])

    def close(self) -> None:
        self.requests.close()
        self.process.wait()


def start_anchors() -> dict[str, Anchor]:
    started = {}
    for kind, (python, name, _, _) in ANCHORS.items():
        if not python.exists():
            print(f"({name}: not installed, {python.parent.parent.name}/ is missing; "
                  "`make bench-venv` installs it)")
            continue
        try:
            started[kind] = Anchor(kind, python)
        except RuntimeError as error:
            print(f"({name}: does not run on this machine: {error})")
    return started


def main() -> None:
    ours = {"hollywood_env.env()": stepper(env(), SEED),
            "hollywood_env.raw_env": stepper(raw_env(), SEED)}
    anchors = start_anchors()
    spent: dict[str, int] = dict.fromkeys([*ours, *anchors], 0)
    loads = [os.getloadavg()[0]]
    tiny = "--tiny" in sys.argv[1:]  # that it runs (tests/project/), not a figure
    rounds, steps = (1, 50) if tiny else (ROUNDS, STEPS)
    for _ in range(rounds):
        for name, step in ours.items():
            began = time.process_time_ns()
            for _ in range(steps):
                step()
            spent[name] += time.process_time_ns() - began
        for kind, anchor in anchors.items():
            spent[kind] += anchor.cpu_ns(steps)
        loads.append(os.getloadavg()[0])
    for anchor in anchors.values():
        anchor.close()
    rate = {name: steps * rounds / max(1, nanoseconds) * 1e9 for name, nanoseconds in spent.items()}
    for name in ours:
        print(f"{name:<34} {rate[name]:>9,.0f} steps per CPU second")
    for kind in anchors:
        print(f"{ANCHORS[kind][1]:<34} {rate[kind]:>9,.0f} steps per CPU second")
    conditions = (f"load {min(loads):.1f}-{max(loads):.1f} on {os.cpu_count()} cores, "
                  f"Python {sys.version.split()[0]}")
    for kind in anchors:
        _, name, side, target = ANCHORS[kind]
        ratio = rate[side] / rate[kind]
        print(f"{side} / {name}: {ratio:.2f}x (target {target:g}x)")
        report(f"env steps per CPU s, {side} / {name}", ratio, target, at_most=False,
               conditions=conditions)
    print(f"({steps * rounds} random-legal steps per side over {rounds} interleaved rounds; "
          f"{conditions})")


if __name__ == "__main__":
    main()
