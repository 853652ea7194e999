"""Specialised evaluation code (issue 17) gives exactly the scores and justifications of the
generic code, replayed over recorded game positions and random walks."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import chess
import chess.pgn
import pytest
from test_eval_support import EXAMPLES, random_walk, source_of

from esochess.chespel.codegen import compile_program, generate
from esochess.chespel.frontend import compile_source
from esochess.chespel.runtime.evaluation import Program
from esochess.chespel.runtime.positions import placement_flags
from esochess.chespel.runtime.search_board import SearchBoard
from esochess.chespel.runtime.values import ChespelRuntimeError

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from pgn_data import LICHESS  # noqa: E402

SYNTHETIC = {
    # no colour filter: the table is looked up by the piece's own colour and type
    "all pieces": "module evaluation\nrule r:\n\tpiece p:\n\t\tscore p.value * p.rank;\n",
    # a condition that stays in the loop, and an if inside the body
    "centre": ("module evaluation\nsym rule r:\n\tpiece p with player == me, cell.inCenter:\n"
               "\t\tscore 0.2;\n\t\tif (p.cell.col.isKingSide) score 0.1;\n"),
    # entries that fail (rank 8 is out of range): the generic loop raises the error
    "failing": ("module evaluation\nsym rule r:\n\tlet t = [0, 1, 2, 3, 4, 5, 6];\n"
                "\tpiece p with player == me, type == king:\n\t\tscore t.elem(p.rank - 1);\n"),
    # pieces near a cell, the bound on the left; a second score in the same `if`
    "near": ("module evaluation\nsym rule r:\n\tlet k = me.king.cell;\n"
             "\tpiece q with player == foe, type != pawn:\n"
             "\t\tif (2 > q.cell.distance(k)):\n\t\t\tscore -0.1;\n\t\t\tscore 0.03 \"x\";\n"),
    # a cache keyed by queens and pawns, a loop over queens reading a pawn entry
    "queens": ("module evaluation\nsym rule r:\n\tpiece q with player == me, type == queen:\n"
               "\t\tif (q.cell.col.open) score 0.1;\n\t\tif (q.cell.col.halfOpenFor(foe)) "
               "score 0.05;\n\t\tif (q.passedPawn) score 7;\n"),
    # cached in parts: rooks (pawns and rooks), the bishop pair (bishops), doubled pawns
    "parts": ("module evaluation\nsym rule r:\n\tpiece r with player == me, type == rock:\n"
              "\t\tif (r.cell.col.open) score 0.2;\n\tif (me.bishopPair) score 0.3;\n"
              "\tscore -0.1 * me.doubledPawns.length;\n"),
    # the same with a statement that can fail: one cache for the rule
    "parts failing": ("module evaluation\nsym rule r:\n\tlet t = [0, 1];\n"
                      "\tpiece r with player == me, type == rock:\n"
                      "\t\tif (r.cell.col.open) score 0.2;\n"
                      "\tscore t.elem(me.doubledPawns.length);\n"),
    "me inside": ("module evaluation\nrule r:\n\tpiece p with type == knight:\n"
                  "\t\tif (p.player == me) score p.cell.distance(e4);\n"),
}


def recorded_games() -> list[list[chess.Move]]:
    """The moves of the first four recorded games."""
    lines = []
    with open(LICHESS, encoding="utf-8") as handle:
        for _ in range(4):
            game = chess.pgn.read_game(handle)
            if game is None:
                break
            lines.append(list(game.mainline_moves()))
    return lines


def positions() -> list[chess.Board]:
    boards = []
    for line in recorded_games():
        board = chess.Board()
        for move in line:
            board.push(move)
            boards.append(board.copy(stack=False))
    rng = random.Random(17)
    boards += [random_walk(rng, 120) for _ in range(100)]
    return boards


POSITIONS = positions()


def both(text: str, path: str) -> tuple[Program, Program]:
    result = compile_source(path, source_of(text))
    assert result.ok
    return compile_program(result, specialise=False), compile_program(result)


def outcome(program: Program, board: chess.Board, color: bool, flags: int) -> object:
    try:
        return program.rule_score(board, color, flags), program.evaluate_verbose(board, color, flags)
    except ChespelRuntimeError as exc:
        return ("error", exc.line, exc.column, exc.message)


CASES = {path.name: path.read_text() for path in sorted(EXAMPLES.glob("*.chp"))} | SYNTHETIC


@pytest.mark.parametrize("name", sorted(CASES))
def test_generic_and_specialised_code_agree(name: str) -> None:
    generic, special = both(CASES[name], f"{name}.chp")
    for board in POSITIONS:
        flags = placement_flags(board)
        for color in (chess.WHITE, chess.BLACK):
            assert outcome(special, board, color, flags) == outcome(generic, board, color, flags), \
                (name, board.fen())


def game_lines() -> list[list[chess.Move]]:
    """The moves of the recorded games and of random walks, to replay move by move."""
    lines = recorded_games()
    rng = random.Random(18)
    lines += [random_walk(rng, 160).move_stack for _ in range(30)]
    return lines


LINES = game_lines()


def search_outcome(program: Program, board: SearchBoard, color: bool, flags: int) -> object:
    try:
        return program.search_score(board, color, flags, board.psq_main, board.psq_endgame)
    except ChespelRuntimeError as exc:
        return ("error", exc.line, exc.column, exc.message)


def rule_outcome(program: Program, board: chess.Board, color: bool, flags: int) -> object:
    try:
        return program.rule_score(board, color, flags)
    except ChespelRuntimeError as exc:
        return ("error", exc.line, exc.column, exc.message)


@pytest.mark.parametrize("name", sorted(CASES))
def test_folded_piece_square_rules_keep_the_scores(name: str) -> None:
    """The search's board keeps the folded rules' sum move by move: with it, the score is
    the generic code's at every position of the games and walks, for both sides."""
    generic, special = both(CASES[name], f"{name}.chp")
    for line in LINES:
        board = SearchBoard.of(chess.Board(), special.psq_main, special.psq_endgame)
        for ply, move in enumerate(line):
            board.push(move)
            if ply % 3 and ply != len(line) - 1:
                continue
            flags = placement_flags(board)
            for color in (chess.WHITE, chess.BLACK):
                assert search_outcome(special, board, color, flags) == rule_outcome(
                    generic, board, color, flags), (name, board.fen())


