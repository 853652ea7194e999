"""cql --jobs, compressed input and --progress, end to end (spec §1.2, §1.4, §1.8).

Every run goes through the real `cql` console script. The inputs are a few hundred real
games, enough for two partitions of 256, so `--jobs 2/3` really use a process pool.
"""

from __future__ import annotations

import bz2
import gzip
import os
import pty
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import zstandard
from child_processes import finish
from pgn_data import LICHESS

CQL = str(Path(sys.executable).with_name("cql"))
TIME = re.compile(r", \d+\.\d\d s$", re.M)

BROKEN = '[Event "bad"]\n[White "DrDrunkenstein"]\n\n1. e4 e5 2. Ke3 *\n\n'


@dataclass
class Result:
    """Exit code, stdout without the timing, stderr and the output file's bytes."""

    code: int
    out: str
    err: str
    pgn: bytes


def run(tmp: Path, query: str, *args: str, name: str = "out.pgn") -> Result:
    """Run `cql -o NAME q.cql ARGS...` in `tmp`."""
    (tmp / "q.cql").write_text(query + "\n")
    proc = subprocess.run(
        [CQL, "-o", name, "q.cql", *args], cwd=tmp, capture_output=True, text=True,
        timeout=300,
    )
    out = TIME.sub(", T s", proc.stdout)
    pgn = (tmp / name).read_bytes() if (tmp / name).exists() else b""
    return Result(proc.returncode, out, proc.stderr, pgn)


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """300 lichess games with a broken one at game 280: two partitions, one PGN error."""
    text = LICHESS.read_bytes().decode("utf-8", "surrogateescape")
    chunks = text.split("\n\n[Event")
    head = "\n\n[Event".join(chunks[:279]) + "\n\n"
    tail = "[Event" + "\n\n[Event".join(chunks[279:299]) + "\n\n"
    path = tmp_path_factory.mktemp("jobs") / "games.pgn"
    path.write_text(head + BROKEN + tail, encoding="utf-8", errors="surrogateescape")
    return path


QUERIES = {
    "messages": 'cql() player white "DrDrunkenstein"  mate  message("mate at " ply)',
    "sorted": 'cql() terminal sort min "length" ply  ply < 40',
}


_PLAIN: dict[str, Result] = {}


def plain_run(tmp: Path, games: Path) -> Result:
    """The `messages` query at --jobs 1 on the plain file, computed once per module."""
    if "messages" not in _PLAIN:
        _PLAIN["messages"] = run(tmp, QUERIES["messages"], "--jobs", "1", str(games))
    return _PLAIN["messages"]


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_output_stdout_and_exit_code_identical_for_jobs_1_2_3(
    tmp_path: Path, games: Path, name: str
) -> None:
    jobs = (1, 2, 3) if name == "messages" else (1, 3)
    results = [run(tmp_path, QUERIES[name], "--jobs", str(j), str(games)) for j in jobs]
    if name == "messages":
        _PLAIN["messages"] = results[0]
    first = results[0]
    assert first.code == 1  # the broken game 300
    assert "games.pgn:" in first.err and "game 280: error: illegal san: 'Ke3'" in first.err
    assert "cql: 300 games read" in first.out and "1 with errors" in first.out
    assert first.pgn.count(b"[Event ") >= 1
    for other in results[1:]:
        assert other.pgn == first.pgn
        assert other.out == first.out
        assert other.code == first.code
        assert other.err == first.err


def test_limit_is_the_first_matches_in_game_order_for_every_jobs(
    tmp_path: Path, games: Path
) -> None:
    results = [
        run(tmp_path, "cql() mate", "--limit", "3", "--jobs", str(j), str(games)) for j in (1, 3)
    ]
    assert results[0].pgn == results[1].pgn and results[0].out == results[1].out
    assert results[0].pgn.count(b"[Event ") == 3 and results[0].code == 0


