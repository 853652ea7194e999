"""Generated call wrappers and the lines around them (codegen/calls.py, hoist.py, rt.py):
bodies run in their wrapper, positional calls, memoised bodies, property writes in
place, store and dict look-ups, none tests in selectors, ranges, runs of instructions and
choose specs behave as on the reference interpreter (values, errors, depth limit,
traces), and the generated lines have the shapes the speed figures rely on."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from gambit_lang_helpers import run_both

from esochess.gambit.cli import main

# Bodies that are not leaves run inside their call wrapper (codegen/calls.py,
# `fused_lines`): the depth count, the call level their inlined leaf calls see, and the
# `called from` trail of an error stay those of the interpreter.
FUSED = """players 1

fixed [int] [XS] = [10, 20, 30]
state int [base] = 0

fn pick(int i) -> int => XS[i]

fn total(int k) -> int {
    n = base
    for i in 1..k: n += pick(i)
    return n
}

fn down(int n, int k) -> int {
    if n == 0: return total(k)
    return down(n - 1, k)
}

main() {
    print(total(3))
    print(down(5, 3))
    for n in 994..999: print(down(n, 3))
}
"""


@pytest.mark.parametrize("last", ["print(down(5, 4))", "print(total(3))"])
def test_bodies_run_in_their_wrapper_behave_as_calls(last: str, tmp_path: Path) -> None:
    program = FUSED.replace("    for n in", f"    {last}\n    for n in")
    seen = run_both(program, tmp_path)
    assert seen[0] == seen[1]
    assert seen[0][0] != 0
    assert seen[0][1].startswith("60\n60\n")
    assert "called from" in seen[0][2] or "depth limit" in seen[0][2]
    source = CliRunner().invoke(main, ["compile", str(tmp_path / "p.gmb"), "--emit-python"]).stdout
    assert "# fn total\ndef _cw" in source and "# calls of total" not in source
    assert "_up(_cw" in source  # `down` moves the depth count only around its calls


# A call of a body that runs in its wrapper passes its arguments as Python parameters
# (`_cwpN`, codegen/calls.py `positional_lines`): fewer arguments than the body has
# locals, the depth limit, tracing and the `called from` trail of an error.
STRIDE = """fixed [int] [XS] = [10, 20, 30]
state int [base] = 0

fn stride(int k, int step) -> int {
    n = base
    i = 1
    while i <= k {
        n += XS[i]
        i += step
    }
    return n
}
"""
POSITIONAL = "players 1\n\n" + STRIDE + """
fn via(int d, int k) -> int {
    if d == 0: return stride(k, 1)
    return via(d - 1, k)
}

main() {
    print(stride(3, 1))
    print(stride(3, 2))
    LAST
}
"""


def failing_as_on_the_interpreter(program: str, start: str, trace: bool, tmp_path: Path) -> str:
    """Run `program` on both engines: the same output (beginning with `start`) and the
    same run-time error (an index out of range or the depth limit); its generated source."""
    seen = run_both(program, tmp_path, "--seed", "1", *(["--trace"] if trace else []))
    assert seen[0] == seen[1]
    assert seen[0][0] != 0
    assert seen[0][1].startswith(start)
    assert "called from" in seen[0][2] or "depth limit" in seen[0][2]
    return CliRunner().invoke(main, ["compile", str(tmp_path / "p.gmb"), "--emit-python"]).stdout


@pytest.mark.parametrize("last", ["print(stride(4, 1))", "for d in 994..999: print(via(d, 3))"])
@pytest.mark.parametrize("trace", [False, True])
def test_positional_calls_behave_as_calls(last: str, trace: bool, tmp_path: Path) -> None:
    source = failing_as_on_the_interpreter(POSITIONAL.replace("LAST", last), "60\n40\n", trace, tmp_path)
    assert "def _cwp" in source and "_cwp" in source.split("def _cwp")[0]
    # `stride` sets n and i before reading them, and reads `base` once, outside its loop:
    # neither starts as none, and the property's dict is not looked up ahead.
    wrapper = source.split("def _cwp")[1].split("\ndef ")[0]
    assert " = None\n" not in wrapper and " = m.store[" not in wrapper


# Memoised traits (one with no parameters, read by name) computed by their wrapper on a
# miss: results, the depth a memo hit needs near the depth limit, and the error trail.
MEMO = """players 1

state int [bump] = 0

fn depth_of(int i) -> int {
    if i == 0: return 0
    return 1 + depth_of(i - 1)
}

trait int [deep_sum] {
    n = 0
    for i in 1..3: n += depth_of(i)
    return n + bump
}

