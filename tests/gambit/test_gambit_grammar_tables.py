"""Gambit's shipped LALR tables (grammar.tables): made from the grammar as it is now, and
a parser loaded from them reads every game and every negative program exactly as one
built from the grammar."""

from __future__ import annotations

from pathlib import Path

import pytest

from esochess.fen import SourceError
from esochess.gambit import parser

ROOT = Path(__file__).resolve().parents[2]


def _programs() -> list[Path]:
    return (sorted((ROOT / "examples" / "gambit").glob("*.gmb"))
            + sorted((ROOT / "tests" / "gambit" / "negative").glob("*.gmb")))


def _reading(path: Path) -> str:
    # (the AST's declarations compare by identity, so their reprs are compared)
    try:
        return repr(parser.parse(path.read_text(), str(path)))
    except SourceError as exc:
        return f"error: {exc}"


def test_the_shipped_tables_fit_the_grammar() -> None:
    assert parser.TABLES.stale() is None, parser.TABLES.stale()


def test_the_loaded_parser_reads_every_program_as_a_built_one(
        monkeypatch: pytest.MonkeyPatch) -> None:
    paths = _programs()
    loaded = [_reading(path) for path in paths]
    built = parser.TABLES.build()
    monkeypatch.setattr(parser, "_parser", lambda: built)
    assert [_reading(path) for path in paths] == loaded
    assert len(paths) > 80 and any(r.startswith("error: ") for r in loaded)
