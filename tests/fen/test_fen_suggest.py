"""The shared "did you mean" helper."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from esochess.fen.exitcodes import ExitCode
from esochess.fen.suggest import close_matches, did_you_mean, with_suggestion


def test_a_typo_gets_the_close_name() -> None:
    assert did_you_mean("previus", ["previous", "move", "from"]) == "did you mean 'previous'?"
    assert did_you_mean("lop", ["loop", "let", "fn"]) == "did you mean 'loop'?"


def test_two_close_names_are_both_offered() -> None:
    assert did_you_mean("mat", ["mate", "mat2", "stalemate"]) == "did you mean 'mate' or 'mat2'?"


def test_nothing_close_gives_no_hint() -> None:
    assert did_you_mean("zzzz", ["mate", "check"]) is None
    assert with_suggestion("unknown filter 'zzzz'", "zzzz", ["mate"]) == "unknown filter 'zzzz'"


def test_case_is_ignored_but_kept_in_the_answer() -> None:
    assert close_matches("Valeu", ["value", "other"]) == ["value"]


@given(st.text(max_size=12), st.lists(st.text(max_size=12), max_size=20))
def test_suggestions_are_known_names_other_than_the_name(name: str, known: list[str]) -> None:
    matches = close_matches(name, known)
    assert len(matches) <= 3
    assert all(m in known and m != name for m in matches)


def test_exit_codes_are_the_documented_numbers() -> None:
    assert [int(c) for c in ExitCode] == [0, 1, 2, 3, 4, 5, 70, 130, 143]
