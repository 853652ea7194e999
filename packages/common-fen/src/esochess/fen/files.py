"""File helpers shared by the front ends."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from esochess.fen.diagnostics import SourceError


def _umask() -> int:
    # os.umask can only be read by setting it; restore it at once.
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_atomic(path: str | os.PathLike[str], data: str | bytes) -> None:
    """Write `data` to `path` through a temporary file in the same directory and a rename,
    so readers never see a half-written file and a failed write leaves no partial one.

    Text is written as UTF-8 without newline translation. A replaced file keeps its
    permissions; a new one gets the mode `open()` would give it (0666 less the umask),
    not the 0600 of a temporary file. Raises OSError on failure.
    """
    target = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = 0o666 & ~_umask()
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class UnreadableFile(Exception):
    """A source file that cannot be opened or read at all (nothing wrong in its text)."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(path, reason)
        self.path = path
        self.reason = reason

    def __str__(self) -> str:
        return f"cannot read {self.path}: {self.reason}"


def read_source(path: str | os.PathLike[str]) -> str:
    """A program or query file as text. The front ends' languages are UTF-8.

    Raises UnreadableFile when the file cannot be read, and a SourceError pointing at the
    first byte that is not UTF-8 (the source line shown with U+FFFD in its place).
    """
    name = os.fspath(path)
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise UnreadableFile(name, exc.strerror or str(exc)) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = exc.start
        start = data.rfind(b"\n", 0, bad) + 1
        end = data.find(b"\n", bad)
        line = data[start : len(data) if end < 0 else end].rstrip(b"\r")
        column = len(data[start:bad].decode("utf-8")) + 1  # the first bad byte: all valid before
        raise SourceError(
            name,
            data.count(b"\n", 0, bad) + 1,
            column,
            f"the file is not UTF-8 text (byte 0x{data[bad]:02x})",
            source_line=line.decode("utf-8", "replace"),
        ) from None
