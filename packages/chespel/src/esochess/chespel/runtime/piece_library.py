"""Library functions of Piece (docs/reference/chespel.md#built-in-functions; conventions in
library.py).
"""

from __future__ import annotations

import chess
from chess import BB_SQUARES, scan_forward

from esochess.chespel.runtime.context import (
    BB_DIAGONAL_THROUGH,
    BB_STRAIGHT_THROUGH,
    Context,
    _as_mover,
    _rank_of,
    squares,
)
from esochess.chespel.runtime.values import (
    TYPE_VALUES,
)

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
    """(colour, that colour's pawns) when a pawn stands on p, else None."""
    pawns = ctx.board.pawns
    if not pawns & BB_SQUARES[p]:
        return None
    white = ctx.occupied_co[chess.WHITE]
    if white & BB_SQUARES[p]:
        return True, pawns & white
    return False, pawns & ctx.occupied_co[chess.BLACK]


_ADJACENT_FILES = tuple((chess.BB_FILES[file - 1] if file > 0 else 0)
                        | (chess.BB_FILES[file + 1] if file < 7 else 0) for file in range(8))


def adjacent_files(p: int) -> int:
    """The columns next to p's column."""
    return _ADJACENT_FILES[p & 7]


def Piece_isolatedPawn(ctx: Context, me: bool, p: int) -> bool:
    """A pawn with no own pawn on the adjacent columns."""
    own = _own_pawns(ctx, p)
    return own is not None and not own[1] & adjacent_files(p)


def Piece_doubledPawn(ctx: Context, me: bool, p: int) -> bool:
    """A pawn with another own pawn on its column."""
    own = _own_pawns(ctx, p)
    return own is not None and bool(own[1] & chess.BB_FILES[p & 7] & ~BB_SQUARES[p])


def ahead(color: bool, p: int) -> int:
    """Cells on rows further forward than p's row, for `color`."""
    row = p >> 3
    if color:
        return chess.BB_ALL & ~((1 << ((row + 1) * 8)) - 1)
    return (1 << (row * 8)) - 1


_PASSED_MASKS = tuple(tuple((chess.BB_FILES[p & 7] | _ADJACENT_FILES[p & 7]) & ahead(color, p)
                            for p in range(64)) for color in (False, True))
"""Per colour and cell: the cells where an enemy pawn stops a pawn there being passed."""


def Piece_passedPawn(ctx: Context, me: bool, p: int) -> bool:
    """No enemy pawn ahead on its column or the adjacent ones."""
    own = _own_pawns(ctx, p)
    if own is None:
        return False
    color = own[0]
    enemy = ctx.board.pawns & ctx.occupied_co[not color]
    return not enemy & _PASSED_MASKS[color][p]


def Piece_backwardPawn(ctx: Context, me: bool, p: int) -> bool:
    """Neighbours all further forward, and the stop cell attacked by an enemy pawn."""
    own = _own_pawns(ctx, p)
    if own is None:
        return False
    color, pawns = own
    neighbours = pawns & adjacent_files(p)
    if not neighbours or neighbours & ~ahead(color, p):
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
