"""Ridge-regularized least squares in plain Python: the numerics every worker of this benchmark shares.

The objective is f(x) = |Ax - b|^2 + lambda |x|^2, minimised where (A^T A + lambda I) x = A^T b.
Matrices are lists of rows; nothing here needs more than the standard library. Inner products are
`sum(map(mul, u, v))`, which adds the same products in the same order as a loop would (so the results are the
same to the bit) but runs the loop in C.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from operator import mul
from pathlib import Path

Matrix = list[list[float]]
Vector = list[float]


def read_matrix(path: Path) -> Matrix:
    with open(path, encoding="utf-8") as file:
        return [list(map(float, line.split(","))) for line in file if line.strip()]


def read_vector(path: Path) -> Vector:
    with open(path, encoding="utf-8") as file:
        return [float(line) for line in file if line.strip()]


def normal_equations(a: Matrix, b: Vector, lam: float) -> tuple[Matrix, Vector]:
    """A^T A + lambda I and A^T b, each entry an inner product of columns summed over the rows in order."""
    columns = list(zip(*a))
    n = len(columns)
    gram = [[0.0] * n for _ in range(n)]
    rhs = [sum(map(mul, column, b)) for column in columns]
    for i in range(n):
        column, gram_i = columns[i], gram[i]
        for j in range(i, n):
            gram_i[j] = sum(map(mul, column, columns[j]))
    for i in range(n):
        gram[i][i] += lam
        for j in range(i):
            gram[i][j] = gram[j][i]
    return gram, rhs


def cholesky_solve(gram: Matrix, rhs: Vector) -> Vector:
    """Solves gram x = rhs for a symmetric positive definite gram."""
    n = len(gram)
    lower = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1):
            total = gram[i][j] - sum(map(mul, lower[i][:j], lower[j][:j]))
            if i == j:
                if total <= 0.0:
                    raise ArithmeticError("the normal equations are not positive definite")
                lower[i][i] = math.sqrt(total)
            else:
                lower[i][j] = total / lower[j][j]
    y = [0.0] * n
    for i in range(n):
        y[i] = (rhs[i] - sum(map(mul, lower[i][:i], y[:i]))) / lower[i][i]
    x = [0.0] * n
    for i in reversed(range(n)):
        x[i] = (y[i] - sum(lower[k][i] * x[k] for k in range(i + 1, n))) / lower[i][i]
    return x


def conjugate_gradient(gram: Matrix, rhs: Vector, iterations: int) -> tuple[Vector, int]:
    """At most `iterations` steps of conjugate gradients on gram x = rhs, from x = 0; returns x and the steps taken."""
    x, steps = [0.0] * len(rhs), 0
    for x, steps in conjugate_gradient_steps(gram, rhs, iterations):
        pass
    return x, steps


def conjugate_gradient_steps(gram: Matrix, rhs: Vector, iterations: int) -> Iterator[tuple[Vector, int]]:
    """The iterates of `conjugate_gradient`, each with the number of steps taken to it (from 1)."""
    n = len(rhs)
    x = [0.0] * n
    residual = list(rhs)
    direction = list(rhs)
    norm = sum(map(mul, residual, residual))
    steps = 0
    while steps < iterations and norm > 0.0:
        product = [sum(map(mul, row, direction)) for row in gram]
        alpha = norm / sum(map(mul, direction, product))
        x = [xi + alpha * di for xi, di in zip(x, direction)]
        residual = [ri - alpha * pi for ri, pi in zip(residual, product)]
        new_norm = sum(map(mul, residual, residual))
        direction = [ri + (new_norm / norm) * di for ri, di in zip(residual, direction)]
        norm = new_norm
        steps += 1
        yield x, steps


def residual_norm(gram: Matrix, rhs: Vector, x: Vector) -> float:
    """|gram x - rhs|: how far x is from solving the normal equations."""
    return math.sqrt(sum((sum(map(mul, row, x)) - r) ** 2 for row, r in zip(gram, rhs)))


def objective(a: Matrix, b: Vector, lam: float, x: Vector) -> float:
    residual = sum((sum(map(mul, row, x)) - bi) ** 2 for row, bi in zip(a, b))
    return residual + lam * sum(map(mul, x, x))
