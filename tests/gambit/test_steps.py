"""The compiled engine's generated steps (codegen/steps.py) and the autoplay of random
playouts and MCTS simulations (autoplay.py) change nothing.

Differential properties: over the nine example games and random seeds, a random
playout gives the same result, decision count, state and hash with the steps and the
autoplay as with the instruction loop they replace (`program.drive = None` runs
`Machine._exec`, and a program without steps gets no autoplay) and as on the reference
interpreter. Programs that reach the steps' other paths -- loops over lists in a
procedure that decides, `commit`, an option whose legality test fails at run time, a
decision with no legal option, a function value's call, a choose[K] -- behave the same
on all three, errors included.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from gambit_lang_helpers import run_both
from hypothesis import given, settings
from hypothesis import strategies as st

from esochess.gambit import session
from esochess.gambit.cli import main
from esochess.gambit.codegen.steps import entries
from esochess.gambit.frontend import compile_source
from esochess.gambit.game import legal_options
from esochess.gambit.hashing import state_document, state_hash
from esochess.gambit.machine import Machine
from esochess.gambit.players import MctsPlayer, seat_rng
from esochess.gambit.program import OP_CHOOSE, Program
from esochess.gambit.results import Decision, GambitRuntimeError
from esochess.gambit.session import random_playout

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "gambit"
GAMES = sorted(p.stem for p in EXAMPLES.glob("*.gmb"))
CAPS = {"checkers": 150, "minichess": 150}


def _program(source: str, engine: str = "compiled", steps: bool = True) -> Program:
    program, errors = compile_source(source, "p.gmb", engine)
    assert program is not None, errors
    if not steps:
        program.drive = None  # the instruction loop, and so no autoplay
    return program


def _playout(program: Program, seed: int, cap: int) -> tuple[object, ...] | str:
    try:
        result, m = random_playout(program, seed, program.players_range[0], cap)
    except GambitRuntimeError as err:
        return err.render(program.source)
    document = json.dumps(state_document(m), sort_keys=True)
    return result.winners, result.draw, m.decisions_made, document, state_hash(m)


def _three(source: str, seed: int, cap: int = 500) -> list[tuple[object, ...] | str]:
    """A random playout on the compiled engine with and without its steps, and on the
    interpreter."""
    return [_playout(_program(source, engine, steps), seed, cap)
            for engine, steps in (("compiled", True), ("compiled", False),
                                  ("interpreter", True))]  # fmt: skip


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=4, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_steps_and_autoplay_play_the_instruction_loops_games(name: str, seed: int) -> None:
    source = (EXAMPLES / f"{name}.gmb").read_text(encoding="utf-8")
    seen = _three(source, seed, CAPS.get(name, 500))
    assert seen[0] == seen[1] == seen[2]


# Loops over lists in a procedure that decides, a call of it that returns to the
# horizon (its decision's legality is a predicate), `illegal`, `commit`.
LOOPS = """players 2

state int [total] = 0

pick(Player p) -> int {
    for i in [1, 2] {
        total += i
    }
    x = p choose ("How many?") 1..4
    if x == 2: illegal
    return x
}

main() {
    p = Player[1]
    loop {
        x = pick(p)
        print(x, total)
        if total > 60: draw
        p = next_player(p)
    }
}
"""

# An option whose legality test fails at run time, from the fourth decision on.
FAILING = LOOPS.replace("    if x == 2: illegal\n",
                        "    if total > 12 and x == 4: y = [1][x]\n    if x == 2: illegal\n")

# No legal option: every option is illegal once the total passes 20.
STUCK = LOOPS.replace("if x == 2: illegal", "if x == 2 or total > 20: illegal")

# A choose[K] whose legality is a predicate, `commit`, a function value's call.
PAIRS = """players 2

state int [turns] = 0

fn twice(int n) -> int => 2 * n

