"""Piece-square tables and distance masks for specialised rule loops (see
esochess/chespel/specialise.py).

`square_table(f)` runs `f(ctx, cell)` for every colour, piece type and cell on a board
holding that one piece, and lays the results out as colour * 448 + type * 64 + cell. An
entry whose computation raises a run-time error is None (the generated loop then runs the
generic code, which raises that error where the program's author expects it).
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Iterator, Sequence

import chess

from esochess.chespel.runtime.context import Context
from esochess.chespel.runtime.values import ChespelRuntimeError

SIZE = 2 * 448


def square_table(f: Callable[[Context, int], int]) -> list[int | None]:
    """The table of `f` over every (colour, type, cell)."""
    table: list[int | None] = [None] * SIZE
    for index, square, ctx in _lone_pieces():
        try:
            table[index] = f(ctx, square)
        except ChespelRuntimeError:
            pass
    return table


def _lone_pieces() -> Iterator[tuple[int, int, Context]]:
    """(table index, cell, context of a board holding only that piece) for every colour,
    piece type and cell (the board is reused: each context is valid until the next)."""
    board = chess.Board.empty()
    for color in (chess.BLACK, chess.WHITE):
        for piece_type in chess.PIECE_TYPES:
            piece = chess.Piece(piece_type, color)
            for square in chess.SQUARES:
                board.clear_board()
                board.set_piece_at(square, piece)
                yield color * 448 + piece_type * 64 + square, square, Context(board, 0)


def fold(loops: Sequence[tuple[Sequence[list[int | None]], Callable[[Context, bool], int]]],
         ) -> tuple[int, ...] | None:
    """One table for the symmetric rules made of the given piece-square loops (each: its
    tables for the perspectives False and True, and its bitboard for a perspective): per
    (colour, type, cell), what a piece there adds to the rules' score from White's point of
    view, the sum over loops of `table[True]` minus `table[False]` wherever the loop's
    bitboard holds the piece. None when an entry that a loop reads had failed (the rules are
    then run, and raise the error)."""
    folded = [0] * SIZE
    for index, square, ctx in _lone_pieces():
        for tables, mask in loops:
            for me, sign in ((True, 1), (False, -1)):
                if mask(ctx, me) & chess.BB_SQUARES[square]:
                    value = tables[me][index]
                    if value is None:
                        return None
                    folded[index] += sign * value
    return tuple(folded)


def by_type(board: chess.Board) -> tuple[tuple[int, int], ...]:
    """(piece type × 64, bitboard) for each type, for scans that need the piece's type."""
    return ((64, board.pawns), (128, board.knights), (192, board.bishops),
            (256, board.rooks), (320, board.queens), (384, board.kings))


def uniform(table: list[int | None]) -> list[tuple[int, ...] | None]:
    """Per colour (index False/True): the value of each piece type when it is the same on
    every cell (then a loop is a sum of popcounts), else None."""
    result: list[tuple[int, ...] | None] = []
    for color in (chess.BLACK, chess.WHITE):
        values = [0]
        for piece_type in chess.PIECE_TYPES:
            start = color * 448 + piece_type * 64
            row = table[start:start + 64]
            first = row[0]
            if first is None or any(value != first for value in row):
                values = []
                break
            values.append(first)
        result.append(tuple(values) if values else None)
    return result


_COMPARE = {"<": operator.lt, "<=": operator.le, "==": operator.eq, "!=": operator.ne,
            ">": operator.gt, ">=": operator.ge}


@functools.cache
def near_masks(op: str, bound: int) -> tuple[int, ...]:
    """Per cell, the bitboard of the cells whose king-move distance to it (in milli-units,
    as `Cell.distance` gives it) compares with `bound` by `op` (`<=`, `==`, …)."""
    compare = _COMPARE[op]
    return tuple(sum(chess.BB_SQUARES[other] for other in chess.SQUARES
                     if compare(chess.square_distance(cell, other) * 1000, bound))
                 for cell in chess.SQUARES)
