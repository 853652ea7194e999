"""Squares along lines: precomputed rays per square and direction, and the line filters
`ray` and `xray` evaluated on bitboards (docs/reference/cql.md#ray)."""

from __future__ import annotations

import chess

from esochess.cqlvars.ast import DIRECTION_STEPS

ORTHOGONAL = ("up", "down", "left", "right")
DIAGONAL = ("northeast", "northwest", "southeast", "southwest")


def _squares_from(square: int, direction: str) -> tuple[int, ...]:
    dx, dy = DIRECTION_STEPS[direction]
    x, y = chess.square_file(square) + dx, chess.square_rank(square) + dy
    out = []
    while 0 <= x < 8 and 0 <= y < 8:
        out.append(chess.square(x, y))
        x, y = x + dx, y + dy
    return tuple(out)


#: RAYS[direction][square]: the squares from `square` (excluded) to the edge, nearest first.
RAYS: dict[str, tuple[tuple[int, ...], ...]] = {
    d: tuple(_squares_from(sq, d) for sq in chess.SQUARES) for d in DIRECTION_STEPS
}
#: RAY_MASKS[direction][square]: the same squares as one bitboard.
RAY_MASKS: dict[str, tuple[int, ...]] = {
    d: tuple(sum(chess.BB_SQUARES[s] for s in squares) for squares in rays)
    for d, rays in RAYS.items()
}


def slider_directions(piece_type: int | None) -> tuple[str, ...]:
    """The directions a piece of this type slides along (none for other pieces)."""
    if piece_type == chess.ROOK:
        return ORTHOGONAL
    if piece_type == chess.BISHOP:
        return DIAGONAL
    if piece_type == chess.QUEEN:
        return ORTHOGONAL + DIAGONAL
    return ()


def first_occupied(occupied: int, square: int, direction: str) -> int | None:
    """The first occupied square from `square` along `direction`, or None."""
    for s in RAYS[direction][square]:
        if occupied & chess.BB_SQUARES[s]:
            return s
    return None


def _visible(occupied: int, square: int, direction: str) -> int:
    """The squares from `square` along `direction` up to the first occupied one (included)."""
    line = RAY_MASKS[direction][square]
    blockers = line & occupied
    if not blockers:
        return line
    first = first_occupied(occupied, square, direction)
    assert first is not None
    return line & ~RAY_MASKS[direction][first]


def _members(occupied: int, square: int, direction: str, masks: list[int], i: int, k: int) -> int:
    """Chains through masks[i:] from `square` along `direction`: 0 when there is none,
    else the squares of the chains at index k (or any non-zero mask when k < i)."""
    if i == len(masks):
        return -1
    found = 0
    for s in chess.scan_forward(masks[i] & _visible(occupied, square, direction)):
        rest = _members(occupied, s, direction, masks, i + 1, k)
        if rest:
            found |= chess.BB_SQUARES[s] if i == k else rest
            if k < i:
                return found
    return found


def ray_members(occupied: int, directions: tuple[str, ...], masks: list[int], k: int) -> int:
    """The squares of masks[k] on some ray through all the masks in order (along one of
    `directions`, with only empty squares between consecutive members).

    `ray (S1 ... Sn)` is `ray_members(..., 0)`; a loop over the k-th argument of a ray
    (`piece X in D ray (A X B)`) is `ray_members(...)` with masks[k] = D.
    """
    result = 0
    for q in chess.scan_forward(masks[0]):
        for d in directions:
            if not masks[1] & RAY_MASKS[d][q]:
                continue
            found = _members(occupied, q, d, masks, 1, k)
            if found:
                result |= chess.BB_SQUARES[q] if k == 0 else found
                if k == 0:
                    break
    return result


def ray(occupied: int, directions: tuple[str, ...], masks: list[int]) -> int:
    """The squares of masks[0] that start a ray through the other masks in order."""
    return ray_members(occupied, directions, masks, 0)


def xray(board: chess.Board, masks: list[int]) -> int:
    """`xray (S1 ... Sn)`: the squares of S1 holding a line piece that, along one of its
    own directions, meets a square of each later set in order, each of them occupied,
    with only empty squares between consecutive ones."""
    occupied = board.occupied
    result = 0
    for q in chess.scan_forward(masks[0] & occupied):
        for d in slider_directions(board.piece_type_at(q)):
            if _xray_chain(occupied, q, d, masks, 1):
                result |= chess.BB_SQUARES[q]
                break
    return result


def _xray_chain(occupied: int, square: int, direction: str, masks: list[int], i: int) -> bool:
    if i == len(masks):
        return True
    nxt = first_occupied(occupied, square, direction)
    if nxt is None or not masks[i] & chess.BB_SQUARES[nxt]:
        return False
    return _xray_chain(occupied, nxt, direction, masks, i + 1)
