"""Library functions of Player (docs/reference/chespel.md#built-in-functions; conventions in
library.py).
"""

from __future__ import annotations

from collections.abc import Callable

import chess
from chess import BB_SQUARES, scan_forward

from esochess.chespel.runtime.context import (
    Context,
    _as_mover,
    _num_int,
    _rank_of,
    squares,
)
from esochess.chespel.runtime.piece_library import (
    Piece_advancedPawn,
    Piece_backwardPawn,
    Piece_exposed,
    Piece_guarded,
    Piece_hanged,
    Piece_pinned,
    adjacent_files,
    ahead,
)
from esochess.chespel.runtime.positions import (
    BLACK_KING_SIDE,
    BLACK_QUEEN_SIDE,
    WHITE_KING_SIDE,
    WHITE_QUEEN_SIDE,
)
from esochess.chespel.runtime.values import (
    TYPE_VALUES,
    clamp,
)

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
    """The player's king (`board.king(pl)` without its calls: the evaluation asks often)."""
    board = ctx.board
    mask = board.kings & ctx.occupied_co[pl] & ~board.promoted
    return mask.bit_length() - 1 if mask else 0


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
    """The player's isolated pawns (`Piece.isolatedPawn` of each, on the bitboards)."""
    pawns = ctx.board.pieces_mask(chess.PAWN, pl)
    return [sq for sq in scan_forward(pawns) if not pawns & adjacent_files(sq)]


def Player_doubledPawns(ctx: Context, me: bool, pl: bool) -> list[int]:
    """The player's doubled pawns (`Piece.doubledPawn` of each, on the bitboards)."""
    pawns = ctx.board.pieces_mask(chess.PAWN, pl)
    return [sq for sq in scan_forward(pawns) if pawns & chess.BB_FILES[sq & 7] & ~BB_SQUARES[sq]]


def Player_backwardPawns(ctx: Context, me: bool, pl: bool) -> list[int]:
    """The player's backward pawns."""
    return _pawns_where(ctx, me, pl, Piece_backwardPawn)


def Player_passedPawns(ctx: Context, me: bool, pl: bool) -> list[int]:
    """The player's passed pawns (`Piece.passedPawn` of each, on the bitboards)."""
    enemy = ctx.board.pieces_mask(chess.PAWN, not pl)
    return [sq for sq in scan_forward(ctx.board.pieces_mask(chess.PAWN, pl))
            if not enemy & (chess.BB_FILES[sq & 7] | adjacent_files(sq)) & ahead(pl, sq)]


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
