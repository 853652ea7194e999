"""brainfuck → CHAZZ (spec §7): the translation rules, and that translated programs
behave as brainfuck with 32-bit cells and EOF = -1."""

from __future__ import annotations

import pytest
from chazz_helpers import run_line
from hypothesis import given, settings
from hypothesis import strategies as st

from esochess.chazz.brainfuck import TranslationError, translate
from esochess.chazz.loader import parse_program
from esochess.fen import SourceError


def bf_run(code: str, stdin: bytes, max_ops: int) -> bytes | None:
    """A plain brainfuck reference: 30000 wrapping 32-bit cells, `,` at EOF gives -1.

    Returns the output, or None when the program runs longer than `max_ops`.
    """
    tape = [0] * 30000
    jumps: dict[int, int] = {}
    stack: list[int] = []
    for i, ch in enumerate(code):
        if ch == "[":
            stack.append(i)
        elif ch == "]":
            j = stack.pop()
            jumps[i], jumps[j] = j, i
    data = list(stdin)
    out = bytearray()
    ptr = pc = ops = 0
    while pc < len(code):
        ops += 1
        if ops > max_ops:
            return None
        ch = code[pc]
        if ch == "+":
            tape[ptr] = (tape[ptr] + 1) & 0xFFFFFFFF
        elif ch == "-":
            tape[ptr] = (tape[ptr] - 1) & 0xFFFFFFFF
        elif ch == ">":
            ptr = (ptr + 1) % 30000
        elif ch == "<":
            ptr = (ptr - 1) % 30000
        elif ch == ".":
            out.append(tape[ptr] & 0xFF)
        elif ch == ",":
            tape[ptr] = data.pop(0) if data else 0xFFFFFFFF
        elif ch == "[" and tape[ptr] == 0:
            pc = jumps[pc]
        elif ch == "]" and tape[ptr] != 0:
            pc = jumps[pc]
        pc += 1
    return bytes(out)


def test_commands_map_to_pieces() -> None:
    assert translate(".,[]") == "RrBb w"
    assert translate("><.,[]").startswith("NnRrBb")


def test_a_run_becomes_pawns_on_the_set_bits() -> None:
    assert translate("+++++") == "P1P w"  # 5 = 2**0 + 2**2
    assert translate("-- -- x --") == "1pp b"  # 6 = 2**1 + 2**2, comments ignored
    assert translate("+++-") == "1P w"  # a run is counted net


def test_the_board_is_as_wide_as_the_highest_pawn_column() -> None:
    assert translate("+" * 256 + ".") == "8PR w"  # 256 = 2**8: a pawn in column 8


def test_a_pawn_left_of_the_cursor_starts_a_new_rank() -> None:
    assert translate("++.+") == "1PR/P w"  # the last pawn (column 0) is left of the cursor
    assert translate(".++") == "RP w"  # column 1 is the cursor: same rank
    assert translate("..++") == "RR/1P w"  # column 1 is left of the cursor (2)


def test_the_side_is_the_colour_of_the_first_piece() -> None:
    assert translate(",.").endswith(" b")
    assert translate("-.").endswith(" b")
    assert translate("+.").endswith(" w")
    assert translate("no commands here") == "1 w"


def test_pointer_moves_get_exactly_30000_cells_without_empty_ranks() -> None:
    board = translate(">+.")
    assert "//" not in board
    grid = parse_program(board.encode())
    assert grid.rows * grid.cols == 30000


def test_no_padding_without_pointer_moves() -> None:
    grid = parse_program(translate("+++.").encode())
    assert grid.rows * grid.cols < 100


def test_unmatched_brackets_are_source_errors() -> None:
    with pytest.raises(SourceError) as close:
        translate("+\n+]", path="x.b")
    assert (close.value.path, close.value.line, close.value.column) == ("x.b", 2, 2)
    assert close.value.message == "unmatched ']'"
    with pytest.raises(SourceError) as opened:
        translate("[[]")
    assert (opened.value.line, opened.value.column, opened.value.message) == (
        1,
        1,
        "unmatched '['",
    )


def test_a_program_too_large_for_a_board() -> None:
    with pytest.raises(TranslationError):
        translate(">." * 20000)


BF = st.recursive(
    st.text(alphabet="+-<>.,", max_size=8),
    lambda inner: st.lists(inner | inner.map(lambda b: "[" + b + "]"), max_size=4).map("".join),
    max_leaves=10,
)


@settings(max_examples=150, deadline=None)
@given(BF, st.binary(max_size=4))
def test_translated_programs_behave_like_brainfuck(code: str, stdin: bytes) -> None:
    expected = bf_run(code, stdin, max_ops=5000)
    if expected is None:
        return  # runs too long for a unit test
    result = run_line(translate(code), stdin, prompt=False, max_steps=10**6)
    assert (result.stdout, result.status) == (expected + b"\n", "ok")