def test_which_rules_are_folded() -> None:
    def program(text: str) -> Program:
        result = compile_source("p.chp", text)
        assert result.ok
        return compile_program(result)

    positional = program((EXAMPLES / "positional.chp").read_text())
    assert positional.psq_main is not None and positional.psq_endgame is not None
    source = generate(compile_source("p.chp", (EXAMPLES / "positional.chp").read_text()))
    # material and the four tables are folded; kingSafety, kingShelter, pawnStructure and
    # pieces are run (the endgame: material folded, the other three run)
    assert ("def score_main_rest(ctx, c):\n    return 0 + _rule_5(ctx, c) - _rule_5(ctx, not c)"
            " + _rule_6_sym(ctx, c) + _rule_7_sym(ctx, c) + _rule_8_sym(ctx, c)\n") in source
    # an entry that fails: nothing is folded, the rules raise the error as written
    failing = program(source_of(SYNTHETIC["failing"]))
    assert failing.psq_main is None and failing.rest_main is None
    # not symmetric: run as written
    assert program(source_of(SYNTHETIC["all pieces"])).psq_main is None
    assert program(source_of(SYNTHETIC["centre"])).psq_main is not None


def test_the_specialised_shapes_are_recognised() -> None:
    result = compile_source("p.chp", (EXAMPLES / "positional.chp").read_text())
    special, plain = generate(result), generate(result, specialise=False)
    assert special.count("_SQ.square_table(") == 6  # material, 4 tables, endgame material
    # cached by placement: pawnSquares, kingShelter, pawnStructure, activeKing, passedPawns
    # (pawns and kings), pieces in two parts (rooks on open columns by pawns and rooks, the
    # bishop pair by bishops), endgameRocks (pawns, rooks) and, being symmetric, the
    # knight, bishop and king tables (by knights, bishops, kings)
    assert special.count("_raw(ctx, me):") == 11
    assert "def _rule_8_part0_raw(ctx, me):" in special
    assert "_p0 = ctx.board.pawns\n    _p1 = ctx.board.rooks\n    _k = (" in special
    assert "_p0 = ctx.board.bishops\n    _k = (_p0 & _w, _p0 & _b, me)" in special
    assert "return _rule_8_part0_sym(ctx, me) + _rule_8_part1_sym(ctx, me)" in special
    # a symmetric rule's cache holds both sides: one lookup in the drivers
    assert "+ _rule_2_sym(ctx, c) +" in special
    assert "_rule_5(ctx, c) - _rule_5(ctx, not c)" in special  # kingSafety reads the flags
    # pieces near a cell: kingSafety (enemy pieces near the king), kingShelter (own pawns)
    assert special.count("_SQ.near_masks(") == 2
    assert "_SQ.near_masks(" not in plain
    assert "_SQ.square_table(" not in plain
    assert "    v_t = _K" in special  # constant lists hoisted


def test_the_synthetic_shapes_are_recognised() -> None:
    def special(name: str) -> str:
        result = compile_source(f"{name}.chp", source_of(SYNTHETIC[name]))
        assert result.ok
        return generate(result)

    assert "_SQ.near_masks('<', 2000)" in special("near")
    assert "_p0 = ctx.board.pawns\n    _p1 = ctx.board.queens\n" in special("queens")
    parts = special("parts")
    assert "def _rule_0_part2_raw(ctx, me):" in parts and "_part3" not in parts
    assert "_part" not in special("parts failing")


def test_failing_entries_fall_back_to_the_generic_error() -> None:
    generic, special = both(SYNTHETIC["failing"], "f.chp")
    board = chess.Board("4k3/8/8/8/8/8/8/4K3 w - - 0 1")
    assert special.rule_score(board, chess.WHITE, 0) == generic.rule_score(board, chess.WHITE, 0)
    board = chess.Board("8/8/8/8/8/8/8/k1K5 w - - 0 1")  # black king on its rank 8
    with pytest.raises(ChespelRuntimeError) as caught:
        special.rule_score(board, chess.WHITE, 0)
    assert "out of range" in caught.value.message
