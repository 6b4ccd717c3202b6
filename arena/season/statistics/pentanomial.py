"""The sequential probability ratio test of a head-to-head match, as fishtest
computes it (``LLRcalc.py``: ``regularize``, ``results_to_pdf``, ``MLE_expected``,
``LLR_logistic``), on the pentanomial statistic.

A match is played in duplicate pairs (the same deal twice, the bots' seats
exchanged). A pair scores 0, 1/4, 1/2, 3/4 or 1 for bot A (a series won counts 1,
drawn 1/2, lost 0; the pair's score is the mean of its two series), so the match's
results are five counts. The log-likelihood ratio of H1 (A's expected score is
``s1``) against H0 (it is ``s0``), each the logistic score of an Elo difference, is
the *generalized* one: under each hypothesis the five probabilities are the
maximum-likelihood distribution with that expected score given the observed
frequencies (found by solving the secular equation). Zero counts are replaced by
1e-3 first, as fishtest does, so that the distribution has every outcome.

The test accepts H1 when the LLR reaches ln((1-beta)/alpha), H0 when it falls to
ln(beta/(1-alpha)).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

PAIR_SCORES: Final = (0.0, 0.25, 0.5, 0.75, 1.0)
_REGULARIZE_EPS: Final = 1e-3
_Z95: Final = 1.959963984540054


class SprtSpecError(ValueError):
    """An SPRT specification that cannot be used; the message says why."""


@dataclass(frozen=True)
class SprtSpec:
    """H0: Elo <= ``elo0`` against H1: Elo >= ``elo1``, with error rates
    ``alpha`` (accepting H1 when H0 holds) and ``beta`` (the reverse)."""

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05

    @classmethod
    def parse(cls, text: str) -> SprtSpec:
        """``elo0=0,elo1=10,alpha=0.05,beta=0.05`` (any subset; the rest default)."""
        values: dict[str, float] = {}
        for part in filter(None, (item.strip() for item in text.split(","))):
            key, sep, raw = part.partition("=")
            key = key.strip()
            if not sep or key not in ("elo0", "elo1", "alpha", "beta"):
                raise SprtSpecError(f"sprt: {part!r} is not one of elo0=, elo1=, alpha=, beta=")
            try:
                values[key] = float(raw)
            except ValueError:
                raise SprtSpecError(f"sprt: {key} must be a number, got {raw.strip()!r}") from None
            if not math.isfinite(values[key]):
                raise SprtSpecError(f"sprt: {key} must be finite")
        spec = cls(**values)
        if not spec.elo0 < spec.elo1:
            raise SprtSpecError(f"sprt: elo0 ({spec.elo0:g}) must be less than elo1 "
                                f"({spec.elo1:g})")
        if not (spec.elo0 > -1000 and spec.elo1 < 1000):
            raise SprtSpecError("sprt: elo0 and elo1 must be within ±1000")
        for name in ("alpha", "beta"):
            if not 0 < getattr(spec, name) < 0.5:
                raise SprtSpecError(f"sprt: {name} must be between 0 and 0.5 (exclusive)")
        return spec

    @property
    def lower_bound(self) -> float:
        """H0 is accepted at or below this LLR."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper_bound(self) -> float:
        """H1 is accepted at or above this LLR."""
        return math.log((1 - self.beta) / self.alpha)

    def text(self) -> str:
        return f"elo0={self.elo0:g},elo1={self.elo1:g},alpha={self.alpha:g},beta={self.beta:g}"


