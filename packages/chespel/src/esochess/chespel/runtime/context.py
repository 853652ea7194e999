"""The evaluation context of generated rule code (one position, its cached attack data)
and the helpers and constants the library functions share (see library.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import chess
from chess import (
    BB_ALL,
    BB_FILE_A,
    BB_FILE_H,
    BB_KING_ATTACKS,
    BB_KNIGHT_ATTACKS,
    BB_SQUARES,
    scan_forward,
)

from esochess.chespel.runtime.ordering import slider_attacks
from esochess.chespel.runtime.values import (
    TYPE_LETTERS,
    ChespelRuntimeError,
    format_num,
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
        # Attack data is made on first use: most evaluations never ask for it.
        self._attacks: dict[int, int] | None = None
        self._attackers: dict[int, int] | None = None
        self._attacked: list[int | None] | None = None
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
        cache = self._attacks
        if cache is None:
            cache = self._attacks = {}
        mask = cache.get(square)
        if mask is None:
            mask = cache[square] = self.board.attacks_mask(square)
        return mask

    def attackers(self, color: bool, square: int) -> int:
        """Pieces of `color` attacking `square`, computed once per position."""
        key = square * 2 + color
        cache = self._attackers
        if cache is None:
            cache = self._attackers = {}
        mask = cache.get(key)
        if mask is None:
            mask = cache[key] = self.board.attackers_mask(color, square)
        return mask

    def attacked(self, color: bool) -> int:
        """Every cell some piece of `color` attacks: one attack set per side and position
        (a cell is in it exactly when `attackers(color, cell)` is not empty)."""
        cache = self._attacked
        if cache is None:
            cache = self._attacked = [None, None]
        mask = cache[color]
        if mask is None:
            board = self.board
            own = self.occupied_co[color]
            # pawns on the board's bits (a shift per direction; the file masks stop a
            # capture wrapping round the board), the rest one attack set per piece
            pawns = board.pawns & own
            if color:
                mask = ((pawns << 7) & ~BB_FILE_H | (pawns << 9) & ~BB_FILE_A) & BB_ALL
            else:
                mask = (pawns >> 9) & ~BB_FILE_H | (pawns >> 7) & ~BB_FILE_A
            attacks = self._attacks
            if attacks is None:
                attacks = self._attacks = {}
            occupied = board.occupied
            for square in scan_forward(own & ~pawns):
                found = attacks.get(square)
                if found is None:
                    bit = BB_SQUARES[square]
                    if board.knights & bit:
                        found = BB_KNIGHT_ATTACKS[square]
                    elif board.kings & bit:
                        found = BB_KING_ATTACKS[square]
                    else:
                        found = slider_attacks(square, bit, board.bishops | board.queens,
                                               board.rooks | board.queens, occupied)
                    attacks[square] = found
                mask |= found
            cache[color] = mask
        return mask

    def hanging(self) -> int:
        """The pieces, both colours, that the other side attacks and their own side does
        not defend (`Piece.hanged` of every piece as one bitboard)."""
        white, black = self.attacked(chess.WHITE), self.attacked(chess.BLACK)
        occupied_co = self.occupied_co
        return (occupied_co[chess.WHITE] & black & ~white) | (occupied_co[chess.BLACK] & white & ~black)

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


def _as_mover(ctx: Context, pl: bool) -> chess.Board:
    board = ctx.board
    if board.turn == pl and board.ep_square is None:
        return board
    copy = board.copy(stack=False)
    copy.turn = pl
    copy.ep_square = None
    return copy


# ----------------------------------------------------------------------- string forms

def str_piece(ctx: Context, square: int) -> str:
    """String form of a Piece: colour letter, type letter, cell (`wNd4`)."""
    color = "w" if ctx.color_at(square) else "b"
    return color + TYPE_LETTERS[ctx.type_at(square)] + chess.SQUARE_NAMES[square]


def str_list(items: Sequence[Any], convert: Callable[[Any], str]) -> str:
    """String form of a list: `[` elements `, ` `]`."""
    return "[" + ", ".join(convert(item) for item in items) + "]"
