"""Unit tests of notation regex translation (§9.2)."""

from __future__ import annotations

import re

import pytest

from esochess.gambit.notations import NotationRegexError, compile_notation, translate


@pytest.mark.parametrize(
    ("source", "python"),
    [
        ("([RBGUW]*)(%d*)", "([RBGUW]*)([0-9]*)"),
        ("[%d%u]+", "[0-9A-Z]+"),
        ("%a%l%w%x", "[A-Za-z][a-z][A-Za-z0-9][0-9A-Fa-f]"),
        ("%D", "[^0-9]"),
        ("100%%", "100%"),
        (r"\%d", r"\%d"),
        ("%s+", r"\s+"),
    ],
)
def test_translation(source: str, python: str) -> None:
    assert translate(source) == python


def test_punctuation_class() -> None:
    rx = compile_notation("%p")
    assert all(rx.fullmatch(c) for c in "!/:@[`{~")
    assert not rx.fullmatch("a")


@pytest.mark.parametrize(("source", "phrase"), [("%q", "unknown notation class '%q'"),
                                                ("[%p]", "cannot be used inside")])  # fmt: skip
def test_errors(source: str, phrase: str) -> None:
    with pytest.raises(NotationRegexError) as exc:
        compile_notation(source)
    assert phrase in str(exc.value)


def test_invalid_regex_quotes_re() -> None:
    with pytest.raises(NotationRegexError) as exc:
        compile_notation("([0-9]")
    assert "position" in str(exc.value)


def test_groups_count() -> None:
    assert compile_notation("([RBGUW]*)(%d*)").groups == 2
    assert re.fullmatch(compile_notation("([RBGUW]*)(%d*)"), "RRG2")
