"""`chespel build` and the built executable (§12.3, §10.1): K01, K12, K30 and a REPL game
played by the artefact in a virtual environment that has no python-chess."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "chespel"
CHESPEL = [sys.executable, "-m", "esochess.chespel"]
START = """8 r n b q k b n r
7 p p p p p p p p
6 . . . . . . . .
5 . . . . . . . .
4 . . . . . . . .
3 . . . . . . . .
2 P P P P P P P P
1 R N B Q K B N R
  a b c d e f g h
"""


def chespel(*args: str, cwd: Path | None = None, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """Run the chespel command."""
    return subprocess.run([*CHESPEL, *args], cwd=cwd, input=stdin, capture_output=True,
                          text=True, timeout=120)


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A virtual environment without pip and without python-chess."""
    venv = tmp_path_factory.mktemp("bare") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    probe = subprocess.run([python, "-S", "-E", "-c", "import chess"], capture_output=True)
    assert probe.returncode != 0
    return python


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """examples/chespel/material.chp built to a temporary file (K01)."""
    target = tmp_path_factory.mktemp("build") / "mat"
    done = chespel("build", str(EXAMPLES / "material.chp"), "-o", str(target))
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"wrote {target}\n"
    return target


def test_k01_self_contained_artefact(built: Path, bare_python: str) -> None:
    assert built.read_bytes().startswith(b"#!/usr/bin/env python3\n")
    assert os.stat(built).st_mode & 0o777 == 0o755
    with zipfile.ZipFile(built) as archive:
        names = set(archive.namelist())
    assert {"__main__.py", "chespel_program.py", "chess/__init__.py",
            "chess/LICENSE.txt"} <= names
    done = subprocess.run([bare_python, "-S", "-E", str(built)], input="eval startpos\n",
                          capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, START + "score for white: 0\n", "")


