"""The `chazz` command line (spec §1, §5, §6): arguments, streams, exit statuses, signals,
and `esochess chazz` / `esochess chazz from-bf` through the umbrella command."""

from __future__ import annotations

import contextlib
import os
import pty
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from child_processes import finish
from click.testing import CliRunner

from esochess.chazz.cli import main

BIN = Path(sys.executable).parent


def invoke(tmp_path: Path, board: str, *args: str, stdin: bytes = b"") -> tuple[bytes, bytes, int]:
    (tmp_path / "p.fen").write_text(board)
    result = CliRunner().invoke(main, [str(tmp_path / "p.fen"), *args], input=stdin)
    return result.stdout_bytes, result.stderr_bytes, result.exit_code


def test_missing_file_argument_prints_the_reference_usage() -> None:
    result = CliRunner().invoke(main, [])
    assert (result.stdout_bytes, result.stderr_bytes, result.exit_code) == (
        b"",
        b"Usage: chazz <filename> [true|false]\n",
        1,
    )


def test_unreadable_file(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, [str(tmp_path / "nope.fen"), "true"])
    assert result.stderr.splitlines() == [
        "Could not open file: No such file or directory",  # the reference's lines
        "Failed to read FEN file",
        f"chazz: error: cannot read {tmp_path / 'nope.fen'}: no such file",  # the shared one
    ]
    assert (result.stdout_bytes, result.exit_code) == (b"", 1)
    assert not (Path.cwd() / "nope.fen").exists()


def test_invalid_board_is_reported_on_stderr_without_html(tmp_path: Path) -> None:
    stdout, stderr, code = invoke(tmp_path, "PR-", "--html", str(tmp_path / "b.html"))
    assert (stdout, code) == (b"", 1)
    assert stderr.decode().splitlines() == [
        "Error: Invalid FEN format",
        f"{tmp_path / 'p.fen'}:1:3: error: invalid character '-' in a rank",
        "PR-",
        "  ^",
    ]
    assert not (tmp_path / "b.html").exists()


def test_runtime_errors_go_to_stdout_with_status_1(tmp_path: Path) -> None:
    assert invoke(tmp_path, "P5PR/b7") == (b"AError: Loop stack underflow\n", b"", 1)


def test_html_to_an_unwritable_place_still_runs_the_program(tmp_path: Path) -> None:
    stdout, stderr, code = invoke(tmp_path, "PPR", "--html", str(tmp_path / "no" / "b.html"))
    assert stderr.decode().splitlines() == [
        "Could not open HTML file for writing: No such file or directory",
        f"chazz: error: cannot write {tmp_path / 'no' / 'b.html'}: no such directory",
    ]
    assert (stdout, code) == (b"\x03\n", 0)


def test_html_option_and_flag(tmp_path: Path) -> None:
    page = tmp_path / "custom.html"
    stdout, _, code = invoke(tmp_path, "PPR", "--html", str(page), "--no-open")
    assert (stdout, code) == (b"\x03\n", 0)
    assert page.read_text().count("<td") == 3


def test_step_limit_message_and_flushed_output(tmp_path: Path) -> None:
    stdout, stderr, code = invoke(tmp_path, "P5PRKBb", "--max-steps", "100")
    assert (stdout, stderr, code) == (b"A", b"chazz: error: step limit 100 reached\n", 1)


def test_trace_goes_to_stderr_and_leaves_stdout_alone(tmp_path: Path) -> None:
    plain = invoke(tmp_path, "PPR")
    traced = invoke(tmp_path, "PPR", "--trace")
    assert traced[0] == plain[0] == b"\x03\n"
    assert traced[1].decode().splitlines() == [
        "step=1 sq=0,0 piece=P ptr=0 cell=0",
        "step=2 sq=0,1 piece=P ptr=0 cell=1",
        "step=3 sq=0,2 piece=R ptr=0 cell=3",
    ]


def test_no_prompt(tmp_path: Path) -> None:
    assert invoke(tmp_path, "rR b", "--no-prompt", stdin=b"q")[0] == b"q\n"


def test_usage_errors_of_options_exit_2(tmp_path: Path) -> None:
    assert invoke(tmp_path, "PPR", "--engine", "jit")[2] == 2
    assert invoke(tmp_path, "PPR", "--max-steps", "-1")[2] == 2


