"""The REPL as a real process (§10.1): piped sessions, the terminal banner and prompt,
Ctrl-C, and determinism across processes (K14, K25)."""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

from child_processes import finish

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "chespel"
G2 = "rn2kbnr/pp2pppp/2p5/q4b2/3P4/2N2N2/PPP2PPP/R1BQKB1R w KQkq - 2 6"


def run(program: Path, stdin: str, env: dict[str, str] | None = None
        ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "esochess.chespel", "run", str(program)],
                          input=stdin, capture_output=True, text=True, timeout=300,
                          env=env)


def test_k25_piped_session_has_no_banner_and_no_stderr() -> None:
    done = run(EXAMPLES / "material.chp",
               "hello\n  eval 8/8/8 w - - 0 1  \r\n\neval\neval startpos\n")
    assert done.returncode == 0 and done.stderr == ""
    lines = done.stdout.splitlines()
    assert lines[0] == "error: unknown command 'hello' (type 'help')"
    assert lines[1].startswith("error: invalid FEN")
    assert lines[2] == "error: missing FEN"
    assert lines[-1] == "score for white: 0" and len(lines) == 13


def test_k14_same_move_in_two_processes(tmp_path: Path) -> None:
    program = tmp_path / "p.chp"
    program.write_text((EXAMPLES / "positional.chp").read_text()
                       + "\nmodule search\nmaxDepth = 3\nmaxTime = 600\n")
    answers = []
    for seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        done = run(program, f"fen {G2}\n", env)
        assert done.returncode == 0
        answers.append(done.stdout)
    assert answers[0] == answers[1] and answers[0].count("\n") == 1


def test_terminal_gets_banner_and_prompt() -> None:
    pid, fd = pty.fork()
    if pid == 0:  # the child runs the engine on the terminal
        os.execv(sys.executable, [sys.executable, "-m", "esochess.chespel", "run",
                                  str(EXAMPLES / "material.chp")])
    output = b""
    try:
        deadline = time.monotonic() + 60
        while b"> " not in output and time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 1)
            if ready:
                output += os.read(fd, 1024)
        os.write(fd, b"quit\n")
        _, status = os.waitpid(pid, 0)
    finally:
        os.close(fd)
    assert output.startswith(b"Chespel engine 'material'. Type 'help' for commands.\r\n> ")
    assert os.waitstatus_to_exitcode(status) == 0


def test_interrupt_ends_silently_with_130() -> None:
    process = subprocess.Popen([sys.executable, "-m", "esochess.chespel", "run",
                                str(EXAMPLES / "material.chp")], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write("eval startpos\n")
    process.stdin.flush()
    for _ in range(10):  # wait until the engine is reading commands
        process.stdout.readline()
    process.send_signal(signal.SIGINT)
    out, err = finish(process, 60)
    assert process.returncode == 130 and err == "" and out == ""
