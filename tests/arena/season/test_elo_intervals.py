"""The Bradley-Terry Elo intervals are those of the Elo shown: centred on the field.

The expected half-widths come from an independent fit written here in plain Python:
the same likelihood (Davidson's draw model: with x = (θi - θj) / 2, a win, a loss
and a draw have probabilities proportional to e^x, e^-x and ν, ν fitted too when
there are draws; one virtual draw per bot against a fixed reference of strength 0,
half a win and half a loss of the plain logistic model) maximised by gradient
ascent, its information matrix by finite differences of the log-likelihood,
inverted by Gauss-Jordan, its strengths' block taken, and the variance of the
centred strength θi - mean(θ) as e' C e with e the unit vector of i minus 1/n."""

from __future__ import annotations

import math

import pytest

from arena.season.statistics.bradley_terry import ELO_PER_NATURAL, PairResult, fit

Z95 = 1.959963984540054


def log_likelihood(theta: list[float], results: list[tuple[int, int, float]]) -> float:
    """``theta``: the strengths, then ln ν when a pair's result is a draw; ``j`` = -1
    is the prior's reference."""
    total = 0.0
    for i, j, score in results:
        if j < 0:
            total += score * -math.log1p(math.exp(-theta[i]))
            total += (1 - score) * -math.log1p(math.exp(theta[i]))
            continue
        x = (theta[i] - theta[j]) / 2
        nu = math.exp(theta[-1]) if has_draws(results) else 0.0
        z = math.exp(x) + math.exp(-x) + nu
        numerator = math.exp(x) if score == 1 else math.exp(-x) if score == 0 else nu
        total += math.log(numerator / z)
    return total


def has_draws(results: list[tuple[int, int, float]]) -> bool:
    return any(j >= 0 and score == 0.5 for _, j, score in results)


def independent_fit(size: int, results: list[tuple[int, int, float]]) -> list[float]:
    """Gradient ascent, the gradient by central differences."""
    theta = [0.0] * size
    step = 0.05
    for _ in range(20000):
        gradient = []
        for k in range(size):
            up, down = theta.copy(), theta.copy()
            up[k] += 1e-6
            down[k] -= 1e-6
            gradient.append((log_likelihood(up, results) - log_likelihood(down, results)) / 2e-6)
        theta = [t + step * g for t, g in zip(theta, gradient, strict=True)]
        if max(abs(g) for g in gradient) < 1e-9:
            break
    return theta


def information(theta: list[float], results: list[tuple[int, int, float]]) -> list[list[float]]:
    """Minus the Hessian of the log-likelihood, by finite differences."""
    size, h = len(theta), 1e-4
    matrix = [[0.0] * size for _ in range(size)]
    for a in range(size):
        for b in range(size):
            values = []
            for da, db in ((h, h), (h, -h), (-h, h), (-h, -h)):
                point = theta.copy()
                point[a] += da
                point[b] += db
                values.append(log_likelihood(point, results))
            matrix[a][b] = -(values[0] - values[1] - values[2] + values[3]) / (4 * h * h)
    return matrix


def inverse(matrix: list[list[float]]) -> list[list[float]]:
    size = len(matrix)
    rows = [row.copy() + [float(i == k) for k in range(size)] for i, row in enumerate(matrix)]
    for column in range(size):
        pivot = max(range(column, size), key=lambda r: abs(rows[r][column]))
        rows[column], rows[pivot] = rows[pivot], rows[column]
        scale = rows[column][column]
        rows[column] = [value / scale for value in rows[column]]
        for r in range(size):
            if r != column:
                factor = rows[r][column]
                rows[r] = [x - factor * y for x, y in zip(rows[r], rows[column], strict=True)]
    return [row[size:] for row in rows]


def centred_half_widths(size: int, results: list[tuple[int, int, float]]) -> list[float]:
    with_prior = results + [(i, -1, 0.5) for i in range(size)]
    theta = independent_fit(size + has_draws(results), with_prior)
    covariance = inverse(information(theta, with_prior))
    widths = []
    for i in range(size):
        e = [(1.0 if k == i else 0.0) - 1.0 / size for k in range(size)]
        variance = sum(e[a] * covariance[a][b] * e[b] for a in range(size) for b in range(size))
        widths.append(Z95 * math.sqrt(variance) * ELO_PER_NATURAL)
    return widths


