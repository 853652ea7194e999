"""End-to-end `gambit moves` (§14.5): look-ahead pruning, multi-level backtracking, commit."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner, Result

from esochess.gambit.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "gambit"
TTT = str(EXAMPLES / "tic-tac-toe.gmb")

TWO_STEP = """players 1
main() {
    p = Player[1]
    a = p choose ("First") [1, 2, 3]
    b = p choose ("Second") [10, 20]
    if a == 2: illegal
    if a == 3 and b == 10: illegal
    print(a + b)
    p wins
}
"""

COMMITTED = """players 1
main() {
    p = Player[1]
    a = p choose ("First") [1, 2]
    commit
    b = p choose ("Second") [1, 2]
    if a == 1: illegal
    p wins
}
"""


def gambit(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def write(tmp_path: Path, source: str) -> str:
    path = tmp_path / "prog.gmb"
    path.write_text(source)
    return str(path)


def test_tic_tac_toe_after_two_moves() -> None:
    # §17 check 33: exactly the 8 lines of §14.5.
    r = gambit("moves", TTT, "--after", "5,1")
    assert r.exit_code == 0, r.stderr
    assert r.stdout.splitlines() == [
        "[Player 1] Where do you play?",
        *[f"  {i}) {i}" for i in (2, 3, 4, 6, 7, 8, 9)],
    ]


def test_occupied_square_is_a_replay_error() -> None:
    r = gambit("moves", TTT, "--after", "5,5")
    assert r.exit_code == 5
    assert "not a legal option" in r.stderr


def test_first_decision_without_after() -> None:
    r = gambit("moves", TTT)
    assert r.exit_code == 0
    assert r.stdout.splitlines()[0] == "[Player 1] Where do you play?"
    assert len(r.stdout.splitlines()) == 10
    # Output of the program itself is suppressed.
    assert "---" not in r.stdout


def test_malformed_after_list_exits_5() -> None:
    r = gambit("moves", TTT, "--after", "5,x")
    assert r.exit_code == 5
    assert "invalid --after" in r.stderr


def test_game_over_prints_the_result_line() -> None:
    r = gambit("moves", TTT, "--after", "1,4,2,5,3")
    assert r.exit_code == 0
    assert r.stdout == "Player 1 wins\n"


def test_choices_left_after_the_end_exit_5() -> None:
    r = gambit("moves", TTT, "--after", "1,4,2,5,3,6")
    assert r.exit_code == 5


def test_multi_level_backtracking(tmp_path: Path) -> None:
    # §17 check 35.
    prog = write(tmp_path, TWO_STEP)
    r = gambit("moves", prog)
    assert r.stdout.splitlines() == ["[Player 1] First", "  1) 1", "  3) 3"]
    r = gambit("moves", prog, "--after", "3")
    assert r.stdout.splitlines() == ["[Player 1] Second", "  2) 20"]
    r = CliRunner().invoke(
        main, ["run", prog, "--players", "random", "--seed", "5", "--quiet"]
    )
    assert r.exit_code == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] in ("11", "21", "23") and lines[1] == "Player 1 wins"
    assert len(lines) == 2


def test_commit_ends_look_ahead(tmp_path: Path) -> None:
    # §17 check 35, second program.
    prog = write(tmp_path, COMMITTED)
    r = gambit("moves", prog)
    assert r.stdout.splitlines() == ["[Player 1] First", "  1) 1", "  2) 2"]
    r = gambit("moves", prog, "--after", "1")
    assert r.exit_code == 1
    assert "runtime error: no legal move for Player 1" in r.stderr


def test_seats_outside_the_declared_range_is_a_usage_error() -> None:
    r = CliRunner().invoke(main, ["moves", TTT, "--seats", "3"])
    assert r.exit_code == 2


CHOOSE_K = """players 1
main() {
    p = Player[1]
    pair = p choose[2] ("Two") ["a", "b", "c"]
    if pair == ["a", "c"]: illegal
    one = p choose[1] ("One") ["x", "y"]
    print(pair, one)
    p wins
}
"""


def test_choose_k_lists_options_of_legal_combinations(tmp_path: Path) -> None:
    prog = write(tmp_path, CHOOSE_K)
    r = gambit("moves", prog)
    assert r.stdout.splitlines() == ["[Player 1] Two (choose 2)", "  1) a", "  2) b", "  3) c"]
    assert gambit("moves", prog, "--after", "1+3").exit_code == 5
    r = gambit("moves", prog, "--after", "3+2")
    assert r.stdout.splitlines() == ["[Player 1] One (choose 1)", "  1) x", "  2) y"]
    assert gambit("moves", prog, "--after", "2+3,2").stdout == "Player 1 wins\n"
    r = CliRunner().invoke(main, ["run", prog, "--input", "-"], input="1 3\n3,2\n2\n")
    assert r.exit_code == 0, r.stderr
    assert "Please enter one of the listed numbers." in r.stdout
    assert r.stdout.splitlines()[-2:] == ['["b", "c"] ["y"]', "Player 1 wins"]
