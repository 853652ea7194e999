"""The permissive CHAZZ grid (specs/chazz.md §2)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from esochess.fen import Grid, GridError, GridTooLarge, SourceError, parse_grid


def test_reading_order_padding_and_side() -> None:
    g = parse_grid("4PPQ1/PR6/qPR5 b KQ - 0 1\nsecond line ignored")
    assert (g.rows, g.cols, g.side) == (3, 8, "b")
    assert g[0, 4] == "P" and g[0, 0] == "" and g[2, 0] == "q"
    assert list(g.pieces())[:2] == [(0, 4, "P"), (0, 5, "P")]


def test_multi_digit_counts_and_short_ranks_padded() -> None:
    g = parse_grid("12P/K")
    assert (g.rows, g.cols) == (2, 13)
    assert g[0, 12] == "P" and g[1, 0] == "K" and g[1, 12] == ""


def test_empty_ranks_are_dropped() -> None:
    g = parse_grid("/P//p/")
    assert (g.rows, g.cols) == (2, 1)


def test_side_is_first_character_after_spaces() -> None:
    assert parse_grid("P   b").side == "b"
    assert parse_grid("P   black").side == "b"
    assert parse_grid("P w").side == "w"


def test_tab_inside_board_is_invalid() -> None:
    with pytest.raises(GridError):
        parse_grid("P\tQ b")


def test_line_starting_with_space_is_empty() -> None:
    # The board is the empty text before the space; the side is the next character.
    assert parse_grid(" P b") == Grid(0, 0, (), "w")
    assert parse_grid(" b") == Grid(0, 0, (), "b")


def test_nul_ends_the_line_and_cr_is_kept() -> None:
    assert parse_grid("PP\0xyz").cols == 2
    with pytest.raises(GridError) as info:
        parse_grid("PP\r\n")
    assert info.value.column == 3


def test_sixteen_digit_count_is_invalid() -> None:
    with pytest.raises(GridError) as info:
        parse_grid("P" + "1" * 16)
    assert info.value.column == 2
    with pytest.raises(GridTooLarge):
        parse_grid("1" * 15, max_cells=30000)


def test_size_limit_checked_before_building() -> None:
    assert len(parse_grid("30000", max_cells=30000)) == 30000
    with pytest.raises(GridTooLarge) as info:
        parse_grid("30001", max_cells=30000)
    assert info.value.cells == 30001
    # A count this large would need petabytes if the cells were built first.
    with pytest.raises(GridTooLarge):
        parse_grid("999999999999999/P", max_cells=30000)


def test_zero_width_ranks_round_trip() -> None:
    g = parse_grid("0/0")
    assert (g.rows, g.cols) == (2, 0)
    assert parse_grid(g.text()) == g


@st.composite
def grids(draw: st.DrawFn) -> Grid:
    rows = draw(st.integers(0, 6))
    cols = draw(st.integers(0, 12)) if rows else 0
    cells = tuple(
        draw(st.sampled_from(["", "", "P", "n", "B", "r", "Q", "k"])) for _ in range(rows * cols)
    )
    return Grid(rows, cols, cells, draw(st.sampled_from(["w", "b"])))


@given(grids())
def test_random_grids_survive_format_then_parse(grid: Grid) -> None:
    assert parse_grid(grid.text()) == grid


@given(st.one_of(st.text(), st.text(st.sampled_from(list("PpNn0123456789/ bw\t\r\0x")))))
def test_random_text_raises_only_source_errors(text: str) -> None:
    try:
        parse_grid(text, max_cells=30000)
    except SourceError:
        pass
