"""Messages that name the real mistake: misspellings, a missing `}`, an illegal `--after`
step, and the constructs of the language's other dialects (one test per case)."""

from __future__ import annotations

import contextlib
from pathlib import Path

from click.testing import CliRunner

from esochess.gambit.cli import main

TTT = Path(__file__).resolve().parents[2] / "examples" / "gambit" / "tic-tac-toe.gmb"


def check(tmp_path: Path, source: str) -> list[str]:
    """`gambit check` of `source`: exit 2, nothing on stdout; the stderr lines."""
    (tmp_path / "prog.gmb").write_text(source, encoding="utf-8")
    with contextlib.chdir(tmp_path):
        r = CliRunner().invoke(main, ["check", "prog.gmb"], catch_exceptions=False)
    assert r.exit_code == 2 and r.stdout == ""
    return r.stderr.splitlines()


def test_current_win_suggests_wins(tmp_path: Path) -> None:
    err = check(tmp_path, "main() {\n    current = Player[1]\n    current win\n}\n")
    assert err[:3] == [
        "prog.gmb:3:5: error: 'current win' is not a statement; did you mean 'current wins'?",
        "    current win",
        "    ^",
    ]


def test_a_misspelt_loop_suggests_loop(tmp_path: Path) -> None:
    err = check(tmp_path, "main() {\n    lop {\n        print(1)\n    }\n}\n")
    assert err[0] == "prog.gmb:2:5: error: unknown statement 'lop'; did you mean 'loop'?"


def test_a_missing_closing_brace_names_the_open_one(tmp_path: Path) -> None:
    err = check(tmp_path, "main() {\n    loop {\n        print(1)\n    }\n")
    assert err == [
        "prog.gmb:4:6: error: missing '}': the end of the file comes before the '{' on line 1 "
        "is closed",
        "    }",
        "     ^",
        "prog.gmb:1:8: note: this '{' is not closed",
    ]


def test_an_illegal_after_step_lists_the_legal_options() -> None:
    r = CliRunner().invoke(main, ["moves", str(TTT), "--after", "5,5"], catch_exceptions=False)
    assert r.exit_code == 5 and r.stdout == ""
    assert r.stderr == (
        "gambit: error: invalid --after list: choice 2 (5) is not a legal option for Player 2; "
        "the legal options are 1, 2, 3, 4, 6, 7, 8, 9\n"
    )


def test_static_properties_are_fixed(tmp_path: Path) -> None:
    err = check(tmp_path, "entity Card\nstatic int [Card value] = 3\nmain() { }\n")
    assert err[0] == "prog.gmb:2:1: error: 'static' is not a property kind: use 'fixed'"


def test_the_parenthesised_property_form_gets_the_bracket_form(tmp_path: Path) -> None:
    err = check(tmp_path, "entity Card\nstate int (Card card).tokens\nmain() { }\n")
    assert err[0] == (
        "prog.gmb:2:11: error: '(Card card).tokens' is the property syntax of another Gambit "
        "dialect; declare it as 'state int [Card tokens]'"
    )


def test_double_colon_bindings_get_assignment(tmp_path: Path) -> None:
    err = check(tmp_path, "main() {\n    x :: 5\n}\n")
    assert err[0] == (
        "prog.gmb:2:7: error: 'x :: …' is the binding syntax of another Gambit dialect; write "
        "'x = …' (or 'Type x = …' to give it a type)"
    )


def test_numbered_enum_members_get_the_plain_list(tmp_path: Path) -> None:
    err = check(tmp_path, "enum Suit { HEARTS = 1, SPADES = 2 }\nmain() { }\n")
    assert err[0] == (
        "prog.gmb:1:20: error: numbered enum members belong to another Gambit dialect; list "
        "the members alone, 'enum Suit { HEARTS, SPADES }' (ord(m) gives a member's position)"
    )


def test_a_prompt_after_the_options_of_choose(tmp_path: Path) -> None:
    src = 'main() {\n    x = Player[1] choose [1, 2] ("Pick one")\n    n = Player[1] choose 1..3 ("How many?")\n}\n'
    err = check(tmp_path, src)
    message = ("the prompt of a choose comes before its options (the order of another Gambit "
               "dialect is not supported): write 'choose (\"{}\") OPTIONS'")  # fmt: skip
    assert err[0] == "prog.gmb:2:34: error: " + message.format("Pick one")
    assert err[3] == "prog.gmb:3:32: error: " + message.format("How many?")


def test_a_function_called_with_a_string_is_still_a_call(tmp_path: Path) -> None:
    # Only options that cannot be called read as a misplaced prompt.
    src = 'fn pick(str s) => [1, 2]\nmain() {\n    x = Player[1] choose pick("a")\n    print(x)\n}\n'
    (tmp_path / "prog.gmb").write_text(src, encoding="utf-8")
    with contextlib.chdir(tmp_path):
        r = CliRunner().invoke(main, ["check", "prog.gmb"], catch_exceptions=False)
    assert r.exit_code == 0, r.stderr
