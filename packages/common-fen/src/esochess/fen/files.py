"""The one place any esochess tool writes or reads a user's file.

`open_output` is the writer behind every output file (CQL results, CHAZZ pages and
boards, Chespel executables and match PGN, Gambit records, `esochess fen show -o`):

- a regular or missing target is written to a fresh temporary file in its directory
  (`mkstemp`: a new name, created exclusively, never through a planted link) and renamed
  over the target only when everything was written, so a failed, interrupted or killed
  run never leaves a partial target, and removes its temporary file on every failure
  path (a full disk at a write or at close, an exception, Ctrl-C, SIGTERM);
- an existing target that is not a regular file (a FIFO, a socket, a terminal), and any
  name directly in `/dev` (`/dev/null`, `/dev/stdout`) or under `/dev/fd` and `/proc`,
  is opened and written in place: it is never replaced;
- a symbolic link is followed and the file it names is replaced, the link kept;
- a target that is the same file as one of the run's inputs is refused before anything
  is written (`OutputError`: `cannot write PATH: it is also an input file`).
"""

from __future__ import annotations

import errno
import io
import os
import stat
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO, Any

from esochess.fen.diagnostics import SourceError

#: The reason an output that is also an input is refused.
ALSO_AN_INPUT = "it is also an input file"

#: Names that stand for a device or an already open descriptor (`/dev/null`,
#: `/dev/stdout`, `/dev/fd/3`, `/proc/self/fd/1`): written in place even when they are a
#: regular file — a descriptor redirected to a file, or a `/dev/null` that some other
#: program already replaced — since replacing them would hide the output from whoever
#: holds the descriptor, or break the system's device for good.
_IN_PLACE_PREFIXES = ("/dev/fd/", "/proc/")


def _names_a_device(path: str) -> bool:
    absolute = os.path.abspath(path)
    return os.path.dirname(absolute) == "/dev" or absolute.startswith(_IN_PLACE_PREFIXES)


class OutputError(OSError):
    """A file that cannot be written: `cannot write PATH: REASON`.

    An `OSError`, so code that catches OSError around a write sees it too; `strerror`
    is the reason.
    """

    def __init__(self, path: str, reason: str, code: int | None = None) -> None:
        super().__init__(code if code is not None else 0, reason)
        self.path = path
        self.reason = reason

    def __str__(self) -> str:
        return f"cannot write {self.path}: {self.reason}"

    def __reduce__(self) -> tuple[type[OutputError], tuple[object, ...]]:
        return (type(self), (self.path, self.reason, self.errno or None))


#: Why a file cannot be read or written, in the words every tool uses.
_REASONS = {
    errno.ENOENT: "no such file",
    errno.EISDIR: "is a directory",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.ENOTDIR: "a part of the path is not a directory",
    errno.ENOSPC: "no space left on device",
}


def read_reason(exc: OSError) -> str:
    """Why a file could not be read, in the shared wording (`no such file`, …)."""
    if exc.errno in _REASONS:
        return _REASONS[exc.errno]
    text = exc.strerror or str(exc)
    return text[:1].lower() + text[1:]


def write_reason(exc: OSError) -> str:
    """Why a file could not be written: as `read_reason`, but a missing name is a
    missing directory (an output file need not exist)."""
    return "no such directory" if exc.errno == errno.ENOENT else read_reason(exc)


def _umask() -> int:
    # os.umask can only be read by setting it; restore it at once.
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _failure(path: str, exc: OSError) -> OutputError:
    if isinstance(exc, OutputError):
        return exc
    return OutputError(path, write_reason(exc), exc.errno)


def _stat(path: str) -> os.stat_result | None:
    try:
        return os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None


def _refuse_inputs(path: str, target: os.stat_result, inputs: Sequence[str | os.PathLike[str]]) -> None:
    for source in inputs:
        seen = _stat(os.fspath(source))
        if seen is not None and (seen.st_dev, seen.st_ino) == (target.st_dev, target.st_ino):
            raise OutputError(path, ALSO_AN_INPUT)


def _wrap(raw: io.BufferedWriter, text: bool) -> IO[Any]:
    if not text:
        return raw
    # newline="": no translation on output. Closing the wrapper closes `raw`.
    return io.TextIOWrapper(raw, encoding="utf-8", errors="surrogateescape", newline="")


