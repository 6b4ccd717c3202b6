"""An order-independent rating of a season: the Bradley-Terry model fitted by
maximum likelihood on all of its series at once, with error bars.

Model: Davidson's extension of Bradley-Terry, which models a drawn series as a
draw. With x = (θi - θj) / 2, bot i beats bot j with probability e^x / Z, loses
with e^-x / Z and draws with ν / Z, Z = 2 cosh x + ν. The odds of a win over a
loss are e^(θi - θj), as in the plain model, which it is when ν = 0 (a season
without a draw). ν (the draw factor) is fitted with the strengths. Counting a draw
as half a win instead gave it the variance of a coin flip: with 30 % of series
drawn the intervals were about 17 % too wide (coverage 98 % for a stated 95 %).
A season of draws only tells nothing about the strengths (ν → ∞).

Every bot also carries one virtual drawn series against a fixed reference of
strength 0 (a weak prior, as in BayesElo's virtual draws), counted as half a win
and half a loss of the plain model (it informs the strengths, not ν): it keeps
the fit finite for a bot that won or lost everything and anchors the scale; it
also shrinks small samples (3 wins of 4: +164.8 Elo apart where the plain
maximum-likelihood estimate is +190.8). The fit is Newton's method on the concave
log-likelihood (in θ and ln ν; a handful of iterations, each step halved while it
would lower the likelihood); the covariance of the strengths is the inverse of
the information at the optimum (dense linear algebra: numpy), its strengths'
block. Ratings are shown as Elo (θ · 400 / ln 10), centred on the field's mean,
and so are their errors: the Elo shown is the contrast θi - mean(θ), whose
variance is e' C e with e the unit vector of i minus 1/n everywhere (C the
covariance of θ), i.e. the diagonal of P C P with P = I - 1/n. The prior-anchored
spread of θi alone (the diagonal of C) is far wider (4 bots: ±393 against ±158):
it measures how well the fit knows a bot against the virtual reference, not
against the field shown. Differences θi - θj are the same contrast under either
matrix, so the likelihood of superiority and the tied marks do not change.

The likelihood of superiority of i over j is P(θi > θj) under the normal
approximation, Φ((θi - θj) / sd(θi - θj)); two bots are statistically tied at
95 % when the 95 % interval of their difference contains 0, i.e. when neither's
likelihood of superiority reaches 0.975.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Final

import numpy as np
import numpy.typing as npt
from threadpoolctl import ThreadpoolController  # type: ignore[import-untyped]

FloatArray = npt.NDArray[np.float64]

ELO_PER_NATURAL: Final = 400.0 / math.log(10.0)
SIGNIFICANT_LOS: Final = 0.975
_Z95: Final = 1.959963984540054
_PRIOR_SERIES: Final = 1.0
_BLAS: Final = ThreadpoolController()
"""numpy's BLAS (loaded with numpy above): one thread for the fit's small matrices.
Its own threads, spinning for cores the arena's threads hold, made a 200-bot
solve 150 times slower on a loaded 2-core machine."""


@dataclass(frozen=True)
class PairResult:
    """One series between two bots: ``score`` is the first bot's (1, 0.5 or 0)."""

    first: str
    second: str
    score: float


