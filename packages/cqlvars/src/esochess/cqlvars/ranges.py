"""`--shared-input`: Dask workers read their own byte ranges of a plain PGN file.

The client only stats the file and cuts it into ranges of `--split-size` bytes; it never
reads it. Two rounds of tasks keep the split game-exact (docs/cql.md#running-on-a-dask-cluster):

1. *count*: each worker moves to the first line at or after its range start that looks like
   a game's start (an `[Event` tag), splits games from there exactly as `pgnio.scan_file`
   does, and reports where its games start and end, how many there are and how many lines
   they span. A game belongs to the range its bytes start in.
2. The client checks that every range starts exactly where the previous one ended (so each
   start is a true game boundary, by induction from the start of the file); a range whose
   guess was wrong is counted again from the previous range's end. Prefix sums of games
   and lines then give each range its first game number and line, and *evaluate* tasks
   read the ranges again, numbering games and lines exactly as a client-side split would.
"""

from __future__ import annotations

import os
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass
from typing import IO, Any

import chess.pgn

from esochess.cqlvars import pgnio
from esochess.cqlvars.pgnio import GameText

#: Default `--split-size`: bytes of input per worker task.
SPLIT_SIZE = 32 * 1024 * 1024
RETRIES = 2
_EVENT = b"[Event"


class _Counted:
    """A binary stream that counts the bytes read through `readline`."""

    def __init__(self, raw: IO[bytes], pos: int) -> None:
        self.raw = raw
        self.pos = pos

    def readline(self, size: int = -1) -> bytes:
        line = self.raw.readline(size)
        self.pos += len(line)
        return line


def _sync(raw: IO[bytes], start: int) -> int:
    """Where the first game whose text begins at or after `start` most likely begins.

    A guess (the count round checks it): the first `[Event` line at or after `start`, or
    the second line of the blank lines before it (python-chess ends a game at its first
    blank line after the moves, so further blank lines open the next game's text).
    """
    if start == 0:
        return 0
    raw.seek(start - 1)
    pos = start - 1 + len(raw.readline())  # the first line start at or after `start`
    blank_run: list[int] = []
    for line in iter(raw.readline, b""):
        if line.startswith(_EVENT):
            return blank_run[1] if len(blank_run) >= 2 else pos
        blank_run = blank_run + [pos] if line.isspace() else []
        pos += len(line)
    return pos


@dataclass(frozen=True)
class RangeCount:
    """What the count round found in one range: its games start at `start` and end at
    `end` (the next range's start), `games` games over `lines` lines."""

    start: int
    end: int
    games: int
    lines: int


def _split(
    path: str, start: int, stop: int, lineno: int, number: int, name: str | None = None
) -> Iterator[tuple[int, tuple[bytes, int, tuple[int, str] | None] | None, int, int]]:
    """Yield (number, game or None at the end, end position, lines read) per game of the
    range: games whose text starts at `start` or later and before `stop`. `name`: the
    path as the user gave it, for messages (default `path`)."""
    name = path if name is None else name
    try:
        raw = open(path, "rb")
    except OSError as exc:
        raise pgnio.InputError(name, exc.strerror or str(exc)) from None
    with raw:
        raw.seek(start)
        counted = _Counted(raw, start)
        reader = pgnio.line_reader(counted, name, lineno, start == 0)  # type: ignore[arg-type]
        while True:
            back = len(reader.pushed[0]) if reader.pushed is not None else 0
            here = counted.pos - back
            if here >= stop or not chess.pgn.skip_game(reader):  # type: ignore[arg-type]
                yield number, None, here, reader.lineno - (1 if back else 0)
                return
            yield number, reader.cut(), here, reader.lineno
            number += 1


def count_range(path: str, start: int, stop: int, guess: bool) -> RangeCount:
    """The count task: games of the range from `start` (a guessed boundary when `guess`)."""
    if guess:
        with open(path, "rb") as raw:
            start = _sync(raw, start)
    games = 0
    for _, game, end, lines in _split(path, start, stop, 0, 0):
        if game is None:
            return RangeCount(start, end, games, lines)
        games += 1
    raise AssertionError("the split always ends with its end marker")


