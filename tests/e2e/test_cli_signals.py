"""Killed runs leave nothing behind: SIGTERM to a real `cql` writing its output ends with
143, no traceback, no temporary file, the old output untouched and no worker left; Ctrl-C
to `gambit playout --jobs`, `chespel tune` and `chespel ablate` ends with 130 and no
process left."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from child_processes import finish
from pgn_data import LICHESS

psutil = pytest.importorskip("psutil")  # comes with the test extras (dask)

BIN = Path(sys.executable).parent


def _wait_for(condition: object, seconds: float = 60) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_sigterm_to_cql_leaves_nothing_behind(tmp_path: Path, jobs: str) -> None:
    games = tmp_path / "games.pgn"
    games.write_bytes(LICHESS.read_bytes() * 6)  # long enough to be stopped mid-run
    (tmp_path / "q.cql").write_text("cql() check\n")
    out = tmp_path / "out"
    out.mkdir()
    (out / "result.pgn").write_text("the previous result\n")
    proc = subprocess.Popen(
        [str(BIN / "cql"), "--jobs", jobs, "-o", str(out / "result.pgn"), "q.cql", "games.pgn"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    # The run is under way once its temporary file exists beside the output.
    assert _wait_for(lambda: len(list(out.iterdir())) > 1 or proc.poll() is not None)
    assert proc.poll() is None, "cql finished before it could be stopped"
    if jobs == "2":
        _wait_for(lambda: len(psutil.Process(proc.pid).children(recursive=True)) >= 2, 30)
    workers = psutil.Process(proc.pid).children(recursive=True)
    proc.send_signal(signal.SIGTERM)
    _, err = finish(proc, 120)
    assert proc.returncode == 143
    assert b"Traceback" not in err and err == b""
    assert [p.name for p in out.iterdir()] == ["result.pgn"]
    assert (out / "result.pgn").read_text() == "the previous result\n"
    assert _wait_for(lambda: not any(w.is_running() and w.status() != "zombie" for w in workers), 30)


def test_ctrl_c_to_gambit_playout_jobs_ends_parent_and_workers_quietly() -> None:
    # Ctrl-C in a terminal reaches the whole process group: the workers must leave it to
    # the parent (no traceback of theirs), and the parent must end them, not wait for
    # the chunks they were playing (1,250,000 games each here: many minutes, far beyond
    # the 60 s hang guard).
    game = Path(__file__).resolve().parents[2] / "examples" / "gambit" / "connect-four.gmb"
    proc = subprocess.Popen(
        [str(BIN / "gambit"), "playout", "-n", "10000000", "--jobs", "2", str(game)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert _wait_for(lambda: len(psutil.Process(proc.pid).children(recursive=True)) >= 2, 60)
    time.sleep(1.0)  # the workers are playing
    workers = psutil.Process(proc.pid).children(recursive=True)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = finish(proc, 60)
    assert proc.returncode == 130
    assert b"Traceback" not in err and b"KeyboardInterrupt" not in err
    assert _wait_for(lambda: not any(w.is_running() and w.status() != "zombie" for w in workers), 30)


POSITIONAL = Path(__file__).resolve().parents[2] / "examples" / "chespel" / "positional.chp"


@pytest.mark.parametrize("command", [
    ["tune", str(POSITIONAL), "--games", str(LICHESS), "--jobs", "2"],
    ["ablate", str(POSITIONAL), "--games", "200", "--depth", "3", "--jobs", "2"],
], ids=["tune", "ablate"])
def test_ctrl_c_to_chespel_exits_130_like_every_command(tmp_path: Path,
                                                        command: list[str]) -> None:
    # click alone would print "Aborted!" and exit 1; the group handler exits 130 after the
    # command's own clean-up, which leaves no output, temporary program or process.
    proc = subprocess.Popen(
        [str(BIN / "chespel"), *command, *(["-o", str(tmp_path / "out.chp")]
                                           if command[0] == "tune" else [])],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
        env={**os.environ, "TMPDIR": str(tmp_path)},
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert _wait_for(lambda: len(psutil.Process(proc.pid).children(recursive=True)) >= 2, 60)
    time.sleep(1.0)  # the workers or engines are busy
    children = psutil.Process(proc.pid).children(recursive=True)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = finish(proc, 60)
    assert proc.returncode == 130, err
    assert err.endswith(b"chespel: interrupted\n") and b"Traceback" not in err
    assert _wait_for(lambda: not any(c.is_running() and c.status() != "zombie"
                                     for c in children), 30)
    assert list(tmp_path.iterdir()) == []
