"""Library functions of the board's own classes: the globals, Row, Col, Cell, Type and
Color (docs/reference/chespel.md#built-in-functions; conventions in library.py).
"""

from __future__ import annotations

import chess
from chess import BB_SQUARES

from esochess.chespel.runtime.context import (
    BB_CENTER,
    BB_DIAGONAL_THROUGH,
    BB_EXPANDED_CENTER,
    BB_LONG_DIAGONALS,
    STARTING_TYPES,
    Context,
    _num_int,
    _rank_of,
    squares,
)
from esochess.chespel.runtime.values import (
    TYPE_VALUES,
)

# ----------------------------------------------------------------------- globals

def G_row(ctx: Context, me: bool, n: int, line: int, column: int) -> int:
    """`row(n)`."""
    return _num_int(n, "no row", line, column)


def G_col(ctx: Context, me: bool, n: int, line: int, column: int) -> int:
    """`col(n)`."""
    return _num_int(n, "no column", line, column)


def G_cell(ctx: Context, me: bool, col: int, row: int) -> int:
    """`cell(col, row)`."""
    return (row - 1) * 8 + col - 1


def G_allPieces(ctx: Context, me: bool) -> list[int]:
    """Every piece on the board."""
    return squares(ctx.board.occupied)


def G_allCells(ctx: Context, me: bool) -> list[int]:
    """All 64 cells."""
    return list(range(64))


def G_phaseMaterial(ctx: Context, me: bool) -> int:
    """Phase material (docs/reference/chespel.md#endgame)."""
    return ctx.phase_material()


def G_inEndgame(ctx: Context, me: bool) -> bool:
    """Whether the position is in the endgame phase."""
    return ctx.phase_material() <= ctx.threshold


def G_turn(ctx: Context, me: bool) -> bool:
    """Colour of the side to move."""
    return ctx.board.turn


# ----------------------------------------------------------------------- Row

def Row_cells(ctx: Context, me: bool, row: int) -> list[int]:
    """The 8 cells of the row."""
    return list(range((row - 1) * 8, row * 8))


def Row_pieces(ctx: Context, me: bool, row: int) -> list[int]:
    """The pieces on the row."""
    return squares(ctx.board.occupied & chess.BB_RANKS[row - 1])


def Row_rank(ctx: Context, me: bool, row: int, player: bool | None = None) -> int:
    """Rank of the row for `me` (or for the given player)."""
    return _rank_of(row, me if player is None else player) * 1000


def Row_number(ctx: Context, me: bool, row: int) -> int:
    """Row number as a Num."""
    return row * 1000


# ----------------------------------------------------------------------- Col

def _pawns_on(ctx: Context, col: int, color: bool) -> int:
    return ctx.board.pieces_mask(chess.PAWN, color) & chess.BB_FILES[col - 1]


def Col_cells(ctx: Context, me: bool, col: int) -> list[int]:
    """The 8 cells of the column."""
    return list(range(col - 1, 64, 8))


def Col_pieces(ctx: Context, me: bool, col: int) -> list[int]:
    """The pieces on the column."""
    return squares(ctx.board.occupied & chess.BB_FILES[col - 1])


def Col_number(ctx: Context, me: bool, col: int) -> int:
    """Column number as a Num."""
    return col * 1000


def Col_pawns(ctx: Context, me: bool, col: int, player: bool) -> list[int]:
    """That player's pawns on the column."""
    return squares(_pawns_on(ctx, col, player))


def Col_open(ctx: Context, me: bool, col: int) -> bool:
    """No pawn on the column."""
    return not (ctx.board.pawns & chess.BB_FILES[col - 1])


def Col_halfOpen(ctx: Context, me: bool, col: int) -> bool:
    """Pawns of exactly one colour on the column."""
    return bool(_pawns_on(ctx, col, True)) != bool(_pawns_on(ctx, col, False))


def Col_halfOpenFor(ctx: Context, me: bool, col: int, player: bool) -> bool:
    """The player has no pawn on the column, the other player has one."""
    return not _pawns_on(ctx, col, player) and bool(_pawns_on(ctx, col, not player))


def Col_closed(ctx: Context, me: bool, col: int) -> bool:
    """Both colours have a pawn on the column."""
    return bool(_pawns_on(ctx, col, True)) and bool(_pawns_on(ctx, col, False))


def Col_isQueenSide(ctx: Context, me: bool, col: int) -> bool:
    """Column a … d."""
    return col <= 4


def Col_isKingSide(ctx: Context, me: bool, col: int) -> bool:
    """Column e … h."""
    return col >= 5


def Col_isCenter(ctx: Context, me: bool, col: int) -> bool:
    """Column d or e."""
    return col in (4, 5)


def Col_startingType(ctx: Context, me: bool, col: int) -> int:
    """The type that starts on the column."""
    return STARTING_TYPES[col - 1]


# ----------------------------------------------------------------------- Cell

def Cell_row(ctx: Context, me: bool, sq: int) -> int:
    """Row of the cell."""
    return (sq >> 3) + 1


def Cell_col(ctx: Context, me: bool, sq: int) -> int:
    """Column of the cell."""
    return (sq & 7) + 1


def Cell_pos(ctx: Context, me: bool, sq: int) -> int:
    """The cell itself."""
    return sq


def Cell_pieces(ctx: Context, me: bool, sq: int) -> list[int]:
    """`[]` or the piece on the cell."""
    return [sq] if ctx.board.occupied & BB_SQUARES[sq] else []


