"""PGN input: compressed files, streamed game splitting, partitions of consecutive games.

Every run of `cql` (one process, a local pool, or a Dask cluster) splits its input here, with
python-chess's own `skip_game` driven over a line-counting reader. Because the split is the
same for every mode, game numbers, line numbers and game texts are identical for every
`--jobs N`, which is what makes the output byte-identical by construction
(docs/cql.md#parallel-and-compressed-input).
"""

from __future__ import annotations

import importlib
import io
import os
import stat
import sys
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass, field
from typing import IO, Any, Protocol

import chess.pgn

#: Spec docs/cql.md#parallel-and-compressed-input: a partition SHOULD end at 256 games or 4 MB,
#whichever comes first.
MAX_PARTITION_GAMES = 256
MAX_PARTITION_BYTES = 4 * 1024 * 1024
#: Longest input line and longest game kept in memory: a longer one is a problem of its game
#: (reported and skipped), and memory stays bounded whatever the input holds.
MAX_LINE_BYTES = 1024 * 1024
MAX_GAME_BYTES = 16 * 1024 * 1024

STDIN = "-"
_BOM = b"\xef\xbb\xbf"
_COMPRESSED = (".gz", ".bz2", ".zst", ".xz")
# What a truncated or corrupt (compressed) stream raises part-way through reading; a
# decompressor's own error joins when its module is loaded, with the first such file.
_READ_ERRORS: tuple[type[Exception], ...] = (OSError, EOFError, ValueError)
#: The decompressing modules and the error each raises beyond those above.
_DECOMPRESSORS = {"gzip": None, "bz2": None, "lzma": "LZMAError", "zstandard": "ZstdError"}


def _decompressor(name: str) -> Any:
    """A decompressing module, imported on first use (no plain-PGN run loads one)."""
    global _READ_ERRORS
    module = importlib.import_module(name)
    error = _DECOMPRESSORS[name]
    if error is not None and getattr(module, error) not in _READ_ERRORS:
        _READ_ERRORS = (*_READ_ERRORS, getattr(module, error))
    return module


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
    #: (line, message) when the split itself found the game unreadable (an unclosed
    #: comment, an over-long line): the game is reported and skipped.
    problem: tuple[int, str] | None = None
    #: When an index showed that the query cannot match games `number`, `number + 1`, …:
    #: how many (one item stands for the whole run; `text` is then empty). They are
    #: counted, never read. 0 for a game to read.
    skipped: int = 0


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
    #: (index in the partition, line, message) of every game the split found unreadable.
    problems: tuple[tuple[int, int, str], ...] = ()
    #: Runs of games an index showed cannot match, as (index of the first, how many);
    #: their bytes are empty.
    skipped: tuple[tuple[int, int], ...] = ()

    def __len__(self) -> int:
        return len(self.starts)

    @property
    def last_number(self) -> int:
        """Game number of the partition's last game."""
        return self.first_number + len(self.starts) - 1

    def games(self) -> Iterator[GameText]:
        """Decode the partition back into its games, in order."""
        bounds = (*self.starts, len(self.data))
        problems = {index: (line, message) for index, line, message in self.problems}
        runs = dict(self.skipped)
        lines = self.lines
        i = 0
        while i < len(lines):
            run = runs.get(i, 0)
            if run:
                # One item for the whole run: its games cost nothing one by one.
                yield GameText(self.first_number + i, self.path, lines[i], "", skipped=run)
                i += run
                continue
            raw = self.data[bounds[i] : bounds[i + 1]]
            yield GameText(self.first_number + i, self.path, lines[i], decode(raw),
                           problems.get(i))
            i += 1


def decode(raw: bytes) -> str:
    """A game's text from its bytes, exactly as the scan decodes it."""
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
    if is_compressed(path) and _empty_file(raw):
        raw.close()
        raise InputError(path, "empty file: not a complete compressed stream")
    stream: IO[bytes]
    if lower.endswith(".gz"):
        stream = _decompressor("gzip").GzipFile(fileobj=raw, mode="rb")
    elif lower.endswith(".bz2"):
        stream = _decompressor("bz2").BZ2File(raw, mode="rb")
    elif lower.endswith(".xz"):
        stream = _decompressor("lzma").LZMAFile(raw, mode="rb")
    elif lower.endswith(".zst"):
        stream = _open_zstd(raw)
    else:
        stream = raw
    return stream, raw