trait int [Player p scaled] {
    if bump > 5: return [1][bump]
    return deep_sum * p.number
}

fn down(int n) -> int {
    if n == 0: return deep_sum + Player[1].scaled
    return down(n - 1)
}

main() {
    print(deep_sum)
    print(deep_sum)
    bump = 1
    print(down(5))
    for n in 990..999: print(down(n))

}
"""


@pytest.mark.parametrize("bump", ["1", "7"])
def test_memoised_bodies_computed_by_their_wrapper_behave_as_calls(bump: str, tmp_path: Path) -> None:
    seen = run_both(MEMO.replace("bump = 1", f"bump = {bump}"), tmp_path)
    assert seen[0] == seen[1]
    assert seen[0][0] != 0
    assert seen[0][1].startswith("6\n6\n")
    assert "runtime error" in seen[0][2] and "called from down" in seen[0][2]
    source = CliRunner().invoke(main, ["compile", str(tmp_path / "p.gmb"), "--emit-python"]).stdout
    assert "value = _body" in source and "_memo_miss(" not in source
    assert "m.version,))) is not None" in source  # a lookup in place keys `(version,)`


def test_python_locals_replace_slots_only_where_the_list_is_not_handed_on() -> None:
    from esochess.gambit.codegen.calls import python_locals

    body = ["        L[2] = (L[0] + 1)", "        return 'L[1]' + str(L[2])"]
    assert python_locals(body, 3) == [
        "        _L0, _L1, _L2, = L",
        "        _L2 = (_L0 + 1)",
        "        return 'L[1]' + str(_L2)",  # string literals are left alone
    ]
    assert python_locals(["        return _fm3(m, L)"], 1) is None
    assert python_locals(["        return _k2(m, L) + L[0]"], 1) is None
    assert python_locals(["        return 1"], 0) == ["        return 1"]


WRITES = """players 2

entity Box
state int [Box size]
state num [weight] = 1.5
state int [count]
state Player? [holder]

trait int [total] = count * 10

grow(Box b) {
    b.size = b.size + 1
    count += 2
}

main() {
    b = Box(size: 1)
    grow(b)
    weight *= 2
    weight += count
    holder = Player[1]
    x = Player[1] choose [1, 2]
    b.size = x + total
    count -= x
    print(b.size)
    print(weight)
    print(count)
    y = Player[2] choose [1, 2]
    weight /= 0
}
"""


@pytest.mark.parametrize("trace", [False, True])
def test_property_writes_in_place_behave_as_the_setters(trace: bool, tmp_path: Path) -> None:
    """Writes of state properties run in place on the compiled engine (codegen/bodies.py),
    in procedures that pause and in those that do not; values, trace lines, trait
    results read after a write and the error of a failing compound assignment agree."""
    args = ["--players", "random", "--seed", "3", *(["--trace"] if trace else [])]
    seen = run_both(WRITES, tmp_path, *args)
    assert seen[0] == seen[1]
    assert seen[0][0] != 0 and "division by zero" in seen[0][2]
    assert "\n" in seen[0][1]
    source = CliRunner().invoke(main, ["compile", str(tmp_path / "p.gmb"), "--emit-python"]).stdout
    assert "m.store[" in source and "_fresh()" in source


def test_store_dicts_are_looked_up_once_where_read_again() -> None:
    from esochess.gambit.codegen.calls import hoisted_store

    once = ["        return m.store[3].get(_L0, None)"]
    assert hoisted_store(once) == once
    twice = ["        return m.store[3].get(_L0) is m.store[3].get(_L1, 'm.store[3]')"]
    assert hoisted_store(twice) == [
        "        _s3 = m.store[3]",
        "        return _s3.get(_L0) is _s3.get(_L1, 'm.store[3]')",
    ]
    loop = ["        while m.store[2].get(_L0):", "            _L0 = m.store[4].get(_L0)"]
    assert hoisted_store(loop)[:2] == ["        _s2 = m.store[2]", "        _s4 = m.store[4]"]
    before = ["        _L1 = m.store[5].get(_L0)", "        while _L1:", "            _L1 = _L1 - 1"]
    assert hoisted_store(before) == before  # read once, before the loop


def test_positional_wrappers_start_as_none_only_the_locals_read_before_set() -> None:
    from esochess.gambit.codegen.calls import positional_locals, set_first

    lines = ["        _L2 = _L0", "        _L3 = _L2 + 1", "        _L4 = _L5", "        _L5 = 1"]
    assert set_first(lines, 2) == {2, 3}  # _L4's value reads _L5, not set yet
    assert set_first(["        if _L0:", "            _L2 = 1", "        _L3 = 1"], 1) == set()
    body = ["        L[2] = L[0]", "        L[3] = L[2] + L[4]", "        return L[3]"]
    assert positional_locals(body, 5, 2) == [
        "        _L3 = _L4 = None", "        _L2 = _L0", "        _L3 = _L2 + _L4", "        return _L3"]


def test_a_body_tests_its_call_level_once_before_it_runs() -> None:
    from esochess.gambit.codegen.calls import settled_level

    guard = "_level < 1000 and not m.tracing and (_level <= m.peak or _peak(m, _level))"
    body = [f"        return (1 if (_t1 := 2, ) and {guard} else 3) + (4 if {guard} else 5)"]
    lines = settled_level(body)
    assert lines[0] == "        _settled = _level < 1000 and (_level <= m.peak or _peak(m, _level))"
    assert guard not in lines[1] and lines[1].count(" _settled else ") == 2
    assert settled_level(["        return 1"]) == ["        return 1"]


def test_a_map_looks_up_dicts_versions_and_tracing_once() -> None:
    from esochess.gambit.codegen.hoist import loop_lookups

    body = ("out.append((_s := m.store[2].get(_memo4.get((L[2], m.inst_version if _memoflag5 "
            "else m.version,))) is not None and not m.tracing and (x)) == 'm.store[3]')")  # fmt: skip
    kept, lines = loop_lookups(body, effect_free=True)
    assert kept == ("out.append((_s := _s2.get(_memo4.get((L[2], _v5,))) is not None "
                    "and not _tracing and (x)) == 'm.store[3]')")  # fmt: skip
    assert sorted(lines) == ["    _s2 = m.store[2]", "    _tracing = m.tracing",
                             "    _v5 = m.inst_version if _memoflag5 else m.version"]  # fmt: skip
    # A body with effects may change the versions between elements: only the dict moves.
    kept, lines = loop_lookups(body, effect_free=False)
    assert "m.inst_version if _memoflag5 else m.version" in kept
    assert "    _s2 = m.store[2]" in lines and len(lines) == 2


# A map over a list whose evaluation writes the state: the map's lookups (here the
# version the trait `total` is memoised by) are made after it.
MADE = """players 1

