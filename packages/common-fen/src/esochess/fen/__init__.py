"""esochess.fen: the shared board core — FEN and grid parsing, rendering, diagnostics.

The names below are imported from their modules on first use (PEP 562), so that a command
that needs only the diagnostics and the file helpers (every `cql` run) does not load the
renderers, the FEN and grid parsers and xml.etree at start-up.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
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

#: Each exported name and the module that defines it.
_HOME = {
    "Note": "diagnostics",
    "SourceError": "diagnostics",
    "caret_line": "diagnostics",
    "describe_token": "diagnostics",
    "format_diagnostic": "diagnostics",
    "format_diagnostics": "diagnostics",
    "from_lark": "diagnostics",
    "sort_diagnostics": "diagnostics",
    "source_line_at": "diagnostics",
    "FenError": "fen",
    "parse_fen": "fen",
    "OutputError": "files",
    "UnreadableFile": "files",
    "open_output": "files",
    "read_source": "files",
    "write_atomic": "files",
    "Grid": "grid",
    "GridError": "grid",
    "GridTooLarge": "grid",
    "parse_grid": "grid",
    "render_ascii": "render",
    "render_html": "render",
    "render_unicode": "render",
    "render_page": "svgboard",
    "render_svg": "svgboard",
}

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


def __getattr__(name: str) -> object:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value  # later reads find it directly
    return value
