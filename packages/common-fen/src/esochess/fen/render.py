"""Board renderers shared by the front ends: ascii, unicode, HTML and SVG.

Every renderer takes either a `chess.Board` (drawn from White's side, rank 8 on top) or
a `Grid` (drawn in reading order). The HTML page with default arguments is byte-exact
the export of the CHAZZ reference interpreter (specs/chazz.md §6).
"""

from __future__ import annotations

from collections.abc import Mapping
from html import escape

import chess
import chess.svg

from esochess.fen.grid import Grid

Drawable = chess.Board | Grid

FILES = "abcdefgh"
UNICODE_PIECES = {
    "K": "\u2654",
    "Q": "\u2655",
    "R": "\u2656",
    "B": "\u2657",
    "N": "\u2658",
    "P": "\u2659",
    "k": "\u265a",
    "q": "\u265b",
    "r": "\u265c",
    "b": "\u265d",
    "n": "\u265e",
    "p": "\u265f",
}


def _grid(drawable: Drawable) -> Grid:
    return Grid.from_board(drawable) if isinstance(drawable, chess.Board) else drawable


def _rows(grid: Grid, empty: str, glyphs: dict[str, str] | None) -> list[list[str]]:
    return [
        [(glyphs[c] if glyphs else c) if (c := grid[r, col]) else empty for col in range(grid.cols)]
        for r in range(grid.rows)
    ]


def _text(drawable: Drawable, empty: str, glyphs: dict[str, str] | None) -> str:
    rows = _rows(_grid(drawable), empty, glyphs)
    if isinstance(drawable, chess.Board):
        lines = [f"{8 - i} " + " ".join(row) for i, row in enumerate(rows)]
        lines.append("  " + " ".join(FILES))
        return "\n".join(lines)
    return "\n".join(" ".join(row) for row in rows)


def render_ascii(drawable: Drawable) -> str:
    """Return the board as text with no trailing newline.

    A chess board is exactly the 9-line layout of specs/chespel.md §10.4 (rank digits on
    the left, `  a b c d e f g h` below, `.` for an empty square); a grid is one line per
    row of space-separated cells.
    """
    return _text(drawable, ".", None)


def render_unicode(drawable: Drawable) -> str:
    """Return the board as in `render_ascii`, with Unicode chess glyphs and `·` for empty."""
    return _text(drawable, "\u00b7", UNICODE_PIECES)


def render_html(
    drawable: Drawable,
    *,
    title: str = "Chess Board",
    light: str = "#eeeed2",
    dark: str = "#769656",
    square_px: int = 60,
) -> str:
    """Return a self-contained HTML page with one table cell per square.

    With the default arguments the bytes are exactly the CHAZZ reference export: light
    squares have class `white`, dark squares `black`, pieces are numeric entities.
    """
    grid = _grid(drawable)
    font_px = square_px * 4 // 5
    out = [
        "<!DOCTYPE html>",
        "<html>",
        "<head>",
        '<meta charset="UTF-8">',
        f"<title>{escape(title)}</title>",
        "<style>",
        "table { border-collapse: collapse; }",
        f"td {{ width: {square_px}px; height: {square_px}px; text-align: center; "
        f"vertical-align: middle; font-size: {font_px}px; }}",
        f".white {{ background-color: {light}; }}",
        f".black {{ background-color: {dark}; }}",
        "</style>",
        "</head>",
        "<body>",
        "<table>",
    ]
    for r in range(grid.rows):
        out.append("<tr>")
        for c in range(grid.cols):
            cls = "white" if (r + c) % 2 == 0 else "black"
            piece = grid[r, c]
            entity = f"&#{ord(UNICODE_PIECES[piece])};" if piece else ""
            out.append(f'<td class="{cls}">{entity}</td>')
        out.append("</tr>")
    out += ["</table>", "</body>", "</html>"]
    return "\n".join(out) + "\n"


def render_svg(
    drawable: Drawable,
    *,
    square_px: int = 45,
    lastmove: chess.Move | None = None,
    fill: Mapping[chess.Square, str] | None = None,
) -> str:
    """Return an SVG image: python-chess's `chess.svg.board` for a chess position, and a
    plain drawing of squares and glyphs for a grid of any size.

    For a chess position, `lastmove` marks a move and `fill` colours squares (the studio
    shows the selected piece with it); each square's rectangle carries its name as a class.
    """
    if isinstance(drawable, chess.Board):
        return str(
            chess.svg.board(drawable, size=square_px * 8, lastmove=lastmove, fill=dict(fill or {}))
        )
    grid = drawable
    width, height = grid.cols * square_px, grid.rows * square_px
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}">'
    ]
    for r in range(grid.rows):
        for c in range(grid.cols):
            x, y = c * square_px, r * square_px
            colour = "#eeeed2" if (r + c) % 2 == 0 else "#769656"
            parts.append(
                f'<rect x="{x}" y="{y}" width="{square_px}" height="{square_px}" fill="{colour}"/>'
            )
            if piece := grid[r, c]:
                parts.append(
                    f'<text x="{x + square_px / 2}" y="{y + square_px * 0.78}" '
                    f'font-size="{square_px * 0.8}" text-anchor="middle">'
                    f"{UNICODE_PIECES[piece]}</text>"
                )
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


RENDERERS = {
    "ascii": render_ascii,
    "unicode": render_unicode,
    "html": render_html,
    "svg": render_svg,
}
