"""esochess.fen: the shared board core — FEN and grid parsing, rendering, diagnostics."""

from esochess.fen.diagnostics import (
    Note,
    SourceError,
    caret_line,
    describe_token,
    format_diagnostic,
    format_diagnostics,
    from_lark,
    sort_diagnostics,
    source_line_at,
)
from esochess.fen.fen import FenError, parse_fen
from esochess.fen.files import (
    OutputError,
    UnreadableFile,
    open_output,
    read_source,
    write_atomic,
)
from esochess.fen.grid import Grid, GridError, GridTooLarge, parse_grid
from esochess.fen.render import render_ascii, render_html, render_unicode
from esochess.fen.svgboard import render_page, render_svg

__all__ = [
    "FenError",
    "Grid",
    "GridError",
    "GridTooLarge",
    "Note",
    "OutputError",
    "SourceError",
    "UnreadableFile",
    "caret_line",
    "describe_token",
    "format_diagnostic",
    "format_diagnostics",
    "from_lark",
    "open_output",
    "parse_fen",
    "parse_grid",
    "read_source",
    "render_ascii",
    "render_html",
    "render_page",
    "render_svg",
    "render_unicode",
    "sort_diagnostics",
    "source_line_at",
    "write_atomic",
]
