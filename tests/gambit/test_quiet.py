"""Which `print` calls a random playout may skip (compiler/quiet.py), and that a playout
still reports every run-time error a `print` argument raises."""

from __future__ import annotations

from pathlib import Path

import pytest

from esochess.gambit import ast as A
from esochess.gambit.analysis import BuiltinCall
from esochess.gambit.check import check
from esochess.gambit.compiler.quiet import Proof, QuietAnalysis
from esochess.gambit.frontend import compile_source
from esochess.gambit.machine import Machine
from esochess.gambit.parser import parse
from esochess.gambit.results import Decision
from esochess.gambit.session import EXIT_RUNTIME, playout

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "gambit"

HEADER = """players 2
enum Mark { X, O }
entity Cell
fixed int [Cell row]
state Player? [Cell owner]
state int [discs] = 0
fn at(int r) -> Cell => Cell<row: r>
"""


def proofs(source: str) -> list[Proof | None]:
    """The proof of every `print` of a program, in source order."""
    tree = parse(source, "p.gmb")
    an = check(tree)
    assert not an.errors, an.errors
    quiet = QuietAnalysis(an, an.sym)
    found: list[tuple[A.Pos, Proof | None]] = []

    def walk(x: object) -> None:
        if isinstance(x, tuple):
            for y in x:
                walk(y)
            return
        if not hasattr(x, "__dataclass_fields__"):
            return
        if isinstance(x, A.Call) and an.calls.get(x) == BuiltinCall("print"):
            found.append((x.pos, quiet.prove_print([a.value for a in x.args])))
        for name in x.__dataclass_fields__:
            walk(getattr(x, name))

    walk(tree.decls)
    return [p for _, p in sorted(found, key=lambda f: f[0])]


def program(body: str, functions: str = "") -> str:
    return HEADER + functions + "main() {\n    for r in 1..3: Cell(row: r)\n" + body + "}\n"


def test_the_example_boards_are_proven() -> None:
    ttt = proofs((EXAMPLES / "tic-tac-toe.gmb").read_text())
    # cell(at(row)) + ...: `at` must find one square and `row + 1` is arithmetic, both on
    # the loop variable only.
    assert ttt == [Proof(keyed=True, slots=(1,), height=1)]
    c4 = proofs((EXAMPLES / "connect-four.gmb").read_text())
    assert c4 == [Proof(False, (), 1), Proof(False, (), 0)]


@pytest.mark.parametrize(
    ("body", "functions", "expected"),
    [
        ('    print("x", X, str(O))\n', "", Proof(False, (), 0)),
        (
            '    print(join(Cell<owner: none> map (c: if { c.owner == none: ".", else: "x" }), ""))\n',
            "",
            Proof(False, (), 0),
        ),
        (
            '    print(join(Cell<owner: none> map (c: str(c.owner)), ""))\n',
            "",
            Proof(False, (), 0),
        ),  # Player#1: players have no `name`
        ("    print(Cell[1])\n", "trait str [Cell c name] = str(c.row)\n", None),  # `name` may fail
        ("    n = 2\n    print(str(at(n).row + 1))\n", "", Proof(True, (2,), 1)),
        ("    print(discs)\n", "", None),  # a state number: too long to show?
        ("    print(str(10 / discs))\n", "", None),
        ("    print(str(at(discs).row))\n", "", None),  # which cell depends on the state
        (
            "    print(f(at(1)))\n",
            'fn f(Cell c) -> str => if { c.owner == none: str(at(1).row), else: "x" }\n',
            None,
        ),
        (
            "    print(g(at(1)))\n",
            'fn g(Cell c) -> str {\n    if c.owner == none: return "."\n'
            "    return str(at(2).row)\n}\n",
            None,
        ),
        (
            "    print(g(at(1)))\n",
            'fn g(Cell c) -> str {\n    if c.owner == none: return "."\n    return "X"\n}\n',
            Proof(True, (), 1),
        ),
        ("    print(str(Cell[2].row))\n", "", Proof(True, (), 0)),
        ("    print(str([1, 2][discs]))\n", "", None),
        (
            "    print(rec(3))\n",
            'fn rec(int n) -> str => if { n <= 0: "", else: rec(n - 1) }\n',
            None,
        ),
        (
            "    print(w(3))\n",
            'fn w(int n) -> str {\n    k = n\n    while k > 0: k -= 1\n    return ""\n}\n',
            None,
        ),
    ],
)
def test_proofs(body: str, functions: str, expected: Proof | None) -> None:
    assert proofs(program(body, functions)) == [expected]


