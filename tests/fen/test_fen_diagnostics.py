"""The shared diagnostic format: header, source line, caret (tabs kept), notes."""

from __future__ import annotations

import pickle

import lark
import pytest

from esochess.fen import (
    Note,
    SourceError,
    caret_line,
    format_diagnostic,
    from_lark,
    sort_diagnostics,
    source_line_at,
)


def test_three_line_format() -> None:
    err = SourceError("q.cql", 1, 16, "numeric variable 'x' is only tested")
    source = "cql() x = 3 if x then check\n"
    assert format_diagnostic(err, source) == (
        "q.cql:1:16: error: numeric variable 'x' is only tested\n"
        "cql() x = 3 if x then check\n"
        "               ^"
    )


def test_caret_keeps_tabs_and_replaces_other_characters() -> None:
    assert caret_line("\t\tscore x", 4) == "\t\t ^"
    assert caret_line("ab", 1) == "^"


def test_caret_past_end_of_line_for_end_of_input() -> None:
    assert caret_line("mate or", 8) == "       ^"


def test_severity_and_notes() -> None:
    err = SourceError(
        "g.gmb",
        3,
        5,
        "ambiguous call",
        severity="warning",
        source_line="    f(x)",
        notes=(Note("g.gmb", 1, 1, "candidate here"),),
    )
    assert format_diagnostic(err).splitlines() == [
        "g.gmb:3:5: warning: ambiguous call",
        "    f(x)",
        "    ^",
        "g.gmb:1:1: note: candidate here",
    ]
    assert not err.is_error


def test_without_source_only_the_header() -> None:
    assert format_diagnostic(SourceError("f", 2, 1, "m")) == "f:2:1: error: m"


def test_source_line_at() -> None:
    assert source_line_at("a\nb\r\nc", 2) == "b"
    assert source_line_at("a\n", 2) == ""
    assert source_line_at("a", 5) is None


def test_sort_orders_by_position_errors_first_and_drops_duplicates() -> None:
    w = SourceError("f", 1, 1, "w", severity="warning")
    e1 = SourceError("f", 1, 1, "e")
    e2 = SourceError("f", 2, 1, "e")
    assert sort_diagnostics([e2, w, e1, e2]) == [e1, w, e2]


def test_pickles_with_all_fields() -> None:
    err = SourceError("f", 2, 3, "m", severity="runtime error", notes=(Note("f", 1, 1, "n"),))
    again = pickle.loads(pickle.dumps(err))
    assert again == err and again.notes == err.notes


def test_raise_and_catch_keep_the_message() -> None:
    with pytest.raises(SourceError, match="f:1:2: error: boom"):
        raise SourceError("f", 1, 2, "boom")


@pytest.mark.parametrize(
    ("text", "position", "message"),
    [
        ("a b ?", (1, 5), "unexpected character '?'"),
        ("a b\na", (2, 1), "unexpected 'a'"),
        ("a", (1, 2), "unexpected end of file"),
    ],
)
def test_from_lark(text: str, position: tuple[int, int], message: str) -> None:
    parser = lark.Lark('start: "a" "b"+\n%ignore /\\s+/', parser="lalr")
    with pytest.raises(lark.exceptions.UnexpectedInput) as info:
        parser.parse(text)
    err = from_lark(info.value, "t.x", text)
    assert (err.line, err.column) == position
    assert err.message == message
    assert format_diagnostic(err).endswith("^")


def test_width_underlines_the_whole_token() -> None:
    err = SourceError("q.cql", 1, 7, "unknown filter 'chek'", width=4)
    assert format_diagnostic(err, "cql() chek\n").splitlines()[2] == "      ^~~~"
    assert err.with_source("cql() chek").width == 4
    assert pickle.loads(pickle.dumps(err)).width == 4