def _open_zstd(raw: IO[bytes]) -> IO[bytes]:
    return io.BufferedReader(_ZstdFrames(raw), buffer_size=1 << 20)


class _ZstdFrames(io.RawIOBase):
    """Every frame of a zstd stream in turn; a stream that ends inside a frame is an error.

    (zstandard's `stream_reader` returns a cut-off last frame as if it were complete.)
    Lichess dumps and `zstd -T0` output hold several frames.
    """

    def __init__(self, raw: IO[bytes]) -> None:
        super().__init__()
        self._raw = raw
        self._maker = _decompressor("zstandard").ZstdDecompressor()
        self._frame = self._maker.decompressobj()
        self._in_frame = False
        self._out = b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while not self._out:
            chunk = self._raw.read(1 << 16)
            if not chunk:
                if self._in_frame:
                    raise EOFError("compressed file ended before the end of its last frame")
                return 0
            self._out = self._feed(chunk)
        size = min(len(buffer), len(self._out))
        buffer[:size] = self._out[:size]
        self._out = self._out[size:]
        return size

    def _feed(self, chunk: bytes) -> bytes:
        out = []
        while chunk:
            self._in_frame = True
            out.append(self._frame.decompress(chunk))
            if not self._frame.eof:
                break
            chunk = self._frame.unused_data
            self._frame = self._maker.decompressobj()
            self._in_frame = False
        return b"".join(out)


def _empty_file(raw: IO[bytes]) -> bool:
    try:
        info = os.fstat(raw.fileno())
    except OSError:
        return False
    return stat.S_ISREG(info.st_mode) and info.st_size == 0


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


_EVENT = "[Event"
_TOKENS = chess.pgn.SKIP_MOVETEXT_REGEX


@dataclass
class _LineReader:
    """The `readline` handle python-chess reads through, counting lines and keeping bytes.

    `taken` holds the raw lines consumed since the last `cut()`, so a game's exact bytes
    (and the line its text begins on) come out of the very scan that found its end.

    The reader also follows the movetext the way python-chess's game skipper does, to
    catch what would cost later games: a comment `{` still open when a line starts with
    `[Event` ends its game there (python-chess would read on to the next `}`), and a line
    or a game longer than its limit is dropped from memory. Each is kept as the game's
    `problem`.
    """

    stream: IO[bytes]
    path: str
    max_line: int = MAX_LINE_BYTES
    max_game: int = MAX_GAME_BYTES
    lineno: int = 0
    taken: list[bytes] = field(default_factory=list)
    taken_size: int = 0
    first_line: int = 0
    at_start: bool = True
    problem: tuple[int, str] | None = None
    in_movetext: bool = False
    comment_line: int = 0
    pushed: tuple[bytes, str] | None = None
    ended: bool = False

    def readline(self) -> str:
        """Return the next line decoded as python-chess expects it ('' at the end)."""
        if self.ended:
            return ""
        if self.pushed is not None:
            raw, text = self.pushed
            self.pushed = None
        else:
            raw = self._read()
            if not raw:
                if self.comment_line:
                    self._note(self.comment_line, "unclosed comment '{' at the end of the file")
                    self.comment_line = 0
                return ""
            self.lineno += 1
            text = raw.decode("utf-8", "surrogateescape")
            if text.endswith("\r\n"):
                text = text[:-2] + "\n"
            if self.comment_line and text.startswith(_EVENT):
                # End the game here; this line starts the next one.
                self._note(
                    self.comment_line,
                    "unclosed comment '{' (reading resumes at the next [Event tag)",
                )
                self.comment_line = 0
                self.pushed = (raw, text)
                self.ended = True
                return ""
        self._keep(raw)
        if not self.first_line and not (
            text.isspace() or text.startswith("%") or text.startswith(";")
        ):
            self.first_line = self.lineno
        self._follow(text)
        return text

    def _read(self) -> bytes:
        try:
            raw = self.stream.readline(self.max_line + 1)
            if len(raw) > self.max_line and not raw.endswith(b"\n"):
                self._note(self.lineno + 1, f"line longer than {self.max_line} bytes")
                rest = raw
                while rest and not rest.endswith(b"\n"):
                    rest = self.stream.readline(1 << 16)
                raw = b"%\n"  # an escape line: python-chess ignores it wherever it is
        except _READ_ERRORS as exc:
            # A truncated or corrupt compressed stream fails here, possibly mid-file.
            raise InputError(self.path, f"line {self.lineno + 1}: cannot read: {exc}") from None
        if self.at_start:
            self.at_start = False
            if raw.startswith(_BOM):
                raw = raw[len(_BOM) :]
        return raw

    def _keep(self, raw: bytes) -> None:
        self.taken_size += len(raw)
        if self.taken_size > self.max_game:
            self._note(self.first_line or self.lineno, f"game longer than {self.max_game} bytes")
            self.taken = [b"%\n"]
            return
        self.taken.append(raw)

    def _note(self, line: int, message: str) -> None:
        if self.problem is None:
            self.problem = (line, message)

    def _follow(self, text: str) -> None:
        """Track comments in the movetext like python-chess's skipper (headers first)."""
        if "\x00" in text:
            self._note(self.lineno, "NUL byte in the game (binary data?)")
        if not self.in_movetext:
            if text.isspace() or text.startswith(("[", "%", ";")):
                return
            self.in_movetext = True
        if not self.comment_line and text.startswith("%"):
            return
        for match in _TOKENS.finditer(text):
            token = match.group(0)
            if token == "{":
                if not self.comment_line:
                    self.comment_line = self.lineno
            elif token == "}":
                self.comment_line = 0
            elif not self.comment_line:  # ";": the rest of the line is a comment
                break

    def cut(self) -> tuple[bytes, int, tuple[int, str] | None]:
        """Return the bytes consumed since the last cut, the first content line, the problem."""
        data = b"".join(self.taken)
        result = (data, self.first_line, self.problem)
        self.taken = []
        self.taken_size = 0
        self.first_line = 0
        self.problem = None
        self.in_movetext = False
        self.comment_line = 0
        self.ended = False
        return result


