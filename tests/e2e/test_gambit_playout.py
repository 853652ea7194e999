"""End-to-end `gambit playout` (§14.4, §17 check 39)."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner, Result

from esochess.gambit.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "gambit"
NIM = str(EXAMPLES / "nim.gmb")


def gambit(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_nim_playout_summary() -> None:
    r = gambit("playout", NIM, "-n", "100", "--seed", "1")
    assert r.exit_code == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 8
    assert lines[0] == "games: 100"
    assert re.fullmatch(r"seconds: \d+\.\d\d", lines[1])
    assert re.fullmatch(r"playouts/s: \d+\.\d", lines[2])
    assert re.fullmatch(r"decisions/game: \d+\.\d", lines[3])
    counts = {}
    for line in lines[4:]:
        label, value = line.rsplit(": ", 1)
        counts[label] = int(value)
    assert list(counts) == ["Player 1 wins", "Player 2 wins", "draws", "no result"]
    assert sum(counts.values()) == 100
    assert counts["draws"] == 0
    again = gambit("playout", NIM, "-n", "100", "--seed", "1").stdout.splitlines()
    assert [again[0], *again[3:]] == [lines[0], *lines[3:]]


def test_playout_matches_random_runs() -> None:
    # Game i of a playout is exactly `gambit run --players random --seed SEED+i`.
    summary = gambit("playout", NIM, "-n", "5", "--seed", "10").stdout
    wins = {1: 0, 2: 0}
    for seed in range(10, 15):
        out = gambit("run", NIM, "--players", "random", "--seed", str(seed), "--quiet").stdout
        wins[int(out.splitlines()[-1].split()[1])] += 1
    assert f"Player 1 wins: {wins[1]}" in summary
    assert f"Player 2 wins: {wins[2]}" in summary


def test_progress_goes_to_stderr_only() -> None:
    r = gambit("playout", NIM, "-n", "3", "--progress")
    assert r.exit_code == 0
    assert "playout: 3/3 games" in r.stderr
    assert "playout:" not in r.stdout


def test_decision_limit_counts_as_no_result() -> None:
    r = gambit("playout", NIM, "-n", "4", "--max-decisions", "2")
    assert "no result: 4" in r.stdout


def test_runtime_error_names_the_seed(tmp_path: Path) -> None:
    prog = tmp_path / "boom.gmb"
    prog.write_text(
        "main() {\n    x = Player[1] choose [1, 0]\n    y = 10 / x\n    print(y)\n"
        "    Player[1] wins\n}\n"
    )
    r = gambit("playout", str(prog), "-n", "20", "--seed", "3")
    assert r.exit_code == 1
    assert "runtime error: division by zero" in r.stderr
    assert "(seed " in r.stderr
    assert "Traceback" not in r.stderr


def test_n_is_required() -> None:
    r = CliRunner().invoke(main, ["playout", NIM])
    assert r.exit_code == 2


RANGE_GAME = """players 2..4
main() {
    print("seats", #Player)
    for p in Player: x = p choose ("Pick") [1, 2]
    Player[#Player] wins
}
"""


def test_seat_count_for_a_player_range(tmp_path: Path) -> None:
    prog = tmp_path / "range.gmb"
    prog.write_text(RANGE_GAME)
    r = gambit("playout", str(prog), "-n", "2", "--seats", "3")
    assert r.exit_code == 0, r.stderr
    assert "Player 3 wins: 2" in r.stdout
    assert "Player 4 wins" not in r.stdout
    assert "decisions/game: 3.0" in r.stdout
    r = gambit("run", str(prog), "--players", "random,random,random,random", "--quiet")
    assert r.stdout.splitlines() == ["seats 4", "Player 4 wins"]
    r = gambit("run", str(prog), "--players", "random", "--quiet", "--seed", "1")
    assert r.stdout.splitlines()[0] == "seats 2"
    assert gambit("moves", str(prog), "--seats", "4", "--after", "1,2").stdout.splitlines()[0] == (
        "[Player 3] Pick"
    )
    assert CliRunner().invoke(main, ["playout", str(prog), "-n", "1", "--seats", "5"]).exit_code == 2


def untimed(stdout: str) -> list[str]:
    return [x for x in stdout.splitlines() if not x.startswith(("seconds:", "playouts/s:"))]


def test_jobs_give_the_same_summary_as_one_process() -> None:
    import multiprocessing

    for path, n in [(NIM, 30), (str(EXAMPLES / "tic-tac-toe.gmb"), 25)]:
        one = gambit("playout", path, "-n", str(n), "--seed", "9")
        assert one.exit_code == 0, one.stderr
        for jobs in ("2", "3"):
            many = gambit("playout", path, "-n", str(n), "--seed", "9", "--jobs", jobs)
            assert many.exit_code == 0, many.stderr
            assert untimed(many.stdout) == untimed(one.stdout)
    assert multiprocessing.active_children() == []  # no worker outlives the command


def test_jobs_report_the_same_first_failing_game(tmp_path: Path) -> None:
    prog = tmp_path / "fails.gmb"
    prog.write_text("main() {\n    x = roll(4)\n    if x == 4: print(1 / (x - 4))\n}\n")
    one = gambit("playout", str(prog), "-n", "12", "--seed", "1")
    many = gambit("playout", str(prog), "-n", "12", "--seed", "1", "--jobs", "3")
    assert one.exit_code == many.exit_code == 1
    assert "division by zero" in one.stderr
    assert many.stderr == one.stderr
