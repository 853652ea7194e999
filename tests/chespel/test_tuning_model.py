"""The tuner's model of the evaluation is the engine's evaluation.

`chespel tune` fits numbers to a linear model of each training position's score: the
traced evaluation's score plus, per weight, its feature times the change. A tuned program
only plays as fitted if its built engine — specialised code, folded piece-square tables
kept move by move, the endgame module with its threshold and `replace`, caches by pawn
and king placement, the side to move's point of view — scores every position exactly as
that model predicts. These tests check that for the project's own tuning example.
"""

from __future__ import annotations

import io
import subprocess
import sys

import chess
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pgn_data import LICHESS
from test_eval_support import EXAMPLES

from esochess.chespel.codegen import compile_program
from esochess.chespel.frontend import compile_source
from esochess.chespel.runtime.evaluation import Program
from esochess.chespel.runtime.search_board import SearchBoard
from esochess.chespel.tuning.samples import GameCount, quiet, read_candidates
from esochess.chespel.tuning.tracing import Tracer, features, traced_program
from esochess.chespel.tuning.weights import find_weights, rewrite, score_literals

POSITIONAL = (EXAMPLES / "positional.chp").read_text()


def training_positions() -> list[tuple[chess.Board, int]]:
    """Quiet positions as the tuner makes them: every 7th candidate of the first games of
    the shipped Lichess file (openings, middlegames and endgames, both sides to move)."""
    with open(LICHESS, encoding="utf-8") as handle:
        text = "".join(handle.readline() for _ in range(3000))
    candidates = list(read_candidates(io.StringIO(text), "lichess", GameCount()))
    found = [quiet(candidate) for candidate in candidates[::7]]
    return [position for position in found if position is not None]


POSITIONS = training_positions()
RESULT = compile_source("positional.chp", POSITIONAL)
WEIGHTS, IDS = find_weights(RESULT.program)  # type: ignore[arg-type]
WANTED = score_literals(RESULT.program)  # type: ignore[arg-type]
TRACED = traced_program(RESULT, {key: index for key, index in IDS.items() if key in WANTED},
                        [w.millis for w in WEIGHTS])


def model() -> list[tuple[chess.Board, int, int, dict[int, float]]]:
    """Each position with its flags, White's traced score and its linear features."""
    rows = []
    Tracer.take()
    for board, flags in POSITIONS:
        score, grad = features(TRACED, board, flags)
        rows.append((board, flags, score, grad))
    entangled = Tracer.take()
    return [(b, f, s, {i: g for i, g in grad.items() if i not in entangled})
            for b, f, s, grad in rows]


MODEL = model()


def engine_score(program: Program, board: chess.Board, flags: int) -> int:
    """White's score as the search computes it: from the side to move, on its own board."""
    search_board = SearchBoard.of(board, program.psq_main, program.psq_endgame)
    score = program.search_score(search_board, board.turn, flags, search_board.psq_main,
                                 search_board.psq_endgame)
    return score if board.turn == chess.WHITE else -score


def test_the_positions_cover_both_modules_and_both_sides() -> None:
    endgame = [b for b, _ in POSITIONS if (chess.popcount(b.knights | b.bishops) * 3
                                          + chess.popcount(b.rooks) * 5
                                          + chess.popcount(b.queens) * 9) <= 14]
    assert len(POSITIONS) >= 150 and len(endgame) >= 10
    assert {b.turn for b, _ in POSITIONS} == {chess.WHITE, chess.BLACK}


def test_the_untuned_engine_scores_what_the_tuner_saw() -> None:
    engine = compile_program(RESULT)
    for board, flags, score, _ in MODEL:
        assert engine_score(engine, board, flags) == score, board.fen()


LINEAR = sorted(set().union(*(grad for *_, grad in MODEL)))
"""The numbers the tuner would change: linear features of some position, never entangled."""


@settings(max_examples=8, deadline=None)
@given(st.lists(st.integers(-400, 400), min_size=len(LINEAR), max_size=len(LINEAR)))
def test_a_rewritten_program_scores_what_the_linear_model_predicts(shifts: list[int]) -> None:
    """Any new numbers (milli-units, the literal's own value, as the fit writes them): the
    built engine of the rewritten program scores the model's prediction exactly."""
    change = dict(zip(LINEAR, shifts, strict=True))
    values = {i: WEIGHTS[i].millis + shift for i, shift in change.items()}
    tuned = compile_source("tuned.chp", rewrite(POSITIONAL, WEIGHTS, values))
    assert tuned.ok, tuned.errors
    engine = compile_program(tuned)
    for board, flags, score, grad in MODEL:
        predicted = score + sum(coefficient * change[i] for i, coefficient in grad.items())
        assert engine_score(engine, board, flags) == predicted, board.fen()


STOP_WHILE_WORKERS_SEND = """
import sys
from esochess.chespel.tuning import tune

def bulky(number):
    # Results far larger than a pipe holds: the workers are still sending when stopped.
    return b"x" * 4_000_000

text = open(sys.argv[1]).read()
for attempt in range(5):
    pool = tune._Pool(sys.argv[1], text, 2)
    results = pool.map(bulky, range(8))
    next(results)
    pool.close(finished=False)
print("stopped")
"""


@pytest.mark.skipif(sys.platform == "win32", reason="fork start method")
def test_a_tune_stopped_while_workers_send_results_exits() -> None:
    # The same hazard the CQL pool had: a worker ended half-way through writing a result
    # must not leave the pool's manager thread waiting for the rest of it.
    proc = subprocess.run([sys.executable, "-c", STOP_WHILE_WORKERS_SEND,
                           str(EXAMPLES / "positional.chp")],
                          capture_output=True, text=True, timeout=120)
    assert (proc.returncode, proc.stdout) == (0, "stopped\n"), proc.stderr
