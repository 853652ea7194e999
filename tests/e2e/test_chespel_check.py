"""End to end: `chespel check` (console script, `esochess chespel`, `python -m`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from esochess.chespel.cli import main

BIN = Path(sys.executable).parent
EXAMPLES = sorted(Path("examples/chespel").glob("*.chp"))


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / args[0]), *args[1:]],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
        timeout=60,
    )


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_examples_check_clean(path: Path) -> None:
    result = CliRunner().invoke(main, ["check", str(path)])
    assert result.exit_code == 0, result.output
    assert result.output == ""


def test_k30_console_script_is_silent_on_a_clean_program() -> None:
    done = run("chespel", "check", "examples/chespel/positional.chp")
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_k22_bad_chp(tmp_path: Path) -> None:
    (tmp_path / "bad.chp").write_text(
        "module evaluation\n\nrule r:\n\tif (me.castledSide(3)) score 1;\n", encoding="utf-8"
    )
    done = run("chespel", "check", "bad.chp", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == (
        "bad.chp:4:21: error: argument 1 of 'castledSide' must be Type, found Num\n"
        "\tif (me.castledSide(3)) score 1;\n"
        "\t                   ^\n"
        "compilation failed: 1 error(s), 0 warning(s)\n"
    )


def test_umbrella_and_module_entry_points(tmp_path: Path) -> None:
    bad = tmp_path / "t.chp"
    bad.write_text("module evaluation\nrule r:\n\tscore me;\n", encoding="utf-8")
    umbrella = run("esochess", "chespel", "check", str(bad))
    assert umbrella.returncode == 2
    assert umbrella.stderr.splitlines()[0] == (
        f"{bad}:3:8: error: score value must be Num, found Player"
    )
    module = subprocess.run(
        [sys.executable, "-m", "esochess.chespel", "check", str(bad)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert module.returncode == 2 and module.stderr == umbrella.stderr


def test_warnings_do_not_fail(tmp_path: Path) -> None:
    path = tmp_path / "w.chp"
    path.write_text("module evaluation\nrule r:\n\tlet x = 1;\n\tscore 1;\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["check", str(path)])
    assert result.exit_code == 0
    assert result.output.splitlines()[0] == f"{path}:3:6: warning: unused variable 'x'"


def test_path_is_printed_as_given(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "e.chp").write_text("module search\n", encoding="utf-8")
    done = run("chespel", "check", "./sub/e.chp", cwd=tmp_path)
    assert done.stderr.splitlines()[0] == (
        "./sub/e.chp:1:1: error: missing mandatory module 'evaluation'"
    )


def test_unreadable_missing_and_non_utf8_files_exit_2(tmp_path: Path) -> None:
    missing = CliRunner().invoke(main, ["check", str(tmp_path / "nope.chp")])
    assert missing.exit_code == 2
    assert missing.output == (
        f"chespel: error: cannot read {tmp_path / 'nope.chp'}: no such file\n"
    )
    binary = tmp_path / "b.chp"
    binary.write_bytes(b"module evaluation\n\xff\xfe\n")
    result = CliRunner().invoke(main, ["check", str(binary)])
    assert result.exit_code == 2
    # Not UTF-8: a positioned error at the first bad byte, like any other error in the text.
    assert result.output.startswith(f"{binary}:2:1: error: the file is not UTF-8 text (byte 0xff)\n")
    directory = CliRunner().invoke(main, ["check", str(tmp_path)])
    assert directory.exit_code == 2
    assert directory.output == f"chespel: error: cannot read {tmp_path}: is a directory\n"
    no_arg = CliRunner().invoke(main, ["check"])
    assert no_arg.exit_code == 2
    if os.geteuid() != 0:
        locked = tmp_path / "locked.chp"
        locked.write_text("module evaluation\n", encoding="utf-8")
        locked.chmod(0)
        denied = CliRunner().invoke(main, ["check", str(locked)])
        assert denied.exit_code == 2
        assert "permission denied" in denied.output


def test_a_traceback_never_reaches_the_user(tmp_path: Path) -> None:
    path = tmp_path / "junk.chp"
    path.write_text("module evaluation\nrule r:\n\tscore ((((\n", encoding="utf-8")
    done = run("chespel", "check", str(path))
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert (
        done.stderr.splitlines()[0]
        == f"{path}:4:1: error: expected an expression, found end of file"
    )


def test_demo_script_runs() -> None:
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    done = subprocess.run(
        ["bash", "examples/chespel/demo.sh"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "king_safety.chp: ok" in done.stdout
    assert "compilation failed: 3 error(s), 0 warning(s)" in done.stdout
