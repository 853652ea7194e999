"""The built-in function library of docs/reference/chespel.md#built-in-functions over a python-chess
board, for generated code.

Representations (chosen so that generated code does integer work only):
Num = int milli-units; Bool = bool; String = str; Row and Col = int 1 … 8; Cell = square
index 0 … 63 (canonical order); Type = python-chess piece type 1 … 6; Player and Color =
python-chess colour (a Player prints as `me`/`foe` relative to the perspective); Piece =
the square it stands on (at most one piece per cell, so this is the Piece's identity);
[X] = Python list.

Library functions are named `<Class>_<method>` and take `(ctx, me, receiver, *args)`;
`me` is the perspective colour of the current pass. Functions that can fail also take the
source position of the call, for the error message of docs/reference/chespel.md#run-time-errors.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import chess
from chess import BB_SQUARES, scan_forward

from esochess.chespel.runtime.positions import (
    BLACK_KING_SIDE,
    BLACK_QUEEN_SIDE,
    WHITE_KING_SIDE,
    WHITE_QUEEN_SIDE,
)
from esochess.chespel.runtime.values import (
    NUM_MAX,
    TYPE_LETTERS,
    TYPE_VALUES,
    ChespelRuntimeError,
    clamp,
    format_num,
    num_mul,
)

BB_CENTER = chess.BB_D4 | chess.BB_E4 | chess.BB_D5 | chess.BB_E5
BB_EXPANDED_CENTER = (chess.BB_FILE_C | chess.BB_FILE_D | chess.BB_FILE_E | chess.BB_FILE_F) & (
    chess.BB_RANK_3 | chess.BB_RANK_4 | chess.BB_RANK_5 | chess.BB_RANK_6
)
BB_LONG_DIAGONALS = 0x8040201008040201 | 0x0102040810204080
# Lines through a square on an empty board (python-chess's *_MASKS leave out the edges).
BB_DIAGONAL_THROUGH = [chess.BB_DIAG_ATTACKS[sq][0] for sq in range(64)]
BB_STRAIGHT_THROUGH = [chess.BB_RANK_ATTACKS[sq][0] | chess.BB_FILE_ATTACKS[sq][0]
                       for sq in range(64)]
STARTING_TYPES = (
    chess.ROOK, chess.KNIGHT, chess.BISHOP, chess.QUEEN, chess.KING, chess.BISHOP,
    chess.KNIGHT, chess.ROOK,
)
TICK_INTERVAL = 64
"""Loop iterations of generated rule code between two deadline checks."""


class Context:
    """One evaluated position: the board, its castling flags and lazily cached attack data."""

    __slots__ = ("board", "flags", "threshold", "occupied_co", "_attacks", "_attackers",
                 "_attacked", "ticks", "interrupt")

    def __init__(self, board: chess.Board, flags: int, threshold: int = 20_000,
                 interrupt: Callable[[], None] | None = None) -> None:
        self.board = board
        self.flags = flags
        self.threshold = threshold
        self.occupied_co = board.occupied_co
        self._attacks: dict[int, int] = {}
        self._attackers: dict[int, int] = {}
        self._attacked: list[int | None] = [None, None]
        self.ticks = TICK_INTERVAL
        self.interrupt = interrupt

    def tick(self) -> None:
        """Called by generated loops every TICK_INTERVAL iterations: lets the search stop a
        long evaluation (the interrupt raises when the deadline or a `stop` has come)."""
        self.ticks = TICK_INTERVAL
        if self.interrupt is not None:
            self.interrupt()

    def attacks(self, square: int) -> int:
        """Attack set of the piece on `square`, computed once per position."""
        mask = self._attacks.get(square)
        if mask is None:
            mask = self._attacks[square] = self.board.attacks_mask(square)
        return mask

    def attackers(self, color: bool, square: int) -> int:
        """Pieces of `color` attacking `square`, computed once per position."""
        key = square * 2 + color
        mask = self._attackers.get(key)
        if mask is None:
            mask = self._attackers[key] = self.board.attackers_mask(color, square)
        return mask

    def attacked(self, color: bool) -> int:
        """Every cell some piece of `color` attacks: one attack set per side and position
        (a cell is in it exactly when `attackers(color, cell)` is not empty)."""
        mask = self._attacked[color]
        if mask is None:
            mask = 0
            for square in scan_forward(self.occupied_co[color]):
                mask |= self.attacks(square)
            self._attacked[color] = mask
        return mask

    def color_at(self, square: int) -> bool:
        """Colour of the piece on an occupied square."""
        return bool(self.occupied_co[chess.WHITE] & BB_SQUARES[square])

    def type_at(self, square: int) -> int:
        """Piece type on an occupied square."""
        return self.board.piece_type_at(square) or 0

    def phase_material(self) -> int:
        """Phase material of docs/reference/chespel.md#endgame in milli-units."""
        board = self.board
        return ((board.knights | board.bishops).bit_count() * 3000
                + board.rooks.bit_count() * 5000 + board.queens.bit_count() * 9000)