def test_positional_artefact_plays_in_a_venv_without_python_chess(
        tmp_path: Path, bare_python: str) -> None:
    source = tmp_path / "positional.chp"
    source.write_text((EXAMPLES / "positional.chp").read_text()
                      + "\nmodule search\nmaxDepth = 2\n")
    done = chespel("build", "positional.chp", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    engine = tmp_path / "positional"
    assert done.stdout == "wrote positional\n"
    session = "play\nhuman\nai\ne4\nd4\nquit\nquit\n"
    run = subprocess.run([bare_python, "-S", "-E", str(engine)], input=session,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and run.stderr == ""
    lines = run.stdout.splitlines()
    assert lines[:2] == ["white player (ai/human)?", "black player (ai/human)?"]
    moves = [line for line in lines if line.startswith("move: ")]
    assert len(moves) == 2  # the engine answered 1.e4 and 2.d4
    assert lines[-1] == "game abandoned"


def test_executable_arguments(built: Path) -> None:
    helped = subprocess.run([str(built), "--help"], capture_output=True, text=True, timeout=60)
    assert helped.returncode == 0 and "--uci" in helped.stdout
    wrong = subprocess.run([str(built), "--frob"], capture_output=True, text=True, timeout=60)
    assert wrong.returncode == 2 and wrong.stdout == "" and "usage" in wrong.stderr


def test_default_output_name_and_replacement(tmp_path: Path) -> None:
    (tmp_path / "engine.chp").write_text((EXAMPLES / "material.chp").read_text())
    (tmp_path / "engine").write_text("old")
    done = chespel("build", "engine.chp", cwd=tmp_path)
    assert done.stdout == "wrote engine\n"
    assert (tmp_path / "engine").read_bytes().startswith(b"#!")


def test_k12_build_warns_about_unreachable_opening(tmp_path: Path) -> None:
    (tmp_path / "o.chp").write_text(
        "module opening\n"
        "'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1' ->\n"
        "\t'rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2';\n"
        "module evaluation\nrule r:\n\tscore 0;\n")
    done = chespel("build", "o.chp", cwd=tmp_path)
    assert done.returncode == 0
    assert done.stderr.splitlines()[0] == (
        "o.chp:3:2: warning: opening rule: the destination is not reachable from the origin "
        "by one legal move")
    assert (tmp_path / "o").exists()


def test_build_refuses_a_program_with_errors(tmp_path: Path) -> None:
    (tmp_path / "bad.chp").write_text("module evaluation\n\nrule r:\n\tif (me.castledSide(3)) score 1;\n")
    done = chespel("build", "bad.chp", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == "compilation failed: 1 error(s), 0 warning(s)"
    assert not (tmp_path / "bad").exists()


def test_k30_eval_subcommand(tmp_path: Path) -> None:
    e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
    spec = ROOT / "tests" / "chespel" / "programs" / "spec_positional.chp"  # K30's program
    one = chespel("eval", str(spec), "-v", e4)
    several = chespel("eval", str(spec), "-v", *e4.split())
    assert one.returncode == 0 and one.stdout == several.stdout
    assert one.stdout.splitlines()[9:11] == ["score for black: -0.3", "me:    material: +8 (8)"]
    (tmp_path / "t.chp").write_text("module evaluation\nrule r:\n\tscore q.value;\n")
    assert chespel("eval", "t.chp", "startpos", cwd=tmp_path).returncode == 2
    bad_fen = chespel("eval", str(EXAMPLES / "material.chp"), "8/8/8", "w", "-", "-")
    assert bad_fen.returncode == 1 and bad_fen.stdout.startswith("error: invalid FEN")


def test_run_subcommand_matches_the_executable(built: Path) -> None:
    session = "eval startpos\nfen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1\n"
    via_cli = chespel("run", str(EXAMPLES / "material.chp"), stdin=session)
    via_exe = subprocess.run([str(built)], input=session, capture_output=True, text=True,
                             timeout=60)
    assert via_cli.stdout == via_exe.stdout
    assert via_cli.stdout.endswith("error: no legal moves (stalemate)\n")


def test_largest_loops_compile_and_larger_ones_are_refused(tmp_path: Path) -> None:
    # The front end allows 32 variables per loop and 64 in scope: the generated Python
    # must stay within CPython's limits (20 nested loops, 100 indentation levels).
    def loop(prefix: str, start: int) -> str:
        names = [f"{prefix}{i}" for i in range(32)]
        cells = [f"{'abcdefgh'[(start + i) % 8]}{(start + i) // 8 + 1}" for i in range(32)]
        tests = ", ".join(f"{n} == {c}" for n, c in zip(names, cells, strict=True))
        return f"cell {', '.join(names)} with {tests}:"
    (tmp_path / "big.chp").write_text(
        f"module evaluation\nrule m:\n\t{loop('x', 0)}\n\t\t{loop('y', 32)}\n"
        "\t\t\tscore x31.distance(y0) + 0 * x0.distance(y31);\n")
    done = chespel("eval", "big.chp", "startpos", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "score for white: 7"  # h4 to a5
    names = ", ".join(f"x{i}" for i in range(99))
    (tmp_path / "huge.chp").write_text(
        f"module evaluation\nrule m:\n\tcell {names}:\n\t\tscore 1;\n")
    refused = chespel("build", "huge.chp", cwd=tmp_path)
    assert refused.returncode == 2
    assert "Traceback" not in refused.stderr and not (tmp_path / "huge").exists()


def test_build_never_overwrites_its_source_and_writes_devices_in_place(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from esochess.chespel.cli import main

    source = tmp_path / "e.chp"
    source.write_text("module evaluation\n", encoding="utf-8")
    same = CliRunner().invoke(main, ["build", str(source), "-o", str(source)])
    assert same.exit_code == 2
    assert same.stderr.endswith(f"chespel: error: cannot write {source}: it is also an input file\n")
    assert source.read_text(encoding="utf-8") == "module evaluation\n"
    before = os.stat(os.devnull)
    assert CliRunner().invoke(main, ["build", str(source), "-o", os.devnull]).exit_code == 0
    assert os.stat(os.devnull).st_ino == before.st_ino
    assert sorted(p.name for p in tmp_path.iterdir()) == ["e.chp"]
