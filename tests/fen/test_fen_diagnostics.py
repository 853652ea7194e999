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


# --- long lines and control characters -------------------------------------------------

from hypothesis import example, given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from esochess.fen.diagnostics import ELLIPSIS, MAX_LINE, displayed  # noqa: E402


def test_control_characters_are_escaped_and_the_caret_follows() -> None:
    err = SourceError("q.cql", 1, 4, "unexpected character", source_line="a\x07\x1b[X\u202eb\tc")
    assert format_diagnostic(err).splitlines()[1:] == [
        "a\\x07\\x1b[X\\u202eb\tc",
        "         ^",
    ]
    # tabs are kept, in the caret line too
    assert displayed("\ta\x00b", 4) == ("\ta\\x00b", "\t     ^")


def test_a_long_line_is_cut_around_the_caret() -> None:
    line = "x" * 5_000_000 + "BAD" + "y" * 5_000_000
    shown, caret = displayed(line, 5_000_001, width=3)
    assert shown.startswith(ELLIPSIS) and shown.endswith(ELLIPSIS)
    assert len(shown) <= MAX_LINE
    assert shown[caret.index("^") :].startswith("BAD")
    assert caret.endswith("^~~")


def test_a_long_line_cut_at_its_start_or_end() -> None:
    line = "a" * 1000
    shown, caret = displayed(line, 1)
    assert shown == "a" * (MAX_LINE - 2) + ELLIPSIS and caret == "^"
    shown, caret = displayed(line, 1001)  # end of input, just past the last character
    assert shown.startswith(ELLIPSIS) and not shown.endswith(ELLIPSIS)
    assert caret.index("^") == len(shown)


def test_short_lines_are_unchanged() -> None:
    assert displayed("cql() check", 7, 5) == ("cql() check", "      ^~~~~")
    assert displayed("mate or", 8) == ("mate or", "       ^")


_LINE_CHARS = st.sampled_from(["a", "é", "\t", "\x00", "\x1b", "\u202e", "\udcff", "♔", " "])


@given(
    line=st.lists(_LINE_CHARS, max_size=2000).map("".join),
    column=st.integers(min_value=1, max_value=2100),
    width=st.integers(min_value=1, max_value=50),
)
@example(line="\x00\u202e\u202e\u202e", column=189, width=1)  # escapes, column past the end
def test_output_is_bounded_and_the_caret_points_at_the_column(
    line: str, column: int, width: int
) -> None:
    shown, caret = displayed(line, column, width)
    assert len(shown) <= max(MAX_LINE, len(line.replace("\x00", "").replace("\x1b", "")))
    assert len(shown) <= MAX_LINE or len(line) <= MAX_LINE
    assert len(caret) <= max(MAX_LINE, column) + 6 * width
    assert all(ch.isprintable() or ch == "\t" for ch in shown)
    at = caret.index("^")
    for i, ch in enumerate(caret[: min(at, len(shown))]):
        assert (ch == "\t") == (shown[i] == "\t")
    if column - 1 < len(line):
        target = line[column - 1]
        plain = target.isprintable() or target == "\t"
        assert shown[at] == (target if plain else "\\")
