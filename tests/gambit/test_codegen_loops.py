"""`while` loops whose walk is static, tabled per instance version and start
(codegen/loops.py): which loops are tabled, and that tabled loops -- tests before and
after the step, two tabled tests, walks that fail or never end by themselves, state and
instances that change between calls, the depth limit, tracing -- behave as on the
reference interpreter."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from test_codegen_tables import run_both

from esochess.gambit.cli import main

WALKS = """players 2

entity Sq
fixed int [Sq index]
state Player? [Sq owner]
state int [bad] = 0

fn at(int i) -> Sq => Sq<index: i>
fn inside(int i) => i >= 1 and i <= 8

// How many of p's squares follow `from` in steps of d.
fn run(int from, int d, Player p) -> int {
    n = 0
    i = from + d
    while inside(i) {
        if at(i).owner != p: break
        n += 1
        i += d
    }
    return n
}

// The walked local moves before the test.
fn after(int from, int d, Player p) -> int {
    n = 0
    i = from
    while inside(i + d) {
        i += d
        if at(i).owner != p: break
        n++
    }
    return n * 100 + i
}

// Two tested parts; the second test reads a local the walk does not.
fn pair(int from, Player p) -> int {
    i = from
    k = 0
    while inside(i) {
        if at(i).owner == none: break
        k += i
        if at(9 - i).owner != p or k > 20: break
        i = i + 1
    }
    return k * 10 + i
}

// The walk runs past the squares (at(9) fails) where the loop stops before.
fn unbounded(int from, Player p) -> int {
    i = from
    while true {
        if at(i).owner != p: break
        i += 1
    }
    return i
}

// A walk that never ends by itself: the loop stops by its break.
fn stay(int from) -> int {
    i = from
    n = 0
    while i > 0 {
        if at(i).owner == none or n >= 3: break
        n += 1
        i += 0
    }
    return n
}

// Not tabled: the condition reads the state; the walk depends on the state; a nested loop.
fn by_state(int from) -> int {
    i = from
    while inside(i) and bad == 0 {
        if at(i).owner == none: break
        i += 1
    }
    return i
}
fn jumpy(int from) -> int {
    i = from
    while inside(i) {
        if at(i).owner == none: break
        i += if { at(i).owner == Player[1]: 1, else: 2 }
    }
    return i
}
fn nested(int from) -> int {
    i = from
    while inside(i) {
        if at(i).owner == none: break
        for j in 1..2: i += 0
        i += 1
    }
    return i
}

fn deep(int n, Player p) -> int {
    if n == 0: return run(0, 1, p)
    return deep(n - 1, p)
}

main() {
    for i in 1..8: Sq(index: i)
    Sq[1].owner = Player[1]
    Sq[2].owner = Player[1]
    Sq[3].owner = Player[2]
    print(run(0, 1, Player[1]), run(3, -1, Player[1]), run(4, -1, Player[1]), run(0, 1, Player[2]))
    print(after(0, 1, Player[1]), after(3, -1, Player[1]), after(8, 1, Player[1]))
    print(pair(1, Player[1]), pair(2, Player[2]), stay(1), stay(5))
    print(by_state(1), jumpy(1), nested(1))
    Sq[4].owner = Player[1]
    Sq[3].owner = Player[1]
    Sq[8].owner = Player[2]
    print(run(0, 1, Player[1]), run(9, -1, Player[2]), after(0, 1, Player[1]), pair(1, Player[2]))
    print(unbounded(1, Player[1]), stay(1), by_state(1), jumpy(1), nested(1))
    print(deep(5, Player[1]), deep(990, Player[1]), deep(994, Player[1]))
    for i in 5..8: Sq[i].owner = Player[1]
    print(run(0, 1, Player[1]), unbounded(5, Player[2]))
    Sq(index: 9)
    print(run(0, 1, Player[1]), unbounded(5, Player[2]))
}
"""

# The loop itself reaches at(10) (no square 10): the error is the loop's.
FAILING = WALKS.rstrip().removesuffix("}") + (
    "    Sq[9].owner = Player[1]\n    print(unbounded(5, Player[1]))\n}\n")
# Calls of the tabled loop at the depth limit.
DEEPER = WALKS.replace("deep(994, Player[1]))", "deep(994, Player[1]))\n" + "".join(
    f"    print(deep({n}, Player[1]))\n" for n in range(995, 999)))


@pytest.mark.parametrize("program", [WALKS, FAILING, DEEPER], ids=["walks", "failing", "deeper"])
@pytest.mark.parametrize("trace", [False, True], ids=["plain", "traced"])
def test_tabled_loops_behave_as_on_the_interpreter(program: str, trace: bool, tmp_path: Path) -> None:
    seen = run_both(program, tmp_path, *(["--trace"] if trace else []))
    assert seen[0] == seen[1]
    code, out, err = seen[0]
    assert "2 2 0 0" in out.splitlines()[0]
    if program is WALKS:
        assert code == 0, err
    else:
        assert code != 0 and "error" in err


def test_the_failing_and_deep_programs_fail_where_the_loop_does(tmp_path: Path) -> None:
    failing = run_both(FAILING, tmp_path)[0]
    assert "Sq<index: i>" in failing[2] and "unbounded" in failing[2]
    deeper = run_both(DEEPER, tmp_path)[0]
    assert "call depth limit (1000) exceeded" in deeper[2]


def _function_at(program: str, line: int) -> str:
    """The name of the function whose body holds `line` (1-based) of `program`."""
    head = next(t for t in reversed(program.splitlines()[:line]) if t.startswith("fn "))
    return head.removeprefix("fn ").split("(")[0]


def test_only_loops_with_a_static_walk_are_tabled(tmp_path: Path) -> None:
    path = tmp_path / "p.gmb"
    path.write_text(WALKS, encoding="utf-8")
    source = CliRunner().invoke(main, ["compile", str(path), "--emit-python"]).stdout
    tabled = [int(t.split()[-1]) for t in source.splitlines()
              if t.startswith("# table of the loop at line ")]  # fmt: skip
    # Not by_state (its condition reads the state), jumpy (its step does), nested.
    assert [_function_at(WALKS, n) for n in tabled] == ["run", "after", "pair", "unbounded", "stay"]