main() {
    p = Player[1]
    f = twice
    print(f(4))
    loop {
        xs = p choose[2] ("Two of") [1, 2, 3, 4]
        if xs[1] + xs[2] == 5: illegal
        turns += 1
        print(xs, turns)
        if turns == 9: p wins
        commit
        p = next_player(p)
    }
}
"""


def _choose_sites(program: Program) -> list[tuple[object, ...]]:
    return [ins for ins in program.main.instrs if ins[0] == OP_CHOOSE]


@pytest.mark.parametrize("source", [LOOPS, FAILING, STUCK, PAIRS],
                         ids=["loops", "failing", "stuck", "pairs"])  # fmt: skip
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_programs_playout_alike_with_and_without_steps(source: str, seed: int) -> None:
    seen = _three(source, seed)
    assert seen[0] == seen[1] == seen[2]


def test_the_programs_reach_the_paths_they_are_for() -> None:
    failing = _three(FAILING, 1)[0]
    assert isinstance(failing, str) and "while exploring option 4" in failing
    stuck = _three(STUCK, 1)[0]
    assert isinstance(stuck, str) and "no legal move for Player" in stuck
    pick = _program(LOOPS).overloads["pick"][0].code
    # The choose in `pick` is a predicate decision; its step is entered after the
    # choose, at the test's stop, and after the call's return in main.
    chooses = [k for k, ins in enumerate(pick.instrs) if ins[0] == OP_CHOOSE]
    assert len(chooses) == 1 and len(pick.instrs[chooses[0]]) > 6
    stop = pick.instrs[chooses[0]][6][0]
    assert {0, chooses[0], chooses[0] + 1, stop} <= set(entries(pick.instrs))
    pairs = _choose_sites(_program(PAIRS))
    assert len(pairs) == 1 and len(pairs[0]) > 6


@pytest.mark.parametrize("trace", [False, True], ids=["plain", "traced"])
def test_runs_agree_on_both_engines(trace: bool, tmp_path: Path) -> None:
    for source in (LOOPS, FAILING, PAIRS):
        args = ["--players", "random,mcts:15", "--seed", "2", "--hash", "--max-decisions", "40"]
        seen = run_both(source, tmp_path, *args, *(["--trace"] if trace else []))
        assert seen[0] == seen[1]


def test_the_generated_steps_are_shown(tmp_path: Path) -> None:
    path = tmp_path / "p.gmb"
    path.write_text(LOOPS, encoding="utf-8")
    source = CliRunner().invoke(main, ["compile", str(path), "--emit-python"]).stdout
    assert "# pick, step from instruction 0\ndef _step" in source
    assert "_sr = _ap.play(m, frame, L, _site" in source  # the autoplay's decision
    # `total += i`, a generated property write, is pasted into the step that runs it.
    step = source.split("# pick, step from instruction 0\n")[1].split("\n\n")[0]
    assert "m.version = _fresh()" in step and "m.write_prop(" in step


def test_a_statement_quiet_machines_skip_is_tested_in_the_step(tmp_path: Path) -> None:
    # Connect Four's `show()` only prints: a silent or quiet machine skips it, and the step
    # tests that in place, calling the statement only when it runs.
    path = EXAMPLES / "connect-four.gmb"
    source = CliRunner().invoke(main, ["compile", str(path), "--emit-python"]).stdout
    assert "if not ((m.silent or m.quiet) and _level + 2 < 1000 and m.inst_version in _seen" \
        in source  # fmt: skip


@pytest.mark.parametrize("name", ["connect-four", "tic-tac-toe", "nim"])
def test_mcts_simulations_choose_alike_with_and_without_autoplay(name: str) -> None:
    source = (EXAMPLES / f"{name}.gmb").read_text(encoding="utf-8")
    keys = []
    for steps in (True, False):
        m = Machine(_program(source, steps=steps), seed=0, players=2)
        d = m.run_until_decision()
        assert isinstance(d, Decision)
        keys.append(MctsPlayer(seat_rng(0, d.seat), 60).decide(m, d, legal_options(m, d)))
    assert keys[0] == keys[1]


def test_a_machine_with_io_gets_no_autoplay() -> None:
    class Quiet:
        def output(self, text: str) -> None:
            """Drop program output."""

        def trace(self, line: int, col: int, event: str) -> None:
            """Drop trace events."""

    program = _program(LOOPS)
    assert session.autoplay(Machine(program, seed=1, players=2, io=Quiet()), [], 9,
                            rejection=False) is None  # fmt: skip
    assert session.autoplay(Machine(program, seed=1, players=2), [], 9, rejection=False)
    assert session.autoplay(Machine(_program(LOOPS, steps=False), seed=1, players=2), [], 9,
                            rejection=False) is None  # fmt: skip
