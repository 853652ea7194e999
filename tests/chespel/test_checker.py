"""The checker: name resolution, classes, annotations for the back end (§3-§6)."""

from __future__ import annotations

import pytest

from esochess.chespel import ast
from esochess.chespel.classes import Base, ListOf
from esochess.chespel.frontend import CheckResult, compile_source
from esochess.chespel.library import LIBRARY, Entry

SAMPLE = {
    "Num": "2",
    "Row": "$4",
    "Col": "$d",
    "Cell": "e4",
    "Type": "knight",
    "Color": "white",
    "Player": "me",
    "Piece": "p",
    "Bool": "true",
    "[Cell]": "[e4, d4]",
    "[X]": "[1, 2]",
    "X": "1",
}

LIST_RECEIVER = {
    "orderable": "[1, 2]",
    "numeric": "[1, 2]",
    "bool": "[true, false]",
    None: "[1, 2]",
}


def _use(expr: str, returns: str) -> str:
    """A statement that type-checks for an expression of class `returns`."""
    if returns in ("Num", "Row", "Col", "Type", "X"):
        return f"score {expr};"
    if returns == "Bool":
        return f"if ({expr}) score 1;"
    if returns.startswith("["):
        return f"score ({expr}).length;"
    return f"if ({expr} == {expr}) score 1;"


def _call(entry: Entry, name: str) -> str:
    args = [
        "0" if entry.range_of(i) and entry.receiver == "List" else SAMPLE[p]
        for i, p in enumerate(entry.params)
    ]
    if entry.receiver is None:
        return f"{name}({', '.join(args)})" if args else name
    receiver = LIST_RECEIVER[entry.element] if entry.receiver == "List" else SAMPLE[entry.receiver]
    suffix = f"({', '.join(args)})" if args else ""
    return f"{receiver}.{name}{suffix}"


def _library_program() -> str:
    rules = []
    for index, entry in enumerate(LIBRARY):
        for name in entry.names:
            returns = "Num" if entry.returns == "X" else entry.returns
            rules.append(
                f"rule r{index} {name}:\n\tpiece p with p.player == me:\n"
                f"\t\t{_use(_call(entry, name), returns)}\n"
            )
    return "module evaluation\n" + "".join(rules)


def _walk(node: object) -> list[ast.Expr]:
    return list(ast.walk_expressions(node))


def test_every_builtin_and_alias_type_checks() -> None:
    result = compile_source("lib.chp", _library_program())
    assert [d.header() for d in result.diagnostics] == []
    used = {info.entry.key for info in result.calls.values() if info.entry is not None}
    # `abs(x)` is the prefix operator (a Unary node), the same function as the global.
    if any(isinstance(e, ast.Unary) and e.op == "abs" for e in _walk(result.program)):
        used.add("global.abs")
    assert used == {e.key for e in LIBRARY}


def test_every_expression_of_the_examples_has_a_class() -> None:
    for name in ("material", "positional", "full"):
        with open(f"examples/chespel/{name}.chp", encoding="utf-8") as handle:
            result = compile_source(name, handle.read())
        assert result.ok and not result.diagnostics
        for expr in _walk(result.program):
            assert result.class_of(expr) is not None, expr


def check(body: str) -> CheckResult:
    result = compile_source("t.chp", "module evaluation\nrule r:\n" + body)
    assert [d.header() for d in result.errors] == []
    return result


def exprs(result: CheckResult, kind: type) -> list[ast.Expr]:
    return [e for e in _walk(result.program) if isinstance(e, kind)]


def test_inherited_method_records_the_path() -> None:
    result = check("\tpiece p with p.player == me:\n\t\tscore p.value;\n")
    call = [c for c in exprs(result, ast.Call) if getattr(c, "name", "") == "value"][0]
    info = result.call_of(call)
    assert info is not None and info.entry is not None
    assert info.entry.key == "Type.value"
    assert [e.key for e in info.path] == ["Piece.type"]
    assert result.class_of(call) is Base.NUM