def squares(mask: int) -> list[int]:
    """The squares of a bitboard in canonical order."""
    return list(scan_forward(mask))


def _rank_of(row: int, color: bool) -> int:
    return row if color else 9 - row


def _num_int(value: int, what: str, line: int, column: int, low: int = 1, high: int = 8) -> int:
    if value % 1000 or not low <= value // 1000 <= high:
        raise ChespelRuntimeError(line, column, f"{what} {format_num(value)}")
    return value // 1000


# ----------------------------------------------------------------------- string forms

def str_piece(ctx: Context, square: int) -> str:
    """String form of a Piece: colour letter, type letter, cell (`wNd4`)."""
    color = "w" if ctx.color_at(square) else "b"
    return color + TYPE_LETTERS[ctx.type_at(square)] + chess.SQUARE_NAMES[square]


def str_list(items: Sequence[Any], convert: Callable[[Any], str]) -> str:
    """String form of a list: `[` elements `, ` `]`."""
    return "[" + ", ".join(convert(item) for item in items) + "]"


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


# ----------------------------------------------------------------------- Player

def Player_pieces(ctx: Context, me: bool, pl: bool) -> list[int]:
    """The player's pieces."""
    return squares(ctx.occupied_co[pl])


def Player_color(ctx: Context, me: bool, pl: bool) -> bool:
    """The player's colour."""
    return pl


def Player_other(ctx: Context, me: bool, pl: bool) -> bool:
    """The opponent."""
    return not pl


def Player_hasTurn(ctx: Context, me: bool, pl: bool) -> bool:
    """The player's colour is to move."""
    return ctx.board.turn == pl


def Player_king(ctx: Context, me: bool, pl: bool) -> int:
    """The player's king."""
    king = ctx.board.king(pl)
    return 0 if king is None else king


def _checkers(ctx: Context, pl: bool) -> int:
    king = ctx.board.king(pl)
    return 0 if king is None else ctx.attackers(not pl, king)


def Player_check(ctx: Context, me: bool, pl: bool) -> bool:
    """The player's king is attacked."""
    return bool(_checkers(ctx, pl))


def Player_underDoubleCheck(ctx: Context, me: bool, pl: bool) -> bool:
    """The player's king is attacked by two or more pieces."""
    return chess.popcount(_checkers(ctx, pl)) >= 2


def Player_makesCheck(ctx: Context, me: bool, pl: bool) -> bool:
    """The opponent is in check."""
    return bool(_checkers(ctx, not pl))


def Player_makesDoubleCheck(ctx: Context, me: bool, pl: bool) -> bool:
    """The opponent is in double check."""
    return chess.popcount(_checkers(ctx, not pl)) >= 2


def Player_castledSide(ctx: Context, me: bool, pl: bool, t: int) -> bool:
    """Castling flag of that side (docs/reference/chespel.md#castling)."""
    if t == chess.KING:
        return bool(ctx.flags & (WHITE_KING_SIDE if pl else BLACK_KING_SIDE))
    if t == chess.QUEEN:
        return bool(ctx.flags & (WHITE_QUEEN_SIDE if pl else BLACK_QUEEN_SIDE))
    return False