Scanned = tuple[int, int, bytes, tuple[int, str] | None]


def scan_file(
    path: str,
    first_number: int = 1,
    *,
    max_line: int = MAX_LINE_BYTES,
    max_game: int = MAX_GAME_BYTES,
) -> Iterator[tuple[Scanned, int]]:
    """Yield ((number, first line, raw bytes, problem), raw file position) per game of `path`.

    Only game boundaries are found (python-chess `skip_game`); no move is parsed.
    """
    stream, raw = open_binary(path)
    try:
        for game in _scan(_LineReader(stream, path, max_line, max_game), first_number):
            yield game, _tell(raw)
    finally:
        if path != STDIN:
            stream.close()
            raw.close()


def _scan(reader: _LineReader, number: int) -> Iterator[Scanned]:
    while chess.pgn.skip_game(reader):  # type: ignore[arg-type]  # readline is all it uses
        data, line, problem = reader.cut()
        yield number, line, data, problem
        number += 1


def games_in_text(path: str, text: str, first_number: int = 1) -> Iterator[GameText]:
    """The games of PGN `text` already in memory, split exactly as a file named `path` is."""
    stream = io.BytesIO(text.encode("utf-8", "surrogateescape"))
    for number, line, data, problem in _scan(_LineReader(stream, path), first_number):
        yield GameText(number, path, line, decode(data), problem)


def _tell(raw: IO[bytes]) -> int:
    try:
        return raw.tell()
    except (OSError, ValueError):
        return 0


class Work(Protocol):
    """One task's games: a `Partition` carrying them, or a range a worker reads itself
    (`ranges.FileRange`, `cqldb.IndexRange`, with `--shared-input`)."""

    @property
    def path(self) -> str:
        """The input the games come from."""

    @property
    def first_number(self) -> int:
        """Number of the first game."""

    @property
    def last_number(self) -> int:
        """Number of the last game."""

    @property
    def file_index(self) -> int:
        """Place of the input among the inputs (progress)."""

    @property
    def end_pos(self) -> int:
        """Where the games end in the input (progress)."""

    def __len__(self) -> int:
        """How many games are evaluated or counted as skipped."""

    def games(self) -> Iterator[GameText]:
        """The games, in order."""