def test_lifting_and_flattening() -> None:
    result = check("\tscore me.pieces.value.sum + me.pieces.coveredBy.nub.length;\n")
    calls = {c.name: c for c in exprs(result, ast.Call) if isinstance(c, ast.Call)}
    value = result.call_of(calls["value"])
    assert value is not None and value.lifted and not value.flatten
    assert result.class_of(calls["value"]) == ListOf(Base.NUM)
    covered = result.call_of(calls["coveredBy"])
    assert covered is not None and covered.lifted and covered.flatten
    assert result.class_of(calls["coveredBy"]) == ListOf(Base.PIECE)
    total = result.call_of(calls["sum"])
    assert total is not None and total.entry is not None and total.entry.key == "List.sum"


def test_implicit_receiver_in_single_variable_loops() -> None:
    result = check(
        "\tpiece p with player == me, type == pawn, cell.inCenter:\n\t\tscore 1;\n"
        "\tpiece q with player == me, castledSide(king):\n\t\tscore 1;\n"
    )
    names = [n for n in exprs(result, ast.Name) if isinstance(n, ast.Name)]
    implicit = {n.name: result.call_of(n) for n in names if n.name in ("player", "type", "cell")}
    for info in implicit.values():
        assert info is not None and info.implicit in ("p", "q")
    castled = [c for c in exprs(result, ast.Call) if getattr(c, "name", "") == "castledSide"][0]
    info = result.call_of(castled)
    assert info is not None and info.implicit == "q" and info.entry is not None
    assert info.entry.key == "Player.castledSide" and [e.key for e in info.path] == ["Piece.player"]


def test_implicit_receiver_not_in_blocks_or_multi_variable_loops() -> None:
    bad = compile_source(
        "t.chp", "module evaluation\nrule r:\n\tpiece p with player == me:\n\t\tscore value;\n"
    )
    assert [d.header() for d in bad.errors] == ["t.chp:4:9: error: unknown name 'value'"]
    multi = compile_source(
        "t.chp", "module evaluation\nrule r:\n\tpiece a, b with player == me:\n\t\tscore 1;\n"
    )
    assert multi.errors[0].message == "unknown name 'player'"


def test_global_forms() -> None:
    result = check(
        "\tscore length(me.pieces) + value(queen);\n\tif (check(me)) score 100;\n"
        "\tif (in(e4, [e4])) score 1;\n\tscore min(1, 2) + min([3, 1]) + row(5) + row(e4);\n"
    )
    calls = [c for c in exprs(result, ast.Call) if isinstance(c, ast.Call)]
    kinds = {}
    for c in calls:
        info = result.call_of(c)
        assert info is not None and info.entry is not None
        kinds.setdefault(c.name, []).append(info.entry.key)
    assert kinds["length"] == ["List.length"]
    assert kinds["value"] == ["Type.value"]
    assert kinds["check"] == ["Player.check"]
    assert kinds["in"] == ["global.in"]
    assert kinds["min"] == ["global.min", "List.min"]
    assert kinds["row"] == ["global.row", "Cell.row"]


@pytest.mark.parametrize(
    ("expr", "cls"),
    [
        ("$4 + 1", Base.NUM),
        ("p.cell.row - p.startingRow", Base.NUM),
        ("p.type == 3", Base.BOOL),
        ("knight <= bishop", Base.BOOL),
        ("h1 < a2", Base.BOOL),
        ("$4 *> $3", Base.BOOL),
        ("p.coveredBy == []", Base.BOOL),
        ("[] ++ [1]", ListOf(Base.NUM)),
        ('"L=" ++ [1]', Base.STRING),
        ("knight ++ true ++ 4.0 ++ 3+7 ++ pawn == knight", Base.STRING),
        ("[d4, e4, d5, e5].distance(me.king.cell).min", Base.NUM),
        ("[].sort", ListOf(None)),
        ("[].length", Base.NUM),
        ("not p.cell in [e4] == false", Base.BOOL),
        ("abs -p.value", Base.NUM),
        ("p.alive(me)", Base.NUM),
        ("allPieces.type.sort.reverseSort", ListOf(Base.TYPE)),
        ("allCells.pieces", ListOf(Base.PIECE)),
    ],
)
def test_expression_classes(expr: str, cls: object) -> None:
    result = check(f'\tpiece p with p.player == me:\n\t\tlet x = {expr};\n\t\tscore 1, "" ++ x;\n')
    lets = [s for s in _statements(result) if isinstance(s, ast.Let)]
    assert result.class_of(lets[0].value) == cls


