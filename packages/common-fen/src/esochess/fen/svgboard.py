"""The board picture: one look for chess positions and CHAZZ grids of any size.

A chess position is python-chess's `chess.svg.board`; a grid is drawn here in the same
style — the same square colours, the same dark margin with coordinates (files `a, b, …`
left to right, ranks counted from the bottom, so an 8×8 grid reads like a chess board),
the same filled piece drawings, which stay readable on light and dark squares. Both get
the same strip below the board naming the side to move. `render_page` puts the picture
in a self-contained HTML page.
"""

from __future__ import annotations

from collections.abc import Mapping
from html import escape

import chess
import chess.svg

from esochess.fen.grid import Grid

SQUARE = chess.svg.SQUARE_SIZE  # 45 drawing units, as python-chess draws them
MARGIN = chess.svg.MARGIN  # the coordinate margin around the squares
STRIP = 30  # the side-to-move strip below the board
COLORS = chess.svg.DEFAULT_COLORS
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


def _strip(width: int, top: int, white_to_move: bool) -> list[str]:
    side = "White" if white_to_move else "Black"
    y = top + STRIP / 2
    return [
        f'<rect x="0" y="{top}" width="{width}" height="{STRIP}" fill="{COLORS["margin"]}"/>',
        f'<circle cx="{MARGIN + 8}" cy="{y}" r="7" fill="{"#fff" if white_to_move else "#000"}" '
        f'stroke="{COLORS["coord"]}" stroke-width="1.5"/>',
        f'<text x="{MARGIN + 22}" y="{y + 5}" font-family="sans-serif" font-size="14" '
        f'fill="{COLORS["coord"]}">{side} to move</text>',
    ]


def _grid_picture(grid: Grid) -> tuple[int, int, list[str]]:
    width, height = grid.cols * SQUARE + 2 * MARGIN, grid.rows * SQUARE + 2 * MARGIN
    parts = [f'<rect x="0" y="0" width="{width}" height="{height}" fill="{COLORS["margin"]}"/>']
    used = sorted({c for c in (grid[r, col] for r in range(grid.rows)
                               for col in range(grid.cols)) if c})  # fmt: skip
    if used:
        parts.append("<defs>" + "".join(chess.svg.PIECES[p] for p in used) + "</defs>")
    coord = (
        f'font-family="sans-serif" font-size="{MARGIN * 0.6:g}" fill="{COLORS["coord"]}" '
        'text-anchor="middle"'
    )
    for col in range(grid.cols):
        x = MARGIN + col * SQUARE + SQUARE / 2
        for y in (MARGIN * 0.7, height - MARGIN * 0.3):
            parts.append(f'<text x="{x}" y="{y:g}" {coord}>{file_label(col)}</text>')
    for row in range(grid.rows):
        y = MARGIN + row * SQUARE + SQUARE / 2 + MARGIN * 0.2
        for x in (MARGIN / 2, width - MARGIN / 2):
            parts.append(f'<text x="{x:g}" y="{y:g}" {coord}>{grid.rows - row}</text>')
    for row in range(grid.rows):
        for col in range(grid.cols):
            x, y = MARGIN + col * SQUARE, MARGIN + row * SQUARE
            light = (row + col) % 2 == 0
            fill = COLORS["square light" if light else "square dark"]
            parts.append(f'<rect x="{x}" y="{y}" width="{SQUARE}" height="{SQUARE}" fill="{fill}"/>')
            if piece := grid[row, col]:
                color = "white" if piece.isupper() else "black"
                ref = f"#{color}-{PIECE_NAMES[piece.lower()]}"
                parts.append(f'<use href="{ref}" xlink:href="{ref}" x="{x}" y="{y}"/>')
    return width, height, parts


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
        width = height = 8 * SQUARE + 2 * MARGIN
        inner = str(chess.svg.board(drawable, size=width, lastmove=lastmove, fill=dict(fill or {})))
        parts = [inner.replace("<svg ", f'<svg x="0" y="0" height="{height}" ', 1)]
        white = drawable.turn == chess.WHITE
    else:
        width, height, parts = _grid_picture(drawable)
        white = drawable.side == "w"
    scale = square_px / SQUARE
    total = height + STRIP
    head = (
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
        f'width="{width * scale:g}" height="{total * scale:g}" viewBox="0 0 {width} {total}">'
    )
    return "\n".join([head, *parts, *_strip(width, height, white), "</svg>"]) + "\n"


def render_page(drawable: chess.Board | Grid, *, title: str = "Chess Board") -> str:
    """Return a self-contained HTML page showing `render_svg`'s picture."""
    return "\n".join([
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="UTF-8">',
        f"<title>{escape(title)}</title>",
        f"<style>body {{ margin: 0; padding: 16px; background: {COLORS['margin']}; }}</style>",
        "</head>",
        "<body>",
        render_svg(drawable).rstrip("\n"),
        "</body>",
        "</html>",
    ]) + "\n"
