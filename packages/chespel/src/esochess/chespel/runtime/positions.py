"""Positions: FEN input and output (docs/reference/chespel.md#repl-commands), board layout
(docs/reference/chespel.md#repl-commands), keys (docs/reference/chespel.md#opening), castling flags
(docs/reference/chespel.md#castling)."""

from __future__ import annotations

from collections.abc import Hashable

import chess

STARTPOS = chess.STARTING_FEN

WHITE_KING_SIDE = 1
WHITE_QUEEN_SIDE = 2
BLACK_KING_SIDE = 4
BLACK_QUEEN_SIDE = 8
"""Castling-flag bits (docs/reference/chespel.md#castling); a position's flags are an int so that
they hash cheaply."""


class FenError(ValueError):
    """An invalid FEN; the message is the REASON of `error: invalid FEN: REASON`."""


# Checked in this order so that the reason names the most basic problem first.
_STATUS_REASONS = (
    (chess.STATUS_NO_WHITE_KING, "White has no king"),
    (chess.STATUS_NO_BLACK_KING, "Black has no king"),
    (chess.STATUS_TOO_MANY_KINGS, "too many kings"),
    (chess.STATUS_TOO_MANY_WHITE_PAWNS, "too many white pawns"),
    (chess.STATUS_TOO_MANY_BLACK_PAWNS, "too many black pawns"),
    (chess.STATUS_PAWNS_ON_BACKRANK, "pawns on row 1 or 8"),
    (chess.STATUS_TOO_MANY_WHITE_PIECES, "too many white pieces"),
    (chess.STATUS_TOO_MANY_BLACK_PIECES, "too many black pieces"),
    (chess.STATUS_OPPOSITE_CHECK, "the side not to move is in check"),
    (chess.STATUS_INVALID_EP_SQUARE, "en passant cell without a double step"),
    (chess.STATUS_TOO_MANY_CHECKERS, "impossible check"),
    (chess.STATUS_IMPOSSIBLE_CHECK, "impossible check"),
)


def parse_fen(text: str) -> chess.Board:
    """Parse a FEN of 4 to 6 fields, or `startpos`; raise FenError with a short reason."""
    fields = text.split()
    if fields == ["startpos"]:
        return chess.Board()
    if not 4 <= len(fields) <= 6:
        raise FenError(f"expected 4 to 6 fields, found {len(fields)}")
    if len(fields) == 4:
        fields.append("0")
    if len(fields) == 5:
        fields.append("1")
    try:
        board = chess.Board(" ".join(fields))
    except ValueError as exc:
        raise FenError(str(exc)) from None
    # Impossible castling rights are dropped, not rejected
    # (docs/reference/chespel.md#repl-commands).
    board.castling_rights = board.clean_castling_rights()
    status = board.status()
    for flag, reason in _STATUS_REASONS:
        if status & flag:
            raise FenError(reason)
    if status != chess.STATUS_VALID:
        raise FenError("impossible position")
    return board


def format_fen(board: chess.Board) -> str:
    """The 6-field FEN that the engine prints, en passant cell after every double step."""
    return board.fen(en_passant="fen")


def render_board(board: chess.Board) -> list[str]:
    """The 9 lines of docs/reference/chespel.md#repl-commands (the same layout as
    esochess.fen.render_ascii)."""
    rows = str(board).split("\n")
    return [f"{8 - i} {row}" for i, row in enumerate(rows)] + ["  a b c d e f g h"]


def position_key(board: chess.Board) -> Hashable:
    """The key of docs/reference/chespel.md#opening: placement, side to move, clean castling rights,
    legal en passant.

    A tuple of ints only (-1 for no en passant cell), so that its hash, and with it the
    transposition table's layout, is the same in every run.
    """
    ep = board.ep_square
    return (board.pawns, board.knights, board.bishops, board.rooks, board.queens,
            board.kings, board.occupied_co[True], board.occupied_co[False], board.turn,
            board.clean_castling_rights(),
            ep if ep is not None and board.has_legal_en_passant() else -1)


def placement_flags(board: chess.Board) -> int:
    """Root castling flags from the placement test of docs/reference/chespel.md#castling."""
    flags = 0
    for color, home, king_bit, queen_bit in (
        (chess.WHITE, 0, WHITE_KING_SIDE, WHITE_QUEEN_SIDE),
        (chess.BLACK, 7, BLACK_KING_SIDE, BLACK_QUEEN_SIDE),
    ):
        king = board.king(color)
        if king is None or chess.square_rank(king) != home:
            continue
        rooks = board.pieces_mask(chess.ROOK, color)
        file = chess.square_file(king)
        if file >= 6 and rooks & chess.BB_SQUARES[chess.square(5, home)]:
            flags |= king_bit
        if file <= 2 and rooks & chess.BB_SQUARES[chess.square(3, home)]:
            flags |= queen_bit
    return flags


def castle_bit(board: chess.Board, move: chess.Move) -> int:
    """The flag that `move` sets when played on `board` (0 unless it castles)."""
    if not board.is_castling(move):
        return 0
    king_side = chess.square_file(move.to_square) > chess.square_file(move.from_square)
    if board.turn == chess.WHITE:
        return WHITE_KING_SIDE if king_side else WHITE_QUEEN_SIDE
    return BLACK_KING_SIDE if king_side else BLACK_QUEEN_SIDE


def parse_move(board: chess.Board, text: str) -> chess.Move | None:
    """A legal move written in SAN (`0-0` accepted) or coordinates, or None."""
    candidate = text.replace("0-0-0", "O-O-O").replace("0-0", "O-O")
    try:
        return board.parse_san(candidate)
    except ValueError:
        pass
    try:
        move = chess.Move.from_uci(text.lower())
    except ValueError:
        return None
    return move if move in board.legal_moves else None
