"""Board renderers shared by the front ends: ascii, unicode, HTML and SVG.

`render_svg` and `render_page` (module `svgboard`) draw the picture; every renderer takes
either a `chess.Board` (drawn from White's side, rank 8 on top) or
a `Grid` (drawn in reading order). The HTML page with default arguments is byte-exact
the export of the CHAZZ reference interpreter (docs/reference/chazz.md#html-export).
"""

from __future__ import annotations

from html import escape

import chess

from esochess.fen.grid import Grid

# Re-exported: the studio and older callers import render_svg from here.
from esochess.fen.svgboard import render_page as render_page
from esochess.fen.svgboard import render_svg as render_svg

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

    A chess board is exactly the 9-line layout of docs/reference/chespel.md#repl-commands (rank
    digits on the left, `  a b c d e f g h` below, `.` for an empty square); a grid is one line per
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


RENDERERS = {
    "ascii": render_ascii,
    "unicode": render_unicode,
    "html": render_page,  # the picture in a page; `render_html` is CHAZZ's exact export
    "svg": render_svg,
}
