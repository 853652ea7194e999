"""The index database of `cql index` (docs/reference/cql.md#index-databases): one SQLite file.

Each game is stored as the exact bytes the PGN split cut for it (zlib-compressed), with
its game number, source file and first line, and any problem the split found, so that a
query over the index reads the very `GameText` a scan of the PGN files would have read:
output, messages and exit status are identical by construction. Beside it, the game's
summary (summary.py): a feature bit mask, the squares each piece stood on (one column
per piece) and, in table `material`, every material signature reached.

A query's necessary condition (conditions.py) becomes an SQL `WHERE`; the games it
rejects are passed on as *skipped* (`Partition.skipped`): counted as read, never
evaluated. A file made by another version of cql (or python-chess) is refused (`pgnio.InputError`).
"""

from __future__ import annotations

import os
import sqlite3
import zlib
from collections.abc import Generator, Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from esochess.cqlvars import pgnio
from esochess.cqlvars.conditions import ANY, All, AnyOf, Cond, Feature, Material, Occupies
from esochess.cqlvars.distributed import versions
from esochess.cqlvars.pgnio import InputError, Partition
from esochess.cqlvars.summary import BIT, PIECES, GameSummary, summarize
from esochess.fen import files

SUFFIX = ".cqldb"
#: The layout of the tables; a change of layout or of what a summary means bumps it.
FORMAT = "2"
#: Most games (evaluated or skipped) in one partition read from an index.
MAX_SPAN = 1 << 16
_BATCH = 512
_PIECE_COLUMNS = ", ".join(f"o{i} INTEGER NOT NULL" for i in range(12))
_MATERIAL_COLUMNS = ", ".join(f"m{i} INTEGER NOT NULL" for i in range(12))
_SCHEMA = f"""
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE sources (id INTEGER PRIMARY KEY, path TEXT NOT NULL);
CREATE TABLE games (
    number INTEGER PRIMARY KEY, source INTEGER NOT NULL, line INTEGER NOT NULL,
    problem_line INTEGER, problem TEXT, data BLOB NOT NULL,
    always INTEGER NOT NULL, flags INTEGER NOT NULL, {_PIECE_COLUMNS});
CREATE TABLE material (game INTEGER NOT NULL, {_MATERIAL_COLUMNS});
"""


def is_index(path: str) -> bool:
    """Whether an input names an index database (by its suffix)."""
    return path.lower().endswith(SUFFIX)


def stamp() -> dict[str, str]:
    """What a database records about the program that made it; compared on open."""
    cql, chess_version = versions()
    return {"format": FORMAT, "cql": cql, "python-chess": chess_version}


def _describe(meta: dict[str, str]) -> str:
    return (f"cql {meta.get('cql', '?')}, python-chess {meta.get('python-chess', '?')}, "
            f"index format {meta.get('format', '?')}")


def open_index(path: str, *, write: bool = False) -> sqlite3.Connection:
    """Open an existing index (read-only unless `write`) after checking it was made by this
    very program."""
    if not os.path.isfile(path):
        raise InputError(path, "no such index database" if not os.path.exists(path)
                             else "not a regular file")
    try:
        uri = f"{Path(path).absolute().as_uri()}?mode={'rw' if write else 'ro'}"
        db = sqlite3.connect(uri, uri=True)
    except sqlite3.Error as exc:
        raise InputError(path, f"cannot open: {exc}") from None
    try:
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
    except sqlite3.DatabaseError:
        db.close()
        raise InputError(path, "not an index database made by `cql index`") from None
    if meta != stamp():
        db.close()
        raise InputError(
            path, f"made by {_describe(meta)}; this is {_describe(stamp())}: rebuild it "
                  "with `cql index`")
    return db


def _count(db: sqlite3.Connection) -> int:
    """The number of games: they are numbered 1, 2, ... without gaps (`_fill`), so the
    largest number, read from the key's b-tree, instead of `count(*)`, which reads every
    page of the table (the stored games with their summaries: ≈ 1 KiB a game)."""
    return int(db.execute("SELECT coalesce(max(number), 0) FROM games").fetchone()[0])


def check(path: str) -> int:
    """Raise InputError unless `path` is a usable index; return its number of games."""
    with closing(open_index(path)) as db:
        return _count(db)


def _signed(mask: int) -> int:
    """A 64-bit square mask as the signed integer SQLite stores."""
    return mask - (1 << 64) if mask >= 1 << 63 else mask


