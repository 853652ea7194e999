"""Negative programs (tests/gambit/negative/): each has exactly one compile error.

The first line of each file is `// error: PHRASE`; the error's message must contain the
phrase (the §13.1 key phrases), and checking must report exit 2 with nothing on stdout.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from gambit_lang_helpers import gambit

from esochess.gambit.frontend import compile_source

NEGATIVE = Path(__file__).parent / "negative"
CASES = sorted(NEGATIVE.glob("*.gmb"))


def test_there_are_negative_programs() -> None:
    assert len(CASES) >= 60


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_one_error_with_its_key_phrase(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    phrase = source.splitlines()[0].removeprefix("// error: ")
    program, diags = compile_source(source, path.name)
    errors = [d for d in diags if d.severity == "error"]
    assert program is None
    assert len(errors) == 1, [e.header() for e in errors]
    assert phrase in errors[0].message
    assert errors[0].line >= 2  # never the comment line itself
    assert errors[0].source_line is None or errors[0].source_line in source.splitlines()


@pytest.mark.parametrize("name", ["lex_char", "type_operator", "ovl_ambiguous", "pure_print"])
def test_cli_exit_code_and_format(name: str) -> None:
    r = gambit("check", str(NEGATIVE / f"{name}.gmb"))
    assert r.exit_code == 2
    assert r.stdout == ""
    first, src, caret = r.stderr.splitlines()[:3]
    assert ": error: " in first
    col = int(first.split(":")[2])
    assert caret == " " * (col - 1) + "^"
    assert src.strip()