def Player_castled(ctx: Context, me: bool, pl: bool) -> bool:
    """The player has castled on either side."""
    bits = (WHITE_KING_SIDE | WHITE_QUEEN_SIDE) if pl else (BLACK_KING_SIDE | BLACK_QUEEN_SIDE)
    return bool(ctx.flags & bits)


def _as_mover(ctx: Context, pl: bool) -> chess.Board:
    board = ctx.board
    if board.turn == pl and board.ep_square is None:
        return board
    copy = board.copy(stack=False)
    copy.turn = pl
    copy.ep_square = None
    return copy


def Player_canCastle(ctx: Context, me: bool, pl: bool) -> bool:
    """A castling move would be legal as if the player were to move."""
    board = _as_mover(ctx, pl)
    return any(board.generate_castling_moves())


def Player_hasCastlingAbility(ctx: Context, me: bool, pl: bool) -> bool:
    """The position records a castling right for the player."""
    return bool(ctx.board.castling_rights & (chess.BB_RANK_1 if pl else chess.BB_RANK_8))


def Player_totalValue(ctx: Context, me: bool, pl: bool) -> int:
    """Sum of the values of the player's pieces."""
    board = ctx.board
    return sum(TYPE_VALUES[t] * chess.popcount(board.pieces_mask(t, pl)) for t in range(1, 6))


def Player_valueBalance(ctx: Context, me: bool, pl: bool) -> int:
    """Own total value minus the opponent's."""
    return clamp(Player_totalValue(ctx, me, pl) - Player_totalValue(ctx, me, not pl))


def Player_mobility(ctx: Context, me: bool, pl: bool) -> int:
    """Distinct (from, to) pairs of the player's legal moves, as a Num."""
    board = _as_mover(ctx, pl)
    return len({(m.from_square, m.to_square) for m in board.generate_legal_moves()}) * 1000


def Player_rank(ctx: Context, me: bool, pl: bool, n: int, line: int, column: int) -> int:
    """The row that is this player's rank n."""
    return _rank_of(_num_int(n, "no rank", line, column), pl)


def Player_homeRank(ctx: Context, me: bool, pl: bool) -> int:
    """The player's first row."""
    return 1 if pl else 8


def _pawns_where(ctx: Context, me: bool, pl: bool, test: Callable[[Context, bool, int], bool]) -> list[int]:
    return [sq for sq in scan_forward(ctx.board.pieces_mask(chess.PAWN, pl)) if test(ctx, me, sq)]


def _pieces_where(ctx: Context, me: bool, pl: bool, test: Callable[[Context, bool, int], bool]) -> list[int]:
    return [sq for sq in scan_forward(ctx.occupied_co[pl]) if test(ctx, me, sq)]


def Player_advancedPawns(ctx: Context, me: bool, pl: bool) -> list[int]:
    """The player's advanced pawns."""
    return _pawns_where(ctx, me, pl, Piece_advancedPawn)


def Player_isolatedPawns(ctx: Context, me: bool, pl: bool) -> list[int]:
    """The player's isolated pawns."""
    return _pawns_where(ctx, me, pl, Piece_isolatedPawn)


def Player_doubledPawns(ctx: Context, me: bool, pl: bool) -> list[int]:
    """The player's doubled pawns."""
    return _pawns_where(ctx, me, pl, Piece_doubledPawn)


def Player_backwardPawns(ctx: Context, me: bool, pl: bool) -> list[int]:
    """The player's backward pawns."""
    return _pawns_where(ctx, me, pl, Piece_backwardPawn)


def Player_passedPawns(ctx: Context, me: bool, pl: bool) -> list[int]:
    """The player's passed pawns."""
    return _pawns_where(ctx, me, pl, Piece_passedPawn)


def Player_guardedPieces(ctx: Context, me: bool, pl: bool) -> list[int]:
    """The player's guarded pieces."""
    return _pieces_where(ctx, me, pl, Piece_guarded)