@dataclass(frozen=True)
class FileRange:
    """The evaluate task's input: games of `path` whose text starts in [start, stop),
    numbered from `first_number`, the first on a line after `lines_before` lines.
    Only games numbered within [first, last] are evaluated. `path` is the file as the user
    named it (in messages), `location` its absolute path (what the worker opens)."""

    path: str
    location: str
    start: int
    stop: int
    first_number: int
    lines_before: int
    count: int
    first: int
    last: int | None
    file_index: int

    def __len__(self) -> int:
        low = max(self.first, self.first_number)
        high = self.first_number + self.count - 1
        if self.last is not None:
            high = min(high, self.last)
        return max(0, high - low + 1)

    @property
    def last_number(self) -> int:
        """Number of the range's last game."""
        return self.first_number + self.count - 1

    @property
    def end_pos(self) -> int:
        """Where the range ends in its file (progress)."""
        return self.stop

    def games(self) -> Iterator[GameText]:
        """Read the range's games from the file, as the client-side split cuts them."""
        split = _split(self.location, self.start, self.stop, self.lines_before,
                       self.first_number, self.path)  # fmt: skip
        for number, game, _, _ in split:
            if game is None or (self.last is not None and number > self.last):
                return
            if number >= self.first:
                data, line, problem = game
                yield GameText(number, self.path, line, pgnio.decode(data), problem)


Work = pgnio.Work


def workers_read(path: str, indexed: pgnio.Indexed | None) -> bool:
    """Whether the workers split `path` themselves under `--shared-input`: plain PGN files
    (index databases are read by the workers in ranges of game numbers)."""
    return (
        path != pgnio.STDIN
        and not pgnio.is_compressed(path)
        and not (indexed is not None and indexed.handles(path))
        and os.path.isfile(path)
    )


def plan(
    paths: Sequence[str],
    client: Any,
    *,
    split_size: int = SPLIT_SIZE,
    first: int = 1,
    last: int | None = None,
    indexed: pgnio.Indexed | None = None,
) -> Iterator[Work]:
    """The work of a `--shared-input` run, in game order: ranges of the plain files
    (counted on the cluster) and of the index databases (ranges of game numbers),
    client-side partitions of compressed files."""
    number = 1
    for index, path in enumerate(paths):
        if workers_read(path, indexed):
            number = yield from _file_ranges(
                client, path, index, number, first, last, split_size
            )
        elif indexed is not None and indexed.handles(path):
            number = yield from indexed.ranges(path, index, number, first, last, split_size)
        else:
            number = yield from pgnio.file_partitions(path, index, number, first, last)
        if last is not None and number > last:
            return


def _file_ranges(
    client: Any, path: str, index: int, number: int, first: int, last: int | None,
    split_size: int,
) -> Generator[FileRange, None, int]:
    location = os.path.abspath(path)
    size = os.path.getsize(location)
    cuts = list(range(0, size, max(1, split_size))) + [size]
    futures = [
        client.submit(count_range, location, low, high, low > 0, retries=RETRIES, pure=False)
        for low, high in zip(cuts, cuts[1:], strict=False)
    ]
    try:
        counts: list[RangeCount] = client.gather(futures)
    finally:
        client.cancel(futures)
    expected = lines = 0
    for high, count in zip(cuts[1:], counts, strict=True):
        if count.start != expected:  # the guess was not a game boundary: count again
            count = client.submit(
                count_range, location, expected, high, False, retries=RETRIES, pure=False
            ).result()
        work = FileRange(path, location, count.start, count.end, number, lines, count.games, first,
                         last, index)  # fmt: skip
        if len(work):
            yield work
        number += count.games
        lines += count.lines
        expected = count.end
        if last is not None and number > last:
            break
    return number
