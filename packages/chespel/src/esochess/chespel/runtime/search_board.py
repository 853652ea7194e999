"""The search's own board: python-chess's `Board` with a lean make/unmake and the
piece-square part of the evaluation kept up to date move by move.

`push` and `pop` do what python-chess's do for a standard-chess board and a pseudo-legal
move or a null move, without its chess960 conversions and state object: the position before
a move is one tuple on a private stack. The castling rights are cleaned once, when the
board is made, and stay clean (a move only ever removes rights), which is what
python-chess assumes for a board with a move stack.

Piece-square scores: the code generator folds the symmetric rules that are nothing but
piece-square terms (material, the tables of positional.chp) into one table per module, the
value of each (colour, type, cell) from White's point of view (runtime/squares.py `fold`).
The board keeps the sum of that table over its pieces for the main and the endgame module,
and each move changes it by the entries of the cells it touches.
"""

from __future__ import annotations

from collections.abc import Sequence

import chess
from chess import BB_SQUARES, KING, PAWN, ROOK

_STRIDE = 448
"""Table layout: colour * 448 + type * 64 + cell (see runtime/squares.py)."""
_NO_TABLE: tuple[int, ...] = (0,) * (2 * _STRIDE)
_State = tuple[int, int, int, int, int, int, int, int, int, int, int, "int | None", int, int, int,
               int]
"""The position before a move: the six type bitboards, black's and white's pieces, all
pieces, promoted pieces, castling rights, en passant cell, the two move counters and the two
piece-square sums."""


