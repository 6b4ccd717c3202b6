"""Dense symmetric positive-definite solves in pure Python (the arena does not
depend on numpy; the matrices here are at most a few hundred rows)."""

from __future__ import annotations

import math
from collections.abc import Sequence

Matrix = list[list[float]]


def cholesky(matrix: Sequence[Sequence[float]]) -> Matrix:
    """The lower-triangular L with L Lᵀ = ``matrix``; raises ``ValueError`` when
    the matrix is not positive definite."""
    size = len(matrix)
    lower: Matrix = [[0.0] * size for _ in range(size)]
    for i in range(size):
        row_i = lower[i]
        for j in range(i + 1):
            row_j = lower[j]
            total = matrix[i][j] - sum(a * b for a, b in zip(row_i[:j], row_j[:j], strict=True))
            if i == j:
                if total <= 0.0:
                    raise ValueError("matrix is not positive definite")
                row_i[i] = math.sqrt(total)
            else:
                row_i[j] = total / row_j[j]
    return lower


def solve_cholesky(lower: Matrix, vector: Sequence[float]) -> list[float]:
    """x with (L Lᵀ) x = ``vector``."""
    size = len(lower)
    forward = [0.0] * size
    for i in range(size):
        row = lower[i]
        forward[i] = (vector[i] - sum(a * b for a, b in zip(row[:i], forward[:i], strict=True))
                      ) / row[i]
    result = [0.0] * size
    for i in reversed(range(size)):
        total = forward[i] - sum(lower[k][i] * result[k] for k in range(i + 1, size))
        result[i] = total / lower[i][i]
    return result


def inverse_from_cholesky(lower: Matrix) -> Matrix:
    """(L Lᵀ)⁻¹, via the inverse of L."""
    size = len(lower)
    inverse_lower: Matrix = [[0.0] * size for _ in range(size)]
    for i in range(size):
        inverse_lower[i][i] = 1.0 / lower[i][i]
        for j in range(i):
            total = sum(lower[i][k] * inverse_lower[k][j] for k in range(j, i))
            inverse_lower[i][j] = -total / lower[i][i]
    # (L Lᵀ)⁻¹ = L⁻ᵀ L⁻¹: entry (i, j) = sum over k >= max(i, j) of M[k][i] M[k][j].
    columns = [[inverse_lower[k][i] for k in range(size)] for i in range(size)]
    result: Matrix = [[0.0] * size for _ in range(size)]
    for i in range(size):
        for j in range(i + 1):
            start = max(i, j)
            value = sum(a * b for a, b in zip(columns[i][start:], columns[j][start:],
                                              strict=True))
            result[i][j] = result[j][i] = value
    return result
