"""Texel tuning, stage by stage: weights and the rewrite, traced features, the fit, samples."""

from __future__ import annotations

import io

import chess
import chess.engine
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse
from test_eval_support import EXAMPLES

from esochess.chespel.codegen import compile_program
from esochess.chespel.frontend import compile_source
from esochess.chespel.match import EngineSpec
from esochess.chespel.runtime.positions import placement_flags
from esochess.chespel.tuning import labels, samples
from esochess.chespel.tuning.fit import Data, error, fit_k, fit_weights, sigmoid, texel
from esochess.chespel.tuning.samples import GameCount, choose, quiet, read_candidates
from esochess.chespel.tuning.tracing import Tracer, features, traced_program
from esochess.chespel.tuning.weights import find_weights, rewrite, weight_table

PROGRAM = """\
module evaluation

// material: a comment the rewrite keeps
sym rule material:
	piece p with p.player == me:
		score p.value;

sym rule shape:
	if (me.castled) score 0.3 "castled";
	score -0.15 * me.doubledPawns.length;
	let t = [0, 0.1, -0.2, 0.3, 0, 0, 0, 0];
	piece p with player == me, type == pawn:
		score 0.05 * (p.rank - 2);
		score t.elem(p.cell.col.number - 1);
		if (p.cell.distance(me.king.cell) <= 2) score 0.1;
"""


def checked(text: str = PROGRAM):  # type: ignore[no-untyped-def]
    result = compile_source("t.chp", text)
    assert result.ok, result.errors
    return result


# ------------------------------------------------------------------ weights and rewrite


def test_weights_are_the_numbers_of_rules_in_source_order() -> None:
    weights, ids = find_weights(checked().program)
    assert [(w.line, w.spelling, w.negated) for w in weights][:4] == [
        (9, "0.3", False), (10, "0.15", True), (11, "0", False), (11, "0.1", False)]
    assert len(ids) == len(weights)
    assert {w.rule for w in weights} == {"shape"}


def test_rewrite_keeps_everything_but_the_numbers() -> None:
    weights, _ = find_weights(checked().program)
    by_spelling = {(w.line, w.spelling): w.index for w in weights}
    values = {by_spelling[(9, "0.3")]: 450, by_spelling[(10, "0.15")]: -50,
              by_spelling[(11, "0.1")]: 125}
    new = rewrite(PROGRAM, weights, values)
    lines = new.splitlines()
    assert lines[2] == "// material: a comment the rewrite keeps"
    assert lines[8] == '\tif (me.castled) score 0.45 "castled";'
    assert lines[9] == "\tscore 0.05 * me.doubledPawns.length;"  # the sign flipped
    assert lines[10] == "\tlet t = [0, 0.125, -0.2, 0.3, 0, 0, 0, 0];"
    assert new.count("\n") == PROGRAM.count("\n")
    assert checked(new).ok


def test_rewrite_parenthesises_a_negative_number_after_a_minus() -> None:
    text = "module evaluation\n\nrule r:\n\tscore 1 - 0.5;\n"
    weights, _ = find_weights(checked(text).program)
    new = rewrite(text, weights, {weights[1].index: -250})
    assert new.splitlines()[3] == "\tscore 1 - (-0.25);"
    assert checked(new).ok


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-3000, 3000), min_size=12, max_size=12))
def test_rewritten_numbers_read_back_as_written(values: list[int]) -> None:
    weights, _ = find_weights(checked().program)
    chosen = {w.index: values[i % len(values)] for i, w in enumerate(weights)}
    again, _ = find_weights(checked(rewrite(PROGRAM, weights, chosen)).program)
    assert [w.written for w in again] == [
        -chosen[w.index] if w.negated else chosen[w.index] for w in weights]


def test_table_lists_old_and_new_and_frozen() -> None:
    weights, _ = find_weights(checked().program)
    lines = weight_table(weights, {weights[0].index: 400}, {weights[1].index})
    assert lines[0].split() == ["rule", "at", "old", "new"]
    assert lines[1].split() == ["shape", "9:24", "0.3", "->", "0.4"]
    assert lines[2].split() == ["shape", "10:9", "-0.15", "->", "frozen"]


# ------------------------------------------------------------------ traced features

BOARDS = [chess.Board(), chess.Board("r1bq1rk1/pp3ppp/2n2n2/3p4/3P4/2PB1N2/P4PPP/R2QK2R w KQ - 0 1"),
          chess.Board("4k3/pp6/8/8/8/8/PPP3PP/4K3 w - - 0 1")]


