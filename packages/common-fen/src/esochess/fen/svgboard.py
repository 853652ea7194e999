"""The board picture: one look for chess positions and CHAZZ grids of any size.

A chess position is python-chess's `chess.svg.board`; a grid is drawn here in the same
style — the same square colours and the same filled piece drawings, which stay readable
on light and dark squares. Both get the same coordinates, written inside the edge squares
(files `a, b, …` along the bottom row, ranks counted from the bottom along the left
column, so an 8×8 grid reads like a chess board), and the same strip below the board
naming the side to move. Square (row, col) is the `SQUARE`-unit box at
(col × SQUARE, row × SQUARE): the picture has no margin, so programs that mark squares on
it (the studio) find them there. `render_page` puts the picture in an HTML page.
"""

from __future__ import annotations

from collections.abc import Mapping
from html import escape

import chess
import chess.svg

from esochess.fen.grid import Grid

SQUARE = chess.svg.SQUARE_SIZE  # 45 drawing units, as python-chess draws them
STRIP = 30  # the side-to-move strip below the board
COLORS = chess.svg.DEFAULT_COLORS
STRIP_COLOR, TEXT_COLOR = COLORS["margin"], COLORS["coord"]
PIECE_NAMES = {
    "p": "pawn", "n": "knight", "b": "bishop", "r": "rook", "q": "queen", "k": "king",
}


def file_label(column: int) -> str:
    """`a` … `z`, `aa`, `ab`, …: the letter(s) of a 0-based column, as spreadsheets do."""
    label = ""
    column += 1
    while column:
        column, rest = divmod(column - 1, 26)
        label = chr(ord("a") + rest) + label
    return label


def _light(row: int, col: int) -> bool:
    return (row + col) % 2 == 0


def _coordinates(rows: int, cols: int) -> list[str]:
    # Written in the colour of the other kind of square, so they read on both.
    def label(x: float, y: float, text: str, row: int, col: int, anchor: str) -> str:
        fill = COLORS["square dark" if _light(row, col) else "square light"]
        return (
            f'<text x="{x:g}" y="{y:g}" font-family="sans-serif" font-size="10" '
            f'font-weight="bold" fill="{fill}" text-anchor="{anchor}" '
            f'pointer-events="none">{text}</text>'
        )

    bottom = rows - 1
    parts = [
        label((col + 1) * SQUARE - 3, rows * SQUARE - 3, file_label(col), bottom, col, "end")
        for col in range(cols)
    ]
    parts += [label(3, row * SQUARE + 11, str(rows - row), row, 0, "start") for row in range(rows)]
    return parts


def _strip(width: int, top: int, white_to_move: bool) -> list[str]:
    side = "White" if white_to_move else "Black"
    y = top + STRIP / 2
    return [
        f'<rect x="0" y="{top}" width="{width}" height="{STRIP}" fill="{STRIP_COLOR}"/>',
        f'<circle cx="14" cy="{y}" r="7" fill="{"#fff" if white_to_move else "#000"}" '
        f'stroke="{TEXT_COLOR}" stroke-width="1.5"/>',
        f'<text x="28" y="{y + 5}" font-family="sans-serif" font-size="14" '
        f'fill="{TEXT_COLOR}">{side} to move</text>',
    ]


def _grid_squares(grid: Grid) -> list[str]:
    parts: list[str] = []
    used = sorted({c for c in (grid[r, col] for r in range(grid.rows)
                               for col in range(grid.cols)) if c})  # fmt: skip
    if used:
        parts.append("<defs>" + "".join(chess.svg.PIECES[p] for p in used) + "</defs>")
    for row in range(grid.rows):
        for col in range(grid.cols):
            x, y = col * SQUARE, row * SQUARE
            fill = COLORS["square light" if _light(row, col) else "square dark"]
            parts.append(f'<rect x="{x}" y="{y}" width="{SQUARE}" height="{SQUARE}" fill="{fill}"/>')
            if piece := grid[row, col]:
                color = "white" if piece.isupper() else "black"
                ref = f"#{color}-{PIECE_NAMES[piece.lower()]}"
                parts.append(f'<use href="{ref}" xlink:href="{ref}" x="{x}" y="{y}"/>')
    return parts


def render_svg(
    drawable: chess.Board | Grid,
    *,
    square_px: int = 45,
    lastmove: chess.Move | None = None,
    fill: Mapping[chess.Square, str] | None = None,
) -> str:
    """Return the SVG picture of a chess position or a grid, `square_px` per square.

    For a chess position, `lastmove` marks a move and `fill` colours squares (as
    `chess.svg.board` does; each square's rectangle carries its name as a class).
    """
    if isinstance(drawable, chess.Board):
        rows = cols = 8
        inner = str(chess.svg.board(
            drawable, size=8 * SQUARE, coordinates=False, lastmove=lastmove,
            fill=dict(fill or {}),
        ))  # fmt: skip
        parts = [inner.replace("<svg ", '<svg x="0" y="0" ', 1)]
        white = drawable.turn == chess.WHITE
    else:
        rows, cols = drawable.rows, drawable.cols
        parts = _grid_squares(drawable)
        white = drawable.side == "w"
    width, height = cols * SQUARE, rows * SQUARE
    scale = square_px / SQUARE
    total = height + STRIP
    head = (
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
        f'width="{width * scale:g}" height="{total * scale:g}" viewBox="0 0 {width} {total}">'
    )
    body = [*parts, *_coordinates(rows, cols), *_strip(width, height, white)]
    return "\n".join([head, *body, "</svg>"]) + "\n"


def render_page(drawable: chess.Board | Grid, *, title: str = "Chess Board") -> str:
    """Return a self-contained HTML page showing `render_svg`'s picture."""
    return "\n".join([
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="UTF-8">',
        f"<title>{escape(title)}</title>",
        f"<style>body {{ margin: 0; padding: 16px; background: {STRIP_COLOR}; }}</style>",
        "</head>",
        "<body>",
        render_svg(drawable).rstrip("\n"),
        "</body>",
        "</html>",
    ]) + "\n"
