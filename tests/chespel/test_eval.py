"""Evaluation semantics (§8) through `eval`: conformance checks K02–K08, K15–K21, K24, K32–K35."""

from __future__ import annotations

import pytest
from test_eval_support import (
    E4,
    G1,
    G2,
    G3,
    KN,
    MT,
    PB,
    PW,
    ST,
    START_BOARD,
    S,
    example,
    program,
    repl,
    score,
    verbose,
)

MATERIAL = example("material.chp")
POSITIONAL = example("spec_positional.chp")


def test_k02_board_and_perspective() -> None:
    assert repl(MATERIAL, f"eval {PW}") == [
        "8 . . . . k . . .",
        "7 p p . . . . . .",
        "6 . . . . . . . .",
        "5 . . . . . . . .",
        "4 . . . . . . . .",
        "3 . . . . . . . .",
        "2 P P P . . . . .",
        "1 . . . . K . . .",
        "  a b c d e f g h",
        "score for white: 1",
    ]
    assert score(MATERIAL, PB) == "score for black: -1"


def test_k03_sym() -> None:
    body = "rule pawns:\n\tpiece p with p.player == me, p.type == pawn:\n\t\tscore 1;\n"
    assert score(program("sym " + body), PW) == "score for white: 1"
    assert score(program(body), PW) == "score for white: 3"


@pytest.mark.parametrize(("fen", "expected"), [
    (S, "score for white: 0"), (E4, "score for black: -0.3"), (G1, "score for black: -0.6"),
    (G2, "score for white: 0.35"), (G3, "score for white: -1.15"),
])
def test_k04_positional_values(fen: str, expected: str) -> None:
    assert score(POSITIONAL, fen) == expected


def test_k05_verbose_with_merging() -> None:
    lines = repl(POSITIONAL, f"eval v {E4}")
    assert lines[4] == "4 . . . . P . . ."
    assert lines[9:] == [
        "score for black: -0.3",
        "me:    material: +8 (8)",
        "me:    material: +10 (2)",
        "me:    material: +12 (4)",
        "me:    material: +9",
        "me:    material: 0",
        "foe:   material: -10 (2)",
        "foe:   material: -12 (4)",
        "foe:   material: -9",
        "foe:   material: 0",
        "foe:   material: -8 (8)",
        "foe:   centre: -0.2 centre e4",
        "foe:   pawnAdvance: -0.1",
        "me:    undefended: -0.2 undefended rock (2)",
        "foe:   undefended: +0.2 undefended rock (2)",
    ]


WORKED = """module evaluation

sym rule castling:
\tif (me.castledSide(king)) score 2 "castled king side";
\tif (me.castledSide(queen)) score 1 "castled queen side";

sym rule doubledPawns:
\tpiece a, b with a.player == me, b.player == me, a.type == pawn, b.type == pawn,
\t\t\ta.cell.col == b.cell.col, a.cell.row < b.cell.row:
\t\tscore -0.3;

rule check:
\tif (me.check):
\t\tscore -5 "under check";
"""


def test_k06_worked_example() -> None:
    fen = "2kr4/5p2/1b3p2/8/8/P1P4P/P1P4P/5RK1 w - - 0 1"
    assert verbose(program(WORKED), fen) == [
        "score for white: -4.6",
        "me:    castling: +2 castled king side",
        "foe:   castling: -1 castled queen side",
        "me:    doubledPawns: -0.9 (3)",
        "foe:   doubledPawns: +0.3",
        "check: -5 under check",
    ]


def test_k07_string_conversion() -> None:
    prog = program(
        "rule s:\n\tscore 0 knight ++ true ++ 4.0 ++ 3+7 ++ pawn == knight;\n\n"
        "rule t:\n\tscore 0, \"r\" ++ $4 ++ $d ++ e4 ++ me ++ white ++ 0.50 ++ 1/4 ++ "
        "[$1, $2] ++ me.king;\n")
    assert verbose(prog, S) == [
        "score for white: 0",
        "s: 0 knighttrue4.010false",
        "t: 0 r$4$de4mewhite0.500.25[$1, $2]wKe1",
    ]


def test_k08_fixed_values() -> None:
    assert score(MATERIAL, MT) == "score for black: -10000"
    assert verbose(MATERIAL, MT) == ["score for black: -10000", "game over: checkmate"]
    assert verbose(MATERIAL, ST) == ["score for black: 0", "game over: stalemate"]
    assert verbose(MATERIAL, KN) == ["score for white: 0", "game over: insufficient material"]


@pytest.mark.parametrize(("text", "expected"), [
    ("rule pairs:\n\tpiece p1, p2 with p1.player == me, p2.player == me, p1.type == pawn, "
     "p2.type == pawn:\n\t\tscore 1;\n", "56"),
    ("rule pairs:\n\tpiece p1, p2 with p1.player == me, p2.player == me, p1.type == pawn, "
     "p2.type == pawn, p1.cell.col < p2.cell.col:\n\t\tscore 1;\n", "28"),
    ("rule centre:\n\tcell c with inCenter:\n\t\tscore 1;\n", "4"),
    ("rule triples:\n\tcell a, b, c with a.inCenter, b.inCenter, c.inCenter:\n\t\tscore 1;\n",
     "24"),
    ("rule mine:\n\tpiece p with player == me, type == pawn:\n\t\tscore 1;\n", "8"),
    ("rule mine:\n\tpiece p with cell.inCenter:\n\t\tscore 1;\n", "0"),
    ("rule r:\n\tif ($4 *> $3) score 1;\n", "1"),
])
def test_k15_k16_k17_loops_and_receivers(text: str, expected: str) -> None:
    assert score(program(text), S) == f"score for white: {expected}"


