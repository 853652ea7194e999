"""`light` and `dark` (issue 19): the light or dark squares of a set.

Agreement with an independent python-chess computation on the shipped lichess games.
"""

from __future__ import annotations

from collections.abc import Callable

import chess
import pytest
from pgn_data import LICHESS
from test_pawn_structure import mainline_boards

from esochess.cqlvars import pgnio
from esochess.cqlvars.engine import compile_query, run_games
from esochess.fen import SourceError

GAMES = list(pgnio.iter_games([str(LICHESS)], last=300))


def _cql(query: str) -> list[int]:
    compiled = compile_query("q.cql", query)
    return [o.number for o in run_games(compiled, GAMES) if o.matched]


def _python_chess(test: Callable[[chess.Board], bool]) -> list[int]:
    return [item.number for item in GAMES
            if any(test(board) for board in mainline_boards(item.text))]  # fmt: skip


def _on(board: chess.Board, piece: chess.PieceType, color: chess.Color, light: bool) -> bool:
    squares = chess.BB_LIGHT_SQUARES if light else chess.BB_DARK_SQUARES
    return bool(board.pieces_mask(piece, color) & squares)


def test_opposite_coloured_bishops_agree_with_python_chess() -> None:
    def opposite(board: chess.Board) -> bool:
        one_each = (len(board.pieces(chess.BISHOP, chess.WHITE)) == 1
                    and len(board.pieces(chess.BISHOP, chess.BLACK)) == 1)  # fmt: skip
        return one_each and (
            _on(board, chess.BISHOP, chess.WHITE, True) != _on(board, chess.BISHOP, chess.BLACK, True)
        )

    mine = _cql("cql() #B == 1 #b == 1 (light B and dark b or dark B and light b)")
    assert mine == _python_chess(opposite) and mine


def test_light_and_dark_count_squares() -> None:
    def three_light_pawns(board: chess.Board) -> bool:
        return chess.popcount(board.pieces_mask(chess.PAWN, chess.WHITE)
                              & chess.BB_LIGHT_SQUARES) == 3  # fmt: skip

    mine = _cql("cql() #light P == 3  #dark . >= 0")
    assert mine == _python_chess(three_light_pawns) and mine


def test_light_needs_a_set() -> None:
    with pytest.raises(SourceError, match="'light' requires set"):
        compile_query("q.cql", "cql() light check")