def _statements(result: CheckResult) -> list[ast.Stmt]:
    found: list[ast.Stmt] = []

    def visit(body: tuple[ast.Stmt, ...]) -> None:
        for stmt in body:
            found.append(stmt)
            if isinstance(stmt, (ast.If, ast.Loop)):
                visit(stmt.body)

    assert result.program is not None
    for module in result.program.modules:
        for rule in module.rules:
            visit(rule.body)
    return found


def test_scoping_sibling_blocks_and_let_order() -> None:
    ok = compile_source(
        "t.chp",
        "module evaluation\nrule r:\n\tif (true):\n\t\tlet x = 1;\n\t\tscore x;\n"
        "\tif (true):\n\t\tlet x = 2;\n\t\tscore x;\n",
    )
    assert ok.ok and not ok.diagnostics
    before = compile_source("t.chp", "module evaluation\nrule r:\n\tscore x;\n\tlet x = 1;\n")
    assert before.errors[0].header() == "t.chp:3:8: error: unknown name 'x'"
    outside = compile_source(
        "t.chp",
        "module evaluation\nrule r:\n\tif (true):\n\t\tlet y = 1;\n\t\tscore y;\n\tscore y;\n",
    )
    assert outside.errors[0].header() == "t.chp:6:8: error: unknown name 'y'"
    nested = compile_source(
        "t.chp", "module evaluation\nrule r:\n\tpiece p:\n\t\tpiece p:\n\t\t\tscore p.value;\n"
    )
    assert nested.errors[0].header() == "t.chp:4:9: error: 'p' is already defined (line 3)"


def test_parameters_and_openings_are_typed() -> None:
    with open("examples/chespel/full.chp", encoding="utf-8") as handle:
        result = compile_source("full.chp", handle.read())
    assert result.search == {"maxTime": 2000, "maxDepth": 8, "hashSize": 32, "quiescence": True}
    assert result.endgame == {"threshold": 16000, "replace": False}
    assert len(result.openings) == 3
    first = result.openings[0]
    assert first.reachable and first.line == 9
    assert first.origin_key == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -"
    # The second rule's origin writes '-' although 1.e4 recorded e3: same key (§9).
    assert result.openings[1].origin_key.endswith(" b KQkq -")


def test_k35_seed_fragments_check_clean() -> None:
    source = (
        "module evaluation\n\nsym rule knightSimbiosis:\n"
        "\tpiece n1, n2 with n1.player == me, n2.player == me:\n"
        "\t\tlet cellList = n1.visibleCells;\n\t\tif (n2.pos in cellList) score 0.2;\n\n"
        'rule check:\n\tif (me.check):\n\t\tscore -5 "under check";\n\n'
        "sym rule castling:\n\tif (castled(me)):\n\t\tscore 1;\n\n"
        "sym rule checkAgain:\n\tif (check(me)) score -5;\n\n"
        "sym rule doubledPawns:\n\tpiece p1, p2 with p1.player == me, p2.player == me,\n"
        "\t\t\t\t\t  p1.type == pawn, p2.type == pawn:\n"
        "\t\tif (p1.col == p2.col) score -0.3;\n"
    )
    result = compile_source("t.chp", source)
    assert result.ok and result.diagnostics == []


