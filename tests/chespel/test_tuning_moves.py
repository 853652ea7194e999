"""The moves objective of `chespel tune` (comparison training): the leaves of a position's
moves, their sign, the loss and its gradient, and a fit that must prefer the played move."""

from __future__ import annotations

import chess
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse

from esochess.chespel.frontend import compile_source
from esochess.chespel.runtime.evaluation import Program
from esochess.chespel.tuning import moves
from esochess.chespel.tuning.fit import Data
from esochess.chespel.tuning.moves import (
    ALTERNATIVE,
    EXTRA,
    JUDGED,
    PLAYED,
    agreement,
    comparison,
    fit_moves,
    judged,
    loss,
    objective,
    pairs,
    perspective,
    root_leaves,
)
from esochess.chespel.tuning.samples import Candidate
from esochess.chespel.tuning.tracing import features, traced_program
from esochess.chespel.tuning.weights import find_weights, score_literals

PROGRAM = """\
module evaluation

sym rule material:
	piece p with p.player == me:
		score p.value;

sym rule advance:
	piece p with player == me, type == pawn:
		score 0.05 * (p.rank - 2);
"""


def _traced() -> Program:
    result = compile_source("t.chp", PROGRAM)
    assert result.ok and result.program is not None
    weights, ids = find_weights(result.program)
    wanted = score_literals(result.program)
    return traced_program(result, {key: i for key, i in ids.items() if key in wanted},
                          [w.millis for w in weights])


def _data(roles: list[float], values: list[list[float]], c: list[float],
          games: list[int]) -> Data:
    return Data(np.array(roles), np.array(c), sparse.csr_matrix(np.array(values)),
                np.array(games, dtype=np.int64))


# ------------------------------------------------------------------ leaves


def test_leaves_start_with_the_played_move_and_are_reproducible() -> None:
    root = Candidate(chess.STARTING_FEN, 0, 0.5, 1, "g1f3")  # game 1: not held out
    leaves = root_leaves(root, 5, seed=3)
    assert leaves is not None and len(leaves) == 6
    assert [leaf.role for leaf in leaves] == [PLAYED] + [ALTERNATIVE] * 5
    assert leaves[0].board.piece_at(chess.F3) == chess.Piece(chess.KNIGHT, chess.WHITE)
    again = root_leaves(root, 5, seed=3)
    assert again is not None and [x.board.fen() for x in again] == [x.board.fen() for x in leaves]
    other = root_leaves(root, 5, seed=4)
    assert other is not None and [x.board.fen() for x in other] != [x.board.fen() for x in leaves]
    every = root_leaves(root, 0, seed=3)
    assert every is not None and len(every) == 20
    assert len({leaf.board.fen() for leaf in every}) == 20
    assert every[0].role == JUDGED and {leaf.role for leaf in every[1:]} == {ALTERNATIVE}


