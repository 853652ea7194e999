"""§15.3 / §17 check 37: MCTS on tic-tac-toe against random and against itself, and more
search beating less on Connect Four.

These games take minutes with the tree-walking interpreter, so they are marked slow and
run by `make test-all`.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from esochess.gambit.cli import main

TTT = str(Path(__file__).resolve().parents[2] / "examples" / "gambit" / "tic-tac-toe.gmb")


def result(players: str, seed: int) -> str:
    r = CliRunner().invoke(
        main, ["run", TTT, "--players", players, "--seed", str(seed), "--quiet"],
        catch_exceptions=False,
    )  # fmt: skip
    assert r.exit_code == 0, r.stderr
    return r.stdout.splitlines()[-1]


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(1, 11))
def test_mcts_first_never_loses_to_random(seed: int) -> None:
    assert result("mcts:500,random", seed) != "Player 2 wins"


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(1, 11))
def test_mcts_second_never_loses_to_random(seed: int) -> None:
    assert result("random,mcts:500", seed) != "Player 1 wins"


@pytest.mark.slow
def test_two_mcts_players_mostly_draw() -> None:
    draws = sum(result("mcts:500", seed) == "Draw" for seed in range(1, 11))
    assert draws >= 8


C4 = str(Path(__file__).resolve().parents[2] / "examples" / "gambit" / "connect-four.gmb")


@pytest.mark.slow
def test_more_search_wins_connect_four() -> None:
    # Ten iterations more search must show: mcts:2000 against mcts:200, each seat ten times.
    wins = 0
    for seed in range(1, 11):
        for players, strong in (("mcts:2000,mcts:200", "Player 1 wins"),
                                ("mcts:200,mcts:2000", "Player 2 wins")):  # fmt: skip
            r = CliRunner().invoke(
                main, ["run", C4, "--players", players, "--seed", str(seed), "--quiet"],
                catch_exceptions=False,
            )  # fmt: skip
            assert r.exit_code == 0, r.stderr
            wins += r.stdout.splitlines()[-1] == strong
    assert wins >= 15
