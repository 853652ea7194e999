"""`~~` patterns run by RE2 (issue 22): no pattern can make a search slow."""

from __future__ import annotations

import pytest

from esochess.cqlvars import regexes


def test_catastrophic_pattern_is_linear() -> None:
    # Python's re needs minutes here; RE2 answers at once (no timing assertion needed:
    # a backtracking engine would not finish within the test run).
    assert regexes.search(r"^(\w+\s?)*$", "a" * 36 + "!") is None
    assert regexes.search(r"(a|a)*b", "a" * 5000) is None


def test_groups_and_latin1_bytes() -> None:
    assert regexes.search(r"(C\w+), (\w+)", "Carlsen, Magnus") == (
        "Carlsen, Magnus", ("Carlsen", "Magnus"))
    assert regexes.search(r"M(.)ller", "M\udcfcller") == ("M\udcfcller", ("\udcfc",))
    assert regexes.search(r"(x)?y", "y") == ("y", (None,))


@pytest.mark.parametrize(("pattern", "why"), [
    (r"(a)\1", "backreferences are not supported"),
    (r"(?<=a)b", "look-around is not supported"),
    (r"(", "missing )"),
])  # fmt: skip
def test_unsupported_patterns_say_why(pattern: str, why: str) -> None:
    with pytest.raises(regexes.RegexError, match=why.replace("(", r"\(").replace(")", r"\)")):
        regexes.compile_regex(pattern)
