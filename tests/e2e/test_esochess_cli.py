"""The umbrella `esochess` command and `esochess fen`, run as a real process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


def esochess(*args: str) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).with_name("esochess")
    return subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=60)


def test_help_lists_fen() -> None:
    result = esochess("--help")
    assert result.returncode == 0
    assert "fen" in result.stdout.split("Commands:")[1]


def test_help_lists_every_command_without_loading_the_front_ends() -> None:
    # Each installed front end gets a line (its package's summary), and printing the list
    # imports none of them: `esochess --help` answers at once.
    probe = (
        "import sys\n"
        "from esochess.fen.cli import main\n"
        "try:\n"
        "    main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "loaded = [m for m in ('chazz', 'chespel', 'cqlvars', 'gambit', 'studio')\n"
        "          if f'esochess.{m}.cli' in sys.modules]\n"
        "print('loaded:', loaded)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    listing, loaded = result.stdout.split("Commands:")[1].split("loaded:")
    rows = dict(line.split(maxsplit=1) for line in listing.splitlines() if line.strip())
    assert sorted(rows) == ["chazz", "chespel", "cql", "fen", "gambit", "studio"]
    assert rows["chespel"] == "Chespel: chess evaluation rules compiled into a chess engine."
    assert rows["fen"] == "Check and draw chess positions (FEN) and CHAZZ grids."
    assert loaded.strip() == "[]"


def test_fen_show_prints_the_board() -> None:
    result = esochess("fen", "show", START)
    assert result.returncode == 0
    assert result.stdout.splitlines()[0] == "8 r n b q k b n r"
    assert result.stdout.splitlines()[-1] == "  a b c d e f g h"


def test_fen_show_accepts_separate_fields() -> None:
    assert esochess("fen", "show", *START.split()).stdout == esochess("fen", "show", START).stdout


def test_broken_fen_names_field_and_column_without_traceback() -> None:
    result = esochess("fen", "show", START.replace(" w ", " x "))
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        "<fen>:1:45: error: side field: expected 'w' or 'b', found 'x'",
        START.replace(" w ", " x "),
        " " * 44 + "^",
    ]
    assert "Traceback" not in result.stderr


def test_fen_check_exit_codes() -> None:
    assert esochess("fen", "check", START).returncode == 0
    bad = esochess("fen", "check", "8/8/8/8/8/8/8/8 w - - 0 1")
    assert bad.returncode == 1 and "no white king" in bad.stderr


def test_show_formats_and_output_file(tmp_path: Path) -> None:
    out = tmp_path / "board.html"
    assert esochess("fen", "show", "--format", "html", "-o", str(out), START).returncode == 0
    page = out.read_text()  # the board picture in a page, one rectangle per square
    assert page.startswith("<!DOCTYPE html>") and page.count('class="square ') == 64
    svg = esochess("fen", "show", "--format", "svg", START)
    assert svg.returncode == 0 and svg.stdout.startswith("<svg")


def test_grid_mode() -> None:
    result = esochess("fen", "show", "--grid", "P10/k b")
    assert result.returncode == 0
    assert result.stdout.splitlines() == ["P" + " ." * 10, "k" + " ." * 10]


def test_unknown_subcommand_is_a_usage_error() -> None:
    result = esochess("nosuch")
    assert result.returncode == 2 and "No such command" in result.stderr


def test_fen_show_accepts_a_placement_only_fen_as_python_chess_does() -> None:
    placement = START.split()[0]
    result = esochess("fen", "show", placement)
    assert result.returncode == 0
    assert result.stdout == esochess("fen", "show", f"{placement} w - - 0 1").stdout
    assert esochess("fen", "check", placement, "b").returncode == 0


def test_fen_show_writes_a_file_and_reports_an_unwritable_one(tmp_path: Path) -> None:
    target = tmp_path / "board.svg"
    assert esochess("fen", "show", "startpos", "--format", "svg", "-o", str(target)).returncode == 0
    assert target.read_text().startswith("<svg")
    bad = esochess("fen", "show", "startpos", "-o", str(tmp_path / "no" / "b.txt"))
    assert (bad.returncode, bad.stderr) == (
        1, f"esochess: error: cannot write {tmp_path / 'no' / 'b.txt'}: no such directory\n"
    )