entity Box
state int [Box seen] = 0

trait int [total] = sum(Box map (b: b.seen))

bump(int n) -> [int] {
    Box[1].seen += n
    Box(seen: n)
    return [n, n]
}

main() {
    Box(seen: 1)
    print([0] map (s: total + s))
    print(bump(2) map (s: total + s))
    print(bump(3) map (s: total + s))
}
"""


def test_a_map_looks_up_after_evaluating_its_list(tmp_path: Path) -> None:
    seen = run_both(MADE, tmp_path)
    assert seen[0] == seen[1]
    assert seen[0][:2] == (0, "[1]\n[7, 7]\n[14, 14]\nNo result\n")


# Selector entries testing for none: on properties whose other values are instances or
# enum members the generated selector filters with `filterfalse(dict.get, ...)`; an int
# property (0 is false but not none) keeps the per-instance test.
NONE_TESTS = """players 2

enum Mark { X, O }

entity Cell
fixed int [Cell col]
state Player? [Cell owner]
state Mark? [Cell mark]
state int? [Cell count]

main() {
    for c in 1..4: Cell(col: c)
    Cell[1].owner = Player[1]
    Cell[2].owner = Player[2]
    Cell[2].owner = none
    Cell[3].mark = X
    Cell[1].count = 0
    Cell[2].count = 5
    Cell[4].count = none
    print(Cell<owner: none>)
    print(Cell<col: 2, owner: none>)
    print(Cell<mark: none>)
    print(Cell<count: none>)
    print(#Cell<owner: none, mark: none>)
}
"""


def test_none_tests_in_selectors_behave_as_on_the_interpreter(tmp_path: Path) -> None:
    seen = run_both(NONE_TESTS, tmp_path)
    assert seen[0] == seen[1]
    assert seen[0][:2] == (0, "[Cell#2, Cell#3, Cell#4]\n[Cell#2]\n[Cell#1, Cell#2, Cell#4]\n"
                              "[Cell#3, Cell#4]\n2\nNo result\n")  # fmt: skip
    source = CliRunner().invoke(main, ["compile", str(tmp_path / "p.gmb"), "--emit-python"]).stdout
    assert "return tuple(_filterfalse(s2.get, base))" in source
    assert "return tuple(_filterfalse(s3.get, base))" in source
    assert "return tuple([x for x in base if s4.get(x, " in source


SPANS = """players 1

fixed int [N] = 4

main() {
    n = 3
    print(1..N, 3..1, -2..0, n..n + 2, #(1..5000))
    for i in 2..N: print(i)
}
"""


def test_ranges_are_constants_or_one_call(tmp_path: Path) -> None:
    seen = run_both(SPANS, tmp_path)
    assert seen[0] == seen[1]
    assert seen[0][:2] == (0, "[1, 2, 3, 4] [] [-2, -1, 0] [3, 4, 5] 5000\n2\n3\n4\nNo result\n")
    source = CliRunner().invoke(main, ["compile", str(tmp_path / "p.gmb"), "--emit-python"]).stdout
    assert "_span(L[0], (L[0] + 2), (7, " in source  # a range of variables
    assert "_span(1, 5000, " in source  # too long to keep as a constant
    assert "_span(1, 4" not in source and "_span(2, 4" not in source


# A procedure that pauses: the plain instructions after its legality test (a loop, a
# state write, an error) run as generated runs (codegen/runs.py).
RUNS = """players 2

state int [total] = 0

pick(Player p) -> int {
    n = p choose ("How many?") [1, 2, 3]
    if n == 2: illegal
    k = 0
    while k < n {
        k += 1
        total += k
    }
    if total > 12: return [1][total]
    return k
}

main() {
    p = Player[1]
    loop {
        x = pick(p)
        print(x, total)
        p = next_player(p)
    }
}
"""


@pytest.mark.parametrize("trace", [False, True])
def test_runs_of_instructions_behave_as_the_instructions(trace: bool, tmp_path: Path) -> None:
    args = ["--players", "random,random", "--seed", "3", *(["--trace"] if trace else [])]
    seen = run_both(RUNS, tmp_path, *args)
    assert seen[0] == seen[1]
    assert seen[0][0] != 0 and "list index 17 out of range" in seen[0][2]
    source = CliRunner().invoke(main, ["compile", str(tmp_path / "p.gmb"), "--emit-python"]).stdout
    assert "# pick, instructions 1..10" in source and "# pick, instructions 5..10" in source
    assert "s = 6; continue" in source  # the loop stays inside the run


# A choose's player, K, prompt and options as one generated function.
SPEC = """players 2

fn bad(int i) -> int => [1][i]

main() {
    xs = Player[2] choose[2] ("Pick " + str(#[1, 2])) [10, 20, 30]
    print(xs)
    y = Player[bad(1)] choose ("again") [bad(1), bad(2)]
    print(y)
}
"""


def test_a_generated_choose_spec_behaves_as_the_interpreters(tmp_path: Path) -> None:
    seen = run_both(SPEC, tmp_path, "--players", "random,random", "--seed", "1")
    assert seen[0] == seen[1]
    assert seen[0][1] == "[Player 2] Pick 2 -> [10, 20]\n[10, 20]\n"
    assert "list index 2 out of range" in seen[0][2] and "p.gmb:8:50" in seen[0][2]
    source = CliRunner().invoke(main, ["compile", str(tmp_path / "p.gmb"), "--emit-python"]).stdout
    assert "# choose at line 6\ndef _spec" in source


# A tabled map calls a positional wrapper's settled variant (`_cwsN`, codegen/calls.py
# `settled_calls`) once `peak` has reached the level its calls run at: values, the error
# trail, the depth limit and traces stay those of the interpreter, also on the first call
# (where `peak` is still lower and the map calls the wrapper itself).
SETTLED = "players 1\n\nfixed [[int]] [DS] = [[1, 2], [2, 1], [1, 3]]\n" + STRIDE + """
fn tally(int k) -> int {
    hits = DS filter (d: stride(k, d[1]) + stride(k, d[2]) > 30)
    return #hits
}

fn via(int d, int k) -> int {
    if d == 0: return tally(k)
    return via(d - 1, k)
}

main() {
    print(tally(3))
    base = 5
    print(tally(3))
    print(tally(1))
    LAST
}
"""


@pytest.mark.parametrize("last", ["print(tally(4))", "for d in 993..999: print(via(d, 3))"])
@pytest.mark.parametrize("trace", [False, True])
def test_settled_calls_from_a_map_behave_as_calls(last: str, trace: bool, tmp_path: Path) -> None:
    source = failing_as_on_the_interpreter(SETTLED.replace("LAST", last), "3\n3\n0\n", trace, tmp_path)
    wrapper = source.split("# fn stride, settled\n")[1].split("\n\n")[0]
    # No depth, tracing or peak test in the variant, and the map picks it once, before its loop.
    assert "m.tracing" not in wrapper and "m.peak" not in wrapper and "err.trail.append" in wrapper
    assert " = _cws" in source and "_fs" in source.split(" = _cws")[1].split("\n\n")[0]