class Recorder:
    """A GambitIO that keeps the program's output."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def output(self, text: str) -> None:
        self.lines.append(text)

    def trace(self, line: int, col: int, event: str) -> None:
        raise AssertionError("no trace expected")


def quiet_output(source: str, engine: str) -> list[str]:
    """What a quiet machine (as in a random playout) prints, choosing option 1 always."""
    prog, errors = compile_source(source, "p.gmb", engine)
    assert prog is not None, errors
    io = Recorder()
    m = Machine(prog, seed=0, players=2, io=io)  # type: ignore[arg-type]
    m.quiet = True
    out = m.run_until_decision()
    while isinstance(out, Decision):
        m.choose(1)
        out = m.run_until_decision()
    return io.lines


@pytest.mark.parametrize("engine", ["compiled", "interpreter"])
def test_a_quiet_machine_skips_only_proven_prints(engine: str) -> None:
    source = program(
        "    loop {\n"
        '        print("safe")\n'
        "        for r in [1, 2, 1]: print(str(at(r).row))\n"
        "        print(discs)\n"
        "        discs += 1\n"
        "        x = Player[1] choose [1, 2]\n"
        "        if discs == 2: Player[1] wins\n"
        "    }\n"
    )
    # The keyed print shows rows 1 and 2 once each; `discs` (unproven) every time.
    assert quiet_output(source, engine) == ["1", "2", "0", "1"]


FAILING = {
    # Proven with keys: n grows, so `at(n)` finds no cell on the fourth turn.
    "keyed": "        n += 1\n        print(str(at(n).row))\n",
    # Unproven: the divisor comes from the state.
    "state": "        discs -= 1\n        print(str(10 / (discs + 3)))\n",
}


def turns(step: str) -> str:
    """A game of alternating turns that runs `step` before each decision."""
    return (
        "    current = Player[1]\n    n = 0\n    loop {\n"
        + step
        + "        x = current choose [1, 2]\n        current = next_player(current)\n    }\n"
    )


@pytest.mark.parametrize("engine", ["compiled", "interpreter"])
@pytest.mark.parametrize("case", sorted(FAILING))
def test_a_playout_reports_a_failing_print_argument(engine: str, case: str) -> None:
    prog, errors = compile_source(program(turns(FAILING[case])), "p.gmb", engine)
    assert prog is not None, errors
    _, report = playout(prog, 3, 0, 2)
    assert report.exit_code == EXIT_RUNTIME
    assert report.message is not None
    assert ("division by zero" if case == "state" else "Cell<row: r>") in report.message
    assert "in playout game 1 of 3" in report.message


def call_proofs(source: str) -> list[Proof | None]:
    """The proof of every statement of `main` that calls a procedure, in source order."""
    tree = parse(source, "p.gmb")
    an = check(tree)
    assert not an.errors, an.errors
    quiet = QuietAnalysis(an, an.sym)
    main = next(d for d in tree.decls if getattr(d, "name", None) == "main")
    body = main.body
    assert isinstance(body, A.Block)
    return [quiet.prove_call(s.expr) for s in body.stmts if isinstance(s, A.ExprStmt)]


SHOW = "show() {\n    for r in 1..3: print(str(at(r).row))\n}\n"


@pytest.mark.parametrize(
    ("procedure", "expected"),
    [
        (SHOW, Proof(True, (), 2)),
        ('show() {\n    print("-")\n}\n', Proof(False, (), 1)),
        ("show() {\n    discs += 1\n}\n", None),  # writes the state
        ("show() {\n    for c in Cell<owner: none>: print(str(at(c.row).row))\n}\n", None),
        ("show() {\n    if discs > 0: print(str(at(1).row))\n}\n", None),
        ("show() {\n    print(str(10 / discs))\n}\n", None),
    ],
)
def test_call_proofs(procedure: str, expected: Proof | None) -> None:
    assert call_proofs(program("    show()\n", procedure)) == [expected]


@pytest.mark.parametrize("engine", ["compiled", "interpreter"])
def test_a_quiet_machine_runs_a_proven_procedure_once_per_instance_set(engine: str) -> None:
    source = program(
        "    loop {\n        show()\n        discs += 1\n        x = Player[1] choose [1, 2]\n"
        "        if discs == 3: Player[1] wins\n    }\n",
        SHOW,
    )
    assert quiet_output(source, engine) == ["1", "2", "3"]