def Player_exposedPieces(ctx: Context, me: bool, pl: bool) -> list[int]:
    """The player's exposed pieces."""
    return _pieces_where(ctx, me, pl, Piece_exposed)


def Player_hangingPieces(ctx: Context, me: bool, pl: bool) -> list[int]:
    """The player's hanging pieces."""
    return _pieces_where(ctx, me, pl, Piece_hanged)


def Player_pinnedPieces(ctx: Context, me: bool, pl: bool) -> list[int]:
    """The player's pinned pieces."""
    return _pieces_where(ctx, me, pl, Piece_pinned)


def Player_bishopPair(ctx: Context, me: bool, pl: bool) -> bool:
    """A bishop on a dark cell and one on a light cell."""
    bishops = ctx.board.pieces_mask(chess.BISHOP, pl)
    return bool(bishops & chess.BB_DARK_SQUARES) and bool(bishops & chess.BB_LIGHT_SQUARES)


def Player_connectedRocks(ctx: Context, me: bool, pl: bool) -> bool:
    """Two rocks on one row or column with only empty cells between them."""
    rooks = squares(ctx.board.pieces_mask(chess.ROOK, pl))
    return any(
        ctx.attacks(a) & BB_SQUARES[b]
        for i, a in enumerate(rooks)
        for b in rooks[i + 1:]
    )


def Player_battery(ctx: Context, me: bool, pl: bool) -> bool:
    """A slider with exactly one own non-king piece between it and the enemy king."""
    board = ctx.board
    king = board.king(not pl)
    if king is None:
        return False
    own = ctx.occupied_co[pl] & ~board.kings
    for sq in scan_forward(board.occupied_co[pl] & (board.rooks | board.bishops | board.queens)):
        between = chess.between(sq, king)
        ray = chess.ray(sq, king)
        if not ray:
            continue
        t = board.piece_type_at(sq)
        straight = (chess.square_file(sq) == chess.square_file(king)
                    or chess.square_rank(sq) == chess.square_rank(king))
        if (straight and t == chess.BISHOP) or (not straight and t == chess.ROOK):
            continue
        blockers = between & board.occupied
        if chess.popcount(blockers) == 1 and blockers & own:
            return True
    return False


# ----------------------------------------------------------------------- Piece

def Piece_player(ctx: Context, me: bool, p: int) -> bool:
    """Owner of the piece."""
    return ctx.color_at(p)


Piece_color = Piece_player


def Piece_type(ctx: Context, me: bool, p: int) -> int:
    """Type of the piece."""
    return ctx.type_at(p)


def Piece_cell(ctx: Context, me: bool, p: int) -> int:
    """Cell of the piece."""
    return p


def Piece_rank(ctx: Context, me: bool, p: int) -> int:
    """Rank of the piece's row for its owner, as a Num."""
    return _rank_of((p >> 3) + 1, ctx.color_at(p)) * 1000


def Piece_startingRow(ctx: Context, me: bool, p: int) -> int:
    """Row where pieces of this type and colour start."""
    rank = 2 if ctx.type_at(p) == chess.PAWN else 1
    return _rank_of(rank, ctx.color_at(p))


def Piece_visibleCells(ctx: Context, me: bool, p: int) -> list[int]:
    """The piece's attack set."""
    return squares(ctx.attacks(p))


def _piece_move_targets(ctx: Context, p: int) -> list[int]:
    board = _as_mover(ctx, ctx.color_at(p))
    targets = set()
    for move in board.generate_legal_moves(from_mask=BB_SQUARES[p]):
        to = move.to_square
        if board.is_castling(move):
            to = chess.square(6 if chess.square_file(to) > chess.square_file(p) else 2,
                              chess.square_rank(p))
        targets.add(to)
    return sorted(targets)


def Piece_moves(ctx: Context, me: bool, p: int) -> list[int]:
    """Destinations of the owner's legal moves with the piece."""
    return _piece_move_targets(ctx, p)