def test_ctrl_c_flushes_output_and_exits_130(tmp_path: Path) -> None:
    (tmp_path / "spin.fen").write_text("P5PRKBb")
    proc = subprocess.Popen(
        [str(BIN / "chazz"), "spin.fen"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None
    # The output before the endless loop is written when the loop starts: wait for it.
    assert proc.stdout.read(1) == b"A"
    time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = finish(proc, 60)
    assert (stdout, proc.returncode) == (b"", 130)
    assert b"Traceback" not in stderr


def test_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    # An endless printer whose reader goes away after one byte.
    (tmp_path / "yes.fen").write_text("P5PNKB/nRNb")
    result = subprocess.run(
        f"'{BIN / 'chazz'}' yes.fen | head -c 1",
        shell=True,
        cwd=tmp_path,
        capture_output=True,
        timeout=60,
    )
    assert result.stdout == b"A"
    assert b"Traceback" not in result.stderr


@pytest.mark.parametrize("engine", ["compiler", "interpreter"])
def test_umbrella_runs_programs(tmp_path: Path, engine: str) -> None:
    (tmp_path / "p.fen").write_text("PPR")
    result = subprocess.run(
        [str(BIN / "esochess"), "chazz", "p.fen", "false", "extra", "--engine", engine],
        cwd=tmp_path,
        capture_output=True,
        timeout=60,
    )
    assert (result.stdout, result.returncode) == (b"\x03\n", 0)


def test_umbrella_from_bf(tmp_path: Path) -> None:
    (tmp_path / "p.b").write_text("++++++++[>++++++++<-]>+.")
    result = subprocess.run(
        [str(BIN / "esochess"), "chazz", "from-bf", "p.b", "-o", "p.fen"],
        cwd=tmp_path,
        capture_output=True,
        timeout=60,
    )
    assert (result.stdout, result.stderr, result.returncode) == (b"", b"", 0)
    run = subprocess.run(
        [str(BIN / "chazz"), "p.fen"], cwd=tmp_path, capture_output=True, timeout=60
    )
    assert run.stdout == b"A\n"


def test_from_bf_errors(tmp_path: Path) -> None:
    (tmp_path / "bad.b").write_text("+\n+]\n")
    result = CliRunner().invoke(main, ["from-bf", str(tmp_path / "bad.b")])
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"{tmp_path / 'bad.b'}:2:2: error: unmatched ']'",
        "+]",
        " ^",
    ]
    missing = CliRunner().invoke(main, ["from-bf", str(tmp_path / "none.b")])
    assert missing.exit_code == 2
    assert missing.stderr == f"chazz: error: cannot read {tmp_path / 'none.b'}: no such file\n"
    (tmp_path / "big.b").write_text(">." * 20000)
    big = CliRunner().invoke(main, ["from-bf", str(tmp_path / "big.b")])
    assert big.exit_code == 1
    assert "do not fit" in big.stderr


def test_from_bf_to_stdout(tmp_path: Path) -> None:
    (tmp_path / "p.b").write_text("+.")
    result = CliRunner().invoke(main, ["from-bf", str(tmp_path / "p.b")])
    assert (result.stdout, result.exit_code) == ("PR w\n", 0)


def test_a_terminal_sees_the_prompt_before_typing(tmp_path: Path) -> None:
    (tmp_path / "echo.fen").write_text("3P2PRrR w")  # print H, prompt, read, echo
    try:
        controller, terminal = pty.openpty()
    except OSError as exc:
        pytest.skip(f"no pseudo-terminal available: {exc}")
    proc = subprocess.Popen(
        [str(BIN / "chazz"), "echo.fen"],
        cwd=tmp_path,
        stdin=terminal,
        stdout=terminal,
        stderr=subprocess.PIPE,
    )
    os.close(terminal)
    seen = b""
    deadline = time.monotonic() + 60
    while b"Input a character: " not in seen and time.monotonic() < deadline:
        seen += os.read(controller, 1024)
    assert seen.replace(b"\r\n", b"\n") == b"H\nInput a character: "
    os.write(controller, b"z\n")
    assert proc.wait(timeout=60) == 0
    rest = b""
    with contextlib.suppress(OSError):  # the terminal closes when chazz exits
        while chunk := os.read(controller, 1024):
            rest += chunk
    os.close(controller)
    # The terminal echoes the typed line; then the program writes `z` and its newline.
    assert rest.replace(b"\r\n", b"\n").endswith(b"z\n")
    assert proc.stderr is not None
    assert b"Traceback" not in proc.stderr.read()


def test_a_bad_character_is_escaped_in_the_diagnostic(tmp_path: Path) -> None:
    stdout, stderr, code = invoke(tmp_path, "PP\x1b[2JR")
    assert (stdout, code) == (b"", 1)
    assert stderr.decode().splitlines()[1:] == [
        f"{tmp_path / 'p.fen'}:1:3: error: invalid character '\\x1b' in a rank",
        "PP\\x1b[2JR",
        "  ^~~~",  # the whole escape is underlined
    ]


def test_html_never_overwrites_the_program(tmp_path: Path) -> None:
    (tmp_path / "p.fen").write_text("PPR")
    result = CliRunner().invoke(main, [str(tmp_path / "p.fen"), "--html", str(tmp_path / "p.fen")])
    assert (result.stdout_bytes, result.exit_code) == (b"\x03\n", 0)
    assert result.stderr.splitlines() == [
        "Could not open HTML file for writing: it is also an input file",
        f"chazz: error: cannot write {tmp_path / 'p.fen'}: it is also an input file",
    ]
    assert (tmp_path / "p.fen").read_text() == "PPR"


def test_html_to_a_fifo_is_written_in_place(tmp_path: Path) -> None:
    (tmp_path / "p.fen").write_text("PPR")
    fifo = tmp_path / "board.html"
    os.mkfifo(fifo)
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE)
    result = subprocess.run(
        [str(BIN / "chazz"), "p.fen", "--html", str(fifo), "--no-open"],
        cwd=tmp_path, capture_output=True, timeout=60,
    )
    page, _ = finish(reader, 60)
    assert (result.stdout, result.returncode) == (b"\x03\n", 0)
    assert page.startswith(b"<!DOCTYPE html>") and page.count(b"<td") == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["board.html", "p.fen"]


def test_from_bf_to_dev_null_keeps_the_device(tmp_path: Path) -> None:
    (tmp_path / "p.b").write_text("+.")
    before = os.stat(os.devnull)
    result = CliRunner().invoke(main, ["from-bf", str(tmp_path / "p.b"), "-o", os.devnull])
    assert result.exit_code == 0
    assert os.stat(os.devnull).st_ino == before.st_ino


def test_sigterm_exits_143_quietly(tmp_path: Path) -> None:
    (tmp_path / "spin.fen").write_text("P5PRKBb")
    proc = subprocess.Popen(
        [str(BIN / "chazz"), "spin.fen"], cwd=tmp_path,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None
    assert proc.stdout.read(1) == b"A"
    proc.send_signal(signal.SIGTERM)
    _, stderr = finish(proc, 60)
    assert (proc.returncode, stderr) == (143, b"")