def Cell_occupied(ctx: Context, me: bool, sq: int) -> bool:
    """A piece stands on the cell."""
    return bool(ctx.board.occupied & BB_SQUARES[sq])


def Cell_occupiedBy(ctx: Context, me: bool, sq: int, player: bool) -> bool:
    """A piece of that player stands on the cell."""
    return bool(ctx.occupied_co[player] & BB_SQUARES[sq])


def Cell_color(ctx: Context, me: bool, sq: int) -> bool:
    """`black` for dark cells, `white` otherwise."""
    return not bool(chess.BB_DARK_SQUARES & BB_SQUARES[sq])


def Cell_inCenter(ctx: Context, me: bool, sq: int) -> bool:
    """d4, e4, d5 or e5."""
    return bool(BB_CENTER & BB_SQUARES[sq])


def Cell_inExpandedCenter(ctx: Context, me: bool, sq: int) -> bool:
    """Columns c–f and rows 3–6."""
    return bool(BB_EXPANDED_CENTER & BB_SQUARES[sq])


def Cell_inLongDiagonal(ctx: Context, me: bool, sq: int) -> bool:
    """On a1–h8 or h1–a8."""
    return bool(BB_LONG_DIAGONALS & BB_SQUARES[sq])


def Cell_diagonal(ctx: Context, me: bool, sq: int) -> list[int]:
    """All other cells on the two diagonals through the cell."""
    return squares(BB_DIAGONAL_THROUGH[sq])


def Cell_adjacent(ctx: Context, me: bool, sq: int) -> list[int]:
    """The cells a king on this cell could step to."""
    return squares(chess.BB_KING_ATTACKS[sq])


_DISTANCE = [[chess.square_distance(a, b) * 1000 for b in range(64)] for a in range(64)]


def Cell_distance(ctx: Context, me: bool, sq: int, other: int) -> int:
    """King-move distance as a Num."""
    return _DISTANCE[sq][other]


def Cell_guarded(ctx: Context, me: bool, sq: int) -> bool:
    """One of `me`'s pieces attacks the cell."""
    return bool(ctx.attacked(me) & BB_SQUARES[sq])


def Cell_threatened(ctx: Context, me: bool, sq: int) -> bool:
    """One of `foe`'s pieces attacks the cell."""
    return bool(ctx.attacked(not me) & BB_SQUARES[sq])


def Cell_attackedBy(ctx: Context, me: bool, sq: int, player: bool) -> list[int]:
    """That player's pieces attacking the cell."""
    return squares(ctx.attackers(player, sq))


def Cell_enPassant(ctx: Context, me: bool, sq: int) -> bool:
    """The cell is the recorded en passant cell."""
    return ctx.board.ep_square == sq


# ----------------------------------------------------------------------- Type

def Type_value(ctx: Context, me: bool, t: int) -> int:
    """Value of the type in milli-units."""
    return TYPE_VALUES[t]


def Type_pieces(ctx: Context, me: bool, t: int, player: bool | None = None) -> list[int]:
    """Pieces of this type (of both colours, or of the given player)."""
    board = ctx.board
    if player is None:
        return squares(board.pieces_mask(t, True) | board.pieces_mask(t, False))
    return squares(board.pieces_mask(t, player))


def Type_alive(ctx: Context, me: bool, t: int, player: bool) -> int:
    """Number of that player's pieces of this type, as a Num."""
    return chess.popcount(ctx.board.pieces_mask(t, player)) * 1000


def Type_startingPos(ctx: Context, me: bool, t: int, color: bool) -> list[int]:
    """Cells where pieces of this type start for that colour."""
    if t == chess.PAWN:
        row = 1 if color else 6
        return list(range(row * 8, row * 8 + 8))
    base = 0 if color else 56
    return [base + f for f in range(8) if STARTING_TYPES[f] == t]


def Type_movesStraight(ctx: Context, me: bool, t: int) -> bool:
    """Rock, queen or king."""
    return t in (chess.ROOK, chess.QUEEN, chess.KING)


def Type_movesDiagonal(ctx: Context, me: bool, t: int) -> bool:
    """Bishop, queen or king."""
    return t in (chess.BISHOP, chess.QUEEN, chess.KING)


def Type_major(ctx: Context, me: bool, t: int) -> bool:
    """Rock or queen."""
    return t in (chess.ROOK, chess.QUEEN)


def Type_minor(ctx: Context, me: bool, t: int) -> bool:
    """Knight or bishop."""
    return t in (chess.KNIGHT, chess.BISHOP)


# ----------------------------------------------------------------------- Color

def Color_player(ctx: Context, me: bool, color: bool) -> bool:
    """The player of this colour (Players are represented by their colour)."""
    return color


def Color_other(ctx: Context, me: bool, color: bool) -> bool:
    """The opposite colour."""
    return not color


def Color_hasTurn(ctx: Context, me: bool, color: bool) -> bool:
    """This colour is to move."""
    return ctx.board.turn == color


def Color_cells(ctx: Context, me: bool, color: bool) -> list[int]:
    """The 32 cells of this colour."""
    return squares(chess.BB_LIGHT_SQUARES if color else chess.BB_DARK_SQUARES)


def Color_pieces(ctx: Context, me: bool, color: bool) -> list[int]:
    """The pieces of this colour."""
    return squares(ctx.occupied_co[color])