def test_a_judged_root_has_every_move_but_fits_only_the_sample(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(moves, "JUDGE_SHARE", 1)
    root = Candidate(chess.STARTING_FEN, 0, 0.5, 5, "e2e4")  # game 5: held out
    assert judged(root) and not judged(Candidate(chess.STARTING_FEN, 0, 0.5, 6, "e2e4"))
    leaves = root_leaves(root, 3, seed=0)
    assert leaves is not None
    assert [leaf.role for leaf in leaves] == [JUDGED] + [ALTERNATIVE] * 3 + [EXTRA] * 16
    sampled = root_leaves(Candidate(chess.STARTING_FEN, 0, 0.5, 6, "e2e4"), 3, seed=0)
    assert sampled is not None
    assert [x.board.fen() for x in sampled[1:]] == [x.board.fen() for x in leaves[1:4]]


def test_a_root_whose_played_move_gives_check_or_mate_is_skipped() -> None:
    # White's Qh5xf7 is mate (scholar's mate): the rules do not score that leaf.
    fen = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4"
    assert root_leaves(Candidate(fen, 0, 1.0, 0, "h5f7"), 6, 0) is None
    assert root_leaves(Candidate(chess.STARTING_FEN, 0, 0.5, 0, ""), 6, 0) is None
    # Alternatives that give check are left out; moves that lose the queen stay in (they
    # tie the positional numbers to the material).
    fen = "4k3/8/2p5/8/8/8/3Q4/4K3 w - - 0 1"
    leaves = root_leaves(Candidate(fen, 0, 1.0, 0, "e1f1"), 0, 0)
    assert leaves is not None
    assert not any(leaf.board.is_check() for leaf in leaves)  # Qe2+, Qd7+, ... left out
    assert len(leaves) < 1 + len(list(chess.Board(fen).legal_moves))
    assert any(not leaf.board.queens for leaf in leaves)  # Qd5?? cxd5 stays in


def test_a_leaf_is_scored_for_the_side_to_move_at_the_root() -> None:
    assert perspective(chess.WHITE) == 1 and perspective(chess.BLACK) == -1
    traced = _traced()
    # Black to move: each leaf has White to move, and its value is Black's score.
    fen = "4k3/4p3/8/8/8/8/3P4/4K3 b - - 0 1"
    leaves = root_leaves(Candidate(fen, 0, 0.5, 0, "e7e5"), 0, 0)
    assert leaves is not None and len(leaves) > 2
    for leaf in leaves:
        assert leaf.sign == -1 and leaf.board.turn == chess.WHITE
        white, _ = features(traced, leaf.board, leaf.flags)
        assert leaf.sign * white == traced.rule_score(leaf.board, chess.BLACK, leaf.flags)
    assert features(traced, leaves[0].board, 0)[1] == {0: -2.0}  # White's view of e5
    # the played move (two ranks forward) scores above a one-rank push for Black
    assert leaves[0].sign * features(traced, leaves[0].board, 0)[0] > max(
        leaf.sign * features(traced, leaf.board, 0)[0] for leaf in leaves[1:]
        if leaf.board.piece_at(chess.E6))


# ------------------------------------------------------------------ the loss and the fit


def test_pairs_compare_each_alternative_with_its_played_move() -> None:
    data = _data([PLAYED, ALTERNATIVE, ALTERNATIVE, PLAYED, JUDGED, ALTERNATIVE, EXTRA],
                 [[1, 0], [0, 1], [2, 0], [0, 0], [1, 1], [0, 0], [0, 0]],
                 [0.5, 0.0, 0.1, 0.0, 0.2, 0.3, -0.1], [0, 0, 0, 1, 2, 2, 2])
    p = pairs(data)
    assert p.roots == 2  # the root without an alternative is left out
    assert p.root.tolist() == [0, 0, 1, 1]
    assert p.games.tolist() == [0, 2] and p.full.tolist() == [False, True]
    assert p.sampled.tolist() == [True, True, True, False]
    assert p.x.toarray().tolist() == [[-1, 1], [1, 0], [-1, -1], [-1, -1]]
    assert np.allclose(p.c, [-0.5, -0.4, 0.1, -0.3])
    assert agreement(p, np.array([0.0, 0.0])) == 0.5
    assert agreement(p, np.array([0.0, 1.0])) == 0.5  # root 1: −0.9, −1.3; root 0: 0.5
    fitted = p.fitted()
    assert fitted.roots == 2 and fitted.root.tolist() == [0, 0, 1]
    assert p.select(np.array([False, True])).root.tolist() == [0, 0]


@settings(max_examples=20, deadline=None)
@given(st.lists(st.floats(-2, 2), min_size=3, max_size=3), st.integers(0, 2**31))
def test_the_gradient_is_the_derivative_of_the_loss(start: list[float], seed: int) -> None:
    rng = np.random.default_rng(seed)
    roles = [PLAYED, ALTERNATIVE, ALTERNATIVE, PLAYED, ALTERNATIVE] * 4
    data = _data(roles, rng.normal(size=(20, 3)).tolist(), rng.normal(size=20).tolist(),
                 [i // 5 for i in range(20)])
    p = pairs(data)
    w0 = np.array(start)
    ridge = 0.01
    function = objective(p, np.zeros(3), ridge)
    value, analytic = function(w0)
    assert value == pytest.approx(loss(p, w0) + ridge * float(w0 @ w0))
    h = 1e-6
    for k in range(3):
        step = np.zeros(3)
        step[k] = h
        numeric = (function(w0 + step)[0] - function(w0 - step)[0]) / (2 * h)
        assert abs(numeric - analytic[k]) < 1e-5 * max(1.0, abs(numeric))
    # the fit never ends above where it started
    assert function(fit_moves(p, np.zeros(3), ridge, iterations=50))[0] <= function(np.zeros(3))[0]


def test_the_fit_makes_the_played_move_preferred() -> None:
    # Each root: the played move reaches feature 1 = 1 (a knight centralised), the
    # alternatives do not; the written weight (−0.2) ranks the played move last.
    roles, values, c, games = [], [], [], []
    for game in range(30):
        roles += [PLAYED, ALTERNATIVE, ALTERNATIVE]
        values += [[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]]
        c += [0.0, 0.05, 0.0]
        games += [game] * 3
    data = _data(roles, values, c, games)
    start = np.array([-0.2, 0.0])
    fit = comparison(pairs(data), start, ridge=1e-4)
    assert fit.agreement_before == 0.0 and fit.agreement_after == 1.0
    assert fit.weights[0] > fit.weights[1] + 0.05
    assert fit.loss_after < fit.loss_before


def test_the_ridge_is_chosen_on_held_out_games_when_not_given() -> None:
    rng = np.random.default_rng(1)
    roles = [PLAYED, ALTERNATIVE, ALTERNATIVE] * 50
    data = _data(roles, rng.normal(size=(150, 2)).tolist(), [0.0] * 150,
                 [i // 3 for i in range(150)])
    fit = comparison(pairs(data), np.zeros(2))
    assert fit.ridge > 0 and 0.0 <= fit.agreement_after <= 1.0
