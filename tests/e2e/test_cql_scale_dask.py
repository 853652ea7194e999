"""cql --scheduler against a real `distributed.LocalCluster` with 2 worker processes (§1.5).

Output, stdout (apart from the time) and exit code must equal a `--jobs 1` run.
The default run uses the first 300 games of the shipped lichess file (two partitions); the
whole file is checked by the slow variant (`make test-all`).
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from pgn_data import LICHESS, PROBLEMS, masters

distributed = pytest.importorskip("distributed")


CQL = str(Path(sys.executable).with_name("cql"))
TIME = re.compile(r", \d+\.\d\d s$", re.M)

QUERIES = {
    "attacks": "cql() flipcolor { R attacks q  not q attacks R }",
    "sorted": 'cql() mate  sort "length" ply  message("mate in game at ply " ply)',
    "sum": "cql(quiet) if move capture . then persistent Captures += 1  false",
}


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    """The address of a local cluster of 2 single-threaded worker processes."""
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as cluster:
        yield cluster.scheduler_address


def cql(tmp: Path, query: str, *args: str) -> tuple[int, str, str, bytes]:
    """Run cql in `tmp`; return (exit code, stdout without the time, stderr, output bytes)."""
    (tmp / "q.cql").write_text(query + "\n")
    out = tmp / "out.pgn"
    out.unlink(missing_ok=True)
    proc = subprocess.run(
        [CQL, "-o", str(out), "q.cql", *args], cwd=tmp, capture_output=True, text=True,
        timeout=1200,
    )
    data = out.read_bytes() if out.exists() else b""
    return proc.returncode, TIME.sub(", T s", proc.stdout), proc.stderr, data


def _compare(
    tmp: Path, scheduler: str, name: str, games: str, *extra: str, split: str | None = None
) -> None:
    local = cql(tmp, QUERIES[name], "--jobs", "1", *extra, games)
    shared = ("--shared-input", "--split-size", split) if split is not None else ()
    remote = cql(tmp, QUERIES[name], "--scheduler", scheduler, *shared, *extra, games)
    assert local[0] == 0, local[2]
    assert remote[0] == local[0], remote[2]
    assert remote[1] == local[1]
    assert remote[3] == local[3]
    if name == "sum":
        assert re.match(r"Captures: [1-9]\d*\n", local[1])
    elif name == "sorted":
        assert local[3].count(b"[Event ") > 0 and "mate in game at ply" in local[1]
    # "attacks" (spec A34) matches nothing: a rook attacking a queen is always attacked back.


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_scheduler_output_is_byte_identical_to_jobs_1(
    tmp_path: Path, scheduler: str, name: str
) -> None:
    _compare(tmp_path, scheduler, name, str(LICHESS), "--gamenumber", "1-300")


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(QUERIES))
def test_scheduler_on_the_whole_masters_file(tmp_path: Path, scheduler: str, name: str) -> None:
    _compare(tmp_path, scheduler, name, str(masters()))


@pytest.mark.slow
def test_a34_jobs_1_jobs_4_and_scheduler_agree(tmp_path: Path, scheduler: str) -> None:
    games = str(masters())
    runs = [
        cql(tmp_path, QUERIES["attacks"], *args, games)
        for args in (["--jobs", "1"], ["--jobs", "4"], ["--scheduler", scheduler])
    ]
    assert all(run[0] == 0 for run in runs)
    assert runs[0][1] == runs[1][1] == runs[2][1]
    assert runs[0][3] == runs[1][3] == runs[2][3]
    assert "12902 games read" in runs[0][1]


def test_reducible_sum_on_fixture_f2(tmp_path: Path, scheduler: str) -> None:
    pgn = tmp_path / "f2.pgn"
    pgn.write_text("1. e4 f6 2. Qh5+ g6 3. Qxg6+ hxg6 *\n\n1. e4 e5 *\n")
    (tmp_path / "q.cql").write_text("cql(quiet) if check then persistent Checks += 1  false\n")
    proc = subprocess.run(
        [CQL, "--jobs", "2", "--scheduler", scheduler, "q.cql", str(pgn)], cwd=tmp_path,
        capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == "Checks: 2"
    assert "cql: note: --jobs is ignored with --scheduler" in proc.stderr


def test_non_reducible_persistent_variable_is_refused(tmp_path: Path, scheduler: str) -> None:
    code, out, err, data = cql(
        tmp_path, "cql() persistent Last = ply  false", "--scheduler", scheduler, str(LICHESS)
    )
    assert code == 2 and not data and out == ""
    assert err.startswith(
        "cql: error: persistent variable 'Last' is not a reducible sum; "
        "it cannot be used with --scheduler"
    )


def test_unreachable_scheduler_exits_3(tmp_path: Path) -> None:
    code, _, err, data = cql(tmp_path, "cql() mate", "--scheduler", "tcp://127.0.0.1:9", str(LICHESS))
    assert code == 3 and not data
    assert err.startswith("cql: error: cannot reach the scheduler at tcp://127.0.0.1:9")


def test_standard_input_cannot_go_to_a_cluster(tmp_path: Path) -> None:
    code, _, err, _ = cql(tmp_path, "cql() mate", "--scheduler", "tcp://127.0.0.1:9", "-")
    assert code == 2 and "standard input" in err


@pytest.mark.parametrize("split", ["100", "2000", "65536", "1000000"])
def test_shared_input_workers_read_their_own_ranges(
    tmp_path: Path, scheduler: str, split: str
) -> None:
    """--shared-input: workers cut the file themselves (ranges cutting games in the middle,
    more ranges than games for the small file); output equals the client-side split."""
    tiny = tmp_path / "tiny.pgn"
    tiny.write_bytes(PROBLEMS.read_bytes()[:3000])  # 12 games: 30 ranges of 100 bytes
    _compare(tmp_path, scheduler, "sorted", str(tiny), split=split)
    if int(split) < 2000:
        return
    _compare(tmp_path, scheduler, "sorted", str(PROBLEMS), split=split)
    _compare(tmp_path, scheduler, "sum", str(LICHESS), "--gamenumber", "20-300", split=split)


def test_shared_input_needs_scheduler(tmp_path: Path) -> None:
    code, _, err, _ = cql(tmp_path, QUERIES["sum"], "--shared-input", str(PROBLEMS))
    assert code == 2 and "--shared-input needs --scheduler" in err


def test_shared_input_workers_read_index_ranges(tmp_path: Path, scheduler: str) -> None:
    """--shared-input over an index database: workers read ranges of game numbers."""
    db = tmp_path / "g.cqldb"
    subprocess.run([CQL, "index", str(db), str(PROBLEMS)], check=True, capture_output=True)
    for split in ("2000", "1000000"):
        _compare(tmp_path, scheduler, "sorted", str(db), split=split)