def test_k33_aggregation() -> None:
    line = (
        "\t\tif (p.value == 9 and p.row == $1 and p.col == $d and not p.castled "
        "and p.rank == 1 and d1.rank == 1) score 1;\n"
    )
    check("\tpiece p with player == me, type == queen:\n" + line)
    bad = compile_source(
        "t.chp",
        "module evaluation\nrule agg:\n\tpiece p with player == me, type == queen:\n"
        + line.replace("p.row", "p.pieces"),
    )
    assert [d.message.split(" (")[0] for d in bad.errors] == [
        "method 'pieces' is ambiguous for class Piece"
    ]


# The inline programs of spec §13 (front-end part: they must check without errors, with
# exactly the warnings given).
SPEC_PROGRAMS = {
    "K03": "sym rule pawns:\n\tpiece p with p.player == me, p.type == pawn:\n\t\tscore 1;\n",
    "K07": "rule s:\n\tscore 0 knight ++ true ++ 4.0 ++ 3+7 ++ pawn == knight;\n\n"
    'rule t:\n\tscore 0, "r" ++ $4 ++ $d ++ e4 ++ me ++ white ++ 0.50 ++ 1/4 ++ [$1, $2]'
    " ++ me.king;\n",
    "K15": "rule pairs:\n\tpiece p1, p2 with p1.player == me, p2.player == me, p1.type == pawn,"
    " p2.type == pawn, p1.cell.col < p2.cell.col:\n\t\tscore 1;\n"
    "rule centre:\n\tcell c with inCenter:\n\t\tscore 1;\n"
    "rule triples:\n\tcell a, b, c with a.inCenter, b.inCenter, c.inCenter:\n\t\tscore 1;\n",
    "K16": "rule mine:\n\tpiece p with player == me, type == pawn:\n\t\tscore 1;\n"
    "rule centre:\n\tpiece p with cell.inCenter:\n\t\tscore 1;\n",
    "K17": "rule r:\n\tif ($4 *> $3) score 1;\n",
    "K18": "rule a:\n\tscore 900 * 9;\nrule b:\n\tscore 5000 / 2;\nrule c:\n\tscore -7 / 2;\n"
    "rule d:\n\tscore 2 / 3 * 3;\nrule e:\n\tscore 9000;\n\tscore 9000;\n\tscore -9000;\n",
    "K19": "rule count:\n\tscore me.pieces.length;\nrule values:\n\tscore me.pieces.value.sum / 10;\n"
    "rule sorting:\n\tscore [3, 1, 2].sort.head;\n"
    "rule empty:\n\tif (foe.pieces.coveredBy.nub == []) score 100;\n"
    "rule member:\n\tif ($d in [$d, $e] and not ($a in [$d, $e])) score 0.5;\n",
    "K20": "sym rule c:\n\tif (me.castled) score 1;\n",
    "K21": "sym rule material:\n\tpiece p with p.player == me:\n\t\tscore p.value;\n\n"
    "module endgame\nthreshold = 10\nreplace = true\n\n"
    'sym rule activeKing:\n\tif (me.king.cell.inExpandedCenter) score 0.5 "active king";\n',
    "K32": "rule r:\n\tscore [1, 2].elem(me.pieces.length);\n",
    "K34": "rule g:\n\tscore length(me.pieces) + value(queen);\n\tif (check(me)) score 100;\n"
    "\tif (castled(me)) score 1000;\n",
    "8.8": "sym rule castling:\n"
    '\tif (me.castledSide(king)) score 2 "castled king side";\n'
    '\tif (me.castledSide(queen)) score 1 "castled queen side";\n\n'
    "sym rule doubledPawns:\n"
    "\tpiece a, b with a.player == me, b.player == me, a.type == pawn, b.type == pawn,\n"
    "\t\t\ta.cell.col == b.cell.col, a.cell.row < b.cell.row:\n\t\tscore -0.3;\n\n"
    'rule check:\n\tif (me.check):\n\t\tscore -5 "under check";\n',
}


@pytest.mark.parametrize("name", sorted(SPEC_PROGRAMS))
def test_spec_programs_check_clean(name: str) -> None:
    result = compile_source("t.chp", "module evaluation\n" + SPEC_PROGRAMS[name])
    assert [d.header() for d in result.diagnostics] == []
    assert result.ok
