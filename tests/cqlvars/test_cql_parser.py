"""Parser (spec §2.2, §3.6): the required precedence readings, header, AST positions."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from esochess.cqlvars import ast
from esochess.cqlvars.parser import parse_query
from esochess.fen import SourceError


def shape(value: object) -> object:
    """The AST without source positions, for comparing two parses."""
    if isinstance(value, ast.Node):
        return (type(value).__name__,) + tuple(
            (f.name, shape(getattr(value, f.name)))
            for f in dataclasses.fields(value)
            if f.name not in ("span", "names_span", "var_span")
        )
    if isinstance(value, tuple):
        return tuple(shape(v) for v in value)
    return value


def body(text: str) -> object:
    return shape(parse_query("cql() " + text).body)


READINGS = [
    ("not check or mate", "(not check) or mate"),
    ("not A attacks k", "not (A attacks k)"),
    ("flipcolor Ra1 or check", "flipcolor (Ra1 or check)"),
    ("flipcolor Ra1 Rb1", "(flipcolor Ra1) Rb1"),
    ("x = find mate or check", "x = find (mate or check)"),
    ("#A + 1 == 17", "((#A) + 1) == 17"),
    ("1 + #A attacks k", "1 + #(A attacks k)"),
    ("power A - power a > 2", "((power A) - (power a)) > 2"),
    ("k attackedby Q & N", "(k attackedby Q) & N"),
    ("~A attacks k", "~(A attacks k)"),
    ("x = #A > 3", "x = (#A > 3)"),
    ("if check then Ra1 else Rb1 or mate", "if check then Ra1 else (Rb1 or mate)"),
    ("1 < x < 5", "1 < (x < 5)"),
    ("x -3", "x - 3"),
    ("pin through Q == e2", "(pin through Q) == e2"),
    ("square x in A | a x", "square x in (A | a) x"),
    ("move from (N | B)", "move from (N | B)"),
]


@pytest.mark.parametrize(("written", "parsed"), READINGS)
def test_required_readings(written: str, parsed: str) -> None:
    assert body(written) == body(parsed)


def test_juxtaposition_makes_separate_elements() -> None:
    q = parse_query("cql() check mate x = 1")
    assert len(q.body) == 3
    assert isinstance(q.body[2], ast.Assign)


def test_positions_point_at_operators_and_names() -> None:
    (cmp,) = parse_query("cql() Q < K").body
    assert isinstance(cmp, ast.Binary) and (cmp.span.line, cmp.span.column) == (1, 9)
    (assign,) = parse_query("cql()\n  x = 1000").body
    assert isinstance(assign, ast.Assign) and assign.target.span == ast.Span(2, 3, 1)


def test_header() -> None:
    q = parse_query('cql(input a.pgn input "b c.pgn" output o.pgn gamenumber 3 9 '
                    'sort matchcount 2 5 result 1-0 variations quiet silent matchstring "X") ply')
    h = q.header
    assert h.inputs == ("a.pgn", "b c.pgn") and h.output == "o.pgn"
    assert h.gamenumber == (3, 9) and h.matchcount == (2, 5) and h.sort_matchcount
    assert h.result == "1-0" and h.variations and h.quiet and h.silent and h.matchstring == "X"


@pytest.mark.parametrize(("text", "column"), [
    ("cql(bogus) check", 5), ("cql(quiet quiet) check", 11), ("cql(variations mainline) x", 16),
    ("cql(matchcount 0) check", 16), ("cql(result 2-0) check", 12), ("cql() mate or", 14),
    ("cql() move from", 16), ("cql() persistent Count", 18), ("cql() player", 7),
    ("cql() line --> check <-- mate", 22), ("cql() find all 2 check", 7),
])
def test_syntax_errors(text: str, column: int) -> None:
    with pytest.raises(SourceError) as info:
        parse_query(text, "e.cql")
    assert (info.value.path, info.value.line, info.value.column) == ("e.cql", 1, column)


def test_line_repetitions_and_groups() -> None:
    (line,) = parse_query("cql() line --> check* --> (mate --> check){1,3} --> stalemate?").body
    assert isinstance(line, ast.Line) and not line.backward
    reps = [(i.low, i.high) for i in line.items]
    assert reps == [(0, None), (1, 3), (0, 1)]
    assert line.items[1].group is not None and len(line.items[1].group) == 2


def test_line_ends_where_arithmetic_begins() -> None:
    q = parse_query("cql() (line --> check --> mate) x = 1 + 2")
    assert isinstance(q.body[1], ast.Assign) and isinstance(q.body[1].value, ast.Binary)


SEEDS = [
    'cql() initial  #A + 1 == 17  1 < #A < 17  not #A == 15 or mate  power A - power a == 0',
    'cql() sort "captures" line --> {move capture .}{2,} --> (check --> mate)?',
    'cql() function Hit(S) { S attackedby a }  Hit(f6)  not Hit(e4)',
    'cql() initial  X = "zug"  X += "zwang"  X[1:3] = "Z"  uppercase X[0:2] == "ZZ"',
    'cql(quiet input a.pgn) persistent quiet N2 += 1  flipcolor count { btm check }',
    'cql() echo (s t) in all { s & t == . }  piece all P1 in [Aa] find <-- 2 3 P1 & e4',
]


@settings(deadline=None, max_examples=60)
@given(st.sampled_from(SEEDS), st.lists(
    st.sampled_from([" ", "  ", "\n", "\t", " // note\n", " /* c */ ", "\n\n  "]),
    min_size=40, max_size=40))
def test_whitespace_and_comments_do_not_change_the_tree(seed: str, spaces: list[str]) -> None:
    parts = seed.split(" ")
    text = parts[0] + "".join(spaces[i % len(spaces)] + p for i, p in enumerate(parts[1:]))
    assert shape(parse_query(text).body) == shape(parse_query(seed).body)
    assert parse_query(text).header == parse_query(seed).header
