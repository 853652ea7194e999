"""The Texel fit: weights that make the evaluation predict game results.

A position j with result y_j (1, ½, 0 for White) and White's score s_j (pawns) is predicted
to score σ(K·s_j) = 1 / (1 + e^(−K·s_j)). The score is linear in the weights:
s = c + X·w, where row j of the sparse matrix X holds the position's features (the
score's derivative by each weight) and c the part no tuned weight touches. The error is
the mean of (y − σ(K·s))².

First K, the scaling constant, is fitted with the weights as written (a one-dimensional
bounded search); then, with K fixed, the weights by L-BFGS with the exact gradient. A
ridge term (λ per pawn squared of change) keeps weights that few positions see close to
where the author put them. λ is chosen among `RIDGES` by the error on held-out games
(every `HOLD_OUT`-th game; positions of one game are never split between fitting and
judging) with the one-standard-error rule: the largest λ whose held-out error is within
one standard error (games as clusters) of the smallest. The data then has to show a
change clearly before the author's number gives way — a square that few positions visit
keeps about the value written. A λ given by the caller replaces that choice. Last, the
weights are fitted on all positions with that λ.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy import optimize, sparse

Vector = npt.NDArray[np.float64]
RIDGES = (1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1)
HOLD_OUT = 5
K_BOUNDS = (0.01, 10.0)


@dataclass(frozen=True)
class Data:
    """The training set: results `y`, constant parts `c` (pawns), features `x` (rows:
    positions, columns: weights), and each position's game number."""

    y: Vector
    c: Vector
    x: sparse.csr_matrix
    games: npt.NDArray[np.int64]

    def rows(self, mask: npt.NDArray[np.bool_]) -> Data:
        """The positions where `mask` holds."""
        return Data(self.y[mask], self.c[mask], self.x[mask], self.games[mask])


@dataclass(frozen=True)
class Fit:
    """The fitted scaling constant, the weights (pawns), the error before and after, and the
    ridge λ chosen."""

    k: float
    weights: Vector
    error_before: float
    error_after: float
    ridge: float


def sigmoid(values: Vector) -> Vector:
    """The logistic function, without overflow warnings."""
    return np.asarray(0.5 * (1.0 + np.tanh(0.5 * values)), dtype=np.float64)


def error(data: Data, k: float, weights: Vector) -> float:
    """Mean squared difference between results and predictions."""
    predicted = sigmoid(k * (data.c + data.x @ weights))
    return float(np.mean((data.y - predicted) ** 2))


def fit_k(data: Data, weights: Vector) -> float:
    """The K that minimises the error for these weights."""
    scores = data.c + data.x @ weights

    def objective(k: float) -> float:
        return float(np.mean((data.y - sigmoid(k * scores)) ** 2))

    found = optimize.minimize_scalar(objective, bounds=K_BOUNDS, method="bounded",
                                     options={"xatol": 1e-5})
    return float(found.x)


def fit_weights(data: Data, k: float, start: Vector, ridge: float,
                iterations: int = 500) -> Vector:
    """The weights that minimise the error (plus the ridge term) for a fixed K."""
    n = max(len(data.y), 1)
    transposed = data.x.T.tocsr()

    def objective(w: Vector) -> tuple[float, Vector]:
        p = sigmoid(k * (data.c + data.x @ w))
        diff = p - data.y
        shift = w - start
        value = float(np.mean(diff ** 2)) + ridge * float(shift @ shift)
        grad = (2.0 / n) * (transposed @ (diff * p * (1.0 - p) * k)) + 2.0 * ridge * shift
        return value, np.asarray(grad, dtype=np.float64)

    found = optimize.minimize(objective, start, jac=True, method="L-BFGS-B",
                              options={"maxiter": iterations})
    return np.asarray(found.x, dtype=np.float64)


def held_out_error(data: Data, k: float, weights: Vector) -> tuple[float, float]:
    """The mean squared error and its standard error, the games taken as clusters."""
    squared = (data.y - sigmoid(k * (data.c + data.x @ weights))) ** 2
    _, game = np.unique(data.games, return_inverse=True)
    mean = float(np.mean(squared))
    per_game = np.bincount(game, weights=squared) - mean * np.bincount(game)
    return mean, float(np.sqrt(np.sum(per_game ** 2)) / len(squared))


def choose_ridge(data: Data, k: float, start: Vector) -> float:
    """The λ of `RIDGES` chosen on held-out games by the one-standard-error rule (the
    smallest λ when there are too few games to hold any out)."""
    held = data.games % HOLD_OUT == 0
    if not held.any() or held.all():
        return RIDGES[0]
    train, test = data.rows(~held), data.rows(held)
    scored = [held_out_error(test, k, fit_weights(train, k, start, ridge)) for ridge in RIDGES]
    best = min(range(len(RIDGES)), key=lambda i: scored[i][0])
    limit = scored[best][0] + scored[best][1]
    return max(ridge for ridge, (mean, _) in zip(RIDGES, scored, strict=True) if mean <= limit)


def texel(data: Data, start: Vector, ridge: float | None = None) -> Fit:
    """K with the weights as written, then λ (chosen on held-out games unless given), then
    the weights."""
    k = fit_k(data, start)
    before = error(data, k, start)
    if not len(start):
        return Fit(k, start, before, before, 0.0 if ridge is None else ridge)
    if ridge is None:
        ridge = choose_ridge(data, k, start)
    weights = fit_weights(data, k, start, ridge)
    return Fit(k, weights, before, error(data, k, weights), ridge)
