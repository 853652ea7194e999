"""HTML export of the program board (spec §6), through the shared renderer."""

from __future__ import annotations

import os

from esochess.fen import Grid, render_html, write_atomic

DEFAULT_HTML = "output_chess_board.html"


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def export_html(grid: Grid, path: str | os.PathLike[str] = DEFAULT_HTML) -> None:
    """Write the reference's HTML page for `grid` to `path`, atomically.

    `render_html` with its defaults is byte-exact the reference page. Raises OSError.
    """
    write_atomic(path, render_html(grid).encode("ascii"))
    # The temporary file behind the atomic write is private (0600); give the page the
    # mode a plain fopen() would have, so a browser or web server can read it.
    os.chmod(path, 0o666 & ~_umask())
