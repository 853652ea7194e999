"""Program loading (spec §2): first line, side field, ranks, digit runs, padding, limits,
and the reference's exact error lines."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from esochess.chazz.loader import LoadError, load_program, parse_program


def lines_of(line: bytes) -> tuple[str, ...]:
    with pytest.raises(LoadError) as caught:
        parse_program(line)
    return caught.value.lines


def test_only_the_first_line_counts(tmp_path: Path) -> None:
    program = tmp_path / "p.fen"
    program.write_bytes(b"PR w\nthis second line is not a board at all\n")
    grid = load_program(program)
    assert (grid.rows, grid.cols, grid.cells) == (1, 2, ("P", "R"))


def test_a_nul_byte_ends_the_line() -> None:
    assert parse_program(b"PR\x00 garbage").cells == ("P", "R")


def test_a_carriage_return_is_a_character_of_the_board() -> None:
    assert lines_of(b"PR\r") == ("Error: Invalid FEN format",)
    # ... but after the first space it is just part of the ignored fields.
    assert parse_program(b"PR w\r").side == "w"


@pytest.mark.parametrize(
    ("line", "side"),
    [(b"P b", "b"), (b"P    b", "b"), (b"P black", "b"), (b"P w", "w"), (b"P", "w"),
     (b"P x", "w"), (b"P ", "w"), (b"P B", "w"), (b"P  KQkq b", "w")],
)  # fmt: skip
def test_the_side_is_the_first_character_after_the_spaces(line: bytes, side: str) -> None:
    assert parse_program(line).side == side


def test_a_tab_is_not_a_separator() -> None:
    assert lines_of(b"PR\tb") == ("Error: Invalid FEN format",)


def test_empty_ranks_are_dropped_and_short_ranks_padded() -> None:
    grid = parse_program(b"/P//3R/ w")
    assert (grid.rows, grid.cols) == (2, 4)
    assert grid.cells == ("P", "", "", "", "", "", "", "R")


def test_digit_runs_are_one_count() -> None:
    grid = parse_program(b"12P/0K")
    assert (grid.rows, grid.cols) == (2, 13)
    assert grid[0, 12] == "P" and grid[1, 0] == "K"


@pytest.mark.parametrize("board", [b"P-", b"P/x", b"8/8-/8", b"\xe2\x99\x99", b"1234567890123456"])
def test_invalid_characters_and_16_digit_runs(board: bytes) -> None:
    assert lines_of(board) == ("Error: Invalid FEN format",)


def test_a_space_always_ends_the_board() -> None:
    # So a space can never be "inside" the board: what follows is the side field.
    grid = parse_program(b"8/8 /8")
    assert (grid.rows, grid.cols, grid.side) == (2, 8, "w")


def test_the_memory_limit_is_checked_before_building_the_board() -> None:
    # Two 15-digit counts: building this board would need ~10**15 cells.
    assert lines_of(b"999999999999999/999999999999999") == (
        "Error: Required MEMORY_SIZE (1999999999999998) exceeds the maximum allowed (30000).",
    )
    assert len(parse_program(b"100/14900").cells) == 29800


def test_a_line_that_starts_with_a_space_is_an_empty_board() -> None:
    grid = parse_program(b" w PRPR")
    assert (grid.rows, grid.cols, grid.cells) == (0, 0, ())


def test_an_empty_file_is_an_empty_board(tmp_path: Path) -> None:
    (tmp_path / "e.fen").write_bytes(b"")
    assert load_program(tmp_path / "e.fen").cells == ()


def test_unreadable_files_give_the_two_reference_lines(tmp_path: Path) -> None:
    with pytest.raises(LoadError) as missing:
        load_program(tmp_path / "missing.fen")
    assert missing.value.lines == (
        "Could not open file: No such file or directory",
        "Failed to read FEN file",
    )
    with pytest.raises(LoadError) as directory:
        load_program(tmp_path)
    assert directory.value.lines == (
        "Could not open file: Is a directory",
        "Failed to read FEN file",
    )


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_a_file_without_read_permission(tmp_path: Path) -> None:
    secret = tmp_path / "secret.fen"
    secret.write_text("PR")
    secret.chmod(0)
    with pytest.raises(LoadError) as caught:
        load_program(secret)
    assert caught.value.lines[0] == "Could not open file: Permission denied"