def build(path: str, pgn_paths: Sequence[str]) -> tuple[int, int]:
    """Index the games of `pgn_paths` into `path`, creating it or appending to it.

    Returns (games added, games in the database). A new database appears only when it
    is complete; games appended to an existing one are added in one transaction, so a
    failed or interrupted run leaves it as it was.
    """
    if os.path.exists(path):
        with closing(open_index(path, write=True)) as db:
            try:
                return _fill(db, pgn_paths)
            except sqlite3.Error as exc:
                raise InputError(path, f"cannot write: {exc}") from None
    try:
        with files.output_path(path) as temporary, closing(sqlite3.connect(temporary)) as db:
            db.executescript(_SCHEMA)
            db.executemany("INSERT INTO meta VALUES (?, ?)", stamp().items())
            return _fill(db, pgn_paths)
    except sqlite3.Error as exc:
        raise InputError(path, f"cannot write: {exc}") from None
    except files.OutputError as exc:
        raise InputError(path, f"cannot write: {exc.reason}") from None


def _fill(db: sqlite3.Connection, pgn_paths: Sequence[str]) -> tuple[int, int]:
    db.commit()
    db.execute("PRAGMA synchronous = OFF")  # a failed run is rolled back or thrown away
    number = int(db.execute("SELECT coalesce(max(number), 0) FROM games").fetchone()[0]) + 1
    added = 0
    with db:  # one transaction: all or nothing
        for source in pgn_paths:
            cursor = db.execute("INSERT INTO sources (path) VALUES (?)", (source,))
            source_id = cursor.lastrowid
            games: list[tuple[Any, ...]] = []
            materials: list[tuple[int, ...]] = []
            for (num, line, data, problem), _ in pgnio.scan_file(source, number):
                summary = GameSummary(always=True) if problem is not None else summarize(
                    pgnio.decode(data))
                games.append((
                    num, source_id, line, problem[0] if problem else None,
                    problem[1] if problem else None, zlib.compress(data),
                    int(summary.always), summary.flags,
                    *(_signed(mask) for mask in summary.occupancy),
                ))
                materials.extend((num, *signature) for signature in summary.materials)
                number = num + 1
                added += 1
                if len(games) >= _BATCH:
                    _insert(db, games, materials)
            _insert(db, games, materials)
    total = _count(db)
    return added, total


def _insert(
    db: sqlite3.Connection, games: list[tuple[Any, ...]], materials: list[tuple[int, ...]]
) -> None:
    db.executemany(f"INSERT INTO games VALUES ({', '.join('?' * 20)})", games)
    db.executemany(f"INSERT INTO material VALUES ({', '.join('?' * 13)})", materials)
    games.clear()
    materials.clear()


# queries -----------------------------------------------------------------------------------
def where(cond: Cond) -> tuple[str, list[int]]:
    """The SQL condition (over table `games`) and its parameters for a necessary condition."""
    params: list[int] = []
    return _sql(cond, params), params


def _sql(cond: Cond, params: list[int]) -> str:
    match cond:
        case Occupies(pieces, squares):
            params.extend(_signed(squares) for _ in pieces)
            return "(" + " OR ".join(f"(o{PIECES.index(p)} & ?) != 0" for p in pieces) + ")"
        case Feature(name):
            params.append(BIT[name])
            return "(flags & ?) != 0"
        case Material(constraints):
            tests = []
            for pieces, op, n in constraints:
                params.append(n)
                total = " + ".join(f"m{PIECES.index(p)}" for p in pieces)
                tests.append(f"({total}) {'<>' if op == '!=' else op} ?")
            return f"number IN (SELECT game FROM material WHERE {' AND '.join(tests)})"
        case All(parts):
            return "(" + " AND ".join([_sql(p, params) for p in parts] or ["1"]) + ")"
        case AnyOf(parts):
            return "(" + " OR ".join([_sql(p, params) for p in parts] or ["0"]) + ")"