class SearchBoard(chess.Board):
    """A standard-chess board for the search (never chess960)."""

    main_table: Sequence[int] = _NO_TABLE
    endgame_table: Sequence[int] = _NO_TABLE
    psq_main = 0
    """The main module's folded piece-square score, White's point of view."""
    psq_endgame = 0
    """The endgame module's folded piece-square score, White's point of view."""

    def __init__(self, fen: str | None = chess.STARTING_FEN, *, chess960: bool = False) -> None:
        if chess960:
            raise ValueError("the search board plays standard chess only")
        super().__init__(fen)
        self.castling_rights = super().clean_castling_rights()
        self._lean: list[_State] = []

    @classmethod
    def of(cls, board: chess.Board, main_table: Sequence[int] | None = None,
           endgame_table: Sequence[int] | None = None) -> SearchBoard:
        """A copy of `board` (without its move stack) that keeps the sums of the given
        tables (a table left out is all zeros)."""
        copy = cls(None, chess960=board.chess960)
        copy.pawns, copy.knights, copy.bishops = board.pawns, board.knights, board.bishops
        copy.rooks, copy.queens, copy.kings = board.rooks, board.queens, board.kings
        copy.occupied_co = [board.occupied_co[chess.BLACK], board.occupied_co[chess.WHITE]]
        copy.occupied = board.occupied
        copy.promoted = board.promoted
        copy.turn = board.turn
        copy.castling_rights = board.clean_castling_rights()
        copy.ep_square = board.ep_square
        copy.halfmove_clock = board.halfmove_clock
        copy.fullmove_number = board.fullmove_number
        copy.main_table = main_table if main_table is not None else _NO_TABLE
        copy.endgame_table = endgame_table if endgame_table is not None else _NO_TABLE
        copy.psq_main = copy.table_sum(copy.main_table)
        copy.psq_endgame = copy.table_sum(copy.endgame_table)
        return copy

    def table_sum(self, table: Sequence[int]) -> int:
        """The sum of a table over the pieces on the board (what `push` keeps up to date)."""
        total = 0
        for color in (chess.BLACK, chess.WHITE):
            for piece_type in chess.PIECE_TYPES:
                base = color * _STRIDE + piece_type * 64
                for square in chess.scan_forward(self.pieces_mask(piece_type, color)):
                    total += table[base + square]
        return total

    def clean_castling_rights(self) -> int:
        return self.castling_rights

    def push(self, move: chess.Move) -> None:
        turn = self.turn
        occupied_co = self.occupied_co
        self._lean.append((self.pawns, self.knights, self.bishops, self.rooks, self.queens,
                           self.kings, occupied_co[0], occupied_co[1], self.occupied,
                           self.promoted, self.castling_rights, self.ep_square,
                           self.halfmove_clock, self.fullmove_number, self.psq_main,
                           self.psq_endgame))
        self.move_stack.append(move)
        ep_square = self.ep_square
        self.ep_square = None
        self.halfmove_clock += 1
        if not turn:
            self.fullmove_number += 1
        origin, target = move.from_square, move.to_square
        if origin == target:  # the null move
            self.turn = not turn
            return
        from_bb, to_bb = BB_SQUARES[origin], BB_SQUARES[target]
        piece_type = self._type_on(from_bb)
        captured = self._type_on(to_bb) if self.occupied & to_bb else 0
        if piece_type == PAWN or captured:
            self.halfmove_clock = 0
        promoted = bool(self.promoted & from_bb)
        main, endgame = self.main_table, self.endgame_table
        index = turn * _STRIDE + piece_type * 64 + origin
        delta_main = -main[index]
        delta_endgame = -endgame[index]
        self._clear(from_bb, piece_type)
        rights = self.castling_rights & ~to_bb & ~from_bb
        if piece_type == KING and not promoted:
            rights &= ~(chess.BB_RANK_1 if turn else chess.BB_RANK_8)
        elif captured == KING and not self.promoted & to_bb:
            if turn and target >= 56:
                rights &= ~chess.BB_RANK_8
            elif not turn and target < 8:
                rights &= ~chess.BB_RANK_1
        self.castling_rights = rights
        capture_square = target
        if piece_type == PAWN:
            diff = target - origin
            if diff == 16 and origin < 16:
                self.ep_square = origin + 8
            elif diff == -16 and origin >= 48:
                self.ep_square = origin - 8
            elif target == ep_square and diff in (7, 9, -7, -9) and not captured:
                capture_square = ep_square - 8 if turn else ep_square + 8
                captured = PAWN
                self._clear(BB_SQUARES[capture_square], PAWN)
        if captured:
            index = (not turn) * _STRIDE + captured * 64 + capture_square
            delta_main -= main[index]
            delta_endgame -= endgame[index]
        if move.promotion:
            promoted = True
            piece_type = move.promotion
        if piece_type == KING and (target - origin == 2 or origin - target == 2):
            # castling, written king to its destination (e1g1)
            rook_from, rook_to = (target + 1, target - 1) if target > origin else (target - 2,
                                                                                   target + 1)
            base = turn * _STRIDE + ROOK * 64
            delta_main += main[base + rook_to] - main[base + rook_from]
            delta_endgame += endgame[base + rook_to] - endgame[base + rook_from]
            self._clear(BB_SQUARES[rook_from], ROOK)
            self._place(BB_SQUARES[rook_to], ROOK, turn)
        elif captured and capture_square == target:
            self._clear(to_bb, captured)
        self._place(to_bb, piece_type, turn)
        if promoted:
            self.promoted |= to_bb
        index = turn * _STRIDE + piece_type * 64 + target
        self.psq_main += delta_main + main[index]
        self.psq_endgame += delta_endgame + endgame[index]
        self.turn = not turn

    def pop(self) -> chess.Move:
        (self.pawns, self.knights, self.bishops, self.rooks, self.queens, self.kings,
         black, white, self.occupied, self.promoted, self.castling_rights, self.ep_square,
         self.halfmove_clock, self.fullmove_number, self.psq_main,
         self.psq_endgame) = self._lean.pop()
        self.occupied_co[0] = black
        self.occupied_co[1] = white
        self.turn = not self.turn
        return self.move_stack.pop()

    def _type_on(self, mask: int) -> int:
        if self.pawns & mask:
            return PAWN
        if self.knights & mask:
            return chess.KNIGHT
        if self.bishops & mask:
            return chess.BISHOP
        if self.rooks & mask:
            return ROOK
        if self.queens & mask:
            return chess.QUEEN
        return KING

    def _clear(self, mask: int, piece_type: int) -> None:
        """Take the piece of `piece_type` off the cell `mask` (and its promoted mark)."""
        if piece_type == PAWN:
            self.pawns ^= mask
        elif piece_type == chess.KNIGHT:
            self.knights ^= mask
        elif piece_type == chess.BISHOP:
            self.bishops ^= mask
        elif piece_type == ROOK:
            self.rooks ^= mask
        elif piece_type == chess.QUEEN:
            self.queens ^= mask
        else:
            self.kings ^= mask
        self.occupied ^= mask
        self.occupied_co[0] &= ~mask
        self.occupied_co[1] &= ~mask
        self.promoted &= ~mask

    def _place(self, mask: int, piece_type: int, color: bool) -> None:
        """Put a piece on the empty cell `mask`."""
        if piece_type == PAWN:
            self.pawns |= mask
        elif piece_type == chess.KNIGHT:
            self.knights |= mask
        elif piece_type == chess.BISHOP:
            self.bishops |= mask
        elif piece_type == ROOK:
            self.rooks |= mask
        elif piece_type == chess.QUEEN:
            self.queens |= mask
        else:
            self.kings |= mask
        self.occupied |= mask
        self.occupied_co[color] |= mask