class Indexed(Protocol):
    """A reader of inputs that are not PGN files (cqldb.IndexInput)."""

    def ranges(
        self, path: str, file_index: int, number: int, first: int, last: int | None,
        split_size: int,
    ) -> Generator[Work, None, int]:
        """Like `partitions`, as ranges of about `split_size` bytes that workers read."""

    def handles(self, path: str) -> bool:
        """Whether `path` is read by this reader."""

    def partitions(
        self, path: str, file_index: int, number: int, first: int, last: int | None
    ) -> Generator[Partition, None, int]:
        """The partitions of `path`, games numbered from `number`; returns the next number."""


def partitions(
    paths: Sequence[str],
    *,
    first: int = 1,
    last: int | None = None,
    max_games: int = MAX_PARTITION_GAMES,
    max_bytes: int = MAX_PARTITION_BYTES,
    max_line: int = MAX_LINE_BYTES,
    max_game: int = MAX_GAME_BYTES,
    indexed: Indexed | None = None,
) -> Iterator[Partition]:
    """Split the files, in order, into partitions of consecutive games
    (docs/cql.md#parallel-and-compressed-input).

    Game numbers continue across files; a partition never spans two files. Games outside
    `[first, last]` consume their numbers but are left out, and reading stops after `last`.
    Inputs that `indexed` handles (index databases) are read through it.
    """
    next_number = 1
    for index, path in enumerate(paths):
        if indexed is not None and indexed.handles(path):
            next_number = yield from indexed.partitions(path, index, next_number, first, last)
        else:
            next_number = yield from file_partitions(
                path, index, next_number, first, last, max_games=max_games,
                max_bytes=max_bytes, max_line=max_line, max_game=max_game,
            )  # fmt: skip
        if last is not None and next_number > last:
            return


def file_partitions(
    path: str,
    index: int,
    next_number: int,
    first: int,
    last: int | None,
    *,
    max_games: int = MAX_PARTITION_GAMES,
    max_bytes: int = MAX_PARTITION_BYTES,
    max_line: int = MAX_LINE_BYTES,
    max_game: int = MAX_GAME_BYTES,
) -> Generator[Partition, None, int]:
    """The partitions of one PGN file, games numbered from `next_number`; returns the
    number after its last game (or after `last`, where reading stopped)."""
    chunks: list[bytes] = []
    starts: list[int] = []
    lines: list[int] = []
    problems: list[tuple[int, int, str]] = []
    size = 0
    pos = 0
    part_first = 0
    scanned = scan_file(path, next_number, max_line=max_line, max_game=max_game)
    for (number, line, data, problem), pos in scanned:
        next_number = number + 1
        if last is not None and number > last:
            break
        if number < first:
            continue
        if not starts:
            part_first = number
        if problem is not None:
            problems.append((len(starts), *problem))
        starts.append(size)
        lines.append(line)
        chunks.append(data)
        size += len(data)
        if len(starts) >= max_games or size >= max_bytes:
            yield _partition(path, part_first, chunks, starts, lines, problems, index, pos)
            chunks, starts, lines, problems, size = [], [], [], [], 0
    if starts:
        yield _partition(path, part_first, chunks, starts, lines, problems, index, pos)
    return next_number


def line_reader(stream: IO[bytes], path: str, lineno: int, at_start: bool) -> _LineReader:
    """A game splitter over `stream`, as if `lineno` lines (at_start: none) were read
    before it; it cuts games exactly as `scan_file` does from a game boundary on."""
    return _LineReader(stream, path, lineno=lineno, at_start=at_start)


def _partition(
    path: str, first: int, chunks: list[bytes], starts: list[int], lines: list[int],
    problems: list[tuple[int, int, str]], index: int, pos: int,
) -> Partition:
    return Partition(
        path, first, lines[0], b"".join(chunks), tuple(starts), tuple(lines), index, pos,
        tuple(problems),
    )


def iter_games(
    paths: Sequence[str],
    *,
    first: int = 1,
    last: int | None = None,
    max_line: int = MAX_LINE_BYTES,
    max_game: int = MAX_GAME_BYTES,
) -> Iterator[GameText]:
    """Every game of the files in order (within `[first, last]`), streamed one at a time."""
    for part in partitions(paths, first=first, last=last, max_line=max_line, max_game=max_game):
        yield from part.games()