def logistic_score(elo: float) -> float:
    """Expected score of an Elo difference."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def elo_of_score(score: float) -> float:
    """Elo difference of an expected score in (0, 1)."""
    return -400.0 * math.log10(1.0 / score - 1.0)


def pair_index(first_score: float, second_score: float) -> int:
    """The pentanomial slot (0..4) of a duplicate pair from A's two series scores
    (each 0, 0.5 or 1)."""
    return round(2 * (first_score + second_score))


def _pdf(counts: Sequence[float]) -> tuple[float, list[tuple[float, float]]]:
    regular = [max(float(count), _REGULARIZE_EPS) for count in counts]
    total = sum(regular)
    return total, [(PAIR_SCORES[i], regular[i] / total) for i in range(len(regular))]


def _mean_var(pdf: Sequence[tuple[float, float]]) -> tuple[float, float]:
    mean = sum(p * a for a, p in pdf)
    return mean, sum(p * (a - mean) ** 2 for a, p in pdf)


def _secular(shifted: Sequence[tuple[float, float]]) -> float:
    """The root x of f(x) = sum p a / (1 + x a) = 0 between -1/max(a) and
    -1/min(a), where f decreases: Newton's method kept inside a shrinking bracket
    (a bisection step whenever Newton would leave it)."""
    low = -1.0 / max(a for a, _ in shifted)
    high = -1.0 / min(a for a, _ in shifted)
    span = high - low
    low, high = low + 1e-12 * span, high - 1e-12 * span
    x = 0.0 if low < 0.0 < high else (low + high) / 2
    for _ in range(200):
        value = 0.0
        slope = 0.0
        for a, p in shifted:
            term = a / (1 + x * a)
            value += p * term
            slope -= p * term * term
        if value == 0.0:
            return x
        if value > 0:
            low = x
        else:
            high = x
        step = x - value / slope if slope else x
        if abs(step - x) <= 1e-15 * max(1.0, abs(x)) or high - low < 1e-15:
            return step if low <= step <= high else x
        x = step if low < step < high else (low + high) / 2
    return x


def mle_with_mean(pdf: Sequence[tuple[float, float]], mean: float) -> list[tuple[float, float]]:
    """The maximum-likelihood distribution on the same outcomes with expected
    value ``mean``, given the observed ``pdf``."""
    shifted = [(a - mean, p) for a, p in pdf]
    x = _secular(shifted)
    return [(a, p / (1 + x * (a - mean))) for a, p in pdf]


def llr(counts: Sequence[float], elo0: float, elo1: float) -> float:
    """The generalized log-likelihood ratio of H1 against H0 for pentanomial
    ``counts`` (pairs scoring 0, 1/4, 1/2, 3/4, 1 for A)."""
    total, pdf = _pdf(counts)
    pdf0 = mle_with_mean(pdf, logistic_score(elo0))
    pdf1 = mle_with_mean(pdf, logistic_score(elo1))
    return total * sum(p * (math.log(p1) - math.log(p0))
                       for (_, p), (_, p0), (_, p1) in zip(pdf, pdf0, pdf1, strict=True))


@dataclass(frozen=True)
class MatchEstimate:
    """A's Elo over B with its 95 % interval, and A's likelihood of superiority."""

    elo: float
    elo_low: float
    elo_high: float
    los: float


def estimate(counts: Sequence[float]) -> MatchEstimate | None:
    """The Elo estimate of pentanomial ``counts`` (None before any pair): the mean
    pair score, its standard error from the pair-score variance, both as Elo."""
    pairs = sum(counts)
    if pairs <= 0:
        return None
    _, pdf = _pdf(counts)
    mean, variance = _mean_var(pdf)
    error = math.sqrt(variance / pairs)
    clamp = 1e-6

    def as_elo(score: float) -> float:
        return elo_of_score(min(max(score, clamp), 1 - clamp))

    los = 0.5 * (1 + math.erf((mean - 0.5) / (error * math.sqrt(2)))) if error > 0 else (
        1.0 if mean > 0.5 else 0.0 if mean < 0.5 else 0.5)
    return MatchEstimate(as_elo(mean), as_elo(mean - _Z95 * error),
                         as_elo(mean + _Z95 * error), los)


@dataclass(frozen=True)
class SprtState:
    """Where a match's test stands; ``decision`` is "H0", "H1" or "" (undecided)."""

    spec: SprtSpec
    counts: tuple[int, int, int, int, int]
    llr: float
    decision: str
    estimate: MatchEstimate | None

    @property
    def pairs(self) -> int:
        return sum(self.counts)


def sprt_state(spec: SprtSpec, counts: Sequence[int]) -> SprtState:
    """The test of ``spec`` after the pairs counted in ``counts``."""
    if len(counts) != len(PAIR_SCORES):
        raise ValueError("pentanomial counts have five entries")
    value = llr(counts, spec.elo0, spec.elo1) if sum(counts) else 0.0
    decision = ("H1" if value >= spec.upper_bound else
                "H0" if value <= spec.lower_bound else "")
    a, b, c, d, e = (int(count) for count in counts)
    return SprtState(spec, (a, b, c, d, e), value, decision, estimate(counts))
