"""Chespel's shipped LALR tables (grammar.tables): made from the grammar as it is now, and
a parser loaded from them reads every program exactly as one built from the grammar
(the inline AST transformer and the layout post-lexer are made at each load)."""

from __future__ import annotations

import functools
from pathlib import Path

import lark
import pytest

from esochess.chespel import parser
from esochess.fen import SourceError

ROOT = Path(__file__).resolve().parents[2]
BAD = ["module evaluation\nrule r:\n\tscore 1 +\n", "module\n", "rule r:\nscore 1;\n",
       "module evaluation\nsym rule r:\n\tpiece p with:\n\t\tscore 1;\n"]


@functools.cache
def _built() -> lark.Lark:
    return parser.TABLES.build()


def _programs() -> list[str]:
    paths = sorted((ROOT / "examples" / "chespel").glob("*.chp"))
    paths += sorted((ROOT / "tests" / "chespel" / "programs").glob("*.chp"))
    return [parser.prepare_source(p.read_text()) for p in paths] + BAD


def _reading(text: str) -> object:
    try:
        return parser.parse("p.chp", text)
    except SourceError as exc:
        return str(exc)


def test_the_shipped_tables_fit_the_grammar() -> None:
    assert parser.TABLES.stale() is None, parser.TABLES.stale()


def test_the_loaded_parser_reads_every_program_as_a_built_one(
        monkeypatch: pytest.MonkeyPatch) -> None:
    texts = _programs()
    loaded = [_reading(text) for text in texts]
    monkeypatch.setattr(parser, "lark_parser", _built)
    assert [_reading(text) for text in texts] == loaded
    assert any(isinstance(r, str) for r in loaded) and len(texts) > 8
