"""Unit tests of the playout summary and of random playouts (session.py, §14.4)."""

from __future__ import annotations

from pathlib import Path

import pytest

from esochess.gambit.frontend import compile_source
from esochess.gambit.hashing import state_hash
from esochess.gambit.machine import Machine
from esochess.gambit.program import Program
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


@pytest.mark.parametrize("name", sorted(p.stem for p in EXAMPLES.glob("*.gmb")))
def test_games_from_a_kept_opening_are_the_games_a_fresh_machine_plays(name: str) -> None:
    # Later games of a playout start from a fork of the first one's opening (openings.py)
    # unless a game draws from its chance RNG before its first decision.
    def program() -> Program:
        prog, _ = compile_source((EXAMPLES / f"{name}.gmb").read_text(), f"{name}.gmb")
        assert prog is not None
        return prog

    shared = program()
    random_playout(shared, 99, shared.players_range[0], 300)
    for seed in (3, 4):
        games = []
        for prog in (program(), shared):
            result, m = random_playout(prog, seed, prog.players_range[0], 300)
            games.append((result, m.decisions_made, state_hash(m)))
        assert games[0] == games[1]
    draws = Machine(shared, seed=0, players=shared.players_range[0])
    draws.run_until_decision()
    assert bool(shared.openings) != draws.drew_chance
