"""The machine's semantics (spec §3–§5), checked on both engines via `both()`."""

from __future__ import annotations

import pytest
from chazz_helpers import both

PROMPT = b"\nInput a character: "


def test_cells_wrap_at_32_bits() -> None:
    # 0 - 1 = -1 (0xFFFFFFFF): prints 0xFF; + 1 again is 0: `B` skips to its `b`.
    assert both("pR/PBRb b").stdout == b"\xff\n"
    # Column 31 adds -2**31; twice that is 0 again.
    assert both("31P/31PBRb").stdout == b"\n"


def test_pointer_wraps_both_ways() -> None:
    # M = 5: n from cell 0 is cell 4; N from there is cell 0 again.
    assert both("nKNnR b").stdout == b"\x01\n"
    assert both("nKNR b").stdout == b"\x00\n"


def test_buffer_copies_a_cell() -> None:
    # cell 0 = 65 ('A'), Q; move; q writes 65 into cell 1.
    assert both("P5PQNqR").stdout == b"A\n"
    assert both("qR").stdout == b"\x00\n"  # the buffer starts at 0


def test_king_sets_one_and_zero() -> None:
    assert both("P1PKRkR").stdout == b"\x01\x00\n"


def test_read_prompts_on_stdout_and_keeps_later_input() -> None:
    result = both("rRrRrR b", b"x\ny")
    assert result.stdout == PROMPT + b"x" + PROMPT + b"\n" + PROMPT + b"y\n"
    assert both("rRrRrR b", b"x\ny", prompt=False).stdout == b"x\ny\n"


def test_end_of_input_is_minus_one() -> None:
    assert both("r/PBRb b", prompt=False).stdout == b"\n"  # -1 + 1 = 0: loop skipped


def test_start_square_is_the_first_piece_of_the_side() -> None:
    assert both("R/PR b").stdout == b"\x00\x01\n"  # no black piece: start at (0,0)
    assert both("pR/PR b").stdout == b"\xff\x00\n"
    assert both("pr/PR w").stdout == b"\x01\n"  # p and r before the first white piece


def test_squares_before_the_start_never_run_even_by_a_loop() -> None:
    # The `B` before the start does not exist for the program: the `b` underflows.
    # (the start is the black pawn in column 1: cell -2, printed as 0xFE)
    assert both("BpRb b").stdout == b"\xfeError: Loop stack underflow\n"


def test_b_resumes_after_its_B_without_pushing_again() -> None:
    # Cell 0 = 3: the body counts down and prints 2, 1, 0; the loop ends normally.
    assert both("PPB/pRb").stdout == b"\x02\x01\x00\n"


def test_skip_scan_counts_nested_loops() -> None:
    assert both("BBbRb").stdout == b"\n"  # cell 0: skip to the outer `b`
    assert both("BBb").stdout == b"Error: Loop start not found\n"


def test_unmatched_B_on_a_non_zero_cell_just_stays_on_the_stack() -> None:
    assert both("KBR").stdout == b"\x01\n"
    assert both("K" + "B" * 256 + "R").stdout == b"\x01\n"
    assert both("K" + "B" * 257 + "R").stdout == b"Error: Loop stack overflow\n"


@pytest.mark.parametrize("engine_limit", [0, 1, 5, 6, 7])
def test_step_limit_stops_before_the_next_instruction(engine_limit: int) -> None:
    result = both("PR/PR/PR", max_steps=engine_limit)
    printed = engine_limit // 2
    assert result.stdout[:printed] == bytes(range(1, printed + 1))
    assert result.status == ("ok" if engine_limit >= 6 else "limit")


def test_an_endless_loop_is_stopped_by_the_step_limit() -> None:
    spin = both("P5PRKBb", max_steps=1000)
    assert (spin.stdout, spin.status) == (b"A", "limit")
    # 3 - 2k is never 0: a closed-form loop that the compiler knows never ends.
    assert both("PPB/1pb", max_steps=1000).status == "limit"
    assert both("1PB/1pb", max_steps=1000).status == "ok"  # 2 - 2 = 0


def test_trace_lines_show_the_state_each_step_starts_from() -> None:
    result = both("PpNR w", trace=True)
    assert result.trace == (
        "step=1 sq=0,0 piece=P ptr=0 cell=0",
        "step=2 sq=0,1 piece=p ptr=0 cell=1",
        "step=3 sq=0,2 piece=N ptr=0 cell=-1",
        "step=4 sq=0,3 piece=R ptr=1 cell=0",
    )
