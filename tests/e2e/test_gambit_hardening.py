"""Inputs that used to end in an internal error (exit 70): each is now a located user
error or simply works. One test per defect found by the adversarial pass."""

from __future__ import annotations

import contextlib
import json
import os
import resource
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from esochess.gambit.cli import main
from esochess.gambit.parser import MAX_NESTING
from esochess.gambit.replay import MAX_RECORD_NESTING

NIM = Path(__file__).resolve().parents[2] / "examples" / "gambit" / "nim.gmb"


def gambit(tmp_path: Path, *args: str, source: str | None = None) -> tuple[int, str, str]:
    if source is not None:
        (tmp_path / "prog.gmb").write_text(source, encoding="utf-8")
    with contextlib.chdir(tmp_path):
        r = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return r.exit_code, r.stdout, r.stderr


def run(tmp_path: Path, source: str) -> tuple[int, str, str]:
    return gambit(tmp_path, "run", "prog.gmb", "--players", "random", "--seed", "1",
                  source=source)  # fmt: skip


def test_unicode_letters_make_names(tmp_path: Path) -> None:
    src = "entity Ünit\nmain() {\n    café = 1\n    naïve = café + 1\n    print(naïve, Ünit())\n}\n"
    code, out, err = run(tmp_path, src)
    assert (code, out.splitlines()[0]) == (0, "2 Ünit#1"), err


def test_a_character_that_cannot_be_in_a_name_is_a_located_error(tmp_path: Path) -> None:
    code, out, err = run(tmp_path, "main() {\n    x² = 2\n}\n")
    assert code == 2 and out == ""
    assert err.splitlines()[0] == (
        "prog.gmb:2:5: error: 'x²' is not a valid name: '²' cannot be part of a name "
        "(names are letters, digits and '_')"
    )


def test_a_digit_that_is_not_ascii_is_an_unexpected_character(tmp_path: Path) -> None:
    code, _, err = run(tmp_path, "main() {\n    x = \u0663\n}\n")
    assert code == 2
    assert err.splitlines()[0] == "prog.gmb:2:9: error: unexpected character '\u0663'"


def test_deep_lists_long_sums_and_many_parentheses_run(tmp_path: Path) -> None:
    # The sizes the adversarial pass found (161, 323, 484), and the documented limit.
    for expr, shown in [
        ("[" * 161 + "1" + "]" * 161, None),
        ("+".join(["1"] * 323), "323"),
        ("(" * 484 + "1" + ")" * 484, "1"),
        ("+".join(["1"] * (MAX_NESTING - 10)), str(MAX_NESTING - 10)),
        ("(" * (MAX_NESTING - 10) + "2" + ")" * (MAX_NESTING - 10), "2"),
    ]:
        code, out, err = run(tmp_path, f"main() {{\n    x = {expr}\n    print(x)\n}}\n")
        assert code == 0, err[:300]
        if shown is not None:
            assert out.splitlines()[0] == shown


def test_nesting_past_the_limit_is_a_located_compile_error(tmp_path: Path) -> None:
    n = MAX_NESTING + 10
    code, out, err = gambit(tmp_path, "check", "prog.gmb",
                            source="main() {\n    x = " + "[" * n + "1" + "]" * n + "\n}\n")  # fmt: skip
    assert code == 2 and out == ""
    first = err.splitlines()[0]
    assert first.startswith("prog.gmb:2:")
    assert first.endswith(f"error: this is nested too deeply (more than {MAX_NESTING} levels "
                          "of brackets, parentheses, operators and blocks)")  # fmt: skip


def test_input_that_is_not_utf8_is_a_user_error(tmp_path: Path) -> None:
    (tmp_path / "moves.txt").write_bytes(b"1\n5\xe9\n")
    code, _, err = gambit(tmp_path, "run", str(NIM), "--players", "human,random", "--seed", "1",
                          "--input", "moves.txt")  # fmt: skip
    assert code == 2
    assert err.splitlines()[-1] == (
        "gambit: error: input line 2 is not UTF-8 text (byte 0xe9 at column 2)"
    )


