"""A fast path for reading SAN moves, exact against `chess.Board.parse_san`.

python-chess parses a SAN move by generating the legal moves that could match it, and that
is about half the time of reading a game. Most moves in real games are simple: one piece
of the named type can reach the target square, there is no promotion, castling or en
passant, and one attack test decides whether the move leaves the king in check. Those are
answered here from bitboards; every other move (and every illegal or ambiguous one, so
that the error is python-chess's own) goes to `board.parse_san`.
"""

from __future__ import annotations

import chess

_SQUARES = {name: square for square, name in enumerate(chess.SQUARE_NAMES)}
_FILES = {name: chess.BB_FILES[index] for index, name in enumerate(chess.FILE_NAMES)}
_RANKS = {str(index + 1): chess.BB_RANKS[index] for index in range(8)}
_MATCH = chess.SAN_REGEX.match
_KNIGHT = chess.BB_KNIGHT_ATTACKS
_KING = chess.BB_KING_ATTACKS
_PAWN = chess.BB_PAWN_ATTACKS
_DIAG_MASKS, _DIAG = chess.BB_DIAG_MASKS, chess.BB_DIAG_ATTACKS
_RANK_MASKS, _RANK = chess.BB_RANK_MASKS, chess.BB_RANK_ATTACKS
_FILE_MASKS, _FILE = chess.BB_FILE_MASKS, chess.BB_FILE_ATTACKS
_BB = chess.BB_SQUARES
_BACKRANKS = chess.BB_BACKRANKS
_Move = chess.Move
_Board = chess.Board


def parse_san(board: chess.Board, san: str) -> chess.Move:
    """The move `san` denotes on `board`: the same result, or error, as `board.parse_san`."""
    match = _MATCH(san) if type(board) is _Board else None  # variants have other rules
    if match is None:
        return board.parse_san(san)
    piece, from_file, from_rank, target, promotion = match.groups()
    if promotion or (piece is None and from_file and from_rank):
        return board.parse_san(san)
    to = _SQUARES[target]
    bb_to = _BB[to]
    turn = board.turn
    ours = board.occupied_co[turn]
    occupied = board.occupied
    if bb_to & ours:
        return board.parse_san(san)
    if piece is None:
        if bb_to & _BACKRANKS or to == board.ep_square:
            return board.parse_san(san)
        pawns = board.pawns & ours & _FILES[from_file or target[0]]
        if bb_to & occupied:
            candidates = _PAWN[not turn][to] & pawns
        else:
            step = -8 if turn else 8
            candidates = _BB[to + step] & pawns
            if not candidates and not _BB[to + step] & occupied and (
                (turn and to >> 3 == 3) or (not turn and to >> 3 == 4)
            ):
                candidates = _BB[to + 2 * step] & pawns
    else:
        if piece == "N":
            candidates = _KNIGHT[to] & board.knights
        elif piece == "K":
            # One step only: castling (also written `Kg1`) goes to python-chess.
            candidates = _KING[to] & board.kings
        else:
            reach = 0
            if piece != "R":
                reach = _DIAG[to][_DIAG_MASKS[to] & occupied]
            if piece != "B":
                reach |= _RANK[to][_RANK_MASKS[to] & occupied]
                reach |= _FILE[to][_FILE_MASKS[to] & occupied]
            movers = board.queens if piece == "Q" else (
                board.bishops if piece == "B" else board.rooks
            )
            candidates = reach & movers
        candidates &= ours
        if from_file:
            candidates &= _FILES[from_file]
    if from_rank:
        candidates &= _RANKS[from_rank]
    king = board.kings & ours
    if not candidates or candidates & (candidates - 1) or not king:
        return board.parse_san(san)  # illegal, ambiguous or pinned: python-chess decides
    start = candidates.bit_length() - 1
    # Legal iff no enemy piece (other than one captured on `to`) attacks the king after it.
    after = (occupied & ~_BB[start]) | bb_to
    square = to if piece == "K" else king.bit_length() - 1
    if board.attackers_mask(not turn, square, after) & ~bb_to:
        return board.parse_san(san)
    return _Move(start, to)
