"""Static calls of a map's element tabled per instance version (codegen/tables.py): the
calls found, and that tabled maps -- reduced by all/some, nested, filters, maps reading
their element, failing calls, the depth limit, tracing -- behave as on the reference
interpreter."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from esochess.gambit import ast as A
from esochess.gambit.check import check
from esochess.gambit.cli import main
from esochess.gambit.codegen.tables import may_fail, tabled_parts
from esochess.gambit.compiler.horizon import nodes
from esochess.gambit.frontend import compile_source
from esochess.gambit.parser import parse

BOARD = """players 2

entity Sq
fixed int [Sq index]
state Player? [Sq owner]
state int [bad] = 0
trait int [Player p weight] = 10 % (p.number - bad)

fixed [[int]] [LINES] = [[1, 2, 3], [4, 5, 6], [1, 5, 7]]
fixed [[int]] [MORE] = [[1, 2, 3], [1, 5, 9]]

fn at(int i) -> Sq => Sq<index: i>
fn full(Player p, [int] line) => all(line map (i: at(i).owner == p))
fn has_line(Player p) => some(LINES map (line: all(line map (i: at(i).owner == p))))
fn no_line(Player p) => all(LINES map (line: some(line map (i: at(i).owner != p))))
fn each_line(Player p) -> [bool] => LINES map (line: all(line map (i: at(i).owner == p)))
fn won(Player p) -> [[int]] => LINES filter (line: all(line map (i: at(i).owner == p)))
fn broken(Player p) => some(MORE map (line: all(line map (i: at(i).owner == p))))
fn owners([int] xs) -> [Player?] => xs map (i: at(i).owner)
fn labels([int] xs) -> [str] => xs map (i: str(i) + ":" + str(at(i).index + at(i + 1).index))
fn odd([int] xs) -> [int] => xs filter (i: at(i).index % 2 == 1)
fn weighed(Player p, [int] xs) => all(xs map (i: at(i).index + p.weight > 0))
fn sums([[int]] ps) -> [int] => ps map (d: d[1] + -d[2])
fn gaps([[int]] ps) -> [[int]] => ps filter (d: at(d[1]).index < at(d[2]).index)
fn deep(int n, Player p) -> bool {
    if n == 0: return has_line(p)
    return deep(n - 1, p)
}

main() {
    for i in 1..8: Sq(index: i)
    Sq[1].owner = Player[1]
    Sq[2].owner = Player[1]
    print(full(Player[1], [1, 2]), full(Player[1], [1, 2, 3]), full(Player[2], []))
    print(has_line(Player[1]), no_line(Player[1]), each_line(Player[1]))
    Sq[3].owner = Player[1]
    print(has_line(Player[1]), no_line(Player[1]), each_line(Player[1]), has_line(Player[2]))
    print(won(Player[1]), won(Player[2]))
    print(owners([3, 1, 8]), labels([3, 1]), odd([1, 2, 3, 4, 7]))
    print(some([4, 1] map (i: at(i).owner == Player[1])), all([1, 4] map (i: at(i).owner == Player[1])))
    print(sums([[1, 2], [4, 1]]), gaps([[1, 2], [3, 2], [2, 3]]), sums([]))
    print(deep(5, Player[1]), deep(990, Player[1]), deep(994, Player[1]))
    print(weighed(Player[1], [1, 2]))
    bad = 1
    print(weighed(Player[2], []))
    print(weighed(Player[1], [1, 2]))
}
"""

FAILING = BOARD.replace("    print(deep(5", "    print(broken(Player[1]))\n    print(deep(5")
SHORT = BOARD.replace("    print(deep(5", "    print(sums([[1, 2], [3]]))\n    print(deep(5")
DEEPER = BOARD.replace("deep(994, Player[1]))", "deep(994, Player[1]))\n" + "".join(
    f"    print(deep({n}, Player[1]))\n" for n in range(995, 999)))


def run_both(program: str, tmp_path: Path, *args: str) -> list[tuple[int, str, str]]:
    """`gambit run` of a program on both engines: exit code, output, error output."""
    path = tmp_path / "p.gmb"
    path.write_text(program, encoding="utf-8")
    seen = []
    for engine in ("compiled", "interpreter"):
        r = CliRunner().invoke(main, ["run", str(path), "--seed", "1", "--engine", engine, *args])
        seen.append((r.exit_code, r.stdout, r.stderr))
    return seen


@pytest.mark.parametrize("program", [BOARD, FAILING, SHORT, DEEPER],
                         ids=["board", "failing", "short", "deeper"])  # fmt: skip
@pytest.mark.parametrize("trace", [False, True], ids=["plain", "traced"])
def test_tabled_maps_behave_as_on_the_interpreter(program: str, trace: bool, tmp_path: Path) -> None:
    seen = run_both(program, tmp_path, *(["--trace"] if trace else []))
    assert seen[0] == seen[1]
    code, out, err = seen[0]
    assert "false true [false, false, false]" in out  # (before the third square)
    assert code != 0 and "error" in err  # every program ends in a run-time error
    source = CliRunner().invoke(main, ["compile", str(tmp_path / "p.gmb"), "--emit-python"]).stdout
    assert "_table(m, " in source and "for _rr in _tr[0]:" in source


def test_the_failing_and_deep_programs_fail_where_the_map_does(tmp_path: Path) -> None:
    failing = run_both(FAILING, tmp_path)[0]
    assert "Sq<index: i>" in failing[2]  # at(9): no square 9, inside the map of `broken`
    short = run_both(SHORT, tmp_path)[0]
    assert "list index 2 out of range 1..1" in short[2]  # d[2] of [3], a tabled part
    deeper = run_both(DEEPER, tmp_path)[0]
    assert "call depth limit (1000) exceeded in 'at'" in deeper[2]  # from inside the map


def _counts(program: str) -> list[int]:
    """How many calls each map of `program` tables, in source order."""
    tree = parse(program, "t.gmb")
    an = check(tree)
    compiled, errors = compile_source(program, "t.gmb", "compiled")
    assert compiled is not None, errors
    groups = compiled.overloads
    maps = [n for d in tree.decls for n in nodes(d) if isinstance(n, A.FilterMap)]
    return [len(tabled_parts(an, e, {"at"}, groups)) for e in maps]


def test_only_unconditional_calls_of_the_element_alone_are_tabled() -> None:
    program = BOARD.replace(
        "fn odd(",
        "fn cond([int] xs) -> [bool] => xs map (i: i > 1 and at(i).index > 1)\n"
        "fn other([int] xs, int k) -> [int] => xs map (i: at(k).index + at(i).index)\n"
        "fn odd(",
    )  # fmt: skip
    # full; has_line, no_line, each_line, won and broken: the outer map (its element is a map,
    # tabled as a nested map) and the inner one; owners; labels (two calls); cond (under
    # `and`: none); other (at(i) only); odd; weighed; sums (d[1], -d[2]); gaps (two
    # calls); main's all and some.
    assert _counts(program) == [1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 1, 2, 0, 1, 1, 1, 2, 2, 1, 1]


@pytest.mark.parametrize(("source", "fails"), [
    ("(_s2.get(_r, None) is L[0])", False),
    ("(_s2.get(_r, None) is _one(L[0]))", True),
    ("(_r.index + 1 > 0)", True),
    ("(L[0] == '+')", False),
])  # fmt: skip
def test_may_fail_sees_helpers_and_arithmetic(source: str, fails: bool) -> None:
    assert may_fail(source) is fails
