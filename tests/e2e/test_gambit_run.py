"""End-to-end `gambit run`: the real console script, scripted human transcripts (§17.32)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "gambit"
GAMBIT = Path(sys.executable).with_name("gambit")


def gambit(*args: str, input: str = "", cwd: Path = EXAMPLES) -> subprocess.CompletedProcess[str]:
    """Run the installed `gambit` script."""
    env = dict(os.environ, PYTHONHASHSEED="random")
    return subprocess.run(
        [str(GAMBIT), *args], input=input, capture_output=True, text=True, cwd=cwd, env=env,
        timeout=120,
    )  # fmt: skip


def test_tic_tac_toe_scripted_transcript() -> None:
    r = gambit("run", "tic-tac-toe.gmb", input="1\n4\n2\n5\n3\n")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[:4] == ["---", "---", "---", "[Player 1] Where do you play?"]
    assert lines[4:13] == [f"  {i}) {i}" for i in range(1, 10)]
    assert lines[13] == "> 1"
    second = lines.index("[Player 2] Where do you play?")
    options = []
    for line in lines[second + 1 :]:
        if not line.startswith("  "):
            break
        options.append(line)
    assert options == [f"  {i}) {i}" for i in range(2, 10)]
    assert lines[-4:] == ["XXX", "OO-", "---", "Player 1 wins"]
    assert "Traceback" not in r.stdout + r.stderr


def test_tic_tac_toe_invalid_input_is_asked_again() -> None:
    r = gambit("run", "tic-tac-toe.gmb", input="1\n1\n0\nabc\n4\n2\n5\n3\n")
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("Please enter one of the listed numbers.") == 3
    assert r.stdout.splitlines()[-1] == "Player 1 wins"


def test_tic_tac_toe_input_ends() -> None:
    r = gambit("run", "tic-tac-toe.gmb", input="1\n")
    assert r.returncode == 4


def test_nim_scripted_transcript() -> None:
    # Heaps 3, 4, 5: P1 takes 3 from heap 1, P2 4 from heap 2, P1 takes the last 5.
    # Options are numbered within `Heap<size >= 1>`, so the remaining heap is always 1).
    r = gambit("run", "nim.gmb", input="1\n3\n1\n4\n1\n5\n")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[:4] == ["heap 1 has 3", "heap 2 has 4", "heap 3 has 5",
                         "[Player 1] Take from which heap?"]  # fmt: skip
    assert "Player 1 takes 3 from heap 1" in lines
    assert "Player 2 takes 4 from heap 2" in lines
    # The emptied heaps are no longer offered.
    last_prompt = len(lines) - 1 - lines[::-1].index("[Player 1] Take from which heap?")
    assert lines[last_prompt + 1 : last_prompt + 3] == ["  1) heap 3", "> 1"]
    assert lines[-2:] == ["Player 1 takes 5 from heap 3", "Player 1 wins"]


def test_input_file_option(tmp_path: Path) -> None:
    moves = tmp_path / "moves.txt"
    moves.write_text("1\n4\n2\n5\n3\n")
    r = gambit("run", "tic-tac-toe.gmb", "--input", str(moves))
    assert r.returncode == 0
    assert r.stdout.splitlines()[-1] == "Player 1 wins"


def test_extension_is_optional() -> None:
    r = gambit("run", "tic-tac-toe", input="1\n4\n2\n5\n3\n")
    assert r.returncode == 0
    assert r.stdout.splitlines()[-1] == "Player 1 wins"


@pytest.mark.parametrize(
    "args",
    [
        ["run", "prog.gmb", "--bogus"],
        ["run", "tic-tac-toe.gmb", "--players", "human,random,random"],
        ["run", "notes.txt"],
        ["run", "missing.gmb"],
    ],
)
def test_usage_errors_exit_2(tmp_path: Path, args: list[str]) -> None:
    (tmp_path / "prog.gmb").write_text("main() { }\n")
    (tmp_path / "notes.txt").write_text("main() { }\n")
    (tmp_path / "tic-tac-toe.gmb").write_text((EXAMPLES / "tic-tac-toe.gmb").read_text())
    r = gambit(*args, cwd=tmp_path)
    assert r.returncode == 2
    assert r.stderr.strip()
    assert "Traceback" not in r.stderr


def test_runtime_error_exit_1(tmp_path: Path) -> None:
    (tmp_path / "prog.gmb").write_text(
        "fn ratio(int a, int b) => a / b\nmain() {\n    print(ratio(1, 0))\n}\n"
    )
    r = gambit("run", "prog.gmb", cwd=tmp_path)
    assert r.returncode == 1
    assert r.stderr.splitlines()[0] == "prog.gmb:1:29: runtime error: division by zero"
    assert r.stderr.splitlines()[3] == "  called from main at prog.gmb:3:11"


def test_gambit_file_extension_and_umbrella(tmp_path: Path) -> None:
    (tmp_path / "hello.gambit").write_text('main() { print("hello") }\n')
    r = gambit("run", "hello.gambit", cwd=tmp_path)
    assert r.stdout == "hello\nNo result\n"
    umbrella = GAMBIT.with_name("esochess")
    r2 = subprocess.run([str(umbrella), "gambit", "run", "hello.gambit"], capture_output=True,
                        text=True, cwd=tmp_path, timeout=120)  # fmt: skip
    assert r2.stdout == "hello\nNo result\n"


def test_version() -> None:
    import chess

    assert gambit("--version").stdout == f"gambit 0.1.0 (python-chess {chess.__version__})\n"


def test_files_it_cannot_read_and_a_record_it_could_not_write(tmp_path: Path) -> None:
    missing = gambit("check", "nim", cwd=tmp_path)
    assert (missing.returncode, missing.stderr) == (
        2, "gambit: error: cannot read nim: no such file (also tried nim.gmb and nim.gambit)\n"
    )
    (tmp_path / "game.gmb").write_text('main() { print("hello") }\n')
    record = gambit("run", "game.gmb", "--record", "no/such/dir/r.json", cwd=tmp_path)
    assert (record.returncode, record.stdout) == (2, "")
    assert record.stderr == "gambit: error: cannot write no/such/dir/r.json: no such directory\n"
    replay = gambit("run", "game.gmb", "--replay", "none.json", cwd=tmp_path)
    assert (replay.returncode, replay.stderr) == (2, "gambit: error: cannot read none.json: no such file\n")


def test_a_turn_that_never_ends_is_a_runtime_error(tmp_path: Path) -> None:
    # One player decides for ever and nothing commits: the look-ahead cannot find the
    # end of the turn. That is the program's error (exit 1), never Python's stack.
    prog = tmp_path / "endless.gmb"
    prog.write_text(
        "players 2\n\nmain() {\n    loop {\n        x = Player[1] choose [1, 2]\n    }\n}\n"
    )
    r = gambit("run", str(prog), input="1\n", cwd=tmp_path)
    assert r.returncode == 1
    errors = [line for line in r.stderr.splitlines() if "runtime error" in line]
    assert errors[0].startswith(f"{prog}:5:23: runtime error: the turn of Player 1 does not end")
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr
