"""`cql index` and `cql QUERY DB.cqldb` end to end: the same output file, stdout (apart from
the time), stderr and exit code as the scan of the PGN files, in every mode; appending;
refusing a database of another version; nothing left behind by a failed run."""

from __future__ import annotations

import gzip
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from pgn_data import LICHESS, PROBLEMS

from esochess.cqlvars import pgnio

CQL = str(Path(sys.executable).with_name("cql"))
TIME = re.compile(r", \d+\.\d\d s$", re.M)
BAD = (
    '[Event "bad"]\n\n1. e4 e5 2. Ke3 *\n\n'
    '[Event "open comment"]\n\n1. e4 { never closed\n\n'
    '[Event "mate"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n\n'
)
QUERIES = {
    "mate": "cql() mate",
    "under": "cql() move promote [RBN]",
    "ending": "cql() [QqBbNn] == 0 and #R == 1 and #r == 1",
    "message": 'cql() mate message("mate at ply " ply)',
    "sum": "cql(quiet) if move capture . then persistent Captures += 1  false",
    "sorted": 'cql() mate sort "length" ply',
}


def run(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CQL, *args], cwd=tmp, capture_output=True, text=True, timeout=600)


def cql(tmp: Path, query: str, *args: str) -> tuple[int, str, str, bytes]:
    """Run a query; return (exit code, stdout without the time, stderr, output bytes)."""
    (tmp / "q.cql").write_text(query + "\n")
    out = tmp / "out.pgn"
    out.unlink(missing_ok=True)
    proc = run(tmp, "-o", str(out), "q.cql", *args)
    data = out.read_bytes() if out.exists() else b""
    return proc.returncode, TIME.sub(", T s", proc.stdout), proc.stderr, data


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory with a.pgn (300 lichess games), b.pgn (100 problems, bad games), and
    their index ab.cqldb, made by two `cql index` runs (the second appends)."""
    tmp = tmp_path_factory.mktemp("index")
    with open(tmp / "a.pgn", "wb") as out:
        for part in pgnio.partitions([str(LICHESS)], last=300):
            out.write(part.data)
    problems = b"".join(p.data for p in pgnio.partitions([str(PROBLEMS)], last=100))
    (tmp / "b.pgn").write_bytes(problems + BAD.encode())
    first = run(tmp, "index", "ab.cqldb", "a.pgn")
    assert first.returncode == 0, first.stderr
    assert re.fullmatch(r"cql index: 300 games added to ab.cqldb \(300 in all\), [\d.]+ s\n",
                        first.stdout)
    second = run(tmp, "index", "ab.cqldb", "b.pgn")
    assert second.returncode == 0, second.stderr
    assert "games added to ab.cqldb" in second.stdout
    return tmp


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_index_gives_what_the_scan_gives(inputs: Path, name: str) -> None:
    scanned = cql(inputs, QUERIES[name], "--jobs", "1", "a.pgn", "b.pgn")
    assert scanned[0] == 1 and "game skipped" in scanned[2]  # the bad games are reported
    assert cql(inputs, QUERIES[name], "--jobs", "1", "ab.cqldb") == scanned


@pytest.mark.parametrize("extra", [["--jobs", "2"], ["--gamenumber", "250-400"],
                                   ["--limit", "3"], ["--variations"]])
@pytest.mark.parametrize("name", ["mate", "under"])  # under: long runs of ruled-out games
def test_options_over_an_index(inputs: Path, extra: list[str], name: str) -> None:
    scanned = cql(inputs, QUERIES[name], *extra, "a.pgn", "b.pgn")
    assert cql(inputs, QUERIES[name], *extra, "ab.cqldb") == scanned


def test_an_index_among_other_inputs_numbers_on(inputs: Path) -> None:
    scanned = cql(inputs, QUERIES["message"], "b.pgn", "a.pgn", "b.pgn")
    run(inputs, "index", "b.cqldb", "b.pgn")
    assert cql(inputs, QUERIES["message"], "b.cqldb", "a.pgn", "b.cqldb") == scanned


def test_a_database_of_another_version_is_refused(inputs: Path, tmp_path: Path) -> None:
    db = tmp_path / "old.cqldb"
    db.write_bytes((inputs / "ab.cqldb").read_bytes())
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE meta SET value = '0.0.1' WHERE key = 'cql'")
    (tmp_path / "q.cql").write_text("cql() mate\n")
    for args in (["q.cql", "old.cqldb"], ["index", "old.cqldb", str(inputs / "a.pgn")]):
        proc = run(tmp_path, *args)
        assert proc.returncode == 2
        assert "old.cqldb: made by cql 0.0.1" in proc.stderr
        assert "rebuild it with `cql index`" in proc.stderr and "Traceback" not in proc.stderr


def test_a_read_only_index_can_be_queried(inputs: Path, tmp_path: Path) -> None:
    db = tmp_path / "ro #1.cqldb"
    db.write_bytes((inputs / "ab.cqldb").read_bytes())
    db.chmod(0o444)
    scanned = cql(inputs, QUERIES["under"], "--jobs", "1", "a.pgn", "b.pgn")
    assert cql(inputs, QUERIES["under"], "--jobs", "1", str(db)) == scanned


def test_not_an_index(tmp_path: Path) -> None:
    (tmp_path / "x.cqldb").write_text("[Event \"?\"]\n\n1. e4 *\n")
    (tmp_path / "q.cql").write_text("cql() mate\n")
    proc = run(tmp_path, "q.cql", "x.cqldb")
    assert proc.returncode == 2 and "x.cqldb: not an index database" in proc.stderr
    proc = run(tmp_path, "index", "x.pgn", "q.cql")
    assert proc.returncode == 2 and "must end in .cqldb" in proc.stderr


def test_a_failed_index_run_leaves_nothing(inputs: Path, tmp_path: Path) -> None:
    whole = gzip.compress((inputs / "a.pgn").read_bytes())
    (tmp_path / "cut.pgn.gz").write_bytes(whole[: len(whole) // 2])
    proc = run(tmp_path, "index", "new.cqldb", "cut.pgn.gz")
    assert proc.returncode == 1 and "cut.pgn.gz" in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cut.pgn.gz"]
    # Appending is one transaction: the database keeps what it had.
    db = tmp_path / "ab.cqldb"
    db.write_bytes((inputs / "ab.cqldb").read_bytes())
    before = cql(tmp_path, QUERIES["mate"], "ab.cqldb")
    proc = run(tmp_path, "index", "ab.cqldb", "cut.pgn.gz")
    assert proc.returncode == 1
    assert cql(tmp_path, QUERIES["mate"], "ab.cqldb") == before


def test_scheduler_over_an_index(inputs: Path) -> None:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as cluster:
        remote = cql(inputs, QUERIES["sum"], "--scheduler", cluster.scheduler_address,
                     "ab.cqldb")
    assert remote == cql(inputs, QUERIES["sum"], "--jobs", "1", "a.pgn", "b.pgn")