def Piece_numberOfMoves(ctx: Context, me: bool, p: int) -> int:
    """Number of destinations, as a Num."""
    return len(_piece_move_targets(ctx, p)) * 1000


def Piece_emptyCellMoves(ctx: Context, me: bool, p: int) -> list[int]:
    """Destinations that are empty."""
    occupied = ctx.board.occupied
    return [sq for sq in _piece_move_targets(ctx, p) if not occupied & BB_SQUARES[sq]]


def Piece_threatens(ctx: Context, me: bool, p: int) -> list[int]:
    """Enemy pieces on cells the piece attacks."""
    return squares(ctx.attacks(p) & ctx.occupied_co[not ctx.color_at(p)])


def Piece_threatenedBy(ctx: Context, me: bool, p: int) -> list[int]:
    """Enemy pieces attacking the piece."""
    return squares(ctx.attackers(not ctx.color_at(p), p))


def Piece_covers(ctx: Context, me: bool, p: int) -> list[int]:
    """Own pieces on cells the piece attacks."""
    return squares(ctx.attacks(p) & ctx.occupied_co[ctx.color_at(p)])


def Piece_coveredBy(ctx: Context, me: bool, p: int) -> list[int]:
    """Own pieces attacking the piece."""
    return squares(ctx.attackers(ctx.color_at(p), p))


def Piece_singleCoveredPieces(ctx: Context, me: bool, p: int) -> list[int]:
    """Covered pieces whose only defender is this piece."""
    color = ctx.color_at(p)
    return [q for q in scan_forward(ctx.attacks(p) & ctx.occupied_co[color])
            if ctx.attackers(color, q) == BB_SQUARES[p]]


def Piece_threatenedHangedPieces(ctx: Context, me: bool, p: int) -> list[int]:
    """Threatened enemy pieces that hang."""
    return [q for q in Piece_threatens(ctx, me, p) if Piece_hanged(ctx, me, q)]


def Piece_reachablePieces(ctx: Context, me: bool, p: int) -> list[int]:
    """Pieces of either colour on cells the piece attacks."""
    return squares(ctx.attacks(p) & ctx.board.occupied)


def Piece_reachedBy(ctx: Context, me: bool, p: int) -> list[int]:
    """Pieces of either colour attacking the piece."""
    return squares(ctx.attackers(True, p) | ctx.attackers(False, p))


def Piece_guarded(ctx: Context, me: bool, p: int) -> bool:
    """Defended by an own piece."""
    return bool(ctx.attacked(ctx.color_at(p)) & BB_SQUARES[p])


def Piece_exposed(ctx: Context, me: bool, p: int) -> bool:
    """Defended by no own piece."""
    return not ctx.attacked(ctx.color_at(p)) & BB_SQUARES[p]


def Piece_threatened(ctx: Context, me: bool, p: int) -> bool:
    """Attacked by an enemy piece."""
    return bool(ctx.attacked(not ctx.color_at(p)) & BB_SQUARES[p])


def Piece_hanged(ctx: Context, me: bool, p: int) -> bool:
    """Exposed and threatened."""
    color = ctx.color_at(p)
    return (not ctx.attacked(color) & BB_SQUARES[p]
            and bool(ctx.attacked(not color) & BB_SQUARES[p]))


def Piece_makesCheck(ctx: Context, me: bool, p: int) -> bool:
    """The piece attacks the enemy king."""
    king = ctx.board.king(not ctx.color_at(p))
    return king is not None and bool(ctx.attacks(p) & BB_SQUARES[king])


def Piece_absolutePinned(ctx: Context, me: bool, p: int) -> bool:
    """Pinned against its own king."""
    return ctx.type_at(p) != chess.KING and ctx.board.is_pinned(ctx.color_at(p), p)


def _slider_lines(ctx: Context, color: bool, sq: int) -> int:
    """Enemy sliders of `color`'s opponent that move along a line through `sq` and see it."""
    board = ctx.board
    enemy = not color
    straight = (board.rooks | board.queens) & board.occupied_co[enemy]
    diagonal = (board.bishops | board.queens) & board.occupied_co[enemy]
    attackers = ctx.attackers(enemy, sq)
    return attackers & ((straight & BB_STRAIGHT_THROUGH[sq]) | (diagonal & BB_DIAGONAL_THROUGH[sq]))