class IndexInput:
    """Reads the partitions of index inputs for `pgnio.partitions` (see `pgnio.Indexed`)."""

    def __init__(self, cond: Cond = ANY) -> None:
        self.cond = cond

    def handles(self, path: str) -> bool:
        """Whether this input is an index database."""
        return is_index(path)

    def partitions(
        self, path: str, file_index: int, number: int, first: int, last: int | None,
        max_games: int = pgnio.MAX_PARTITION_GAMES, max_bytes: int = pgnio.MAX_PARTITION_BYTES,
    ) -> Generator[Partition, None, int]:
        """The index's games as partitions numbered from `number`; returns the next number.

        Games failing the condition are in the partitions as skipped games; games outside
        `[first, last]` are left out.
        """
        with closing(open_index(path)) as db:
            total = _count(db)
            offset = number - 1
            low = max(first - offset, 1)
            high = total if last is None else min(last - offset, total)
            if low <= high:
                yield from _read(db, path, file_index, offset, low, high, total, self.cond,
                                 max_games, max_bytes)
            return number + total


    def ranges(
        self, path: str, file_index: int, number: int, first: int, last: int | None,
        split_size: int,
    ) -> Generator[IndexRange, None, int]:
        """The index's games as ranges of game numbers that the workers read from the
        database themselves (`--shared-input`), about `split_size` bytes of it each."""
        with closing(open_index(path)) as db:
            total = _count(db)
        offset = number - 1
        low = max(first - offset, 1)
        high = total if last is None else min(last - offset, total)
        size = os.path.getsize(path)
        span = max(1, total * split_size // max(size, 1))
        for start in range(low, high + 1, span):
            yield IndexRange(os.path.abspath(path), self.cond, file_index, offset, start,
                             min(start + span - 1, high), total)  # fmt: skip
        return number + total


@dataclass(frozen=True)
class IndexRange:
    """Games `low`..`high` (numbered in the database) of an index, read by a worker."""

    path: str
    cond: Cond
    file_index: int
    offset: int
    low: int
    high: int
    total: int

    @property
    def first_number(self) -> int:
        """Number of the first game in the run."""
        return self.offset + self.low

    @property
    def last_number(self) -> int:
        """Number of the last game in the run."""
        return self.offset + self.high

    @property
    def end_pos(self) -> int:
        """Where the range ends in the database file, by count (progress)."""
        return _position(os.path.getsize(self.path), self.offset, self.last_number, self.total)

    def __len__(self) -> int:
        return self.high - self.low + 1

    def games(self) -> Iterator[pgnio.GameText]:
        """Read the games from the database, exactly as the client-side read gives them."""
        with closing(open_index(self.path)) as db:
            for part in _read(db, self.path, self.file_index, self.offset, self.low, self.high,
                              self.total, self.cond, pgnio.MAX_PARTITION_GAMES,
                              pgnio.MAX_PARTITION_BYTES):  # fmt: skip
                yield from part.games()


def _read(
    db: sqlite3.Connection, path: str, file_index: int, offset: int, low: int, high: int,
    total: int, cond: Cond, max_games: int, max_bytes: int,
) -> Iterator[Partition]:
    sources = dict(db.execute("SELECT id, path FROM sources").fetchall())
    test, params = where(cond)
    rows = db.execute(
        "SELECT number, source, line, problem_line, problem, data FROM games "
        f"WHERE number BETWEEN ? AND ? AND (always OR {test}) ORDER BY number",
        [low, high, *params],
    )
    size = os.path.getsize(path)
    part = _Builder(offset + low)

    def flush() -> Partition:
        nonlocal part
        done, part = part, _Builder(part.first + part.count)
        return done.done(sources, file_index, _position(size, offset, done.first + done.count - 1,
                                                       total))

    for number, source, line, problem_line, problem, data in rows:
        at = offset + number
        while part.first + part.count < at:
            if part.count >= MAX_SPAN:
                yield flush()
            part.skip(min(at - part.first - part.count, MAX_SPAN - part.count))
        if part.evaluated and (part.source != source or part.evaluated >= max_games
                               or part.size >= max_bytes or part.count >= MAX_SPAN):
            yield flush()
        part.add(source, line, zlib.decompress(data),
                 None if problem is None else (problem_line, problem))
    while part.first + part.count <= offset + high:
        if part.count >= MAX_SPAN:
            yield flush()
        part.skip(min(offset + high + 1 - part.first - part.count, MAX_SPAN - part.count))
    if part.count:
        yield flush()


def _position(size: int, offset: int, done: int, total: int) -> int:
    """Where in the database file the progress bar stands after game `done` (by count)."""
    return size * (done - offset) // max(total, 1) if done > offset else 0


class _Builder:
    """One partition of an index being assembled, skipped games included."""

    def __init__(self, first: int) -> None:
        self.first = first
        self.source: int | None = None
        self.chunks: list[bytes] = []
        self.starts: list[int] = []
        self.lines: list[int] = []
        self.skipped: list[tuple[int, int]] = []
        self.problems: list[tuple[int, int, str]] = []
        self.size = 0
        self.evaluated = 0

    @property
    def count(self) -> int:
        return len(self.starts)

    def skip(self, games: int) -> None:
        """Add the next `games` games as skipped (one run, joined to a run just before)."""
        if self.skipped and sum(self.skipped[-1]) == self.count:
            start, run = self.skipped.pop()
            self.skipped.append((start, run + games))
        else:
            self.skipped.append((self.count, games))
        self.starts.extend([self.size] * games)
        self.lines.extend([0] * games)

    def add(self, source: int, line: int, data: bytes, problem: tuple[int, str] | None) -> None:
        """Add the next game, to be evaluated."""
        if problem is not None:
            self.problems.append((self.count, *problem))
        self.source = source
        self.starts.append(self.size)
        self.lines.append(line)
        self.chunks.append(data)
        self.size += len(data)
        self.evaluated += 1

    def done(self, sources: dict[int, str], file_index: int, end_pos: int) -> Partition:
        path = sources.get(self.source, "") if self.source is not None else ""
        return Partition(
            path, self.first, self.lines[0], b"".join(self.chunks), tuple(self.starts),
            tuple(self.lines), file_index, end_pos, tuple(self.problems), tuple(self.skipped),
        )