def test_traced_evaluation_scores_like_the_engine_and_is_linear_in_its_weights() -> None:
    result = checked()
    weights, ids = find_weights(result.program)
    plain = compile_program(result)
    traced = traced_program(result, ids, [w.millis for w in weights])
    Tracer.take()
    for board in BOARDS:
        flags = placement_flags(board)
        score, grad = features(traced, board, flags)
        assert score == plain.rule_score(board, chess.WHITE, flags)
        # Moving every weight the score depends on linearly moves it as predicted.
        linear = {i for i in grad if i not in Tracer.take()}
        shifted = {w.index: w.millis + 7 for w in weights if w.index in linear}
        moved = compile_program(checked(rewrite(PROGRAM, weights, shifted))).rule_score(
            board, chess.WHITE, flags)
        assert abs(moved - (score + sum(7 * grad[i] for i in linear))) <= 2


def test_a_number_in_a_comparison_is_entangled_not_a_weight() -> None:
    result = checked()
    weights, ids = find_weights(result.program)
    traced = traced_program(result, ids, [w.millis for w in weights])
    Tracer.take()
    board = BOARDS[1]
    _, grad = features(traced, board, placement_flags(board))
    entangled = Tracer.take()
    two = next(w.index for w in weights if w.line == 15 and w.spelling == "2")
    offset = next(w.index for w in weights if w.line == 13 and w.spelling == "2")
    assert two in entangled  # distance <= 2
    assert offset in entangled  # 0.05 * (rank - 2): the factor's own number
    factor = next(w.index for w in weights if w.line == 13 and w.spelling == "0.05")
    assert factor not in entangled and grad[factor] != 0


# ------------------------------------------------------------------ the fit


