"""Which outcomes a season replays before storing them (``arena.season.verify``).

Replaying an outcome's log costs about one more engine run of its series. Where an
outcome crosses a trust boundary, every one is replayed: an executor whose players
are other machines (``PlaysElsewhere``: the cluster), and any outcome that names the
player that reported it (``played_by``). A series played in this process by the
arena's own match loop has a log the arena's own engine wrote; the replay there
guards against the arena's own bugs, not against a bot, so ``LocalCheck`` keeps it
from storing a wrong result unnoticed at a fraction of the cost:

* every outcome gets ``verify_summary``: the planned deal at the log's start, and the
  winner and every figure of the result equal to the log's own end (a result
  converted wrongly, another series' outcome, a log cut short);
* a forfeit is always replayed (where a fault is placed is the arena's judgement
  of a bot, and forfeits are few);
* the first outcome of the run, and then one played-out outcome in ``SAMPLE_EVERY``
  at random, is replayed in full (an engine or match-loop bug that writes a move the rules
  refuse or events they do not produce shows within a few series);
* after any mismatch, every later outcome of the run is replayed: a bug once seen
  gets no more sampling. The mismatch itself is refused as every refused outcome is
  (``arena.season.runner``: logged, counted, the series played again).
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from typing import Final

from arena.core.series import SeriesOutcome
from arena.execution import Executor, PlaysElsewhere
from arena.season.verify import OutcomeCheck, OutcomeMismatch, verify_outcome, verify_summary
from engine.profiles import Profile

SAMPLE_EVERY: Final = 32
"""One played-out local outcome in this many is replayed in full (after the first).
A replay costs about 1.4 times the bare engine's run of its series (the log's
actions read back and every event compared; measured on random-bot series to the
200-hand cap), so one in 32 costs about 4 % of the play's engine time beside the
first outcome's replay; one in 8 cost 18 %, a tenth of an in-process season's
whole CPU (issue 41). A bug in a share ``s`` of the series shows in about
``32 / s`` of them; one in every series shows in the first."""


class LocalCheck:
    """The ``OutcomeCheck`` of a season played in this process; see the module
    docstring. ``replayed`` and ``summarised`` count what it did."""

    def __init__(self, *, every: int = SAMPLE_EVERY, replay: OutcomeCheck = verify_outcome,
                 summary: OutcomeCheck = verify_summary,
                 draw: Callable[[], float] = random.random) -> None:
        if every < 1:
            raise ValueError(f"every must be at least 1, got {every}")
        self.every = every
        self._replay = replay
        self._summary = summary
        self._draw = draw
        self._lock = threading.Lock()
        self._strict = False
        self.replayed = 0
        self.summarised = 0

    @property
    def strict(self) -> bool:
        """Whether every outcome is replayed from now on (a mismatch was seen)."""
        return self._strict

    def __call__(self, outcome: SeriesOutcome, *, seed: int, profile: Profile,
                 max_hands: int, swap_seats: bool) -> None:
        with self._lock:
            full = (self._strict or bool(outcome.played_by) or outcome.fault is not None
                    or self.replayed == 0 or self._draw() * self.every < 1)
            if full:
                self.replayed += 1
            else:
                self.summarised += 1
        check = self._replay if full else self._summary  # a forfeit is always full
        try:
            check(outcome, seed=seed, profile=profile, max_hands=max_hands,
                  swap_seats=swap_seats)
        except OutcomeMismatch:
            with self._lock:
                self._strict = True
            raise


def outcome_check_for(executor: Executor) -> OutcomeCheck:
    """Every outcome replayed for an executor that plays on other machines; the
    local policy (``LocalCheck``) for one that plays here."""
    if isinstance(executor, PlaysElsewhere):
        return verify_outcome
    return LocalCheck()