def Piece_pinned(ctx: Context, me: bool, p: int) -> bool:
    """Absolutely pinned, or relatively pinned against a more valuable own piece."""
    if Piece_absolutePinned(ctx, me, p):
        return True
    board = ctx.board
    color = ctx.color_at(p)
    value = TYPE_VALUES[ctx.type_at(p)]
    for s in scan_forward(_slider_lines(ctx, color, p)):
        beyond = chess.ray(s, p) & ~chess.between(s, p) & ~BB_SQUARES[s] & ~BB_SQUARES[p]
        # first occupied cell beyond p on the ray from s through p
        step_targets = [q for q in scan_forward(beyond & board.occupied)
                        if not chess.between(p, q) & board.occupied
                        and (chess.between(s, q) & BB_SQUARES[p])]
        for q in step_targets:
            if board.occupied_co[color] & BB_SQUARES[q] and TYPE_VALUES[ctx.type_at(q)] > value:
                return True
    return False


def Piece_fork(ctx: Context, me: bool, p: int) -> bool:
    """Attacks two enemy pieces that are kings, worth more, or exposed."""
    value = TYPE_VALUES[ctx.type_at(p)]
    count = 0
    for q in Piece_threatens(ctx, me, p):
        t = ctx.type_at(q)
        if t == chess.KING or TYPE_VALUES[t] > value or Piece_exposed(ctx, me, q):
            count += 1
    return count >= 2


def _own_pawns(ctx: Context, p: int) -> tuple[bool, int] | None:
    if ctx.type_at(p) != chess.PAWN:
        return None
    color = ctx.color_at(p)
    return color, ctx.board.pieces_mask(chess.PAWN, color)


def _adjacent_files(p: int) -> int:
    file = p & 7
    mask = 0
    if file > 0:
        mask |= chess.BB_FILES[file - 1]
    if file < 7:
        mask |= chess.BB_FILES[file + 1]
    return mask


def Piece_isolatedPawn(ctx: Context, me: bool, p: int) -> bool:
    """A pawn with no own pawn on the adjacent columns."""
    own = _own_pawns(ctx, p)
    return own is not None and not own[1] & _adjacent_files(p)


def Piece_doubledPawn(ctx: Context, me: bool, p: int) -> bool:
    """A pawn with another own pawn on its column."""
    own = _own_pawns(ctx, p)
    return own is not None and bool(own[1] & chess.BB_FILES[p & 7] & ~BB_SQUARES[p])


def _ahead(color: bool, p: int) -> int:
    """Cells on rows further forward than p's row, for `color`."""
    row = p >> 3
    if color:
        return chess.BB_ALL & ~((1 << ((row + 1) * 8)) - 1)
    return (1 << (row * 8)) - 1


def Piece_passedPawn(ctx: Context, me: bool, p: int) -> bool:
    """No enemy pawn ahead on its column or the adjacent ones."""
    own = _own_pawns(ctx, p)
    if own is None:
        return False
    color = own[0]
    enemy = ctx.board.pieces_mask(chess.PAWN, not color)
    return not enemy & (chess.BB_FILES[p & 7] | _adjacent_files(p)) & _ahead(color, p)


def Piece_backwardPawn(ctx: Context, me: bool, p: int) -> bool:
    """Neighbours all further forward, and the stop cell attacked by an enemy pawn."""
    own = _own_pawns(ctx, p)
    if own is None:
        return False
    color, pawns = own
    neighbours = pawns & _adjacent_files(p)
    if not neighbours or neighbours & ~_ahead(color, p):
        return False
    front = p + 8 if color else p - 8
    if not 0 <= front < 64:
        return False
    return bool(ctx.attackers(not color, front) & ctx.board.pieces_mask(chess.PAWN, not color))


