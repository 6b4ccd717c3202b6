"""An order-independent rating of a season: the Bradley-Terry model fitted by
maximum likelihood on all of its series at once, with error bars.

Model: bot i beats bot j with probability 1 / (1 + exp(θj - θi)); a drawn series
counts as half a win for each. Every bot also carries one virtual drawn series
against a fixed reference of strength 0 (a weak prior, as in BayesElo's virtual
draws): it keeps the fit finite for a bot that won or lost everything and
anchors the scale. The fit is Newton's method on the concave log-likelihood
(a handful of iterations); the covariance of the strengths is the inverse of the
observed information at the optimum (dense linear algebra: numpy). Ratings are
shown as Elo (θ · 400 / ln 10), centred on the field's mean, and so are their
errors: the Elo shown is the contrast θi - mean(θ), whose variance is e' C e with
e the unit vector of i minus 1/n everywhere (C the covariance of θ), i.e. the
diagonal of P C P with P = I - 1/n. The prior-anchored spread of θi alone (the
diagonal of C) is far wider (4 bots: ±393 against ±158): it measures how well the
fit knows a bot against the virtual reference, not against the field shown.
Differences θi - θj are the same contrast under either matrix, so the likelihood
of superiority and the tied marks do not change.

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
    ratings (bot order of ``bot_ids``), all of the centred ratings (the module
    docstring)."""

    bot_ids: tuple[str, ...]
    elo: tuple[float, ...]
    elo_error: tuple[float, ...]
    covariance: tuple[tuple[float, ...], ...]

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
    games = np.zeros((size, size))
    wins = np.full(size, 0.5 * _PRIOR_SERIES)
    for result in results:
        i, j = index.get(result.first), index.get(result.second)
        if i is None or j is None:
            raise ValueError(f"a series between {result.first} and {result.second} names a "
                             "bot outside the rating")
        if i == j:
            continue
        games[i, j] += 1.0
        wins[i] += result.score
        wins[j] += 1.0 - result.score
    games += games.T  # series between i and j, either seat first
    theta = np.zeros(size)
    for _ in range(max_iterations):
        step = np.linalg.solve(_information(theta, games), _gradient(theta, games, wins))
        theta += step
        if float(np.max(np.abs(step))) < tolerance:
            break
    covariance = _centred(np.linalg.inv(_information(theta, games))) * ELO_PER_NATURAL ** 2
    elo = (theta - theta.mean()) * ELO_PER_NATURAL
    return BradleyTerryFit(
        bot_ids=ids,
        elo=tuple(float(value) for value in elo),
        elo_error=tuple(float(value) for value in np.sqrt(np.diag(covariance))),
        covariance=tuple(tuple(float(value) for value in row) for row in covariance),
    )


_erf = np.frompyfunc(math.erf, 1, 1)


def _centred(covariance: npt.NDArray[np.floating[Any]]) -> FloatArray:
    """The covariance of θ - mean(θ): P C P with P = I - 1/n."""
    size = covariance.shape[0]
    projection = np.eye(size) - np.full((size, size), 1.0 / size)
    result: FloatArray = projection @ covariance @ projection
    return result


def _win_probabilities(theta: FloatArray) -> FloatArray:
    """p[i, j]: the probability that i beats j."""
    return 1.0 / (1.0 + np.exp(theta[np.newaxis, :] - theta[:, np.newaxis]))


def _prior_probabilities(theta: FloatArray) -> FloatArray:
    """The probability that each bot beats the reference of strength 0."""
    return 1.0 / (1.0 + np.exp(-theta))


def _gradient(theta: FloatArray, games: FloatArray, wins: FloatArray) -> FloatArray:
    expected = _PRIOR_SERIES * _prior_probabilities(theta) + (
        games * _win_probabilities(theta)).sum(axis=1)
    result: FloatArray = wins - expected
    return result


def _information(theta: FloatArray, games: FloatArray) -> FloatArray:
    """The observed information (negative Hessian of the log-likelihood)."""
    p = _win_probabilities(theta)
    weight = games * p * (1.0 - p)
    prior = _prior_probabilities(theta)
    information: FloatArray = -weight
    information[np.diag_indices_from(information)] = (
        _PRIOR_SERIES * prior * (1.0 - prior) + weight.sum(axis=1))
    return information