def test_k17_relative_rows_for_black() -> None:
    assert score(program("rule r:\n\tif ($4 *> $3) score 1;\n"), E4) == "score for black: 0"


def test_k18_num_arithmetic() -> None:
    prog = program(
        "module evaluation\n\nrule a:\n\tscore 0.0004;\nrule b:\n\tscore 900 * 9;\n"
        "rule c:\n\tscore 5000 / 2;\nrule d:\n\tscore 1 / 3;\nrule e:\n\tscore -7 / 2;\n"
        "rule f:\n\tscore 5000 * 3;\nrule g:\n\tscore 2 / 3 * 3;\n", "n.chp")
    assert verbose(prog, S) == [
        "score for white: 10000", "a: 0", "b: +8100", "c: +2500", "d: +0.333", "e: -3.5",
        "f: +10000", "g: +1.998",
    ]
    unclamped = program("rule r:\n\tscore 9000;\n\tscore 9000;\n\tscore -9000;\n")
    assert score(unclamped, S) == "score for white: 9000"


def test_k19_lists() -> None:
    prog = program(
        "rule count:\n\tscore me.pieces.length;\nrule values:\n\tscore me.pieces.value.sum / 10;\n"
        "rule sorting:\n\tscore [3, 1, 2].sort.head;\n"
        "rule empty:\n\tif (foe.pieces.coveredBy.nub == []) score 100;\n"
        "rule member:\n\tif ($d in [$d, $e] and not ($a in [$d, $e])) score 0.5;\n")
    assert verbose(prog, S) == [
        "score for white: 21.4", "count: +16", "values: +3.9", "sorting: +1", "member: +0.5",
    ]


def test_k20_castling_by_placement() -> None:
    prog = program("sym rule c:\n\tif (me.castled) score 1;\n")
    assert score(prog, G1) == "score for black: -1"


ENDGAME = """module evaluation

sym rule material:
\tpiece p with p.player == me:
\t\tscore p.value;

module endgame
threshold = 10
{extra}
sym rule activeKing:
\tif (me.king.cell.inExpandedCenter) score 0.5 "active king";
"""


def test_k21_endgame_module() -> None:
    fen = "8/8/4k3/8/8/8/3RK3/8 w - - 0 1"
    added = program(ENDGAME.format(extra=""))
    assert score(added, fen) == "score for white: 4.5"
    assert score(added, S) == "score for white: 0"
    replaced = program(ENDGAME.format(extra="replace = true\n"))
    assert score(replaced, fen) == "score for white: -0.5"


def test_k24_comments_in_justification() -> None:
    prog = program('module evaluation /* the only module */\n/* a block comment\n   on two '
                   'lines */\nrule r:\n\tscore 0 " /* not a comment */ // nor this"; '
                   '// a real comment\n// last line')
    assert verbose(prog, S) == ["score for white: 0", "r: 0  /* not a comment */ // nor this"]


def test_k32_runtime_error_in_eval() -> None:
    prog = program("module evaluation\nrule r:\n\tscore [1, 2].elem(me.pieces.length);\n",
                   "rt.chp")
    assert repl(prog, "eval startpos") == [*START_BOARD, (
        "error: rt.chp:3:15: runtime error: index 16 out of range for a list of length 2")]


def test_k33_aggregation() -> None:
    prog = program(
        "rule agg:\n\tpiece p with player == me, type == queen:\n\t\tif (p.value == 9 and "
        "p.row == $1 and p.col == $d and not p.castled and p.rank == 1 and d1.rank == 1) "
        "score 1;\n")
    assert score(prog, S) == "score for white: 1"


def test_k34_global_forms() -> None:
    prog = program("rule g:\n\tscore length(me.pieces) + value(queen);\n"
                   "\tif (check(me)) score 100;\n\tif (castled(me)) score 1000;\n")
    assert score(prog, S) == "score for white: 25"
    assert score(prog, MT) == "score for black: -10000"


SEED_FRAGMENTS = """module evaluation

sym rule knightSimbiosis:
\tpiece n1, n2 with n1.player == me, n2.player == me:
\t\tlet cellList = n1.visibleCells;
\t\tif (n2.pos in cellList) score 0.2;

rule check:
\tif (me.check):
\t\tscore -5 "under check";

sym rule castling:
\tif (castled(me)):
\t\tscore 1;

sym rule checkAgain:
\tif (check(me)) score -5;

sym rule doubledPawns:
\tpiece p1, p2 with p1.player == me, p2.player == me,
\t\t\t\t\t  p1.type == pawn, p2.type == pawn:
\t\tif (p1.col == p2.col) score -0.3;
"""


def test_k35_seed_fragments() -> None:
    assert score(program(SEED_FRAGMENTS), S) == "score for white: 0"
