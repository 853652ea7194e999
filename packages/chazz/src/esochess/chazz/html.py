"""HTML export of the program board (docs/reference/chazz.md#html-export), through the shared
renderer."""

from __future__ import annotations

import os
from collections.abc import Sequence

from esochess.fen import Grid, render_html, write_atomic

DEFAULT_HTML = "output_chess_board.html"


def export_html(
    grid: Grid,
    path: str | os.PathLike[str] = DEFAULT_HTML,
    *,
    inputs: Sequence[str | os.PathLike[str]] = (),
) -> None:
    """Write the reference's HTML page for `grid` to `path`, atomically.

    `render_html` with its defaults is byte-exact the reference page; `write_atomic`
    gives the page the mode a plain fopen() would, writes devices and FIFOs in place,
    and refuses a path that is one of `inputs` (the program). Raises `OutputError`.
    """
    write_atomic(path, render_html(grid).encode("ascii"), inputs=inputs)
