"""Program loading (docs/reference/chazz.md#board): the first line of a file becomes a `Grid`.

The grid rules themselves live in `esochess.fen.parse_grid`; this stage reads the file
the way the reference does (bytes, first line only) and turns every failure into the
reference's exact message lines, all meant for stderr with exit status 1, followed by a
precise diagnostic of our own (`FILE:LINE:COL` with the line and a caret, or the shared
`cannot read FILE: REASON`).
"""

from __future__ import annotations

import os

from esochess.chazz.runtime import MAX_CELLS
from esochess.fen import Grid, GridError, GridTooLarge, SourceError, parse_grid
from esochess.fen.files import UnreadableFile, read_reason

INVALID_FEN = "Error: Invalid FEN format"


class LoadError(Exception):
    """A program that cannot be loaded: `lines` are the reference's exact stderr lines,
    `detail` says precisely what is wrong (printed after them)."""

    def __init__(
        self, *lines: str, detail: SourceError | UnreadableFile | None = None
    ) -> None:
        super().__init__("\n".join(lines))
        self.lines = lines
        self.detail = detail


def read_first_line(path: str | os.PathLike[str]) -> bytes:
    """Return the bytes of the file's first line (without the `\\n`), reading no further.

    Raises `LoadError` with the reference's two lines when the file cannot be read.
    """
    try:
        with open(path, "rb") as handle:
            line = handle.readline()
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise LoadError(
            f"Could not open file: {reason}",
            "Failed to read FEN file",
            detail=UnreadableFile(os.fspath(path), read_reason(exc)),
        ) from exc
    return line.rstrip(b"\n")


def parse_program(line: bytes, *, path: str = "<chazz>") -> Grid:
    """Parse one program line into a grid, with the reference's error messages.

    Bytes map one to one onto characters (latin-1), so any non-ASCII byte is simply an
    invalid board character, as in the reference.
    """
    try:
        return parse_grid(line.decode("latin-1"), path=path, max_cells=MAX_CELLS)
    except GridTooLarge as exc:
        raise LoadError(
            f"Error: Required MEMORY_SIZE ({exc.cells}) exceeds the maximum allowed ({MAX_CELLS})."
        ) from exc
    except GridError as exc:
        raise LoadError(INVALID_FEN, detail=exc) from exc


def load_program(path: str | os.PathLike[str]) -> Grid:
    """Read and parse a CHAZZ program file (docs/reference/chazz.md#board)."""
    return parse_program(read_first_line(path), path=os.fspath(path))
