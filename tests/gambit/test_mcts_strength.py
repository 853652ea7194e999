"""MCTS gets stronger with more iterations: `mcts:2000` against `mcts:200` on Connect Four.

Twenty seeded games, the stronger player taking seat 1 in even games and seat 2 in odd
ones; it must win at least 15. Slow (minutes of CPU): run by `make test-all`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from esochess.gambit.frontend import compile_source
from esochess.gambit.game import legal_options
from esochess.gambit.machine import Machine
from esochess.gambit.players import PlayerSpec, make_controller
from esochess.gambit.results import Decision, Result

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "gambit"


def play(program: object, seed: int, strong_seat: int) -> Result:
    """One silent game of mcts:2000 (at `strong_seat`) against mcts:200."""
    assert program is not None
    specs = {strong_seat: PlayerSpec("mcts", 2000), 3 - strong_seat: PlayerSpec("mcts", 200)}
    controllers = {s: make_controller(specs[s], seed, s, None) for s in (1, 2)}
    m = Machine(program, seed=seed, players=2)  # type: ignore[arg-type]
    out = m.run_until_decision()
    while isinstance(out, Decision):
        legal = legal_options(m, out)
        m.choose(controllers[out.seat].decide(m, out, legal))
        out = m.run_until_decision()
    assert isinstance(out, Result)
    return out


@pytest.mark.slow
def test_mcts_2000_beats_mcts_200_on_connect_four() -> None:
    source = (EXAMPLES / "connect-four.gmb").read_text(encoding="utf-8")
    program, _ = compile_source(source, "connect-four.gmb")
    wins = 0
    for game in range(20):
        strong = 1 + game % 2
        result = play(program, game, strong)
        wins += strong in result.winners
    print(f"mcts:2000 won {wins} of 20 games against mcts:200")
    assert wins >= 15
