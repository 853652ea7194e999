"""The permissive board of CHAZZ: any number of ranks and files (docs/reference/chazz.md#board).

A grid is written like a FEN placement — ranks separated by `/`, pieces as letters,
empty squares as decimal counts — but ranks may have any width (short ones are padded
on the right), counts may have several digits, empty ranks are dropped, and only the
first character of the field after the board matters (`b` = black to move).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import chess

from esochess.fen.diagnostics import SourceError

PIECE_LETTERS = frozenset("PNBRQKpnbrqk")
# A run of this many digits is an invalid empty count (the reference's limit).
MAX_COUNT_DIGITS = 15


class GridError(SourceError):
    """A grid text that is not a valid board."""


@dataclass
class GridTooLarge(GridError):
    """A grid whose number of cells exceeds the caller's limit; `cells` is the count."""

    cells: int = 0


@dataclass(frozen=True)
class Grid:
    """An immutable board of `rows` × `cols` squares in reading order.

    Row 0 is the first rank written (the top); `cells` holds a piece letter or "" for
    each square, row by row. `side` is "w" or "b".
    """

    rows: int
    cols: int
    cells: tuple[str, ...]
    side: str = "w"

    def __post_init__(self) -> None:
        if len(self.cells) != self.rows * self.cols:
            raise ValueError("a grid needs exactly rows × cols cells")
        if self.side not in ("w", "b"):
            raise ValueError("side must be 'w' or 'b'")

    def __getitem__(self, square: tuple[int, int]) -> str:
        row, col = square
        if not (0 <= row < self.rows and 0 <= col < self.cols):
            raise IndexError(f"square {square} is outside a {self.rows}x{self.cols} grid")
        return self.cells[row * self.cols + col]

    def __len__(self) -> int:
        return len(self.cells)

    def pieces(self) -> Iterator[tuple[int, int, str]]:
        """Yield (row, col, letter) for every occupied square, in reading order."""
        for index, cell in enumerate(self.cells):
            if cell:
                yield divmod(index, self.cols) + (cell,)

    def rank_text(self, row: int) -> str:
        """Return one row written as a grid rank (`3P2`), `0` for a row of width 0."""
        parts: list[str] = []
        empty = 0
        for cell in self.cells[row * self.cols : (row + 1) * self.cols]:
            if cell:
                if empty:
                    parts.append(str(empty))
                    empty = 0
                parts.append(cell)
            else:
                empty += 1
        if empty or not parts:
            parts.append(str(empty))
        return "".join(parts)

    def text(self) -> str:
        """Return the grid as text that `parse_grid` reads back to an equal grid."""
        if self.rows == 0:
            # A board field that is empty: the line starts with the side field's space.
            return f" {self.side}"
        return "/".join(self.rank_text(r) for r in range(self.rows)) + f" {self.side}"

    @classmethod
    def from_board(cls, board: chess.Board) -> Grid:
        """Return the 8×8 grid of a chess position, rank 8 first, with its side to move."""
        cells = tuple(
            (piece.symbol() if (piece := board.piece_at(chess.square(f, r))) else "")
            for r in range(7, -1, -1)
            for f in range(8)
        )
        return cls(8, 8, cells, "w" if board.turn == chess.WHITE else "b")


def _error(path: str, line_text: str, column: int, message: str) -> GridError:
    return GridError(path, 1, column, message, source_line=line_text)


def parse_grid(text: str, *, path: str = "<grid>", max_cells: int | None = None) -> Grid:
    """Parse the first line of `text` as a permissive CHAZZ board.

    Raises `GridError` (column of the first bad character) for an invalid board and
    `GridTooLarge` when `max_cells` is given and rows × cols exceeds it — checked before
    any cell is built, so a huge empty count costs no memory.
    """
    line = text.split("\n", 1)[0].split("\0", 1)[0]
    board, space, rest = line.partition(" ")
    side = "b" if space and rest.lstrip(" ").startswith("b") else "w"

    # First pass: validate and measure every rank without building cells.
    ranks: list[tuple[int, str]] = []  # (column offset in the line, rank text)
    offset = 0
    for rank in board.split("/"):
        if rank:
            ranks.append((offset, rank))
        offset += len(rank) + 1
    width = 0
    tokens_per_rank: list[list[str | int]] = []
    for start, rank in ranks:
        tokens: list[str | int] = []
        i = 0
        while i < len(rank):
            ch = rank[i]
            if ch in PIECE_LETTERS:
                tokens.append(ch)
                i += 1
            elif "0" <= ch <= "9":
                j = i
                while j < len(rank) and "0" <= rank[j] <= "9":
                    j += 1
                if j - i > MAX_COUNT_DIGITS:
                    raise _error(
                        path,
                        line,
                        start + i + 1,
                        f"an empty count has {j - i} digits (at most {MAX_COUNT_DIGITS})",
                    )
                tokens.append(int(rank[i:j]))
                i = j
            else:
                raise _error(path, line, start + i + 1, f"invalid character {ch!r} in a rank")
        tokens_per_rank.append(tokens)
        width = max(width, sum(t if isinstance(t, int) else 1 for t in tokens))

    rows = len(tokens_per_rank)
    if max_cells is not None and rows * width > max_cells:
        raise GridTooLarge(
            path,
            1,
            1,
            f"the grid has {rows * width} cells, more than {max_cells}",
            source_line=line,
            cells=rows * width,
        )

    cells: list[str] = []
    for tokens in tokens_per_rank:
        row_start = len(cells)
        for t in tokens:
            if isinstance(t, int):
                cells.extend([""] * t)
            else:
                cells.append(t)
        cells.extend([""] * (width - (len(cells) - row_start)))
    return Grid(rows, width, tuple(cells), side)
