"""The 15 acceptance checks of specs/chazz.md §8, byte-exact, through the real `chazz`
console script (check 15, the engine-equivalence property, is in test_chazz_property.py;
its CLI-level form is here too)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

CHAZZ = Path(sys.executable).with_name("chazz")
ENGINES = ["compiler", "interpreter"]
TUTORIAL = "4PPQ1/PR6/qPR5/q1PR4/q2PR3/N2PBn2/pRN5/pbKBrRkb w"
PROMPT = b"\nInput a character: "


def chazz(
    tmp_path: Path, board: str | bytes, *args: str, stdin: bytes = b""
) -> subprocess.CompletedProcess[bytes]:
    """Write `board` to a file and run `chazz FILE ARGS...` in `tmp_path`."""
    program = tmp_path / "prog.fen"
    program.write_bytes(board.encode() if isinstance(board, str) else board)
    return subprocess.run(
        [str(CHAZZ), str(program), *args],
        input=stdin,
        capture_output=True,
        cwd=tmp_path,
        timeout=120,
    )


@pytest.mark.parametrize("engine", ENGINES)
def test_01_tutorial(tmp_path: Path, engine: str) -> None:
    result = chazz(tmp_path, TUTORIAL + "\n", "--engine", engine, stdin=b"a")
    assert result.stdout == b"124876543210" + PROMPT + b"a" + b"\n"
    assert result.returncode == 0
    assert result.stderr == b""


@pytest.mark.parametrize("engine", ENGINES)
def test_02_black_piece_before_the_start_is_skipped(tmp_path: Path, engine: str) -> None:
    result = chazz(tmp_path, "r7/4PPR1/8/8/8/8/8/8 w", "--engine", engine)
    assert (result.stdout, result.returncode) == (b"0\n", 0)


@pytest.mark.parametrize("engine", ENGINES)
def test_03_no_piece_of_the_side_starts_at_the_first_square(tmp_path: Path, engine: str) -> None:
    result = chazz(tmp_path, "PPR b", "--engine", engine)
    assert (result.stdout, result.returncode) == (b"\x03\n", 0)


@pytest.mark.parametrize("engine", ENGINES)
def test_04_output_before_an_underflow_is_kept(tmp_path: Path, engine: str) -> None:
    result = chazz(tmp_path, "P5PR/b7", "--engine", engine)
    assert result.stdout == b"AError: Loop stack underflow\n"
    assert result.returncode == 1
    assert result.stderr == b""


@pytest.mark.parametrize("engine", ENGINES)
def test_05_underflow_whatever_the_cell(tmp_path: Path, engine: str) -> None:
    result = chazz(tmp_path, "kb", "--engine", engine)
    assert (result.stdout, result.returncode) == (b"Error: Loop stack underflow\n", 1)


@pytest.mark.parametrize("engine", ENGINES)
def test_06_skip_scan_reaching_the_end(tmp_path: Path, engine: str) -> None:
    result = chazz(tmp_path, "B", "--engine", engine)
    assert (result.stdout, result.returncode) == (b"Error: Loop start not found\n", 1)


@pytest.mark.parametrize("engine", ENGINES)
def test_07_256_nested_loops_run_and_257_overflow(tmp_path: Path, engine: str) -> None:
    deep = chazz(tmp_path, "K" + "B" * 256 + "Rk" + "b" * 256, "--engine", engine)
    assert (deep.stdout, deep.returncode) == (b"\x01\n", 0)
    deeper = chazz(tmp_path, "K" + "B" * 257 + "Rk" + "b" * 257, "--engine", engine)
    assert (deeper.stdout, deeper.returncode) == (b"Error: Loop stack overflow\n", 1)


@pytest.mark.parametrize("engine", ENGINES)
def test_08_a_loop_run_1000_times_does_not_grow_the_stack(tmp_path: Path, engine: str) -> None:
    # Cell 0 = 8 + 32 + 64 + 128 + 256 + 512 = 1000; each turn prints cell 1 (a NUL).
    result = chazz(tmp_path, "3P1PPPPP/B/pNRnb w", "--engine", engine)
    assert result.stdout == b"\x00" * 1000 + b"\n"
    assert result.returncode == 0


@pytest.mark.parametrize("engine", ENGINES)
def test_09_empty_ranks_are_dropped(tmp_path: Path, engine: str) -> None:
    # Two ranks of two squares: M = 4, so `n` from cell 0 lands on cell 3 (the trace
    # shows the pointer each instruction starts from, and the `R` in rank 1).
    result = chazz(tmp_path, "n1//R1 b", "--trace", "--engine", engine)
    assert result.stderr.decode().splitlines() == [
        "step=1 sq=0,0 piece=n ptr=0 cell=0",
        "step=2 sq=1,0 piece=R ptr=3 cell=0",
    ]
    assert (result.stdout, result.returncode) == (b"\x00\n", 0)
    fits = chazz(tmp_path, "/15000//15000/", "--engine", engine)
    assert (fits.stdout, fits.returncode) == (b"\n", 0)
    too_big = chazz(tmp_path, "15000//15001", "--engine", engine)
    assert too_big.stderr == (
        b"Error: Required MEMORY_SIZE (30002) exceeds the maximum allowed (30000).\n"
    )


def test_10_a_16_digit_run_is_invalid(tmp_path: Path) -> None:
    result = chazz(tmp_path, "P1234567890123456 w")
    # The reference's line, then our diagnostic at the run of digits.
    assert result.stderr.splitlines()[:2] == [
        b"Error: Invalid FEN format",
        f"{tmp_path / 'prog.fen'}:1:2: error: an empty count has 16 digits (at most 15)".encode(),
    ]
    assert (result.stdout, result.returncode) == (b"", 1)
    # Fifteen digits are a valid count: the board is then simply too large.
    fifteen = chazz(tmp_path, "P123456789012345 w")
    assert fifteen.stderr == (
        b"Error: Required MEMORY_SIZE (123456789012346) exceeds the maximum allowed (30000).\n"
    )
    assert (fifteen.stdout, fifteen.returncode) == (b"", 1)


def test_11_the_30000_cell_limit(tmp_path: Path) -> None:
    fits = chazz(tmp_path, "PR29998 w")
    assert (fits.stdout, fits.returncode) == (b"\x01\n", 0)
    too_big = chazz(tmp_path, "PR29999 w")
    assert too_big.stderr == (
        b"Error: Required MEMORY_SIZE (30001) exceeds the maximum allowed (30000).\n"
    )
    assert (too_big.stdout, too_big.returncode) == (b"", 1)


@pytest.mark.parametrize("engine", ENGINES)
def test_12_end_of_input_stores_minus_one(tmp_path: Path, engine: str) -> None:
    result = chazz(tmp_path, "rR b", "--engine", engine)
    assert (result.stdout, result.returncode) == (PROMPT + b"\xff\n", 0)


@pytest.mark.parametrize("engine", ENGINES)
def test_13_pawn_columns_wrap_at_32(tmp_path: Path, engine: str) -> None:
    result = chazz(tmp_path, "31PR/40PR w", "--trace", "--engine", engine)
    lines = result.stderr.decode().splitlines()
    assert lines[1] == "step=2 sq=0,32 piece=R ptr=0 cell=-2147483648"
    assert lines[3] == "step=4 sq=1,41 piece=R ptr=0 cell=-2147483392"
    assert (result.stdout, result.returncode) == (b"\x00\x00\n", 0)
    alone = chazz(tmp_path, "40PR w", "--trace", "--engine", engine)
    assert alone.stderr.decode().splitlines()[1] == "step=2 sq=0,41 piece=R ptr=0 cell=256"


EXPECTED_HTML_HEAD = """<!DOCTYPE html>
<html>
<head>
<meta charset="UTF-8">
<title>Chess Board</title>
<style>
table { border-collapse: collapse; }
td { width: 60px; height: 60px; text-align: center; vertical-align: middle; font-size: 48px; }
.white { background-color: #eeeed2; }
.black { background-color: #769656; }
</style>
</head>
<body>
<table>
"""
ENTITY = {
    "P": "&#9817;", "N": "&#9816;", "B": "&#9815;", "R": "&#9814;", "Q": "&#9813;",
    "K": "&#9812;", "p": "&#9823;", "n": "&#9822;", "b": "&#9821;", "r": "&#9820;",
    "q": "&#9819;", "k": "&#9818;",
}  # fmt: skip


def expected_html(rows: list[str]) -> bytes:
    """The page of spec §6 for padded rows given as strings ('.' for an empty square)."""
    lines = [EXPECTED_HTML_HEAD.rstrip("\n")]
    for r, row in enumerate(rows):
        lines.append("<tr>")
        for c, square in enumerate(row):
            colour = "white" if (r + c) % 2 == 0 else "black"
            lines.append(f'<td class="{colour}">{ENTITY.get(square, "")}</td>')
        lines.append("</tr>")
    lines += ["</table>", "</body>", "</html>"]
    return ("\n".join(lines) + "\n").encode()


TUTORIAL_ROWS = [
    "....PPQ.", "PR......", "qPR.....", "q.PR....",
    "q..PR...", "N..PBn..", "pRN.....", "pbKBrRkb",
]  # fmt: skip


@pytest.mark.parametrize("engine", ENGINES)
def test_14_flag_true_writes_the_exact_html(tmp_path: Path, engine: str) -> None:
    page = tmp_path / "output_chess_board.html"
    page.write_text("an older page, replaced")
    on = chazz(tmp_path, TUTORIAL, "true", "--engine", engine, stdin=b"a")
    assert page.read_bytes() == expected_html(TUTORIAL_ROWS)
    page.unlink()
    off = chazz(tmp_path, TUTORIAL, "false", "--engine", engine, stdin=b"a")
    assert not page.exists()
    assert (on.stdout, on.returncode) == (off.stdout, off.returncode)
    assert on.stdout == b"124876543210" + PROMPT + b"a\n"


def test_14_html_of_every_piece(tmp_path: Path) -> None:
    chazz(tmp_path, "PNBRQK/pnbrqk/1", "true")
    page = (tmp_path / "output_chess_board.html").read_bytes()
    assert page == expected_html(["PNBRQK", "pnbrqk", "......"])


def test_14_html_of_a_padded_non_square_board(tmp_path: Path) -> None:
    chazz(tmp_path, "K//2pR1/r b", "true")
    page = (tmp_path / "output_chess_board.html").read_bytes()
    assert page == expected_html(["K....", "..pR.", "r...."])


def test_14_other_flags_do_not_export(tmp_path: Path) -> None:
    for flag in ("TRUE", "yes", "false", "1"):
        result = chazz(tmp_path, "PPR", flag, "ignored", "extra")
        assert (result.stdout, result.returncode) == (b"\x03\n", 0)
        assert not (tmp_path / "output_chess_board.html").exists()
    extra = chazz(tmp_path, "PPR", "true", "ignored", "extra")
    assert extra.stdout == b"\x03\n"
    assert (tmp_path / "output_chess_board.html").exists()


@pytest.mark.parametrize(
    "board",
    ["P5PR/b7", "KBBRkbb", "K" + "B" * 300 + "Rkb", "PPPPPPPPR/BpRb", "1B/NnRrQqKkPp b"],
)
def test_15_engines_agree_through_the_cli(tmp_path: Path, board: str) -> None:
    runs = []
    for engine in ENGINES:
        html = tmp_path / f"{engine}.html"
        result = chazz(
            tmp_path,
            board,
            "--engine",
            engine,
            "--html",
            str(html),
            "--max-steps",
            "5000",
            stdin=b"xy",
        )
        runs.append((result.stdout, result.stderr, result.returncode, html.read_bytes()))
    assert runs[0] == runs[1]
