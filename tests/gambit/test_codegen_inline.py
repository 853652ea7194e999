"""Leaf calls inlined at their call site, memo lookups in place (codegen/inline.py) and
values kept out of a map's loop (codegen/hoist.py): the source rewrite, and that inlined
calls, kept values, generated selectors and selector-to-instance conversions behave as on
the reference interpreter (values, errors, depth limit). The wrappers are in
test_codegen_wrappers.py."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from gambit_lang_helpers import run_both

from esochess.gambit.cli import main
from esochess.gambit.codegen.inline import body_expression, inline_call

LEAF = """players 1

fixed [int] [XS] = [10, 20, 30]

fn pick(int i) -> int => XS[i]
fn inside(int r, int c) => r >= 1 and r <= 3 and c >= 1

main() {
    n = 0
    r = 1
    while inside(r, 1) {
        n += pick(r)
        r += 1
    }
    print(n)
    print(pick(pick(1) - 9 + r - 2))
    print(pick(r))
}
"""

DEEP = """players 1

fn one(int x) => x + 1

fn down(int n) -> int {
    if n == 0: return one(0)
    return down(n - 1)
}

main() {
    print(down(997))
    print(down(998))
}
"""


SELECT = """players 1

entity Box
fixed int [Box size]

fn find(int s) -> Box => Box<size: s>
fn maybe(int s) -> Box? => Box<size: s>

fn mark(Box b) -> str {
    s = b.size
    if s == 1: return "one"
    return "more"
}

main() {
    Box(size: 1)
    Box(size: 2)
    Box(size: 2)
    print(find(1).size)
    print(find(1).size)
    print(maybe(5) == none)
    print(mark(find(1)))
    print(mark(Box[2]))
    print(find(2).size)
}
"""


def _temps() -> Callable[[], str]:
    counter = itertools.count(1)
    return lambda: f"_t{next(counter)}"


def test_body_expression_takes_a_single_return() -> None:
    assert body_expression(["        return (L[0] + 1)"], 1, _temps()) == "(L[0] + 1)"
    assert body_expression(["        return L[0]", "        return None"], 1, _temps()) == "L[0]"


def test_body_expression_nests_locals_and_early_returns() -> None:
    lines = ["        L[1] = L[0] * 2", "        if (L[1] > 3):", "            return 'big'",
             "        return L[2]", "        return None"]  # fmt: skip
    src = body_expression(lines, 1, _temps())
    assert src is not None
    assert "L[1]" not in src and "L[2]" not in src
    for x, want in ((1, None), (2, "big")):
        assert eval(src, {}, {"L": [x]}) == want  # noqa: S307 - generated test source


@pytest.mark.parametrize("lines", [
    ["        L[0] = 2", "        return L[0]"],  # a parameter reassigned
    ["        if L[0]:", "            L[1] = 1", "            return L[1]", "        return 0"],
    ["        while L[0]:", "            return 1", "        return 0"],
    ["        if L[0]:", "            return 1", "        else:", "            return 2"],
])  # fmt: skip
def test_body_expression_refuses_other_shapes(lines: list[str]) -> None:
    assert body_expression(lines, 1, _temps()) is None


def test_inline_call_binds_arguments_and_routes_helpers_to_the_wrapper() -> None:
    src = inline_call("_cw9", (3, 4), ["L[2] + 1"], "_index(_k1, L[0], (1, 2))", _temps())
    assert src is not None
    assert "_index" not in src
    assert "(_t1 := L[2] + 1)" in src
    assert src.count("_cw9(m, (3, 4), [_t1])") == 2
    compile(src, "<test>", "eval")


def test_inline_call_reads_plain_local_arguments_in_place() -> None:
    # Locals and integer literals need no binding: the body reads them where it reads
    # its parameters, and the wrapper gets them as they are.
    src = inline_call("_cw9", (3, 4), ["L[2]", "7"], "_index(_k1, L[0], L[1]) + L[0]", _temps())
    assert src is not None
    assert ":=" not in src
    assert "_index" not in src
    assert src.count("_cw9(m, (3, 4), [L[2], 7])") == 2
    assert "+ L[2]" in src
    compile(src, "<test>", "eval")


@pytest.mark.parametrize("body", ["_f(m, L)", "L[1]", "'L[0]' + L[0]"])
def test_inline_call_refuses_other_locals_and_unparsed_literals(body: str) -> None:
    assert inline_call("_cw9", (1, 1), ["1"], body, _temps()) is None


@pytest.mark.parametrize("program", [LEAF, DEEP, SELECT], ids=["leaf", "deep", "select"])
def test_inlined_calls_behave_as_calls_on_both_engines(program: str, tmp_path: Path) -> None:
    seen = run_both(program, tmp_path)
    assert seen[0] == seen[1]
    assert seen[0][0] != 0  # both programs end in a run-time error after some output
    assert seen[0][1].strip()
    source = CliRunner().invoke(main, ["compile", str(tmp_path / "p.gmb"), "--emit-python"]).stdout
    assert "_peak(m, " in source or "_one(" in source


# A trait read inside a map that does not involve the element is kept for the other
# elements (codegen/hoist.py); over an empty list it is never read, and it fails where
# the first element reaches it; traced runs read it every time.
HOIST = """players 2

