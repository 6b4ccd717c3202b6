"""An order-independent rating of a season: the Bradley-Terry model fitted by
maximum likelihood on all of its series at once, with error bars.

Model: bot i beats bot j with probability 1 / (1 + exp(θj - θi)); a drawn series
counts as half a win for each. Every bot also carries one virtual drawn series
against a fixed reference of strength 0 (a weak prior, as in BayesElo's virtual
draws): it keeps the fit finite for a bot that won or lost everything and
anchors the scale. The fit is Newton's method on the concave log-likelihood
(a handful of iterations); the covariance of the strengths is the inverse of the
observed information at the optimum. Ratings are shown as Elo (θ · 400 / ln 10),
centred on the field's mean.

The likelihood of superiority of i over j is P(θi > θj) under the normal
approximation, Φ((θi - θj) / sd(θi - θj)); two bots are statistically tied at
95 % when the 95 % interval of their difference contains 0, i.e. when neither's
likelihood of superiority reaches 0.975.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from arena.season.statistics.linalg import cholesky, inverse_from_cholesky, solve_cholesky

ELO_PER_NATURAL: Final = 400.0 / math.log(10.0)
SIGNIFICANT_LOS: Final = 0.975
_Z95: Final = 1.959963984540054
_PRIOR_SERIES: Final = 1.0


@dataclass(frozen=True)
class PairResult:
    """One series between two bots: ``score`` is the first bot's (1, 0.5 or 0)."""

    first: str
    second: str
    score: float


@dataclass(frozen=True)
class BradleyTerryFit:
    """Elo per bot (mean 0), its standard error, and the covariance of the Elo
    ratings (bot order of ``bot_ids``)."""

    bot_ids: tuple[str, ...]
    elo: tuple[float, ...]
    elo_error: tuple[float, ...]
    covariance: tuple[tuple[float, ...], ...]

    def index(self, bot_id: str) -> int:
        return self.bot_ids.index(bot_id)

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


def fit(bot_ids: Sequence[str], results: Iterable[PairResult],
        *, max_iterations: int = 100, tolerance: float = 1e-10) -> BradleyTerryFit:
    """The maximum-likelihood fit of ``results`` over ``bot_ids`` (see the module
    docstring); results naming other bots raise ``ValueError``."""
    ids = tuple(bot_ids)
    index = {bot_id: i for i, bot_id in enumerate(ids)}
    size = len(ids)
    games: dict[tuple[int, int], float] = {}
    wins = [0.0] * size
    for result in results:
        if result.first not in index or result.second not in index:
            raise ValueError(f"a series between {result.first} and {result.second} names a "
                             "bot outside the rating")
        i, j = index[result.first], index[result.second]
        if i == j:
            continue
        key = (i, j) if i < j else (j, i)
        games[key] = games.get(key, 0.0) + 1.0
        wins[i] += result.score
        wins[j] += 1.0 - result.score
    for i in range(size):
        wins[i] += 0.5 * _PRIOR_SERIES
    theta = [0.0] * size
    lower = cholesky(_information(theta, games, size)) if size else []
    for _ in range(max_iterations):
        gradient = _gradient(theta, games, wins, size)
        lower = cholesky(_information(theta, games, size))
        step = solve_cholesky(lower, gradient)
        theta = [t + s for t, s in zip(theta, step, strict=True)]
        if max((abs(s) for s in step), default=0.0) < tolerance:
            break
    lower = cholesky(_information(theta, games, size)) if size else []
    covariance = inverse_from_cholesky(lower) if size else []
    mean = sum(theta) / size if size else 0.0
    scale = ELO_PER_NATURAL
    return BradleyTerryFit(
        bot_ids=ids,
        elo=tuple((t - mean) * scale for t in theta),
        elo_error=tuple(math.sqrt(covariance[i][i]) * scale for i in range(size)),
        covariance=tuple(tuple(value * scale * scale for value in row) for row in covariance),
    )


def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)
    return z / (1.0 + z)


def _gradient(theta: Sequence[float], games: dict[tuple[int, int], float],
              wins: Sequence[float], size: int) -> list[float]:
    expected = [_PRIOR_SERIES * _sigmoid(theta[i]) for i in range(size)]
    for (i, j), count in games.items():
        p = _sigmoid(theta[i] - theta[j])
        expected[i] += count * p
        expected[j] += count * (1.0 - p)
    return [wins[i] - expected[i] for i in range(size)]


def _information(theta: Sequence[float], games: dict[tuple[int, int], float],
                 size: int) -> list[list[float]]:
    information = [[0.0] * size for _ in range(size)]
    for i in range(size):
        p = _sigmoid(theta[i])
        information[i][i] = _PRIOR_SERIES * p * (1.0 - p)
    for (i, j), count in games.items():
        p = _sigmoid(theta[i] - theta[j])
        weight = count * p * (1.0 - p)
        information[i][i] += weight
        information[j][j] += weight
        information[i][j] -= weight
        information[j][i] -= weight
    return information
