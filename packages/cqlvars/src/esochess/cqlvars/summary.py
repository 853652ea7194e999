"""What `cql index` records about a game so that a query's necessary conditions can be tested
without reading it: the game summary.

One reading of the game (every position, variations included, so the summary holds for
runs with and without `--variations`) gives:

- `occupancy`: per piece (`K` … `p`), the squares it stood on in some position;
- `materials`: every distinct material signature (12 piece counts) of a position;
- `flags`: the game features of `FEATURES` (mate and the piece that gave it, stalemate,
  captures by piece and of piece, promotions by piece, castling, en passant, null moves)
  seen anywhere. Check is not one: nine games in ten have one, and testing every position
  costs a tenth of reading;
- `always`: the game must be read whatever the query, because something about it is
  unusual (a PGN error anywhere, a variant, a problem found while splitting the file).

A summary only ever over-approximates: a feature absent from it is absent from the game.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field

import chess
import chess.pgn

from esochess.cqlvars.lean import read_lean
from esochess.cqlvars.light import LightGame, Snapshot, board_from
from esochess.cqlvars.san import parse_san

#: Piece letters in the order of the occupancy and material columns.
PIECES = "KQRBNPkqrbnp"
_LETTER = {(t, c): chess.piece_symbol(t).upper() if c else chess.piece_symbol(t)
           for t in chess.PIECE_TYPES for c in chess.COLORS}
_TYPES = "PNBRQK"  # chess.PAWN .. chess.KING, 1-based

#: Every game feature, by name; its bit in `flags` is its index. `captured:X` is the type of
#: the piece taken, `capture_by:X` the type of the piece that took, `promote:X` the piece
#: promoted to, `mate_by:X` the type of the piece whose move gave mate (a pawn for a
#: promotion, a king for castling); all colour-blind, upper case.
FEATURES: tuple[str, ...] = (
    "mate", "stalemate", "capture", "enpassant", "castle", "null", "promote",
    *(f"captured:{t}" for t in _TYPES),
    *(f"capture_by:{t}" for t in _TYPES),
    *(f"promote:{t}" for t in "NBRQ"),
    *(f"mate_by:{t}" for t in _TYPES),
)
BIT = {name: 1 << index for index, name in enumerate(FEATURES)}
_MATE, _STALEMATE = BIT["mate"], BIT["stalemate"]
_CAPTURE, _EP, _CASTLE, _NULL, _PROMOTE = (
    BIT["capture"], BIT["enpassant"], BIT["castle"], BIT["null"], BIT["promote"]
)
_CAPTURED = [0] + [BIT[f"captured:{t}"] for t in _TYPES]
_CAPTURE_BY = [0] + [BIT[f"capture_by:{t}"] for t in _TYPES]
_MATE_BY = [0] + [BIT[f"mate_by:{t}"] for t in _TYPES]
_PROMOTE_TO = {chess.KNIGHT: BIT["promote:N"], chess.BISHOP: BIT["promote:B"],
               chess.ROOK: BIT["promote:R"], chess.QUEEN: BIT["promote:Q"]}
STANDARD_VARIANTS = {"", "standard", "chess", "from position"}

Material = tuple[int, ...]


@dataclass
class GameSummary:
    """See the module docstring."""

    occupancy: list[int] = field(default_factory=lambda: [0] * 12)
    materials: set[Material] = field(default_factory=set)
    flags: int = 0
    always: bool = False


def _occupancy(board: chess.Board, into: list[int]) -> None:
    """Add every piece's square: Black's k..p at 0..5, White's K..P at 6..11."""
    black, white = board.occupied_co  # indexed by colour: BLACK = 0
    for i, mask in enumerate((board.kings, board.queens, board.rooks, board.bishops,
                              board.knights, board.pawns)):
        into[i] |= mask & black
        into[i + 6] |= mask & white


def _material(board: chess.Board) -> Material:
    black, white = board.occupied_co  # indexed by colour: BLACK = 0
    masks = (board.kings, board.queens, board.rooks, board.bishops, board.knights,
             board.pawns)
    return tuple(
        [(m & white).bit_count() for m in masks] + [(m & black).bit_count() for m in masks]
    )


