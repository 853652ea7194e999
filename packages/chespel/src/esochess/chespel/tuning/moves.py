"""Comparison training on the moves of the games (`chespel tune --objective moves`).

The Texel objective fits the score of a position to the game's result. What a shallow
search needs is to rank the moves of a position the right way, so this objective (the
comparison training of Tesauro, the "Bonanza method" of computer shogi) fits the numbers
so that, in a position of a game, the move the player chose scores above the others.

A root is a candidate position of a game (samples.py: from ply 8 on, side to move S not in
check) with the move m* played there. Every move m gives a child position, made quiet by
the tuner's material-only capture line (`samples.quiet`, which does not depend on the
numbers, so leaves are found once); the leaf's value v_m is the program's rule score from
S's point of view (White's score, negated when S is Black), linear in the numbers. The
loss is

    (1 / roots) · Σ_roots Σ_{m ≠ m*} σ((v_m − v_{m*}) / T) + λ · Σ (w − w_written)²

with σ the logistic function: each alternative that scores above the played move costs
almost 1, one far below it almost 0, and the gradient lives where the two are close.

Which leaves are used, reproducibly:
- a root whose played move's leaf is in check, or has a fixed value (mate, stalemate,
  insufficient material), is skipped: its value is not the rules' to decide;
- an alternative whose leaf is in check or has a fixed value is left out (a check the
  player did not give, a mate the player missed: the rules do not score those either);
- of the rest, `alternatives` are drawn at random (seeded by the root's FEN and the seed,
  so the same command draws the same leaves); 0 keeps them all. Moves that lose material
  stay in the draw: they are what ties the positional numbers to the material, which is
  not tuned. (Leaving out the moves that lose more than a pawn, tried first, let the fit
  multiply every positional number by ten or more — nothing in the data said a bonus
  must stay below a piece.)

T (`TEMPERATURE`) is fixed at 0.2 pawns: the size of the differences a positional term
decides between two reasonable moves. Much smaller, and only near-ties would teach
anything (a step function, no gradient); much larger, and the loss turns linear in
v_m − v_{m*} and is ruled by the far-off moves (on 12,000 masters positions, T = 0.5
judged worse than 0.2 at every ridge).

The fit is judged on held-out games (every `HOLD_OUT`-th) by the agreement: the share of
positions where the played move scores strictly above every other move. One held-out
position in `JUDGE_SHARE` has every move's leaf computed for that (they are never fitted).
λ is the one of `MOVE_RIDGES` whose fit on the other games agrees best there (the
loss itself is no judge: the larger the numbers, the lower it gets on the moves it ranks
right), and the agreement before and after is reported.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Callable
from dataclasses import dataclass

import chess
import numpy as np
import numpy.typing as npt
from scipy import optimize, sparse

from esochess.chespel.runtime.positions import castle_bit
from esochess.chespel.tuning.fit import HOLD_OUT, Data, Vector, sigmoid
from esochess.chespel.tuning.samples import Candidate, quiet

TEMPERATURE = 0.2
"""The scale of the comparison, in pawns (see the module text)."""
ALTERNATIVES = 6
"""Alternatives drawn per root by default."""
MOVE_RIDGES = (1e-3, 1e-2, 3e-2, 1e-1, 3e-1, 1.0, 3.0)
"""The ridges the held-out games choose from (the loss is a sum over a root's alternatives,
about six, so these are larger than the Texel fit's)."""
JUDGE_SHARE = 8
"""One held-out root in this many (by its FEN's checksum) has every move's leaf computed,
to judge the fit by how often the played move scores best of all."""
PLAYED, ALTERNATIVE, EXTRA, JUDGED = 1.0, 0.0, -1.0, 2.0
"""The role of a leaf (`Data.y` of the moves objective): a root's played move, which comes
first (`JUDGED` when every move of the root follows), then its sampled alternatives, then
(a judged root only) the other moves, used to judge and never to fit."""


@dataclass(frozen=True)
class Leaf:
    """A quiet position reached by a move of a root, its castling flags, the sign that
    turns White's score into the root's side to move's (+1 for White, −1 for Black), and
    its role."""

    board: chess.Board
    flags: int
    sign: int
    role: float


def perspective(root_turn: chess.Color) -> int:
    """The factor turning White's score of a leaf into the score of the root's side to move."""
    return 1 if root_turn == chess.WHITE else -1


def judged(root: Candidate) -> bool:
    """Whether every move of this root is scored, to judge the fit (see `JUDGE_SHARE`)."""
    return root.game % HOLD_OUT == 0 and zlib.crc32(root.fen.encode()) % JUDGE_SHARE == 0


def _leaf(board: chess.Board, move: chess.Move, root: Candidate, sign: int,
          role: float) -> Leaf | None:
    """The quiet leaf after `move`, or None when it is in check or has a fixed value."""
    flags = root.flags | castle_bit(board, move)
    board.push(move)
    child = Candidate(board.fen(), flags, root.result, root.game)
    board.pop()
    found = quiet(child)
    return None if found is None else Leaf(found[0], flags, sign, role)


def root_leaves(root: Candidate, alternatives: int, seed: int) -> list[Leaf] | None:
    """The played move's leaf followed by the sampled alternatives' leaves (and, for a
    judged root, every other move's), or None when the root is skipped (see the module
    text). An empty `root.move` is never a root."""
    if not root.move:
        return None
    board = chess.Board(root.fen)
    played = chess.Move.from_uci(root.move)
    sign = perspective(board.turn)
    every = not alternatives or judged(root)
    first = _leaf(board, played, root, sign, JUDGED if every else PLAYED)
    if first is None:
        return None
    leaves = [first]
    others = sorted((m for m in board.legal_moves if m != played), key=chess.Move.uci)
    random.Random(f"{seed}:{root.fen}").shuffle(others)
    for move in others:
        sampled = not alternatives or len(leaves) <= alternatives
        if not sampled and not every:
            break
        leaf = _leaf(board, move, root, sign, ALTERNATIVE if sampled else EXTRA)
        if leaf is not None:
            leaves.append(leaf)
    return leaves


@dataclass(frozen=True)
class Pairs:
    """The comparisons of a set of roots: row i is alternative − played (pawns, from the
    root's side to move) = c[i] + x[i]·w; `root[i]` its root (0, 1, …, in order),
    `sampled[i]` whether it is fitted (not only judged), `games[r]` root r's game and
    `full[r]` whether every move of root r is compared."""

    c: Vector
    x: sparse.csr_matrix
    root: npt.NDArray[np.int64]
    sampled: npt.NDArray[np.bool_]
    games: npt.NDArray[np.int64]
    full: npt.NDArray[np.bool_]

    @property
    def roots(self) -> int:
        return len(self.games)

    def select(self, mask: npt.NDArray[np.bool_]) -> Pairs:
        """The comparisons of the roots where `mask` holds, renumbered."""
        keep = mask[self.root]
        number = np.cumsum(mask) - 1
        return Pairs(self.c[keep], self.x[keep], number[self.root[keep]], self.sampled[keep],
                     self.games[mask], self.full[mask])

    def fitted(self) -> Pairs:
        """The comparisons the fit uses: the sampled alternatives."""
        keep = self.sampled
        return Pairs(self.c[keep], self.x[keep], self.root[keep], keep[keep], self.games,
                     self.full)


def pairs(data: Data) -> Pairs:
    """The comparisons of leaves laid out as `Data` rows: `y` is `PLAYED` (or `JUDGED`)
    for a root's played move, `ALTERNATIVE` or `EXTRA` for each other move that follows;
    `c + x·w` the leaf's value for the root's side to move. A root without an alternative
    is left out."""
    first = (data.y == PLAYED) | (data.y == JUDGED)
    starts = np.flatnonzero(first)
    root_of_row = np.cumsum(first) - 1
    alternative = np.flatnonzero(~first)
    used = np.unique(root_of_row[alternative])
    number = np.full(len(starts), -1, dtype=np.int64)
    number[used] = np.arange(len(used))
    played_row = starts[root_of_row[alternative]]
    x = (data.x[alternative] - data.x[played_row]).tocsr()
    c = data.c[alternative] - data.c[played_row]
    return Pairs(np.asarray(c, dtype=np.float64), x, number[root_of_row[alternative]],
                 data.y[alternative] == ALTERNATIVE, data.games[starts[used]],
                 data.y[starts[used]] == JUDGED)


def _per_root(p: Pairs, values: Vector) -> Vector:
    return np.bincount(p.root, weights=values, minlength=p.roots).astype(np.float64)


def loss(p: Pairs, weights: Vector, temperature: float = TEMPERATURE) -> float:
    """The mean over roots of Σ σ((v_m − v_{m*}) / T), without the ridge term."""
    return float(np.sum(sigmoid((p.c + p.x @ weights) / temperature)) / max(p.roots, 1))


def agreement(p: Pairs, weights: Vector) -> float:
    """The share of roots where the played move scores strictly above every alternative."""
    if not p.roots:
        return 0.0
    worse = _per_root(p, ((p.c + p.x @ weights) >= 0).astype(np.float64))
    return float(np.mean(worse == 0))


def objective(p: Pairs, start: Vector, ridge: float, temperature: float = TEMPERATURE,
              ) -> Callable[[Vector], tuple[float, Vector]]:
    """The loss plus the ridge term pulling toward `start`, and its exact gradient."""
    n = max(p.roots, 1)
    transposed = p.x.T.tocsr()

    def value_and_gradient(w: Vector) -> tuple[float, Vector]:
        s = sigmoid((p.c + p.x @ w) / temperature)
        shift = w - start
        value = float(np.sum(s)) / n + ridge * float(shift @ shift)
        grad = (transposed @ (s * (1.0 - s))) / (temperature * n) + 2.0 * ridge * shift
        return value, np.asarray(grad, dtype=np.float64)

    return value_and_gradient


def fit_moves(p: Pairs, start: Vector, ridge: float, temperature: float = TEMPERATURE,
              iterations: int = 500) -> Vector:
    """The weights that minimise the loss plus the ridge term, from `start` (the written
    numbers, which the ridge pulls toward)."""
    found = optimize.minimize(objective(p, start, ridge, temperature), start, jac=True,
                              method="L-BFGS-B", options={"maxiter": iterations})
    return np.asarray(found.x, dtype=np.float64)


@dataclass(frozen=True)
class MovesFit:
    """The fitted weights (pawns), the loss before and after, the ridge chosen and the
    agreement on held-out games before and after (fitted without them)."""

    weights: Vector
    loss_before: float
    loss_after: float
    ridge: float
    agreement_before: float
    agreement_after: float


def comparison(p: Pairs, start: Vector, ridge: float | None = None) -> MovesFit:
    """λ chosen on held-out games (unless given), the held-out agreement before and after,
    then the weights fitted on every root. The judges are the held-out roots with every
    move compared (or, when there are none, every held-out root's sampled moves)."""
    held = p.games % HOLD_OUT == 0
    train = p.select(~held).fitted()
    judge = p.select(held & p.full)
    if not judge.roots:
        judge = p.select(held).fitted()
    if not judge.roots or not train.roots:
        train = judge = p.fitted()
    fits = {value: fit_moves(train, start, value)
            for value in (MOVE_RIDGES if ridge is None else (ridge,))}
    scored = {value: agreement(judge, w) for value, w in fits.items()}
    if ridge is None:  # the best agreement; of equals, the strongest ridge
        ridge = max(fits, key=lambda value: (scored[value], value))
    every = p.fitted()
    weights = fit_moves(every, start, ridge)
    return MovesFit(weights, loss(every, start), loss(every, weights), ridge,
                    agreement(judge, start), scored[ridge])
