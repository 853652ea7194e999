"""brainfuck → CHAZZ (docs/chazz.md#engines, `esochess chazz from-bf`).

Every command becomes one piece (`>` N, `<` n, `.` R, `,` r, `[` B, `]` b). A run of
`+`/`-` (comments in between do not break it) becomes pawns on the columns of the set
bits of its net count — `P` for a positive count, `p` for a negative one — because a
pawn in column c adds 2**c. Pieces are laid left to right; a pawn whose column is left
of the cursor starts a new rank, and other pieces wrap at the board width.

A program that moves the pointer gets empty ranks (written as counts, never `//`) up to
exactly 30000 cells, the most a CHAZZ board may have, so the width is chosen among the
divisors of 30000: the one giving the smallest program area (then the shortest text).
"""

from __future__ import annotations

from dataclasses import dataclass

from esochess.chazz.runtime import MASK32, MAX_CELLS
from esochess.fen import SourceError

_PIECES = {">": "N", "<": "n", ".": "R", ",": "r", "[": "B", "]": "b"}
# Board widths tried, smallest first: the divisors of 30000 up to 300.
_WIDTHS = [w for w in range(1, 301) if MAX_CELLS % w == 0]


class TranslationError(Exception):
    """A brainfuck program that has no CHAZZ board of at most 30000 cells."""


@dataclass(frozen=True)
class _Piece:
    letter: str
    column: int | None  # the column a pawn must stand in; None: anywhere


def _pieces(source: str, path: str) -> list[_Piece]:
    pieces: list[_Piece] = []
    opened: list[tuple[int, int]] = []
    run = 0
    line, col = 1, 0

    def end_run() -> None:
        nonlocal run
        count = run & MASK32 if run > 0 else (-run) & MASK32
        letter = "P" if run > 0 else "p"
        pieces.extend(_Piece(letter, bit) for bit in range(32) if count >> bit & 1)
        run = 0

    for ch in source:
        col += 1
        if ch == "\n":
            line, col = line + 1, 0
        elif ch in "+-":
            run += 1 if ch == "+" else -1
        elif ch in _PIECES:
            end_run()
            if ch == "[":
                opened.append((line, col))
            elif ch == "]":
                if not opened:
                    raise SourceError(path, line, col, "unmatched ']'")
                opened.pop()
            pieces.append(_Piece(_PIECES[ch], None))
    end_run()
    if opened:
        line, col = opened[-1]
        raise SourceError(path, line, col, "unmatched '['")
    return pieces


def _layout(pieces: list[_Piece], width: int) -> list[list[tuple[int, str]]]:
    """Place pieces into ranks of at most `width` squares: (column, letter) per rank."""
    ranks: list[list[tuple[int, str]]] = [[]]
    cursor = 0
    for piece in pieces:
        column = cursor if piece.column is None else piece.column
        if column < cursor or column >= width:
            ranks.append([])
            column = 0 if piece.column is None else piece.column
        ranks[-1].append((column, piece.letter))
        cursor = column + 1
    return ranks if ranks[0] else ranks[1:]


def _rank_text(rank: list[tuple[int, str]]) -> str:
    parts: list[str] = []
    cursor = 0
    for column, letter in rank:
        if column > cursor:
            parts.append(str(column - cursor))
        parts.append(letter)
        cursor = column + 1
    return "".join(parts)


def translate(source: str, *, path: str = "<bf>") -> str:
    """Return the CHAZZ board (one FEN-like line, no newline) for a brainfuck program.

    Raises `SourceError` for unmatched brackets and `TranslationError` when the program
    does not fit in 30000 cells.
    """
    pieces = _pieces(source, path)
    if not pieces:
        return "1 w"
    side = "w" if pieces[0].letter.isupper() else "b"
    pad = any(p.letter in "Nn" for p in pieces)
    widest_pawn = max((p.column + 1 for p in pieces if p.column is not None), default=1)
    best: tuple[int, int, str] | None = None
    for width in _WIDTHS:
        if width < widest_pawn:
            continue
        ranks = _layout(pieces, width)
        texts = [_rank_text(rank) for rank in ranks]
        if pad:
            if len(ranks) * width > MAX_CELLS:
                continue
            # The first rank spans the full width, so that rows x cols is exactly 30000
            # even when no empty rank needs adding.
            used = max((column + 1 for column, _ in ranks[0]), default=0)
            if used < width:
                texts[0] += str(width - used)
            texts.extend([str(width)] * (MAX_CELLS // width - len(ranks)))
        elif len(ranks) * max(column + 1 for rank in ranks for column, _ in rank) > MAX_CELLS:
            continue
        board = "/".join(texts) + " " + side
        # Of the boards that fit, the one whose program area has the fewest squares (an
        # interpreter walks every square of a loop body, empty or not), then the shortest.
        cols = width if pad else max(column + 1 for rank in ranks for column, _ in rank)
        area = len(ranks) * cols
        if best is None or (area, len(board)) < best[:2]:
            best = (area, len(board), board)
    if best is None:
        raise TranslationError(f"{len(pieces)} pieces do not fit on a board of {MAX_CELLS} cells")
    return best[2]