@dataclass(frozen=True)
class BradleyTerryFit:
    """Elo per bot (mean 0), its standard error, and the covariance of the Elo
    ratings (bot order of ``bot_ids``), all of the centred ratings, and the fitted
    draw factor (the module docstring)."""

    bot_ids: tuple[str, ...]
    elo: tuple[float, ...]
    elo_error: tuple[float, ...]
    covariance: tuple[tuple[float, ...], ...]
    draw_factor: float = 0.0
    """Davidson's ν: equal bots draw with probability ν / (2 + ν); 0 without draws."""

    @cached_property
    def _indices(self) -> dict[str, int]:
        return {bot_id: i for i, bot_id in enumerate(self.bot_ids)}

    def index(self, bot_id: str) -> int:
        """The bot's position in ``bot_ids``; ``KeyError`` for a bot not rated."""
        return self._indices[bot_id]

    def interval(self, bot_id: str) -> tuple[float, float]:
        """The 95 % interval of a bot's Elo."""
        i = self.index(bot_id)
        return (self.elo[i] - _Z95 * self.elo_error[i], self.elo[i] + _Z95 * self.elo_error[i])

    def los(self, better: str, worse: str) -> float:
        """Likelihood that ``better`` is stronger than ``worse``."""
        i, j = self.index(better), self.index(worse)
        if i == j:
            return 0.5
        variance = self.covariance[i][i] + self.covariance[j][j] - 2 * self.covariance[i][j]
        difference = self.elo[i] - self.elo[j]
        if variance <= 0:
            return 0.5 if difference == 0 else float(difference > 0)
        return 0.5 * (1 + math.erf(difference / math.sqrt(2 * variance)))

    def significantly_ahead(self, better: str, worse: str) -> bool:
        return self.los(better, worse) >= SIGNIFICANT_LOS

    def los_matrix(self) -> dict[str, dict[str, float]]:
        """``los[a][b]`` for every two different bots: ``los`` for the whole field at
        once (a 200-bot field has 39,800 cells)."""
        covariance = np.array(self.covariance).reshape(len(self.bot_ids), len(self.bot_ids))
        elo = np.array(self.elo)
        diagonal = np.diag(covariance)
        variance = diagonal[:, np.newaxis] + diagonal[np.newaxis, :] - 2 * covariance
        difference = elo[:, np.newaxis] - elo[np.newaxis, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            scaled = difference / np.sqrt(2 * np.where(variance > 0, variance, 1.0))
        values = 0.5 * (1 + _erf(scaled))
        degenerate = np.where(difference == 0, 0.5, (difference > 0).astype(float))
        values = np.where(variance > 0, values, degenerate)
        return {a: {b: float(values[i, j]) for j, b in enumerate(self.bot_ids) if j != i}
                for i, a in enumerate(self.bot_ids)}


def fit(bot_ids: Sequence[str], results: Iterable[PairResult],
        *, max_iterations: int = 100, tolerance: float = 1e-10) -> BradleyTerryFit:
    """The maximum-likelihood fit of ``results`` over ``bot_ids`` (see the module
    docstring); results naming other bots raise ``ValueError``. BLAS runs on one
    thread meanwhile (``_BLAS``)."""
    with _BLAS.limit(limits=1, user_api="blas"):
        return _fit(tuple(bot_ids), results, max_iterations, tolerance)


def _fit(ids: tuple[str, ...], results: Iterable[PairResult], max_iterations: int,
         tolerance: float) -> BradleyTerryFit:
    index = {bot_id: i for i, bot_id in enumerate(ids)}
    size = len(ids)
    if not size:
        return BradleyTerryFit(bot_ids=(), elo=(), elo_error=(), covariance=())
    counts = _Counts(size)
    for result in results:
        i, j = index.get(result.first), index.get(result.second)
        if i is None or j is None:
            raise ValueError(f"a series between {result.first} and {result.second} names a "
                             "bot outside the rating")
        if i != j:
            counts.add(i, j, result.score)
    theta, draw_log = _maximise(counts, max_iterations, tolerance)
    information = _information(counts, theta, draw_log)
    covariance = _centred(np.linalg.inv(information)[:size, :size]) * ELO_PER_NATURAL ** 2
    elo = (theta - theta.mean()) * ELO_PER_NATURAL
    return BradleyTerryFit(
        bot_ids=ids,
        elo=tuple(float(value) for value in elo),
        elo_error=tuple(float(value) for value in np.sqrt(np.diag(covariance))),
        covariance=tuple(tuple(float(value) for value in row) for row in covariance),
        draw_factor=math.exp(draw_log) if draw_log is not None else 0.0,
    )


class _Counts:
    """``won[i, j]``: series i won against j; ``drawn[i, j]`` (symmetric): drawn
    between them; ``played`` their sum both ways."""

    def __init__(self, size: int) -> None:
        self.won = np.zeros((size, size))
        self.drawn = np.zeros((size, size))

    def add(self, i: int, j: int, score: float) -> None:
        if score > 0.5:
            self.won[i, j] += 1.0
        elif score < 0.5:
            self.won[j, i] += 1.0
        else:
            self.drawn[i, j] += 1.0
            self.drawn[j, i] += 1.0

    @property
    def played(self) -> FloatArray:
        result: FloatArray = self.won + self.won.T + self.drawn
        return result

    def draw_log_start(self) -> float | None:
        """ln ν where equal bots would draw as often as the season's series did; None
        without a draw (ν = 0: the plain Bradley-Terry model)."""
        drawn, decisive = float(self.drawn.sum()) / 2, float(self.won.sum())
        return math.log(2 * drawn / decisive) if drawn and decisive else None


def _maximise(counts: _Counts, max_iterations: int,
              tolerance: float) -> tuple[FloatArray, float | None]:
    """Newton's method on the concave log-likelihood, each step halved until it
    does not lower the likelihood. A season of draws only says nothing about the
    strengths (ν → ∞): only the prior is left, θ = 0."""
    size = counts.won.shape[0]
    if not counts.won.any():
        counts.drawn[:] = 0.0
    draw_log = counts.draw_log_start()
    params = np.zeros(size + (draw_log is not None))
    if draw_log is not None:
        params[size] = draw_log
    current = _log_likelihood(counts, *_split(params, size))
    for _ in range(max_iterations):
        theta, draw = _split(params, size)
        step = np.linalg.solve(_information(counts, theta, draw),
                               _gradient(counts, theta, draw))
        for _halving in range(30):
            trial = params + step
            value = _log_likelihood(counts, *_split(trial, size))
            if value >= current - 1e-12 * abs(current):
                break
            step = step / 2
        params, current = trial, value
        if float(np.max(np.abs(step))) < tolerance:
            break
    return _split(params, size)


def _split(params: FloatArray, size: int) -> tuple[FloatArray, float | None]:
    return params[:size], (float(params[size]) if len(params) > size else None)


def _pair_terms(theta: FloatArray, draw_log: float | None
                ) -> tuple[FloatArray, FloatArray, FloatArray, float]:
    """Half the strength differences x[i, j] = (θi - θj) / 2, 2 sinh x, 2 cosh x and ν:
    i beats j with probability e^x / Z, draws with ν / Z, Z = 2 cosh x + ν."""
    half = (theta[:, np.newaxis] - theta[np.newaxis, :]) / 2
    nu = math.exp(draw_log) if draw_log is not None else 0.0
    return half, 2 * np.sinh(half), 2 * np.cosh(half), nu


def _log_likelihood(counts: _Counts, theta: FloatArray, draw_log: float | None) -> float:
    half, _, cosh2, nu = _pair_terms(theta, draw_log)
    pairs = (counts.won - counts.won.T) * half - counts.played * np.log(cosh2 + nu)
    if draw_log is not None:
        pairs = pairs + counts.drawn * draw_log
    prior = _PRIOR_SERIES * 0.5 * (-np.logaddexp(0.0, -theta) - np.logaddexp(0.0, theta))
    return 0.5 * float(pairs.sum()) + float(prior.sum())


def _gradient(counts: _Counts, theta: FloatArray, draw_log: float | None) -> FloatArray:
    _, sinh2, cosh2, nu = _pair_terms(theta, draw_log)
    z = cosh2 + nu
    strengths: FloatArray = 0.5 * ((counts.won - counts.won.T)
                                   - counts.played * sinh2 / z).sum(axis=1)
    strengths += _PRIOR_SERIES * (0.5 - _prior_probabilities(theta))
    if draw_log is None:
        return strengths
    draws = 0.5 * float((counts.drawn - counts.played * nu / z).sum())
    result: FloatArray = np.append(strengths, draws)
    return result


def _information(counts: _Counts, theta: FloatArray, draw_log: float | None) -> FloatArray:
    """Minus the Hessian of the log-likelihood (strengths, then ln ν when there are
    draws). The model is an exponential family in (x, ln ν): observed and expected
    information are one matrix."""
    _, sinh2, cosh2, nu = _pair_terms(theta, draw_log)
    z = cosh2 + nu
    played = counts.played
    weight = played * (cosh2 * z - sinh2 ** 2) / (4 * z ** 2)
    prior = _prior_probabilities(theta)
    strengths: FloatArray = -weight
    strengths[np.diag_indices_from(strengths)] = (
        _PRIOR_SERIES * prior * (1.0 - prior) + weight.sum(axis=1))
    if draw_log is None:
        return strengths
    cross = -0.5 * (played * sinh2 * nu / z ** 2).sum(axis=1)
    corner = 0.5 * float((played * cosh2 * nu / z ** 2).sum())
    size = len(theta)
    information: FloatArray = np.zeros((size + 1, size + 1))
    information[:size, :size] = strengths
    information[:size, size] = information[size, :size] = cross
    information[size, size] = corner
    return information


_erf = np.frompyfunc(math.erf, 1, 1)


def _centred(covariance: npt.NDArray[np.floating[Any]]) -> FloatArray:
    """The covariance of θ - mean(θ): P C P with P = I - 1/n."""
    size = covariance.shape[0]
    projection = np.eye(size) - np.full((size, size), 1.0 / size)
    result: FloatArray = projection @ covariance @ projection
    return result


def _prior_probabilities(theta: FloatArray) -> FloatArray:
    """The probability that each bot beats the reference of strength 0."""
    return 1.0 / (1.0 + np.exp(-theta))