entity Cell
fixed int [Cell row]
state int [bad] = 0
trait int [Player p weight] = 10 % (p.number - bad)

fn weigh(Player p, [int] xs) -> [int] => xs map (x: x + p.weight)

main() {
    for r in 1..3: Cell(row: r)
    print(weigh(Player[1], [1, 2, 3]))
    print(weigh(Player[1], []))
    bad = 1
    print(weigh(Player[1], []))
    print(weigh(Player[2], [4, 5]))
    print(weigh(Player[1], [6]))
}
"""


def test_a_map_keeps_what_does_not_involve_its_element() -> None:
    from esochess.gambit import ast as A
    from esochess.gambit.check import check
    from esochess.gambit.codegen.hoist import invariants
    from esochess.gambit.parser import parse

    tree = parse(HOIST, "h.gmb")
    an = check(tree)
    maps = [n for d in tree.decls for n in _walk(d) if isinstance(n, A.FilterMap)]
    assert len(maps) == 1
    kept = invariants(an, maps[0])
    assert [type(k).__name__ for k in kept] == ["Member"]


def _walk(x: object) -> list[object]:
    from esochess.gambit.compiler.horizon import nodes

    return nodes(x)


@pytest.mark.parametrize("trace", [False, True])
def test_kept_values_behave_as_reading_them_each_time(trace: bool, tmp_path: Path) -> None:
    seen = run_both(HOIST, tmp_path, "--seed", "1", *(["--trace"] * trace))
    assert seen[0] == seen[1]
    assert seen[0][1].splitlines() == ["[1, 2, 3]", "[]", "[]", "[4, 5]"]
    assert "division by zero" in seen[0][2]
    source = CliRunner().invoke(main, ["compile", str(tmp_path / "p.gmb"), "--emit-python"]).stdout
    assert "is not UNSET else" in source
    # A traced copy of each map whose lookups test tracing; the other tests none.
    assert ", traced\n" in source and "not False" in source


# Calls whose entity arguments cannot be none skip that test (codegen/expressions.py; the
# checker refuses an optional argument there); `xs[1]` tests only the length.
NONE_ARG = """players 2

entity Cell
fixed int [Cell row]
state Cell? [picked]

fn row_of(Cell c, [int] xs) -> int {
    n = c.row + xs[1]
    return n
}

main() {
    for r in 1..3: Cell(row: r)
    print(row_of(Cell[2], [10, 20]))
    print(row_of(Cell[3], [1]))
    print(row_of(Cell[1], []))
}
"""

def test_untested_arguments_and_constant_indexes_fail_as_on_the_interpreter(
    tmp_path: Path,
) -> None:
    seen = run_both(NONE_ARG, tmp_path)
    assert seen[0] == seen[1]
    assert seen[0][0] != 0
    assert seen[0][1].splitlines() == ["12", "4"]
    assert "list index 1 out of range" in seen[0][2]
    source = CliRunner().invoke(main, ["compile", str(tmp_path / "p.gmb"), "--emit-python"]).stdout
    assert "_tested(m, 'row_of'" not in source and "row_of" in source