class SummaryVisitor(chess.pgn.BaseVisitor[GameSummary]):
    """Reads one game (every variation) into a `GameSummary`; builds no tree."""

    def __init__(self) -> None:
        self.summary = GameSummary()
        # Black in 0..5, White in 6..11 while reading (see `_occupancy`).
        self._occ = [0] * 12
        self._last: chess.Board | None = None
        self._lines: list[chess.Board | None] = []
        self._recount = False
        self._full = False
        self._headers = chess.pgn.Headers({})

    def begin_headers(self) -> chess.pgn.Headers:
        return self._headers

    def visit_header(self, tagname: str, tagvalue: str) -> None:
        self._headers[tagname] = tagvalue

    def end_headers(self) -> chess.pgn.SkipType | None:
        variant = self._headers.get("Variant", "")
        if variant.strip().lower() not in STANDARD_VARIANTS:
            self.summary.always = True  # reported as unsupported: no need to read on
            return chess.pgn.SKIP
        return None

    def parse_san(self, board: chess.Board, san: str) -> chess.Move:
        return parse_san(board, san)

    def visit_move(self, board: chess.Board, move: chess.Move) -> None:
        summary = self.summary
        if not move:
            summary.flags |= _NULL
            self._terminal(board)  # a null move may follow a mate or a stalemate
            return
        to = move.to_square
        piece = board.piece_type_at(move.from_square) or 0
        bit = 1 << to
        turn = board.turn
        if board.occupied_co[not turn] & bit:
            summary.flags |= _CAPTURE | _CAPTURE_BY[piece] | _CAPTURED[board.piece_type_at(to) or 0]
            self._recount = True
        elif piece == chess.PAWN and (to - move.from_square) % 8:
            summary.flags |= _CAPTURE | _EP | _CAPTURE_BY[chess.PAWN] | _CAPTURED[chess.PAWN]
            self._recount = True
        if move.promotion:
            summary.flags |= _PROMOTE | _PROMOTE_TO.get(move.promotion, 0)
            self._recount = True
            piece = move.promotion
        if piece == chess.KING and board.is_castling(move):
            summary.flags |= _CASTLE
            self._full = True  # the rook moves too: re-read the board after the move
        self._occ[(6 if turn else 0) + 6 - piece] |= bit  # KING = 6 is column 0

    def visit_board(self, board: chess.Board) -> None:
        summary = self.summary
        if self._last is None or self._full:
            _occupancy(board, self._occ)
            self._full = False
        if self._last is None or self._recount:
            summary.materials.add(_material(board))
            self._recount = False
        self._last = board

    def begin_variation(self) -> None:
        self._lines.append(self._last)
        # A variation replays from a copy of the parent line's board (see read_game).

    def end_variation(self) -> None:
        if self._last is not None:
            self._terminal(self._last)
        self._last = self._lines.pop() if self._lines else None

    def _terminal(self, board: chess.Board) -> None:
        """Mate and stalemate can only be where a line ends (or before a null move)."""
        if board.is_checkmate():
            self.summary.flags |= _MATE | _MATE_BY[_mover(board)]
        elif board.is_stalemate():
            self.summary.flags |= _STALEMATE

    def handle_error(self, error: Exception) -> None:
        self.summary.always = True

    def end_game(self) -> None:
        if self._last is not None:
            self._terminal(self._last)
        occ = self._occ
        self.summary.occupancy = occ[6:] + occ[:6]

    def result(self) -> GameSummary:
        return self.summary


def _mover(board: chess.Board) -> int:
    """The type of the piece that made the move leading to `board` (0: none, or a null move)."""
    if not board.move_stack or not (move := board.peek()):
        return 0
    if move.promotion:
        return chess.PAWN
    # Only castling written king-takes-rook leaves the destination empty.
    return board.piece_type_at(move.to_square) or chess.KING


def summarize(text: str) -> GameSummary:
    """The summary of the first game of `text` (an empty game gives an empty summary).

    A plain game is read by the lean reader and summarised from its snapshots; any other
    by `SummaryVisitor` (tests compare the two on every shipped and masters game).
    """
    lean = read_lean(text)
    if lean is not None:
        return from_snapshots(lean)
    summary = chess.pgn.read_game(io.StringIO(text), Visitor=SummaryVisitor)
    return summary if summary is not None else GameSummary(always=True)


def _snap_occupancy(snap: Snapshot, into: list[int]) -> None:
    """Add every piece's square (White's K..P at 0..5, Black's at 6..11)."""
    white, black = snap[6], snap[7]
    for index, mask in enumerate(snap[:6]):  # snapshot masks: pawns .. kings; columns: K .. P
        into[5 - index] |= mask & white
        into[11 - index] |= mask & black


def _snap_material(snap: Snapshot) -> Material:
    white, black = snap[6], snap[7]
    masks = snap[:6][::-1]  # kings .. pawns
    return tuple([(m & white).bit_count() for m in masks]
                 + [(m & black).bit_count() for m in masks])


def _type_at(snap: Snapshot, bb: int) -> int:
    """The piece type (PAWN .. KING) on a one-square mask, 0 when empty."""
    for index, mask in enumerate(snap[:6]):
        if mask & bb:
            return index + 1
    return 0


def from_snapshots(game: LightGame) -> GameSummary:
    """The summary of a one-line game (`LightGame.linear`) from its snapshots: what
    `SummaryVisitor` finds, without replaying the moves."""
    summary = GameSummary()
    occ = summary.occupancy
    nodes = game.nodes
    before = nodes[0].snap
    _snap_occupancy(before, occ)
    summary.materials.add(_snap_material(before))
    flags = 0
    piece = 0  # the type of the piece that made the last move
    for node in nodes[1:]:
        after, move = node.snap, node.move
        assert move is not None
        from_bb, to_bb = 1 << move.from_square, 1 << move.to_square
        white = bool(before[6] & from_bb)
        piece = _type_at(before, from_bb)
        recount = False
        if (before[7] if white else before[6]) & to_bb:
            flags |= _CAPTURE | _CAPTURE_BY[piece] | _CAPTURED[_type_at(before, to_bb)]
            recount = True
        elif piece == chess.PAWN and (move.to_square - move.from_square) % 8:
            flags |= _CAPTURE | _EP | _CAPTURE_BY[chess.PAWN] | _CAPTURED[chess.PAWN]
            recount = True
        if move.promotion:
            flags |= _PROMOTE | _PROMOTE_TO.get(move.promotion, 0)
            recount = True
        if piece == chess.KING and abs((move.to_square & 7) - (move.from_square & 7)) > 1:
            flags |= _CASTLE  # a standard board: a king moving two files castles
            _snap_occupancy(after, occ)
        else:
            occ[(0 if white else 6) + 6 - _type_at(after, to_bb)] |= to_bb
        if recount:
            summary.materials.add(_snap_material(after))
        before = after
    last = board_from(before)
    if last.is_checkmate():
        flags |= _MATE | _MATE_BY[piece]
    elif last.is_stalemate():
        flags |= _STALEMATE
    summary.flags = flags
    return summary
