"""ranges.py: workers' own byte ranges give exactly the games of the client-side split.

The cluster is replaced by a client that runs each task at once in this process; the
end-to-end run on a real LocalCluster is tests/e2e/test_cql_scale_dask.py.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pgn_data import LICHESS, PROBLEMS, STUDIES

from esochess.cqlvars import cqldb, pgnio, ranges
from esochess.cqlvars.engine import RunOptions, compile_query
from esochess.cqlvars.pgnio import GameText


class _Done:
    def __init__(self, value: object) -> None:
        self.value = value

    def result(self) -> object:
        return self.value


class InlineClient:
    """The part of a `distributed.Client` that `ranges.plan` uses, run in this process."""

    def __init__(self) -> None:
        self.tasks = 0

    def submit(self, fn: Callable[..., object], *args: object, **_: object) -> _Done:
        self.tasks += 1
        return _Done(fn(*args))

    def gather(self, futures: list[_Done]) -> list[Any]:
        return [future.value for future in futures]

    def cancel(self, futures: list[_Done]) -> None:
        del futures


def _games(work: list[ranges.Work]) -> list[GameText]:
    return [game for part in work for game in part.games()]


def _one_by_one(games: list[GameText]) -> list[tuple[int, object, int, str]]:
    """The games with each run of skipped games spelled out game by game."""
    out: list[tuple[int, object, int, str]] = []
    for g in games:
        if g.skipped:
            out.extend((g.number + i, "skipped", 0, "") for i in range(g.skipped))
        else:
            out.append((g.number, g.path, g.line, g.text))
    return out


def _compare(path: Path, split: int, first: int = 1, last: int | None = None) -> None:
    plain = _games(list(pgnio.partitions([str(path)], first=first, last=last)))
    work = list(ranges.plan([str(path)], InlineClient(), split_size=split, first=first,
                            last=last))  # fmt: skip
    assert all(isinstance(part, ranges.FileRange) for part in work)
    mine = _games(work)
    assert [(g.number, g.path, g.line, g.text, g.problem) for g in mine] == [
        (g.number, g.path, g.line, g.text, g.problem) for g in plain
    ]
    assert sum(len(part) for part in work) == len(plain)


TRICKY = (
    "\ufeff[Event \"bom\"]\n\n1. e4 e5 *\n\n\n\n"  # a BOM, then several blank lines
    "[Event \"crlf\"]\r\n\r\n1. d4 { a comment\r\nover lines } d5 *\r\n\r\n"
    "[Event \"unclosed\"]\n\n1. c4 { never closed\n"
    "[Event \"after\"]\n\n1. Nf3 *\n"  # no blank line before the next game
    "[Event \"tight\"]\n1. g3 *\n\n"
    "% an escape line\n; a comment line\n"
    "[Event \"comment holds a tag\"]\n\n1. b3 {\n\n[Event \"not a game\"]\n} *\n\n"
    "[Event \"headers only\"]\n[Site \"x\"]\n\n"
    "[Event \"last\"]\n\n1. a3 *\n\n\n"
)


@pytest.mark.parametrize("split", [1, 7, 50, 333, 10**9])
def test_tricky_text_splits_identically(tmp_path: Path, split: int) -> None:
    path = tmp_path / "tricky.pgn"
    path.write_bytes(TRICKY.encode())
    _compare(path, split)


@pytest.mark.parametrize("path", [PROBLEMS, STUDIES])
@pytest.mark.parametrize("split", [4096, 100_000])
def test_shipped_files_split_identically(path: Path, split: int) -> None:
    _compare(path, split)


def test_gamenumber_range_and_more_ranges_than_games(tmp_path: Path) -> None:
    _compare(LICHESS, 65_536, first=40, last=300)
    path = tmp_path / "two.pgn"
    path.write_text('[Event "a"]\n\n1. e4 *\n\n[Event "b"]\n\n1. d4 *\n')
    _compare(path, 3)  # a dozen ranges for two games


def test_a_relative_path_keeps_its_name_in_the_games(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "rel.pgn").write_text(TRICKY)
    monkeypatch.chdir(tmp_path)
    _compare(Path("rel.pgn"), 40)


def test_empty_file_gives_no_work(tmp_path: Path) -> None:
    path = tmp_path / "empty.pgn"
    path.write_bytes(b"")
    assert list(ranges.plan([str(path)], InlineClient())) == []


def test_other_inputs_keep_the_client_side_split(tmp_path: Path) -> None:
    compressed = tmp_path / "g.pgn.gz"
    compressed.write_bytes(b"")
    assert not ranges.workers_read(str(compressed), None)
    assert not ranges.workers_read(pgnio.STDIN, None)
    assert ranges.workers_read(str(PROBLEMS), None)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    text=st.lists(
        st.sampled_from([
            '[Event "g"]\n', "\n", "\n\n", "1. e4 e5 *\n", "{ open\n", "} *\n", "1. d4 ; rest\n",
            "% esc\n", '[Site "s"]\n', "\r\n",
        ]),
        max_size=40,
    ),
    split=st.integers(min_value=1, max_value=64),
)
def test_any_text_splits_identically(tmp_path: Path, text: list[str], split: int) -> None:
    path = tmp_path / "any.pgn"
    path.write_bytes("".join(text).encode())
    _compare(path, split)


def test_a_worker_that_cannot_open_the_file_reports_it(tmp_path: Path) -> None:
    path = tmp_path / "gone.pgn"
    path.write_text('[Event "a"]\n\n1. e4 *\n')
    (work,) = ranges.plan([str(path)], InlineClient())
    path.unlink()
    with pytest.raises(pgnio.InputError, match="gone.pgn"):
        list(work.games())


@pytest.mark.parametrize("split", [1, 20_000, 10**9])
def test_index_ranges_read_the_games_of_the_client_side_read(tmp_path: Path, split: int) -> None:
    db = str(tmp_path / "g.cqldb")
    cqldb.build(db, [str(PROBLEMS), str(STUDIES)])
    source = "cql() mate"
    compiled = compile_query("q.cql", source, {}, RunOptions())
    index = cqldb.IndexInput(compiled.necessary)
    for first, last in ((1, None), (100, 950)):
        paths = [str(PROBLEMS), db]  # numbering continues from a plain file into the index
        plain = _games(list(pgnio.partitions(paths, first=first, last=last, indexed=index)))
        work = list(ranges.plan(paths, InlineClient(), split_size=split, first=first,
                                last=last, indexed=index))  # fmt: skip
        assert any(isinstance(part, cqldb.IndexRange) for part in work)
        # A skipped game is never read: its path is whatever its partition's is, and a
        # run of them may be cut differently by ranges and partitions.
        assert _one_by_one(_games(work)) == _one_by_one(plain)
        if last is None:  # the index both skips and evaluates games
            assert any(g.skipped for g in plain) and any(not g.skipped for g in plain)