def test_an_input_line_of_thousands_of_digits_is_a_bad_choice(tmp_path: Path) -> None:
    (tmp_path / "moves.txt").write_text("1" * 4400 + "\n", encoding="utf-8")
    code, out, err = gambit(tmp_path, "run", str(NIM), "--players", "human,random", "--seed", "1",
                            "--input", "moves.txt")  # fmt: skip
    assert code == 4  # re-prompted, then the input ended: no internal error
    assert "Please enter one of the listed numbers." in out
    assert err.splitlines()[-1] == "gambit: error: input ended while waiting for Player 1"


def test_a_deeply_nested_record_file_is_refused_with_its_place(tmp_path: Path) -> None:
    (tmp_path / "deep.json").write_text('{"format": ' + "[" * 100_000 + "]" * 100_000 + "}")
    code, _, err = gambit(tmp_path, "run", str(NIM), "--replay", "deep.json")
    assert code == 2
    col = len('{"format": ') + MAX_RECORD_NESTING
    assert err.splitlines()[-1] == (
        f"Error: deep.json:1:{col}: not a record file: nested more than "
        f"{MAX_RECORD_NESTING} levels deep"
    )
    json.loads("[" * MAX_RECORD_NESTING + "]" * MAX_RECORD_NESTING)  # the limit is no JSON one


def test_a_number_too_long_to_show_is_a_located_runtime_error(tmp_path: Path) -> None:
    src = "main() {\n    x = 10\n    for i in 1..14 { x = x * x }\n    print(x)\n}\n"
    code, _, err = run(tmp_path, src)
    assert code == 1
    assert err.splitlines()[0].endswith("runtime error: a number of more than 4300 digits "
                                        "cannot be shown")  # fmt: skip


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def test_running_out_of_memory_is_a_located_runtime_error(tmp_path: Path) -> None:
    # String doubling until the memory (capped at 1 GiB for this process) runs out.
    (tmp_path / "mem.gmb").write_text('main() {\n    s = "ab"\n    loop { s = s + s }\n}\n')
    exe = Path(sys.executable).parent / "gambit"
    r = subprocess.run([str(exe), "run", "mem.gmb", "--players", "random", "--seed", "1"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=120,
                       preexec_fn=_limit_memory, env={**os.environ, "GAMBIT_DEBUG": ""})  # fmt: skip
    assert r.returncode == 1, r.stderr
    assert r.stderr.splitlines()[3:6] == [  # after the "loop never ends" warning
        "mem.gmb:3:18: runtime error: out of memory: the program's values grew past what the "
        "machine can hold",
        "    loop { s = s + s }",
        "                 ^",
    ]


CATASTROPHIC = """struct Thing {
    int n = 1
}
notation Thing (a|a)*b => text, g {
    value.n = 2
}

main() {
    print('LITERAL'.n)
}
"""


def test_a_backtracking_notation_cannot_hang_check(tmp_path: Path) -> None:
    # With Python's `re`, (a|a)*b against 45 a's and a c backtracks for hours.
    (tmp_path / "n.gmb").write_text(CATASTROPHIC.replace("LITERAL", "a" * 45 + "c"))
    gambit = str(Path(sys.executable).with_name("gambit"))
    proc = subprocess.run([gambit, "check", "n.gmb"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 2
    assert "n.gmb:9:11: error: no notation matches 'aaaa" in proc.stderr


def test_a_matching_literal_still_runs_its_notation(tmp_path: Path) -> None:
    (tmp_path / "n.gmb").write_text(CATASTROPHIC.replace("LITERAL", "a" * 45 + "b"))
    with contextlib.chdir(tmp_path):
        result = CliRunner().invoke(main, ["run", "n.gmb"])
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("2\n")


def test_a_backreference_in_a_notation_is_refused_with_the_reason(tmp_path: Path) -> None:
    (tmp_path / "n.gmb").write_text(CATASTROPHIC.replace("(a|a)*b", r"(a)\1").replace(
        "LITERAL", "aa"))
    with contextlib.chdir(tmp_path):
        result = CliRunner().invoke(main, ["check", "n.gmb"])
    assert result.exit_code == 2
    assert "backreferences and look-around are not supported in notations" in result.stderr
