"""Unit tests of the playout summary and of random playouts (session.py, §14.4)."""

from __future__ import annotations

from pathlib import Path

from esochess.gambit.frontend import compile_source
from esochess.gambit.session import EXIT_OK, EXIT_RUNTIME, PlayoutStats, playout, random_playout

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "gambit"


def test_summary_format() -> None:
    stats = PlayoutStats(games=4, seats=2, seconds=2.0, decisions=30, wins=[2, 1], draws=1)
    assert stats.lines() == [
        "games: 4",
        "seconds: 2.00",
        "playouts/s: 2.0",
        "decisions/game: 7.5",
        "Player 1 wins: 2",
        "Player 2 wins: 1",
        "draws: 1",
        "no result: 0",
    ]


def test_several_winners_count_for_each_and_nobody_wins_is_no_result() -> None:
    source = "players 3\nmain() {\n    Player<number >= 2> wins\n}\n"
    prog, errors = compile_source(source, "p.gmb")
    assert prog is not None, errors
    stats, report = playout(prog, 3, 0, 3)
    assert report.exit_code == EXIT_OK
    assert stats.wins == [0, 3, 3]
    lonely, _ = compile_source("players 1\nmain() {\n    Player[1] loses\n}\n", "q.gmb")
    assert lonely is not None
    stats, _ = playout(lonely, 2, 0, 1)
    assert stats.no_result == 2 and stats.wins == [0]


def test_progress_callback_sees_every_game() -> None:
    prog, _ = compile_source((EXAMPLES / "nim.gmb").read_text(), "nim.gmb")
    assert prog is not None
    seen: list[tuple[int, int]] = []
    playout(prog, 3, 0, 2, progress=lambda done, total: seen.append((done, total)))
    assert seen == [(1, 3), (2, 3), (3, 3)]


def test_random_playout_is_a_function_of_the_seed() -> None:
    prog, _ = compile_source((EXAMPLES / "tic-tac-toe.gmb").read_text(), "t.gmb")
    assert prog is not None
    runs = [random_playout(prog, seed, 2) for seed in (5, 5, 6)]
    assert runs[0][0].line == runs[1][0].line
    assert runs[0][1].decisions_made == runs[1][1].decisions_made


def test_runtime_error_stops_the_playout() -> None:
    source = "main() {\n    x = Player[1] choose [1, 0]\n    y = 1 / x\n    Player[1] wins\n}\n"
    prog, _ = compile_source(source, "b.gmb")
    assert prog is not None
    _, report = playout(prog, 5, 7, 2)
    assert report.exit_code == EXIT_RUNTIME
    assert report.message is not None
    assert report.message.endswith("in playout game 1 of 5 (seed 7)")
