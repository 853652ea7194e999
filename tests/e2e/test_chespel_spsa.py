"""`chespel spsa` end to end: a tiny run writes a program that checks and prints the table;
bad input is reported before any game and writes nothing; Ctrl-C leaves nothing behind."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from child_processes import finish

from esochess.chespel.frontend import compile_source

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "chespel"
POSITIONAL = EXAMPLES / "positional.chp"
BIN = Path(sys.executable).parent


def spsa(*args: str, cwd: Path = ROOT, env: dict[str, str] | None = None,
         ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "esochess.chespel", "spsa", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300, env=env)


def test_a_tiny_run_writes_a_program_that_checks(tmp_path: Path) -> None:
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    done = spsa(str(POSITIONAL), "--iterations", "2", "--nodes", "30", "--jobs", "2",
                "--max-plies", "40", cwd=out, env={**os.environ, "TMPDIR": str(temporary)})
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split() == ["group", "numbers", "multiplier", "value"]
    assert re.fullmatch(r"pawnSquares t +64  1 -> \d\.\d{3}", lines[1])
    assert re.fullmatch(r"kingSafety castled +1  1 -> \d\.\d{3}  0\.3 -> -?[\d.]+", lines[5])
    assert len(lines) == 1 + 17 + 1 and lines[-1] == "wrote positional.spsa.chp"
    assert re.fullmatch(r"iteration 2/2, \d+ s: mean \|theta-1\| \d\.\d{3}; largest: .*",
                        done.stderr.strip())
    written = (out / "positional.spsa.chp").read_text()
    assert compile_source("positional.spsa.chp", written).ok
    assert written.splitlines()[0] == POSITIONAL.read_text().splitlines()[0]
    assert [p.name for p in out.iterdir()] == ["positional.spsa.chp"]
    assert list(temporary.iterdir()) == []


@pytest.mark.parametrize(("args", "message"), [
    (["examples/chespel/material.chp"],
     "chespel: error: examples/chespel/material.chp has no score number to tune\n"),
    (["examples/chespel/positional.chp", "--freeze", "piece"],
     "chespel: error: examples/chespel/positional.chp has no rule 'piece'; "
     "did you mean 'pieces'?\n"),
])
def test_nothing_to_tune_and_unknown_rules(tmp_path: Path, args: list[str], message: str) -> None:
    target = tmp_path / "out.chp"
    done = spsa(*args, "-o", str(target))
    assert (done.returncode, done.stdout, done.stderr) == (2, "", message)
    assert list(tmp_path.iterdir()) == []


def test_a_bad_openings_file_is_named(tmp_path: Path) -> None:
    openings = tmp_path / "openings.txt"
    openings.write_text("e4 e5\ne4 Ke7 Qxh7\n")
    done = spsa(str(POSITIONAL), "--openings", str(openings), "-o", str(tmp_path / "out.chp"))
    assert done.returncode == 2
    assert done.stderr.startswith(f"chespel: error: {openings}:2: bad opening: ")
    assert [p.name for p in tmp_path.iterdir()] == ["openings.txt"]


def test_a_program_with_errors_gets_its_diagnostics(tmp_path: Path) -> None:
    program = tmp_path / "bad.chp"
    program.write_text("module evaluation\nrule r:\n\tscore 0.1 * nothing;\n")
    done = spsa(str(program), "-o", str(tmp_path / "out.chp"))
    assert done.returncode == 2
    assert done.stderr.startswith(f"{program}:3:")
    assert [p.name for p in tmp_path.iterdir()] == ["bad.chp"]


def test_bad_options_and_outputs(tmp_path: Path) -> None:
    done = spsa(str(POSITIONAL), "--perturbation", "0")
    assert done.returncode == 2 and "Invalid value for '--perturbation'" in done.stderr
    target = tmp_path / "missing" / "out.chp"
    done = spsa(str(POSITIONAL), "-o", str(target))
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == f"chespel: error: cannot write {target}: no such directory\n"
    done = spsa(str(POSITIONAL), "-o", str(POSITIONAL))
    assert done.returncode == 1 and "chespel: error: " in done.stderr


@pytest.mark.parametrize(("to_group", "signum", "code"), [
    (True, signal.SIGINT, 130),  # Ctrl-C in a terminal: the whole group, engines included
    (False, signal.SIGINT, 130),  # the run alone: it must stop the games in play itself
    (False, signal.SIGTERM, 143),
])
def test_a_stopped_run_leaves_nothing_behind(tmp_path: Path, to_group: bool, signum: int,
                                             code: int) -> None:
    psutil = pytest.importorskip("psutil")
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    proc = subprocess.Popen(
        [str(BIN / "chespel"), "spsa", str(POSITIONAL), "--iterations", "200", "--nodes",
         "5000", "--jobs", "2", "-o", "out.chp"],
        cwd=tmp_path, env={**os.environ, "TMPDIR": str(temporary)},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 60
    while len(psutil.Process(proc.pid).children()) < 4 and time.monotonic() < deadline:
        time.sleep(0.05)
    engines = psutil.Process(proc.pid).children(recursive=True)
    assert len(engines) >= 4, "the engines of two pairs never ran"
    time.sleep(1.0)  # the games are under way
    if to_group:
        os.killpg(proc.pid, signum)
    else:
        proc.send_signal(signum)
    # Far less than the games in play need (minutes at 5000 nodes a move).
    _, err = finish(proc, 20)
    assert proc.returncode == code, err
    assert b"Traceback" not in err
    assert list(temporary.iterdir()) == []
    assert [p.name for p in tmp_path.iterdir()] == ["tmp"]
    gone = time.monotonic() + 30
    while any(e.is_running() and e.status() != "zombie" for e in engines):
        assert time.monotonic() < gone, "an engine outlived the run"
        time.sleep(0.05)
