"""The shipped LALR tables (grammar.tables): made from the grammar as it is now, and a
parser loaded from them reads every query exactly as one built from the grammar."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import lark
import pytest

from esochess.cqlvars import grammar_tables

ROOT = Path(__file__).resolve().parents[2]
#: Queries the parser must reject, with the same error either way.
BAD = ["cql() {", "cql() Kh8 or", "cql( Kh8", "cql() if then", "cql() line --> -->",
       "cql() x = ", "cql() )", "cql() function f( { }"]


def _shipped() -> bytes:
    return grammar_tables.TABLES.read()


@functools.cache
def _built() -> lark.Lark:
    return grammar_tables.TABLES.build()


def _queries() -> list[str]:
    found = [p.read_text() for p in sorted((ROOT / "examples" / "cql").glob("*.cql"))]
    for doc in ("docs/cql.md", "docs/reference/cql.md"):
        text = (ROOT / doc).read_text()
        found += [m.group(1) for m in re.finditer(r"`(cql\([^`\n]*)`", text)]
        found += [m.group(1) for m in re.finditer(r"```\n(cql\(.*?)```", text, re.S)]
    return found + BAD


def _reading(parser: lark.Lark, text: str) -> object:
    try:
        return parser.parse(text)
    except Exception as exc:  # noqa: BLE001 - the error itself is what is compared
        # (str(exc) lists the expected tokens in set order, which varies from run to run)
        return (type(exc).__name__, repr(getattr(exc, "token", None)),
                getattr(exc, "line", None), getattr(exc, "column", None),
                sorted(getattr(exc, "expected", ()) or ()))


def test_the_shipped_tables_fit_the_grammar() -> None:
    assert grammar_tables.TABLES.stale() is None, grammar_tables.TABLES.stale()


def test_the_loaded_parser_reads_every_query_as_a_built_one() -> None:
    loaded = grammar_tables.TABLES.load()
    queries = _queries()
    assert len(queries) > 100
    for text in queries:
        assert _reading(loaded, text) == _reading(_built(), text), text


@pytest.mark.parametrize("change", [
    lambda g: g + "\n// edited\n",
    lambda g: "// a comment\n" + g,
])
def test_tables_of_another_grammar_are_not_used(change: object) -> None:
    grammar = grammar_tables.TABLES.grammar_text()
    assert callable(change)
    assert grammar_tables.TABLES.loads(_shipped(), change(grammar)) is None


def test_damaged_tables_are_not_used() -> None:
    grammar = grammar_tables.TABLES.grammar_text()
    data = _shipped()
    head = len(data) - len(data.split(b"\n", 2)[2])
    loads = grammar_tables.TABLES.loads
    assert loads(data[: head + 100], grammar) is None
    assert loads(b"", grammar) is None
    assert loads(data.replace(b"lark ", b"lark 0", 1), grammar) is None


def test_tables_round_trip() -> None:
    grammar = grammar_tables.TABLES.grammar_text()
    again = grammar_tables.TABLES.loads(grammar_tables.TABLES.dumps(grammar), grammar)
    assert again is not None
    assert _reading(again, "cql() Kh8 mate") == _reading(_built(), "cql() Kh8 mate")
