"""Generated calls of pausing procedures and of host built-ins (codegen/compiler.py,
codegen/expressions.py): one generated function evaluates a pausing call's arguments and
picks its overload, and `next_player`/`str` are called through one helper instead of the
interpreter's closures -- with the same output, decisions, errors and traces as the
reference interpreter."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from gambit_lang_helpers import run_both

from esochess.gambit.cli import main

# A one-overload pausing procedure called with computed arguments (one of them a host
# built-in's value, one failing), and `str`/`next_player` in and around its calls.
CALLS = """players 2

entity Token
trait str [Token name] = "T" + str([1][LAST])

fixed int [LAST] = 1

fn bad(int i) -> int => [1][i]

pick(Player p, int base) -> int {
    n = p choose ("How many?") [base + 1, base + 2]
    return n
}

main() {
    p = Player[1]
    for i in 1..3 {
        x = pick(p, i * 10)
        print(str(x), str(p), x, pick(next_player(p), 0))
        p = next_player(p)
    }
    t = Token()
    print(str(t))
    y = pick(p, bad(LAST_ARG))
    print(y)
}
"""


@pytest.mark.parametrize("trace", [False, True])
@pytest.mark.parametrize(("last", "arg", "fails"), [
    ("1", "1", None),
    ("2", "1", "list index 2 out of range 1..1"),  # in a name trait, through `str`
    ("1", "2", "list index 2 out of range 1..1"),  # in a pausing call's argument
])  # fmt: skip
def test_generated_calls_behave_as_the_interpreters(
    last: str, arg: str, fails: str | None, trace: bool, tmp_path: Path
) -> None:
    program = CALLS.replace("[LAST] = 1", f"[LAST] = {last}").replace("LAST_ARG", arg)
    args = ["--players", "random,random", "--seed", "3", *(["--trace"] if trace else [])]
    seen = run_both(program, tmp_path, *args)
    assert seen[0] == seen[1]
    code, out, err = seen[0]
    assert "12 Player 1 12" in out
    if fails is None:
        assert code == 0 and out.endswith("T1\n[Player 2] How many? -> 2\n2\nNo result\n")
    else:
        assert code != 0 and fails in err
    source = CliRunner().invoke(main, ["compile", str(tmp_path / "p.gmb"), "--emit-python"]).stdout
    assert "# call at line 18\ndef _resolve" in source
    assert "_v = [L[0], (L[2] * 10)]" in source  # Player is never none: no test
    assert "_v = [_hosted(" in source  # next_player's call generated too
