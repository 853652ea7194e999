"""Messages that help (issue 14, Chespel): did-you-mean, the missing `;` at the end of its
statement, other dialects' constructs named with the supported form; `repl` as an alias of
`run`; play mode's boards, help and move errors. One case per test, through the CLI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MATERIAL = ROOT / "examples" / "chespel" / "material.chp"


def chespel(*args: str, cwd: Path | None = None, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "esochess.chespel", *args], cwd=cwd,
                          input=stdin, capture_output=True, text=True, timeout=300)


def check(tmp_path: Path, text: str) -> list[str]:
    (tmp_path / "t.chp").write_text(text)
    done = chespel("check", "t.chp", cwd=tmp_path)
    assert done.returncode == 2
    return done.stderr.splitlines()


def test_unknown_method_suggests_the_close_one(tmp_path: Path) -> None:
    lines = check(tmp_path, "module evaluation\nrule r:\n\tpiece p with p.player == me:\n"
                            "\t\tscore p.valeu;\n")
    assert lines[0] == ("t.chp:4:11: error: class Piece has no method 'valeu'; "
                        "did you mean 'value' or 'alive'?")


def test_missing_semicolon_is_reported_at_the_end_of_the_statement(tmp_path: Path) -> None:
    lines = check(tmp_path, "module evaluation\nrule r:\n\tscore 1\n\nrule s:\n\tscore 2;\n")
    assert lines[:3] == ["t.chp:3:9: error: expected ';' at the end of the statement, "
                         "found 'rule' on line 5", "\tscore 1", "\t       ^"]


def test_config_block_names_the_supported_form(tmp_path: Path) -> None:
    lines = check(tmp_path, "config {\n\tmaxTime = 2\n}\nmodule evaluation\nrule r:\n\tscore 1;\n")
    assert lines[0].startswith("t.chp:1:1: error: 'config { … }' is not Chespel: search "
                               "parameters go in 'module search'")


def test_global_declaration_names_the_supported_form(tmp_path: Path) -> None:
    lines = check(tmp_path, "module evaluation\nglobal x = 1;\nrule r:\n\tscore 1;\n")
    assert lines[0].startswith("t.chp:2:1: error: 'global' declarations are not Chespel: "
                               "compute a value with 'let NAME = VALUE;'")


def test_braced_rule_names_the_supported_form(tmp_path: Path) -> None:
    lines = check(tmp_path, "module evaluation\nrule r sym {\n\tscore 1;\n}\n")
    assert lines[0].startswith("t.chp:2:12: error: 'rule NAME sym { … }' is not Chespel: "
                               "write 'sym rule NAME:'")


def test_repl_is_an_alias_of_run_not_a_second_command() -> None:
    listing = chespel("--help").stdout
    assert "  run " in listing and "  repl " not in listing
    assert chespel("repl", str(MATERIAL), stdin="eval startpos\n").stdout == \
        chespel("run", str(MATERIAL), stdin="eval startpos\n").stdout


def test_play_mode_one_board_per_half_move() -> None:
    out = chespel("run", str(MATERIAL), stdin="play\nhuman\nai\ne4\nd4\nquit\n").stdout
    assert out.count("  a b c d e f g h") == 5  # start, e4, reply, d4, reply
    assert out.count("move: ") == 2


def test_play_mode_help_inside_a_game() -> None:
    out = chespel("run", str(MATERIAL), stdin="play\nhuman\nhuman\nhelp\nquit\n").stdout
    assert "in a game:" in out and "  l                  list the legal moves" in out


def test_play_mode_not_a_move() -> None:
    out = chespel("run", str(MATERIAL), stdin="play\nhuman\nhuman\nxx\nquit\n").stdout
    assert "error: not a move: xx" in out.splitlines()


def test_play_mode_illegal_move() -> None:
    out = chespel("run", str(MATERIAL), stdin="play\nhuman\nhuman\ne2e5\nquit\n").stdout
    assert "error: illegal move: e2e5" in out.splitlines()
