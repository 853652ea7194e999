"""Every example of examples/chazz/ run by the real `chazz` command, with its exact output,
on both engines; and the demo script."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "chazz"
PROMPT = b"\nInput a character: "

CASES = [
    ("tutorial.fen", [], b"a", b"124876543210" + PROMPT + b"a\n"),
    ("tutorial.fen", ["--no-prompt"], b"", b"124876543210\xff\n"),
    ("hello.fen", [], b"", b"Hello, World!\n"),
    ("hello_bf.fen", [], b"", b"Hello, World!\n"),
    ("count.fen", [], b"", b"0123456789\n"),
    ("nonsquare.fen", [], b"", b"Hi!\n"),
    ("to_turn.fen", [], b"", b"B\n"),
    ("cat.fen", ["--no-prompt"], b"echo\nme", b"echo\nme\n"),
    ("cat.fen", [], b"ok", PROMPT + b"o" + PROMPT + b"k" + PROMPT + b"\n"),
]


def chazz(
    *args: str, stdin: bytes = b"", cwd: Path = EXAMPLES
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [str(BIN / "chazz"), *args], input=stdin, capture_output=True, cwd=cwd, timeout=120
    )


@pytest.mark.parametrize("engine", ["compiler", "interpreter"])
@pytest.mark.parametrize(("name", "args", "stdin", "expected"), CASES)
def test_example_output(
    name: str, args: list[str], stdin: bytes, expected: bytes, engine: str
) -> None:
    result = chazz(name, *args, "--engine", engine, stdin=stdin)
    assert (result.stdout, result.returncode, result.stderr) == (expected, 0, b"")


def test_to_turn_with_white_to_move_skips_the_black_pawn(tmp_path: Path) -> None:
    board = (EXAMPLES / "to_turn.fen").read_text().replace(" b", " w")
    (tmp_path / "white.fen").write_text(board)
    assert chazz("white.fen", cwd=tmp_path).stdout == b"C\n"


def test_hello_bf_is_what_from_bf_makes_of_hello_b() -> None:
    result = subprocess.run(
        [str(BIN / "esochess"), "chazz", "from-bf", "hello.b"],
        capture_output=True,
        cwd=EXAMPLES,
        timeout=120,
    )
    assert result.returncode == 0
    assert result.stdout == (EXAMPLES / "hello_bf.fen").read_bytes()


def test_demo_script_runs() -> None:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    result = subprocess.run(
        ["bash", str(EXAMPLES / "demo.sh")], capture_output=True, env=env, timeout=120
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout.decode()
    assert "Hello, World!" in out
    assert "0123456789" in out
    assert "chazz: error: step limit 4 reached" in out
    assert "table cells in board.html: 39" in out