@contextmanager
def _handle(path: str, fd: int, text: bool) -> Iterator[IO[Any]]:
    # The descriptor as a (text) file, closed at the end: a failure to flush or close (a
    # full disk) is an OutputError; after an exception the handle is closed quietly.
    raw = os.fdopen(fd, "wb")
    handle = _wrap(raw, text)
    try:
        yield handle
        try:
            handle.close()
            raw.close()
        except OSError as exc:
            raise _failure(path, exc) from None
    finally:
        with suppress(OSError):
            handle.close()
        with suppress(OSError):
            raw.close()


@contextmanager
def _in_place(path: str, text: bool) -> Iterator[IO[Any]]:
    # O_APPEND: `/dev/stdout` redirected to a log with `>>` keeps what the log held.
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    except OSError as exc:
        raise _failure(path, exc) from None
    with _handle(path, fd, text) as handle:
        yield handle


@contextmanager
def _temporary(path: str, target: str, mode: int) -> Iterator[tuple[int, str]]:
    # A fresh file beside the target (descriptor, name), renamed over it at the end of a
    # block that raised nothing, removed otherwise.
    directory, name = os.path.split(target)
    try:
        fd, temporary = tempfile.mkstemp(dir=directory or ".", prefix=f".{name}.", suffix=".tmp")
    except OSError as exc:
        raise _failure(path, exc) from None
    done = False
    try:
        yield fd, temporary
        try:
            os.chmod(temporary, mode)
            os.replace(temporary, target)
        except OSError as exc:
            raise _failure(path, exc) from None
        done = True
    finally:
        if not done:
            with suppress(OSError):
                os.unlink(temporary)


@contextmanager
def _replacing(path: str, target: str, mode: int, text: bool) -> Iterator[IO[Any]]:
    with _temporary(path, target, mode) as (fd, _), _handle(path, fd, text) as handle:
        yield handle


@contextmanager
def output_path(
    path: str | os.PathLike[str], *, inputs: Sequence[str | os.PathLike[str]] = ()
) -> Iterator[str]:
    """For a writer that needs a file name (SQLite): the name of a fresh, empty temporary
    file beside `path`, which replaces `path` (a regular or missing file) when the block
    ends without an exception and is removed otherwise. Permissions and refusals
    (`OutputError`) are those of `open_output`.
    """
    name = os.fspath(path)
    current = _stat(name)
    if current is not None:
        _refuse_inputs(name, current, inputs)
    mode = stat.S_IMODE(current.st_mode) if current is not None else 0o666 & ~_umask()
    with _temporary(name, os.path.realpath(name), mode) as (fd, temporary):
        os.close(fd)
        yield temporary


@contextmanager
def open_output(
    path: str | os.PathLike[str],
    *,
    text: bool = False,
    inputs: Sequence[str | os.PathLike[str]] = (),
    executable: bool = False,
) -> Iterator[IO[Any]]:
    """Open `path` for writing as described in the module's docstring.

    Yields a binary handle, or with `text=True` a UTF-8 text handle (surrogateescape,
    no newline translation). The file appears complete when the `with` block ends
    without an exception, and not at all otherwise. A replaced file keeps its
    permissions; a new one gets those `open()` would give (0666 less the umask), and
    `executable=True` adds the execute bits the umask allows.

    Raises `OutputError` (an OSError) when the file cannot be opened, finished or
    renamed, or is one of `inputs`; an exception raised inside the block propagates
    unchanged after the temporary file is removed.
    """
    name = os.fspath(path)
    current = _stat(name)
    if (
        current is not None and not stat.S_ISREG(current.st_mode)
    ) or _names_a_device(name):
        with _in_place(name, text) as handle:
            yield handle
        return
    if current is not None:
        _refuse_inputs(name, current, inputs)
    mask = _umask()
    mode = stat.S_IMODE(current.st_mode) if current is not None else 0o666 & ~mask
    if executable:
        mode |= 0o111 & ~mask
    with _replacing(name, os.path.realpath(name), mode, text) as handle:
        yield handle


def write_atomic(
    path: str | os.PathLike[str],
    data: str | bytes,
    *,
    inputs: Sequence[str | os.PathLike[str]] = (),
    executable: bool = False,
) -> None:
    """Write `data` (text as UTF-8, no newline translation) through `open_output`."""
    payload = data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data
    with open_output(path, inputs=inputs, executable=executable) as handle:
        handle.write(payload)


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
        raise UnreadableFile(name, read_reason(exc)) from None
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