# A 4-bot double round robin with a clear order and one upset per pair or so.
BOTS = ("a", "b", "c", "d")
SERIES = [("a", "b", 1.0), ("b", "a", 0.0), ("a", "c", 1.0), ("c", "a", 0.5),
          ("a", "d", 1.0), ("d", "a", 0.0), ("b", "c", 1.0), ("c", "b", 1.0),
          ("b", "d", 1.0), ("d", "b", 0.0), ("c", "d", 0.5), ("d", "c", 1.0),
          ("a", "b", 0.0), ("b", "c", 1.0), ("c", "d", 1.0), ("d", "a", 0.0)]


def test_elo_intervals_are_centred_on_the_field_like_an_independent_fit() -> None:
    rating = fit(BOTS, [PairResult(*series) for series in SERIES])
    index = {bot: i for i, bot in enumerate(BOTS)}
    expected = centred_half_widths(len(BOTS), [(index[a], index[b], s) for a, b, s in SERIES])
    for bot, width in zip(BOTS, expected, strict=True):
        low, high = rating.interval(bot)
        assert (high - low) / 2 == pytest.approx(width, rel=0.01), bot
        assert rating.elo[index[bot]] == pytest.approx((low + high) / 2)
    assert sum(rating.elo) == pytest.approx(0.0, abs=1e-6)


def sigmoid(x: float) -> float:
    return 1 / (1 + math.exp(-x))


def test_two_bots_centred_interval_by_hand() -> None:
    """a beats b 3 times of 4. By symmetry θb = -θa = -t, with t solving
    3.5 = 4 s(2t) + s(t). The information matrix is [[w+q, -w], [-w, w+q]] with
    w = 4 s(2t)(1 - s(2t)) and q = s(t)(1 - s(t)); (1, -1) is its eigenvector of
    eigenvalue 2w + q, so Var(θa - θb) = 2 / (2w + q), and the centred Elo
    (θa - θb)/2 has a quarter of that: 1 / (2 (2w + q))."""
    lo, hi = 0.0, 5.0
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if 4 * sigmoid(2 * mid) + sigmoid(mid) < 3.5 else (lo, mid)
    t = lo
    w = 4 * sigmoid(2 * t) * (1 - sigmoid(2 * t))
    q = sigmoid(t) * (1 - sigmoid(t))
    half_width = Z95 * math.sqrt(1 / (2 * (2 * w + q))) * ELO_PER_NATURAL
    rating = fit(("a", "b"), [PairResult("a", "b", 1.0)] * 3 + [PairResult("a", "b", 0.0)])
    for bot in ("a", "b"):
        low, high = rating.interval(bot)
        assert (high - low) / 2 == pytest.approx(half_width, rel=1e-6)
    assert half_width < Z95 * math.sqrt(1 / (w + q)) * ELO_PER_NATURAL / 2 * 1.5
    expected = centred_half_widths(2, [(0, 1, 1.0)] * 3 + [(0, 1, 0.0)])
    assert expected[0] == pytest.approx(half_width, rel=0.01)


def test_tied_marks_are_unchanged_by_centring() -> None:
    """The likelihood of superiority reads differences: the same under the centred
    covariance as under the prior-anchored one, computed here independently."""
    rating = fit(BOTS, [PairResult(*series) for series in SERIES])
    index = {bot: i for i, bot in enumerate(BOTS)}
    pairs = [(index[a], index[b], s) for a, b, s in SERIES]
    with_prior = pairs + [(i, -1, 0.5) for i in range(len(BOTS))]
    theta = independent_fit(len(BOTS) + has_draws(pairs), with_prior)
    covariance = inverse(information(theta, with_prior))
    for a in BOTS:
        for b in BOTS:
            if a == b:
                continue
            i, j = index[a], index[b]
            variance = covariance[i][i] + covariance[j][j] - 2 * covariance[i][j]
            los = 0.5 * (1 + math.erf((theta[i] - theta[j]) / math.sqrt(2 * variance)))
            assert rating.los(a, b) == pytest.approx(los, abs=1e-3)