def test_persistent_variables_force_one_process_with_a_note(tmp_path: Path, games: Path) -> None:
    query = "cql(quiet) if move capture . then persistent Captures += 1  false"
    one = run(tmp_path, query, "--jobs", "1", "--gamenumber", "1-100", str(games))
    many = run(tmp_path, query, "--jobs", "3", "--gamenumber", "1-100", str(games))
    assert one.out == many.out and one.out.startswith("Captures: ")
    assert "cql: note: running in a single process (persistent variables)" in many.err
    assert "note" not in one.err


@pytest.mark.parametrize("suffix", [".gz", ".bz2", ".zst"])
def test_compressed_input_gives_identical_output(
    tmp_path: Path, games: Path, suffix: str
) -> None:
    raw = games.read_bytes()
    packed = games.parent / ("games.pgn" + suffix)
    if suffix == ".gz":
        packed.write_bytes(gzip.compress(raw))
    elif suffix == ".bz2":
        packed.write_bytes(bz2.compress(raw))
    else:
        packed.write_bytes(zstandard.ZstdCompressor().compress(raw))
    plain = plain_run(tmp_path, games)
    unpacked = run(tmp_path, QUERIES["messages"], "--jobs", "2", str(packed))
    assert unpacked.pgn == plain.pgn and unpacked.out == plain.out
    assert unpacked.err == plain.err.replace("games.pgn:", f"games.pgn{suffix}:")


def test_standard_input_note_and_same_output(tmp_path: Path, games: Path) -> None:
    (tmp_path / "q.cql").write_text(QUERIES["messages"] + "\n")
    piped = subprocess.run(
        [CQL, "-o", "piped.pgn", "--jobs", "2", "q.cql", "-"], cwd=tmp_path,
        input=games.read_bytes(), capture_output=True, timeout=300,
    )
    assert b"running in a single process (standard input)" in piped.stderr
    assert (tmp_path / "piped.pgn").read_bytes() == plain_run(tmp_path, games).pgn


def test_missing_input_is_a_usage_error(tmp_path: Path) -> None:
    result = run(tmp_path, "cql() mate", str(tmp_path / "absent.pgn.zst"))
    assert result.code == 2 and "absent.pgn.zst" in result.err and not result.pgn


def test_progress_line_on_a_terminal_is_erased_at_the_end(tmp_path: Path, games: Path) -> None:
    (tmp_path / "q.cql").write_text(QUERIES["messages"] + "\n")
    main_fd, child_fd = pty.openpty()
    proc = subprocess.Popen(
        # Three copies (900 games) so the run certainly outlasts the 0.1 s first repaint.
        [CQL, "-o", "p.pgn", "--jobs", "1", "--progress", "q.cql", *[str(games)] * 3],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=child_fd,
    )
    os.close(child_fd)
    seen = b""
    while True:
        try:
            chunk = os.read(main_fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    stdout, _ = finish(proc, 300)
    os.close(main_fd)
    text = seen.decode()
    assert proc.returncode == 1  # the broken game
    assert "\r[" in text and "games/s" in text and "matched" in text
    assert text.rstrip(" \r\n").endswith("(game skipped)") or text.endswith("\r")
    assert b"900 games read" in stdout
    assert (tmp_path / "p.pgn").read_bytes() == plain_run(tmp_path, games).pgn * 3


def test_ctrl_c_with_a_pool_exits_130_without_traceback_or_leftovers(
    tmp_path: Path, games: Path
) -> None:
    import signal
    import time

    (tmp_path / "q.cql").write_text("cql() mate or stalemate\n")
    proc = subprocess.Popen(
        # 20 copies (6,000 games): far longer than the 1.5 s before the signal, even quiet.
        [CQL, "-o", "int.pgn", "--jobs", "2", "q.cql", *[str(games)] * 20],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    time.sleep(1.5)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = finish(proc, 60)
    assert proc.returncode == 130
    assert b"Traceback" not in err
    assert not list(tmp_path.glob("int.pgn*"))
