"""A series played one move at a time on the test's say-so, its moves on a
``MoveBoard`` as the production runner puts them there (``MoveBoard.playing``):
the scripted series of the live page tests."""

from __future__ import annotations

import random
import threading
from typing import Final

from arena.core.series import SeriesOutcome, SeriesSpec, outcome_of
from arena.match.live_moves import MoveBoard
from engine import Action, ActionKind, Series

PERMIT_WAIT_S: Final = 60.0
"""How long a move waits for the test's permit before the series gives up."""


def choose(legal: list[Action], rng: random.Random) -> Action:
    """Knock whenever legal, else a seeded random legal action (hands end soon)."""
    knocks = [action for action in legal if action.kind is ActionKind.KNOCK]
    return knocks[0] if knocks else rng.choice(legal)


class SteppedRunner:
    """A ``RunSeries`` whose every move waits for a permit (``allow``); ``moves``
    lists the actions played so far, ``log`` the last series' engine log."""

    def __init__(self, board: MoveBoard) -> None:
        self.board = board
        self.moves: list[Action] = []
        self.log: list[dict[str, object]] = []
        self._permits = threading.Semaphore(0)
        self.started = threading.Event()

    def allow(self, moves: int) -> None:
        for _ in range(moves):
            self._permits.release()

    def __call__(self, spec: SeriesSpec) -> SeriesOutcome:
        series = Series(spec.seed, spec.profile, max_hands=spec.max_hands,
                        swap_seats=spec.swap_seats)
        rng = random.Random(spec.seed)
        with self.board.playing(spec.series_id) as sink:
            self.started.set()
            while not series.is_over:
                if not self._permits.acquire(timeout=PERMIT_WAIT_S):
                    raise TimeoutError("the test gave no permit for the next move")
                action = choose(series.legal_actions(), rng)
                self.moves.append(action)
                for event in series.apply(action):
                    sink(event)
        self.log = series.log
        result = series.result
        assert result is not None
        return outcome_of(spec.series_id, series, result.winner, None, (0.0, 0.0), 0.0)
