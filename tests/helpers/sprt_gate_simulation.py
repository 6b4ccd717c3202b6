"""Simulated gate matches: the error rates of the ladder's SPRT gate at its default
settings (``--gate-sprt elo0=0,elo1=20,alpha=0.05,beta=0.05``, at most 200 pairs),
for tests/bench/bench_sprt_gate.py (``make bench``) and
tests/arena/season/test_sprt_gate_rates.py.

A match is what ``SprtMatch`` plays: duplicate pairs, the test's state read after
each pair (``sprt_state``), stopped at a decision or at ``max_pairs``. Each series
of a pair is drawn independently: drawn with probability ``draw_rate``, else won by
A with the probability that keeps A's expected score at the logistic score of the
true Elo difference (so ``elo`` is the Elo the test measures). A decision depends
on the counts alone, so each count vector's state is computed once per run of
matches (``_decision``)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import lru_cache

from arena.core.settings import SeasonConfig
from arena.season.formats.ladder_gate import LadderGate
from arena.season.statistics.pentanomial import (
    SprtSpec,
    logistic_score,
    pair_index,
    sprt_state,
)


def default_gate() -> tuple[SprtSpec, int]:
    """The test and the pair limit of a ladder gate left at its defaults."""
    gate = LadderGate.from_config(SeasonConfig.build(ladder_gate="sprt"))
    assert gate is not None
    return gate.match.spec, gate.match.max_pairs


@dataclass(frozen=True)
class GateRates:
    """Shares of ``runs`` simulated matches at one true Elo: accepted (H1), rejected
    (H0), inconclusive (``max_pairs`` reached), and the mean number of pairs."""

    elo: float
    runs: int
    accepted: float
    rejected: float
    inconclusive: float
    mean_pairs: float


@lru_cache(maxsize=1_000_000)
def _decision(spec: SprtSpec, counts: tuple[int, int, int, int, int]) -> str:
    return sprt_state(spec, counts).decision


def one_match(spec: SprtSpec, max_pairs: int, elo: float, draw_rate: float,
              rng: random.Random) -> tuple[str, int]:
    """The decision ("H1", "H0" or "" at the limit) and the pairs it took."""
    win = logistic_score(elo) - draw_rate / 2  # expected score = win + draw / 2
    counts = [0] * 5
    for pairs in range(1, max_pairs + 1):
        scores = []
        for _ in range(2):
            roll = rng.random()
            scores.append(0.5 if roll < draw_rate else 1.0 if roll < draw_rate + win else 0.0)
        counts[pair_index(scores[0], scores[1])] += 1
        decision = _decision(spec, (counts[0], counts[1], counts[2], counts[3], counts[4]))
        if decision:
            return decision, pairs
    return "", max_pairs


def gate_rates(spec: SprtSpec, max_pairs: int, elo: float, runs: int, seed: int,
               draw_rate: float = 0.1) -> GateRates:
    rng = random.Random(seed)
    outcomes = [one_match(spec, max_pairs, elo, draw_rate, rng) for _ in range(runs)]
    decisions = [decision for decision, _ in outcomes]
    return GateRates(elo, runs, decisions.count("H1") / runs, decisions.count("H0") / runs,
                     decisions.count("") / runs, sum(pairs for _, pairs in outcomes) / runs)
