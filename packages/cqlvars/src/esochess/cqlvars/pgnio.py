"""PGN input: compressed files, streamed game splitting, partitions of consecutive games.

Every run of `cql` (one process, a local pool, or a Dask cluster) splits its input here, with
python-chess's own `skip_game` driven over a line-counting reader. Because the split is the
same for every mode, game numbers, line numbers and game texts are identical for every
`--jobs N`, which is what makes the output byte-identical by construction
(docs/cql.md#parallel-and-compressed-input).
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import IO

import chess.pgn
import zstandard

#: Spec docs/cql.md#parallel-and-compressed-input: a partition SHOULD end at 256 games or 4 MB,
#whichever comes first.
MAX_PARTITION_GAMES = 256
MAX_PARTITION_BYTES = 4 * 1024 * 1024

STDIN = "-"
_BOM = b"\xef\xbb\xbf"
_COMPRESSED = (".gz", ".bz2", ".zst", ".xz")
# What a truncated or corrupt (compressed) stream raises part-way through reading.
_READ_ERRORS = (OSError, EOFError, ValueError, lzma.LZMAError, zstandard.ZstdError)


class InputError(Exception):
    """An input file that cannot be opened or stops decompressing part-way."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(path, message)
        self.path = path
        self.message = message

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


@dataclass(frozen=True)
class GameText:
    """One game's PGN text, as cut from its file, with its game number and first line."""

    number: int
    path: str
    line: int
    text: str


@dataclass(frozen=True)
class Partition:
    """Consecutive games of one file as raw bytes (docs/cql.md#running-on-a-dask-cluster payload),
    with their places.

    `starts[i]` is the byte offset of game `first_number + i` inside `data`, `lines[i]` the
    line on which its text begins. `file_index` and `end_pos` place the partition's end in
    the (possibly compressed) input, for the progress ETA.
    """

    path: str
    first_number: int
    first_line: int
    data: bytes
    starts: tuple[int, ...]
    lines: tuple[int, ...]
    file_index: int = 0
    end_pos: int = 0

    def __len__(self) -> int:
        return len(self.starts)

    @property
    def last_number(self) -> int:
        """Game number of the partition's last game."""
        return self.first_number + len(self.starts) - 1

    def games(self) -> Iterator[GameText]:
        """Decode the partition back into its games, in order."""
        bounds = (*self.starts, len(self.data))
        for i, line in enumerate(self.lines):
            raw = self.data[bounds[i] : bounds[i + 1]]
            yield GameText(self.first_number + i, self.path, line, _decode(raw))


def _decode(raw: bytes) -> str:
    # Same decoding as the scan: UTF-8 with surrogateescape so Latin-1 bytes round-trip
    # (docs/reference/cql.md#command-line), and CRLF read as LF like a text-mode file would.
    return raw.decode("utf-8", "surrogateescape").replace("\r\n", "\n")


def is_compressed(path: str) -> bool:
    """True when `path` names a compressed PGN file that is decompressed while streaming."""
    return path.lower().endswith(_COMPRESSED)


def open_binary(path: str) -> tuple[IO[bytes], IO[bytes]]:
    """Open `path` for streaming, decompressing by suffix; return (decoded stream, raw file).

    The raw file's position measures progress through the file on disk. `-` is stdin.
    """
    if path == STDIN:
        return sys.stdin.buffer, sys.stdin.buffer
    try:
        raw: IO[bytes] = open(path, "rb")  # closed by whoever holds the pair
    except OSError as exc:
        raise InputError(path, exc.strerror or str(exc)) from None
    lower = path.lower()
    stream: IO[bytes]
    if lower.endswith(".gz"):
        stream = gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[assignment]
    elif lower.endswith(".bz2"):
        stream = bz2.BZ2File(raw, mode="rb")
    elif lower.endswith(".xz"):
        stream = lzma.LZMAFile(raw, mode="rb")
    elif lower.endswith(".zst"):
        stream = _open_zstd(raw)
    else:
        stream = raw
    return stream, raw


def _open_zstd(raw: IO[bytes]) -> IO[bytes]:
    # read_across_frames: lichess dumps and `zstd -T0` output can hold several frames.
    reader = zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True)
    return io.BufferedReader(reader, buffer_size=1 << 20)


def check_readable(path: str) -> None:
    """Raise InputError unless `path` can be opened for reading (usage error, exit 2)."""
    if path == STDIN:
        return
    if os.path.isdir(path):
        raise InputError(path, "is a directory")
    stream, raw = open_binary(path)
    stream.close()
    raw.close()


def input_size(path: str) -> int | None:
    """Size on disk of `path`, or None for stdin and unstat-able paths."""
    if path == STDIN:
        return None
    try:
        return os.path.getsize(path)
    except OSError:
        return None