def synthetic(n: int, true_k: float, true_w: np.ndarray, seed: int) -> Data:
    rng = np.random.default_rng(seed)
    x = sparse.random(n, len(true_w), density=0.3, random_state=seed, format="csr",
                      data_rvs=lambda size: rng.integers(-3, 4, size).astype(float))
    c = rng.normal(0, 0.5, n)
    p = sigmoid(true_k * (c + x @ true_w))
    y = (rng.random(n) < p).astype(float)
    return Data(y, c, x, np.arange(n) // 40)


def test_fit_recovers_known_weights_from_synthetic_games() -> None:
    true_w = np.array([0.8, -0.4, 0.25, 1.2, 0.0])
    data = synthetic(60_000, 1.3, true_w, 1)
    found = fit_weights(data, 1.3, np.zeros(5), ridge=1e-7)
    assert np.allclose(found, true_w, atol=0.06)


def test_k_is_fitted_when_the_weights_are_right() -> None:
    true_w = np.array([0.5, -1.0])
    data = synthetic(40_000, 0.9, true_w, 2)
    assert fit_k(data, true_w) == pytest.approx(0.9, abs=0.08)


def test_texel_lowers_the_error_from_wrong_weights() -> None:
    true_w = np.array([0.6, -0.3, 0.9])
    data = synthetic(30_000, 1.0, true_w, 3)
    start = np.array([0.1, 0.2, 0.1])
    fit = texel(data, start)
    assert fit.error_after < fit.error_before
    assert fit.error_after == pytest.approx(error(data, fit.k, fit.weights))
    assert np.abs(fit.weights - true_w).max() < np.abs(start - true_w).max()


def test_a_given_ridge_replaces_the_held_out_choice() -> None:
    true_w = np.array([0.6, -0.3, 0.9])
    data = synthetic(30_000, 1.0, true_w, 3)
    start = np.array([0.1, 0.2, 0.1])
    loose, firm, stiff = (texel(data, start, ridge) for ridge in (1e-6, 1e-2, 1e6))
    assert (loose.ridge, firm.ridge, stiff.ridge) == (1e-6, 1e-2, 1e6)
    moved = [float(np.abs(fit.weights - start).sum()) for fit in (loose, firm, stiff)]
    assert moved[0] > moved[1] > moved[2]
    assert np.abs(loose.weights - true_w).max() < 0.1
    assert np.allclose(stiff.weights, start, atol=1e-4)


# ------------------------------------------------------------------ samples

PGN = """[Event "a"]
[Result "1-0"]

1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6 4. O-O Be7 5. d4 exd4 6. Nxd4 Nxe4 1-0

[Event "b"]
[Result "*"]

1. d4 d5 *

[Event "c"]
[Result "1/2-1/2"]

1. d4 d5 2. c4 e6 3. Nc3 Nf6 4. Bg5 Be7 5. e3 O-O 1/2-1/2
"""


def test_candidates_come_from_finished_games_after_the_first_moves() -> None:
    count = GameCount()
    found = list(read_candidates(io.StringIO(PGN), "g.pgn", count))
    assert (count.used, count.unfinished, count.bad) == (2, 1, 0)
    assert [c.result for c in found] == [1.0] * 4 + [0.5] * 2
    assert [c.game for c in found] == [0] * 4 + [2] * 2  # numbers count every game
    # White castled at move 4 of game a: the flag is set for the positions after it.
    assert found[0].flags != 0


def test_games_read_in_parts_give_the_same_candidates(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(samples, "GAMES_PER_PART", 1)
    parts = list(samples.split_games("g.pgn", PGN, 10))
    assert [(p.first, p.games) for p in parts] == [(10, 1), (11, 1), (12, 1)]
    assert "".join(p.text for p in parts) == PGN
    whole = list(read_candidates(io.StringIO(PGN), "g.pgn", GameCount(), 10))
    count = GameCount()
    pieces = []
    for part in parts:
        counted = GameCount()
        pieces += read_candidates(io.StringIO(part.text), part.path, counted, part.first)
        count.add(counted)
    assert pieces == whole
    assert (count.used, count.unfinished, count.candidates) == (2, 1, 6)


def test_choose_is_reproducible_and_keeps_game_order() -> None:
    found = list(read_candidates(io.StringIO(PGN), "g.pgn", GameCount()))
    assert choose(found, 3, 7) == choose(found, 3, 7)
    picked = choose(found, 3, 7)
    assert [found.index(c) for c in picked] == sorted(found.index(c) for c in picked)
    assert choose(found, None, 0) == found


def test_quiet_plays_out_the_pending_exchange() -> None:
    from esochess.chespel.tuning.samples import Candidate
    hanging = Candidate("4k3/8/8/3q4/4P3/8/8/4K3 w - - 0 1", 0, 1.0, 0)
    board, _ = quiet(hanging) or (None, 0)
    assert board is not None and board.board_fen() == "4k3/8/8/3P4/8/8/8/4K3"
    calm = Candidate("4k3/8/8/8/4P3/8/8/4K3 w - - 0 1", 0, 1.0, 0)
    assert quiet(calm) == (chess.Board(calm.fen), 0)
    # A line that ends in a position the rules do not score is dropped.
    assert quiet(Candidate("4k3/8/8/8/8/8/8/4K3 w - - 0 1", 0, 0.5, 0)) is None


def test_an_engine_score_becomes_an_expected_result() -> None:
    def pov(score: chess.engine.Score, turn: bool = chess.BLACK) -> chess.engine.PovScore:
        return chess.engine.PovScore(score, turn)

    assert labels.expected(pov(chess.engine.Cp(0))) == 0.5
    assert labels.expected(pov(chess.engine.Cp(-400))) == pytest.approx(10 / 11)  # Black's view
    assert labels.expected(pov(chess.engine.Cp(400), chess.WHITE)) == pytest.approx(10 / 11)
    assert labels.expected(pov(chess.engine.Mate(3), chess.WHITE)) == 1.0
    assert labels.expected(pov(chess.engine.Mate(2))) == 0.0


def test_a_chespel_program_labels_positions_by_its_search() -> None:
    engine = EngineSpec.parse(str(EXAMPLES / "material.chp"))
    board = chess.Board("4k3/8/8/8/8/8/3Q4/4K3 b - - 0 1")  # White a queen up
    labeller = labels.Labeller(labels.LabelSettings(engine, depth=1, weight=1.0))
    try:
        score = labeller.target(board, 0.0)
        assert score > 0.99
        labeller.settings = labels.LabelSettings(engine, depth=1, weight=0.25)
        assert labeller.target(board, 1.0) == pytest.approx(0.25 * score + 0.75)
    finally:
        labeller.close()


def test_a_label_engine_that_does_not_start_is_a_label_error() -> None:
    with pytest.raises(labels.LabelError, match="cannot start engine"):
        labels.Labeller(labels.LabelSettings(EngineSpec.parse("uci:/nonexistent/engine")))
