"""The run-time library (§4) through compiled programs, on hand-checked positions."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_eval_support import S, generated, program, random_walk, verbose

PINS = "r3k2r/pp3ppp/2n5/3pP3/1b6/2N5/PP3PPP/R3K2R w KQkq d6 0 12"
TACTICS = "6k1/2r1q2p/7P/3N4/8/1BP5/2P5/R2RK3 w - - 0 1"

LIBRARY_ONE = """rule pinned:
\tscore 0 "" ++ me.pinnedPieces ++ foe.pinnedPieces;
rule absolute:
\tscore 0 "" ++ [c3, b4].pieces.absolutePinned;
rule passed:
\tscore 0 "" ++ me.passedPawns ++ foe.passedPawns;
rule isolated:
\tscore 0 "" ++ me.isolatedPawns ++ foe.isolatedPawns;
rule ep:
\tscore 0 "" ++ d6.enPassant ++ e6.enPassant ++ d5.pieces.enPassantPawn;
rule mobility:
\tscore me.mobility;
rule castle:
\tscore 0 "" ++ me.canCastle ++ foe.canCastle ++ me.hasCastlingAbility;
rule moves:
\tscore 0 "" ++ c3.pieces.moves ++ e5.pieces.moves;
rule cells:
\tscore 0 "" ++ a1.adjacent ++ c1.diagonal ++ e4.color ++ a1.color;
rule covers:
\tscore 0 "" ++ c6.pieces.threatens ++ b4.pieces.threatenedBy ++ e8.pieces.covers;
rule types:
\tscore 0 "" ++ knight.startingPos(black) ++ pawn.alive(me) ++ rock.major ++ bishop.minor;
rule columns:
\tscore 0 "" ++ $d.open ++ $e.halfOpen ++ $e.halfOpenFor(foe) ++ $f.closed ++ $c.open;
rule hanging:
\tscore 0 "" ++ me.hangingPieces ++ foe.hangingPieces ++ foe.exposedPieces.length;
rule checks:
\tscore 0 "" ++ me.check ++ foe.makesCheck ++ me.battery ++ phaseMaterial ++ inEndgame;
"""


def test_library_on_a_pinned_position() -> None:
    # Mobility and moves are "as if the player were to move": no en passant cell, so
    # exd6 is not counted (21 of python-chess's 22 distinct from-to pairs).
    assert verbose(program(LIBRARY_ONE), PINS) == [
        "score for white: 21",
        "pinned: 0 [wNc3][]",
        "absolute: 0 [true, false]",
        "passed: 0 [][bPd5]",
        "isolated: 0 [][bPd5]",
        "ep: 0 truefalse[true]",
        "mobility: +21",
        "castle: 0 truetruetrue",
        "moves: 0 [][e6]",
        "cells: 0 [b1, a2, b2][b2, d2, a3, e3, f4, g5, h6]whiteblack",
        "covers: 0 [wPe5][][bPf7]",
        "types: 0 [b8, g8]6truetrue",
        "columns: 0 falsetruetruetruetrue",
        "hanging: 0 [wPe5][bPd5]5",
        "checks: 0 falsefalsefalse29false",
    ]


LIBRARY_TWO = """rule structure:
\tscore 0 "" ++ me.connectedRocks ++ me.battery ++ d5.pieces.fork ++ me.bishopPair;
rule pawns:
\tscore 0 "" ++ me.doubledPawns ++ me.advancedPawns ++ me.isolatedPawns ++ me.passedPawns;
rule bishops:
\tscore 0 "" ++ b3.pieces.badBishop ++ b3.pieces.whiteCellBishop ++ b3.pieces.blackCellBishop;
rule relations:
\tscore 0 "" ++ e7.pieces.threatenedBy ++ c7.pieces.singleCoveredPieces ++ d5.pieces.threatenedHangedPieces;
rule misc:
\tscore foe.king.cell.distance(h6) + me.rank(2).number + row(3).rank(foe) + col(2).number;
"""


def test_library_on_a_tactical_position() -> None:
    assert verbose(program(LIBRARY_TWO), TACTICS) == [
        "score for white: 12",
        "structure: 0 truetrue[true]false",
        "pawns: 0 [wPc2, wPc3][wPh6][wPc2, wPc3, wPh6][wPc2, wPc3]",
        "bishops: 0 [false][true][false]",
        "relations: 0 [wNd5][bQe7][]",
        "misc: +12",
    ]


@pytest.mark.parametrize(("statement", "message"), [
    ("score row(me.pieces.length).number;", "3:8: runtime error: no row 16"),
    ("score col(me.pieces.length / 32).number;", "3:8: runtime error: no column 0.5"),
    ("score me.rank(me.pieces.length / 32).number;", "3:11: runtime error: no rank 0.5"),
    ("score foe.passedPawns.head.value;", "3:24: runtime error: head of an empty list"),
    ("score foe.passedPawns.last.value;", "3:24: runtime error: last of an empty list"),
    ("score foe.passedPawns.value.min;", "3:30: runtime error: min of an empty list"),
    ("score foe.passedPawns.value.max;", "3:30: runtime error: max of an empty list"),
    ("score [1].elem(me.pieces.length / 32);", "3:12: runtime error: index 0.5 out of "
     "range for a list of length 1"),
    ("score 1 / (me.pieces.length - 16);", "3:10: runtime error: division by zero"),
])
def test_runtime_errors(statement: str, message: str) -> None:
    prog = program(f"module evaluation\nrule r:\n\t{statement}\n")
    assert verbose(prog, S) == [f"error: t.chp:{message}"]


def _values(cls: str, board: object) -> list[object]:
    import chess

    assert isinstance(board, chess.Board)
    samples: dict[str, list[object]] = {
        "Row": [1, 4, 8], "Col": [1, 5, 8], "Cell": [0, 27, 63], "Type": [1, 2, 3, 4, 5, 6],
        "Color": [True, False], "Player": [True, False], "Num": [0, 3000, 8000, 500],
        "Piece": list(chess.scan_forward(board.occupied))[:6],
    }
    return samples[cls]


@settings(deadline=None, max_examples=12)
@given(st.integers(0, 10**6))
def test_every_library_entry_has_a_total_runtime_function(seed: int) -> None:
    import random

    from esochess.chespel.library import LIBRARY
    from esochess.chespel.runtime import library
    from esochess.chespel.runtime.values import ChespelRuntimeError

    rng = random.Random(seed)
    board = random_walk(rng)
    ctx = library.Context(board, rng.randrange(16))
    for entry in LIBRARY:
        if entry.receiver is None and entry.name not in ("abs", "in", "min", "max"):
            assert callable(getattr(library, f"G_{entry.name}"))
        if entry.receiver in (None, "List"):
            continue
        function = getattr(library, f"{entry.receiver}_{entry.key.partition('.')[2].partition('/')[0]}")
        for receiver in _values(entry.receiver, board):
            arguments = [rng.choice(_values(p, board)) for p in entry.params]
            extra = [1, 1] if entry.key == "Player.rank" else []
            try:
                function(ctx, rng.random() < 0.5, receiver, *arguments, *extra)
            except ChespelRuntimeError:
                pass


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=0, max_value=10**6))
def test_player_pawn_lists_agree_with_the_piece_tests(seed: int) -> None:
    """`me.doubledPawns`, `isolatedPawns`, `passedPawns` (computed on the bitboards) hold
    exactly the pawns whose `doubledPawn`, `isolatedPawn`, `passedPawn` hold, and the
    passed pawns are those with no enemy pawn ahead on their column or the next ones."""
    import random

    import chess

    from esochess.chespel.runtime import library as lib
    from esochess.chespel.runtime.context import Context

    board = random_walk(random.Random(seed), 120)
    ctx = Context(board, 0)
    for player in (chess.WHITE, chess.BLACK):
        pawns = list(chess.scan_forward(board.pieces_mask(chess.PAWN, player)))
        for many, one in ((lib.Player_doubledPawns, lib.Piece_doubledPawn),
                          (lib.Player_isolatedPawns, lib.Piece_isolatedPawn),
                          (lib.Player_passedPawns, lib.Piece_passedPawn)):
            assert many(ctx, True, player) == [p for p in pawns if one(ctx, True, p)], board.fen()
        enemy = board.pieces(chess.PAWN, not player)
        passed = [p for p in pawns if not any(
            abs(chess.square_file(e) - chess.square_file(p)) <= 1
            and (chess.square_rank(e) - chess.square_rank(p)) * (1 if player else -1) > 0
            for e in enemy)]
        assert lib.Player_passedPawns(ctx, True, player) == passed, board.fen()


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=0, max_value=10**6))
def test_attack_sets_and_hanging_pieces_agree_with_python_chess(seed: int) -> None:
    """A side's attack set (pawns by shifts, the rest by the attack tables) is every cell
    python-chess finds attacked by that side, each piece's cached attacks are its
    `attacks_mask`, and `hanging()` holds exactly the pieces whose `hanged` holds."""
    import random

    import chess

    from esochess.chespel.runtime import library as lib
    from esochess.chespel.runtime.context import Context

    board = random_walk(random.Random(seed), 120)
    ctx = Context(board, 0)
    for color in (chess.WHITE, chess.BLACK):
        expected = 0
        for square in chess.SQUARES:
            if board.is_attacked_by(color, square):
                expected |= chess.BB_SQUARES[square]
        assert ctx.attacked(color) == expected, board.fen()
    for square in chess.scan_forward(board.occupied):
        assert ctx.attacks(square) == board.attacks_mask(square), board.fen()
    hanging = [p for p in chess.scan_forward(board.occupied) if lib.Piece_hanged(ctx, True, p)]
    assert list(chess.scan_forward(Context(board, 0).hanging())) == hanging, board.fen()


FOLDED = """sym rule hanging:
\tpiece p with player == me, hanged, type != king:
\t\tscore -0.3 * p.value;
sym rule mobility:
\tpiece p with player == me, type != pawn:
\t\tscore 0.02 * p.visibleCells.length;
\t\tscore 0.01 * p.cell.pieces.head.visibleCells.length;
"""
UNFOLDED = """sym rule hanging:
\tpiece p with player == me, type != king:
\t\tif (p.hanged) score -0.3 * p.value;
sym rule mobility:
\tpiece p with player == me, type != pawn:
\t\tlet cells = p.visibleCells;
\t\tscore 0.02 * cells.length;
\t\tlet head = p.cell.pieces.head.visibleCells;
\t\tscore 0.01 * head.length;
"""


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=0, max_value=10**6))
def test_hanged_filter_and_attack_counts_score_like_the_lists(seed: int) -> None:
    """`hanged` folded into a loop's bitboard and `visibleCells.length` compiled to a
    popcount give the scores of the same rules written without either shape."""
    import random

    from esochess.chespel.runtime.positions import placement_flags

    code = generated(FOLDED)
    assert "ctx.hanging()" in code and "_clamp(20 * ctx.attacks(v_p).bit_count())" in code
    assert "ctx.hanging()" not in generated(UNFOLDED)
    board = random_walk(random.Random(seed), 120)
    folded, unfolded = program(FOLDED), program(UNFOLDED)
    flags = placement_flags(board)
    for color in (True, False):
        assert folded.rule_score(board, color, flags) == unfolded.rule_score(board, color, flags)
