"""Checker (spec §3.2, §4, §5.10): every compile-time error V01-V24 and the type rules."""

from __future__ import annotations

import pytest

from esochess.cqlvars.checker import LOGICAL, NUMERIC, POSITION, SET, STRING, check_query
from esochess.cqlvars.engine import compile_query
from esochess.cqlvars.parser import parse_query
from esochess.fen import SourceError


def error(text: str, assignments: dict[str, str] | None = None) -> SourceError:
    with pytest.raises(SourceError) as info:
        compile_query("q.cql", text, assignments)
    return info.value


V_ERRORS = [
    ("V01", "cql() mate = 1", 7, "'mate' is a keyword and cannot be a variable name"),
    ("V02", "cql() Ba3 = 1", 7, "'Ba3' is a piece designator and cannot be a variable name"),
    ("V02", "cql() a = 1", 7, "'a' is a piece designator"),
    ("V02", "cql() g = 1", 7, "'g' is a piece designator"),
    ("V03", "cql() cql__tmp = 1", 7, "names beginning with 'cql__' or '__CQL' are reserved"),
    ("V03", "cql() __CQLx = 1", 7, "reserved"),
    ("V04", "cql() Count > 2  Count = 1", 7, "variable 'Count' used before assignment"),
    ("V05", 'cql() x = 1  x = "one"', 14, "variable 'x' is numeric; cannot assign a string"),
    ("V06", "cql() x = K  piece x = Ke1", 20,
     "variable 'x' is a set variable; cannot make it a piece variable"),
    ("V07", "cql() x = 1  y =? x", 16, "'=?' requires a set on the right-hand side"),
    ("V08", "cql() x = K  x += 1", 16, "operator '+=' is not defined for set variables"),
    ("V08", 'cql() s = "a"  s -= "b"', 18, "operator '-=' is not defined for string variables"),
    ("V09", "cql() y += 1", 7, "variable 'y' used before assignment"),
    ("V10", "cql() x = 3  if x then check", 17,
     "numeric variable 'x' is only tested for whether it matches"),
    ("V10", "cql() 3", 7, "numeric literal '3' is only tested for whether it matches"),
    ("V11", "cql() square Sq in A { Sq attacks k }  Sq attacks q", 40,
     "variable 'Sq' is not in scope here"),
    ("V12", "cql() Sq = K  square Sq in A Sq", 22, "'Sq' is already a variable"),
    ("V13", "cql() square Sq in A { Sq = K }", 24, "cannot assign to iteration variable 'Sq'"),
    ("V14", "cql() echo (s s) check", 15, "echo variables must be distinct"),
    ("V15", "cql() x = 1  persistent x += 1", 25,
     "variable 'x' was used before its persistent declaration"),
    ("V16", "cql() persistent Pos = currentposition", 18,
     "persistent variables must be numeric, string or set"),
    ("V17", "cql() persistent Count", 18, "expected an assignment after 'persistent Count'"),
    ("V18", "cql() x = 1000000001", 11, "numeric literal 1000000001 exceeds 1000000000"),
    ("V19", "cql() x = y = 3", 13, "an assignment has no value and cannot be assigned"),
    ("V20", 'cql() x = 3  x[0:1] = "a"', 15, "subscript requires a string"),
    ("V21", "cql() z = currentposition  z attacks k", 28,
     "'attacks' requires sets; 'z' is a position"),
    ("V22", "cql() isbound mate", 15, "'mate' is a keyword and cannot be a variable name"),
    ("V24", "cql() function F(x) { x > 0 } F(1 2)", 31, "function 'F' takes 1 argument, 2 given"),
    ("V24", "cql() function F() { G() } function G() { F() } G()", 22, "unknown function 'G'"),
    ("V24", "cql() function F() { F() } F()", 22, "recursive call of 'F'"),
    ("V24", "cql() Fn = 1 function Fn() { check }", 23, "'Fn' is already a variable"),
    ("V24", "cql() function F() { check } function F() { mate }", 39, "already defined"),
]


@pytest.mark.parametrize(("vid", "text", "column", "message"), V_ERRORS,
                         ids=[f"{v[0]}-{i}" for i, v in enumerate(V_ERRORS)])
def test_variable_errors(vid: str, text: str, column: int, message: str) -> None:
    err = error(text)
    assert message in err.message
    assert (err.path, err.line, err.column) == ("q.cql", 1, column)


def test_v23_assign_conflicts() -> None:
    err = error("cql() Depth = 3", {"Depth": "abc"})
    assert "variable 'Depth' is numeric in the query but --assign gives a string" in err.message
    assert "persistent" in error("cql() persistent Num += 1", {"Num": "2"}).message


@pytest.mark.parametrize(("text", "message"), [
    ("cql() Q < K", "cannot order two sets"),
    ("cql() A + 1 > 3", "requires numbers"),
    ('cql() "a" + 1 == 2', "requires numbers"),
    ("cql() comment(check)", "cannot print a logical filter"),
    ("cql() move promote Qa8", "piece types without squares"),
    ("cql() find sort ply", "'sort' may not appear inside a find body"),
    ("cql() flipcolor sort ply", "'sort' may not appear inside a transform"),
    ("cql() { function F() { check } }", "top level"),
    ("cql() x = check", "no value to assign"),
    ('cql() "a" : check', "requires a position"),
    ('cql() #check', "'#' requires"),
])
def test_type_errors(text: str, message: str) -> None:
    assert message in error(text).message


def test_types_of_filters() -> None:
    text = ('cql() ply  K  currentposition  "s"  check  #K  x = 1  elo  player white  '
            'player white "A"  find all check  find check  move count  echo (s t) ply  '
            'square Sq in K check  square all Sq in K check')
    q = parse_query(text)
    checked = check_query(q, "q", text)
    types = [checked.type_of(n) for n in checked.body]
    assert types == [NUMERIC, SET, POSITION, STRING, LOGICAL, NUMERIC, LOGICAL, NUMERIC, STRING,
                     LOGICAL, NUMERIC, POSITION, NUMERIC, NUMERIC, SET, LOGICAL]


def test_kinds_persistent_and_warnings() -> None:
    text = ("cql() x = 1  s = K  piece pc = K  t = \"a\"  z = currentposition  "
            "persistent quiet Num += 1  persistent Str += \"x\"  isbound Never")
    checked = check_query(parse_query(text), "q", text)
    assert {k: checked.kinds[k] for k in ("x", "s", "pc", "t", "z")} == {
        "x": "numeric", "s": "set", "pc": "piece", "t": "string", "z": "position"}
    assert checked.persistent == {"Num": True, "Str": False}
    assert [w.severity for w in checked.warnings] == ["warning"]
    assert "Never" in checked.warnings[0].message
    assert checked.reducible_error is not None and "'Str'" in checked.reducible_error


def test_reducible_sums() -> None:
    ok = compile_query("q", "cql() if check then persistent C += 1  persistent C -= 0  false")
    assert ok.reducible_error is None
    bad = compile_query("q", "cql() persistent Last = ply  false")
    assert bad.reducible_error == (
        "persistent variable 'Last' is not a reducible sum; it cannot be used with --scheduler")
    reads = compile_query("q", "cql() persistent C += 1  C > 3")
    assert reads.reducible_error is not None


def test_function_arguments_by_reference_and_value() -> None:
    compile_query("q", "cql() function Inc(V) { V += 1 }  Num = 0  Inc(Num)  Num == 1")
    compile_query("q", "cql() function Hit(S) { S attackedby a }  Hit(f6 | e4)")
