"""Pawn-structure filters (CQL 6.1): each is one table entry, a board -> square-set function.

`passedpawns`, `isolatedpawns`, `doubledpawns` and `connectedpawns` take no parameter and
give the squares of the pawns of both colours that have the property. Adding another
such filter is one function and one `FILTERS` entry (the lexer, grammar, checker and
evaluator read this table).
"""

from __future__ import annotations

from collections.abc import Callable

import chess


def _adjacent_files(square: chess.Square) -> int:
    file = chess.square_file(square)
    mask = 0
    for other in (file - 1, file + 1):
        if 0 <= other < 8:
            mask |= chess.BB_FILES[other]
    return mask


def _ahead(square: chess.Square, color: chess.Color) -> int:
    """Every square on ranks in front of `square` for `color`."""
    rank = chess.square_rank(square)
    ranks = range(rank + 1, 8) if color == chess.WHITE else range(0, rank)
    mask = 0
    for r in ranks:
        mask |= chess.BB_RANKS[r]
    return mask


def _pawns(board: chess.Board, test: Callable[[chess.Board, chess.Square, chess.Color], bool]) -> int:
    mask = 0
    for color in chess.COLORS:
        for square in chess.scan_forward(board.pieces_mask(chess.PAWN, color)):
            if test(board, square, color):
                mask |= chess.BB_SQUARES[square]
    return mask


def _passed(board: chess.Board, square: chess.Square, color: chess.Color) -> bool:
    files = chess.BB_FILES[chess.square_file(square)] | _adjacent_files(square)
    return not board.pieces_mask(chess.PAWN, not color) & files & _ahead(square, color)


def _isolated(board: chess.Board, square: chess.Square, color: chess.Color) -> bool:
    return not board.pieces_mask(chess.PAWN, color) & _adjacent_files(square)


def _doubled(board: chess.Board, square: chess.Square, color: chess.Color) -> bool:
    same_file = chess.BB_FILES[chess.square_file(square)] & ~chess.BB_SQUARES[square]
    return bool(board.pieces_mask(chess.PAWN, color) & same_file)


FILTERS: dict[str, Callable[[chess.Board], int]] = {
    "passedpawns": lambda board: _pawns(board, _passed),
    "isolatedpawns": lambda board: _pawns(board, _isolated),
    "doubledpawns": lambda board: _pawns(board, _doubled),
    # Connected: a friendly pawn on an adjacent file, i.e. every pawn that is not isolated.
    "connectedpawns": lambda board: _pawns(board, lambda b, s, c: not _isolated(b, s, c)),
}
