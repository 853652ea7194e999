"""esochess.fen: the shared board core — FEN and grid parsing, rendering, diagnostics."""

from esochess.fen.diagnostics import (
    Note,
    SourceError,
    caret_line,
    format_diagnostic,
    format_diagnostics,
    from_lark,
    sort_diagnostics,
    source_line_at,
)

__all__ = [
    "Note",
    "SourceError",
    "caret_line",
    "format_diagnostic",
    "format_diagnostics",
    "from_lark",
    "sort_diagnostics",
    "source_line_at",
]
