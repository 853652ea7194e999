"""Traits read only by the plain statements of procedures that decide nothing run without
a memo (codegen/memo_policy.py): which traits those are, and that the game's output,
errors, depth limit and traces stay those of the interpreter."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from gambit_lang_helpers import run_both

from esochess.gambit.check import check
from esochess.gambit.cli import main
from esochess.gambit.codegen.memo_policy import traits_read_once
from esochess.gambit.parser import parse

PROGRAM = """players 1

state int [moves] = 0
fixed [int] [XS] = [1, 2, 3]

trait bool [done] = moves >= sum(XS map (x: 1))
trait int [twice] = sum(XS map (x: moves))
trait int [in_map] = sum(XS map (x: moves + 1))
trait int [in_fn] = sum(XS map (x: moves + 2))
trait int [in_choice] = sum(XS map (x: moves + 3))
trait int [Player p score] {
    for x in XS: if moves > LIMIT: return XS[moves + 2]
    return moves * p.number
}

fn plus(int k) => k + in_fn

turn(Player p) {
    k = p choose ("How many?") 1..2
    if k > in_choice + 5: illegal
    moves += 1
}

main() {
    loop {
        turn(Player[1])
        print(twice, Player[1].score, plus(1), XS map (x: x + in_map))
        if done: draw
    }
}
"""


def test_only_traits_read_by_plain_statements_of_deciding_free_procedures() -> None:
    tree = parse(PROGRAM.replace("LIMIT", "9"), "t.gmb")
    assert traits_read_once(tree, check(tree)) == {"done", "twice", "score"}


@pytest.mark.parametrize("limit", ["9", "1"])
@pytest.mark.parametrize("trace", [False, True])
def test_traits_without_a_memo_behave_as_on_the_interpreter(limit: str, trace: bool, tmp_path: Path) -> None:
    source = PROGRAM.replace("LIMIT", limit)
    seen = run_both(source, tmp_path, "--players", "random", "--seed", "3", *(["--trace"] if trace else []))
    assert seen[0] == seen[1]
    assert ("out of range" in seen[0][2]) == (limit == "1")
    generated = CliRunner().invoke(main, ["compile", str(tmp_path / "p.gmb"), "--emit-python"]).stdout
    # (A memoised trait has a wrapper of its own, "calls of"; a trait with a block body and
    # no memo runs in its wrapper. A trait defined by an expression keeps its memo: its
    # wrapper would hand it to the machine, which memoises.)
    assert "# calls of trait in_map" in generated and "# calls of trait twice" in generated
    assert "# fn trait score" in generated and "# calls of trait score" not in generated