def Piece_advancedPawn(ctx: Context, me: bool, p: int) -> bool:
    """A pawn on its owner's rank 5 or higher."""
    return ctx.type_at(p) == chess.PAWN and _rank_of((p >> 3) + 1, ctx.color_at(p)) >= 5


def Piece_enPassantPawn(ctx: Context, me: bool, p: int) -> bool:
    """The pawn that has just passed over the en passant cell."""
    ep = ctx.board.ep_square
    if ep is None or ctx.type_at(p) != chess.PAWN or ctx.color_at(p) == ctx.board.turn:
        return False
    beyond = ep + 8 if ctx.color_at(p) else ep - 8
    return p == beyond


def _bishop(ctx: Context, p: int) -> bool:
    return ctx.type_at(p) == chess.BISHOP


def Piece_badBishop(ctx: Context, me: bool, p: int) -> bool:
    """More own pawns on the bishop's cell colour than on the other colour."""
    if not _bishop(ctx, p):
        return False
    pawns = ctx.board.pieces_mask(chess.PAWN, ctx.color_at(p))
    dark = bool(chess.BB_DARK_SQUARES & BB_SQUARES[p])
    same = chess.BB_DARK_SQUARES if dark else chess.BB_LIGHT_SQUARES
    return chess.popcount(pawns & same) > chess.popcount(pawns & ~same)


def Piece_blackCellBishop(ctx: Context, me: bool, p: int) -> bool:
    """A bishop on a dark cell."""
    return _bishop(ctx, p) and bool(chess.BB_DARK_SQUARES & BB_SQUARES[p])


def Piece_whiteCellBishop(ctx: Context, me: bool, p: int) -> bool:
    """A bishop on a light cell."""
    return _bishop(ctx, p) and bool(chess.BB_LIGHT_SQUARES & BB_SQUARES[p])


# ----------------------------------------------------------------------- List

def L_head(items: Sequence[Any], line: int, column: int) -> Any:
    """First element."""
    if not items:
        raise ChespelRuntimeError(line, column, "head of an empty list")
    return items[0]


def L_last(items: Sequence[Any], line: int, column: int) -> Any:
    """Last element."""
    if not items:
        raise ChespelRuntimeError(line, column, "last of an empty list")
    return items[-1]


def L_elem(items: Sequence[Any], index: int, line: int, column: int) -> Any:
    """Element at an integer index counting from 0."""
    if index % 1000 or not 0 <= index // 1000 < len(items):
        raise ChespelRuntimeError(
            line, column,
            f"index {format_num(index)} out of range for a list of length {len(items)}")
    return items[index // 1000]


def L_nub(items: Sequence[Any]) -> list[Any]:
    """Without repeated elements, first occurrences kept."""
    return list(dict.fromkeys(items))


def L_min(items: Sequence[Any], key: Callable[[Any], int], line: int, column: int) -> Any:
    """First smallest element."""
    if not items:
        raise ChespelRuntimeError(line, column, "min of an empty list")
    return min(items, key=key)


def L_max(items: Sequence[Any], key: Callable[[Any], int], line: int, column: int) -> Any:
    """First largest element."""
    if not items:
        raise ChespelRuntimeError(line, column, "max of an empty list")
    return max(items, key=key)


def L_sort(items: Sequence[Any], key: Callable[[Any], int]) -> list[Any]:
    """Stable ascending order."""
    return sorted(items, key=key)


def L_reverseSort(items: Sequence[Any], key: Callable[[Any], int]) -> list[Any]:
    """Stable descending order (equal elements keep their order)."""
    return sorted(items, key=lambda item: -key(item))


def L_sum(values: Sequence[int]) -> int:
    """Sum of milli-unit values, clamped."""
    return clamp(sum(values))


def L_product(values: Sequence[int]) -> int:
    """Product of milli-unit values, truncated and clamped at every step."""
    result = 1000
    for value in values:
        result = num_mul(result, value)
    return result


def num_abs(value: int) -> int:
    """`abs x`."""
    return min(abs(value), NUM_MAX)