@dataclass
class _LineReader:
    """The `readline` handle python-chess reads through, counting lines and keeping bytes.

    `taken` holds the raw lines consumed since the last `cut()`, so a game's exact bytes
    (and the line its text begins on) come out of the very scan that found its end.
    """

    stream: IO[bytes]
    path: str
    lineno: int = 0
    taken: list[bytes] = field(default_factory=list)
    first_line: int = 0
    at_start: bool = True

    def readline(self) -> str:
        """Return the next line decoded as python-chess expects it ('' at the end)."""
        try:
            raw = self.stream.readline()
        except _READ_ERRORS as exc:
            # A truncated or corrupt compressed stream fails here, possibly mid-file.
            raise InputError(self.path, f"line {self.lineno + 1}: cannot read: {exc}") from None
        if not raw:
            return ""
        if self.at_start:
            self.at_start = False
            if raw.startswith(_BOM):
                raw = raw[len(_BOM) :]
        self.lineno += 1
        self.taken.append(raw)
        text = raw.decode("utf-8", "surrogateescape")
        if text.endswith("\r\n"):
            text = text[:-2] + "\n"
        if not self.first_line and not (
            text.isspace() or text.startswith("%") or text.startswith(";")
        ):
            self.first_line = self.lineno
        return text

    def cut(self) -> tuple[bytes, int]:
        """Return the bytes consumed since the last cut and the first content line."""
        data = b"".join(self.taken)
        first = self.first_line
        self.taken = []
        self.first_line = 0
        return data, first


def scan_file(path: str, first_number: int = 1) -> Iterator[tuple[int, int, bytes, int]]:
    """Yield (game number, first line, raw bytes, raw file position) for each game of `path`.

    Only game boundaries are found (python-chess `skip_game`); no move is parsed.
    """
    stream, raw = open_binary(path)
    try:
        for number, line, data in _scan(stream, path, first_number):
            yield number, line, data, _tell(raw)
    finally:
        if path != STDIN:
            stream.close()
            raw.close()


def _scan(stream: IO[bytes], path: str, number: int) -> Iterator[tuple[int, int, bytes]]:
    reader = _LineReader(stream, path)
    while chess.pgn.skip_game(reader):  # type: ignore[arg-type]  # readline is all it uses
        data, line = reader.cut()
        yield number, line, data
        number += 1


def games_in_text(path: str, text: str, first_number: int = 1) -> Iterator[GameText]:
    """The games of PGN `text` already in memory, split exactly as a file named `path` is."""
    stream = io.BytesIO(text.encode("utf-8", "surrogateescape"))
    for number, line, data in _scan(stream, path, first_number):
        yield GameText(number, path, line, _decode(data))


def _tell(raw: IO[bytes]) -> int:
    try:
        return raw.tell()
    except (OSError, ValueError):
        return 0


def partitions(
    paths: Sequence[str],
    *,
    first: int = 1,
    last: int | None = None,
    max_games: int = MAX_PARTITION_GAMES,
    max_bytes: int = MAX_PARTITION_BYTES,
) -> Iterator[Partition]:
    """Split the files, in order, into partitions of consecutive games
    (docs/cql.md#parallel-and-compressed-input).

    Game numbers continue across files; a partition never spans two files. Games outside
    `[first, last]` consume their numbers but are left out, and reading stops after `last`.
    """
    next_number = 1
    for index, path in enumerate(paths):
        chunks: list[bytes] = []
        starts: list[int] = []
        lines: list[int] = []
        size = 0
        pos = 0
        part_first = 0
        for number, line, data, pos in scan_file(path, next_number):
            next_number = number + 1
            if last is not None and number > last:
                break
            if number < first:
                continue
            if not starts:
                part_first = number
            starts.append(size)
            lines.append(line)
            chunks.append(data)
            size += len(data)
            if len(starts) >= max_games or size >= max_bytes:
                yield _partition(path, part_first, chunks, starts, lines, index, pos)
                chunks, starts, lines, size = [], [], [], 0
        if starts:
            yield _partition(path, part_first, chunks, starts, lines, index, pos)
        if last is not None and next_number > last:
            return


def _partition(
    path: str, first: int, chunks: list[bytes], starts: list[int], lines: list[int],
    index: int, pos: int,
) -> Partition:
    return Partition(
        path, first, lines[0], b"".join(chunks), tuple(starts), tuple(lines), index, pos
    )


def iter_games(
    paths: Sequence[str], *, first: int = 1, last: int | None = None
) -> Iterator[GameText]:
    """Every game of the files in order (within `[first, last]`), streamed one at a time."""
    for part in partitions(paths, first=first, last=last):
        yield from part.games()
