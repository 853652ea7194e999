"""The compiler's code shape (spec §7): precomputed jumps, folded runs, idioms, deep
nesting, step counting. Its results are checked against the interpreter throughout."""

from __future__ import annotations

import pytest
from chazz_helpers import both

from esochess.chazz.closed_form import iterations
from esochess.chazz.compiler import compile_program, generate_source
from esochess.chazz.engines import run
from esochess.chazz.loader import parse_program
from esochess.chazz.program import build_program
from esochess.chazz.runtime import MachineIO


def source(line: str, **options: bool) -> str:
    return generate_source(build_program(parse_program(line.encode())), **options)


def test_pawn_runs_and_pointer_runs_fold() -> None:
    code = source("PPPPNNNNnnR/PPPP")
    assert "p = " not in code  # no pointer move at run time at all
    # Straight-line code from a zeroed memory is evaluated completely: constant output.
    assert "out += b'\\x00'" in code or "out += b'\\x0f'" in code


def test_constant_output_becomes_one_bytes_literal() -> None:
    code = source("3P2PR/P4PR/3p2pR")
    assert "out += b'Hi!'" in code
    assert both("3P2PR/P4PR/3p2pR").stdout == b"Hi!\n"


def test_a_clear_loop_becomes_a_store() -> None:
    code = source("rBpb b")
    assert "while" not in code
    assert both("rBpb b", b"x", prompt=False).stdout == b"\n"


def test_a_flat_body_ending_at_zero_runs_once() -> None:
    line = "rBNPnkb/1NR b"  # if (read) { cell 1 += 8; cell 0 = 0 }
    assert "while" not in source(line)
    assert both(line, b"\x00", prompt=False).stdout == b"\x00\n"
    assert both(line, b"x", prompt=False).stdout == b"\x08\n"


def test_a_transfer_loop_is_solved_in_closed_form() -> None:
    # cell 0 = read; [>+++<-]: cell 1 += 3 * cell 0 (pawns in columns 0 and 1: +3)
    line = "rBN/PPn/pb/NR b"
    code = source(line)
    assert "while" not in code and "n * 3" in code
    assert both(line, b"\x05", prompt=False).stdout == b"\x0f\n"


def test_a_known_counter_solves_the_loop_at_compile_time() -> None:
    line = "3PBN/PPn/pb/NR w"  # 8 turns of +3
    code = source(line)
    assert "while" not in code and "v = " not in code
    assert both(line).stdout == b"\x18\n"


def test_a_body_ending_with_its_cell_at_zero_is_an_if() -> None:
    line = "rBRkb b"
    assert "while" not in source(line) and "if mem[p]" in source(line)
    assert both(line, b"z", prompt=False).stdout == b"z\n"


def test_a_loop_moving_the_pointer_moves_p() -> None:
    line = "rNrNrnnBNb/R b"  # read three cells, scan right to the first zero cell
    code = source(line)
    assert "while" in code and "p = (p + 1)" in code
    assert both(line, b"ab", prompt=False).stdout == b"\x00\n"


def test_a_loop_on_known_values_is_unrolled_at_compile_time() -> None:
    # Prints 0123456789 with a counting loop: everything is known, so it is one literal.
    line = "4PPN1/1P1PB2/nR5/PN5/pb5 w"
    assert "out += b'0123456789'" in source(line)
    assert both(line).stdout == b"0123456789\n"
    counted = source(line, counted=True)
    assert "while" not in counted and counted.count("if st > LIM") >= 10
    assert both(line, max_steps=40).stdout == b"012345"  # R is step 8, 14, ..., 38


@pytest.mark.parametrize(
    ("value", "step", "turns"),
    [(5, -1, 5), (5, 1, (1 << 32) - 5), (6, -2, 3), (7, -2, None), (0, 3, 0), (1, 0, None),
     (1 << 31, 1 << 31, 1), (12, 3, (1 << 32) - 4)],
)  # fmt: skip
def test_iterations_solve_the_32_bit_loop_equation(
    value: int, step: int, turns: int | None
) -> None:
    assert iterations(value, step) == turns
    if turns is not None:
        assert (value + turns * step) % (1 << 32) == 0


def test_deep_nesting_uses_separate_functions() -> None:
    # The cell comes from the input, so nothing can be worked out at compile time.
    line = "r" + "B" * 256 + "Rk" + "b" * 256 + " b"
    code = source(line)
    assert code.count("def _f") >= 256 // 10
    assert max(len(row) - len(row.lstrip()) for row in code.splitlines()) < 4 * 24
    assert both(line, b"x", prompt=False).stdout == b"x\n"


def test_deep_nesting_with_balanced_general_loops() -> None:
    # Each level moves right and back, so no level is a closed form.
    line = "r" + "BNKn" * 200 + "Rk" + "b" * 200 + " b"
    assert "while" in source(line)
    assert both(line, b"y", prompt=False).stdout == b"y\n"


def test_counted_code_returns_the_interpreters_step_count() -> None:
    grid = parse_program(b"4PPQ1/PR6/qPR5/q1PR4/q2PR3/N2PBn2/pRN5/pbKBrRkb w")
    out = bytearray()
    io = MachineIO(write=out.extend, read_byte=lambda: 97)
    steps = compile_program(build_program(grid), counted=True).run(io)
    assert steps == len(both(grid.text(), b"a", trace=True).trace)
    assert compile_program(build_program(grid)).run(io) is None


def test_the_limit_counts_the_steps_of_solved_loops() -> None:
    line = "3PBN/PPn/pb/NR w"  # P, B, 8 turns of (N P P n p b), N: 51 steps; R is 52nd
    assert both(line, max_steps=51).status == "limit"
    assert both(line, max_steps=52).stdout == b"\x18\n"


@pytest.mark.parametrize("engine", ["compiler", "interpreter"])
@pytest.mark.parametrize("interactive", [True, False])
def test_output_is_handed_over_before_reading_from_a_person(engine: str, interactive: bool) -> None:
    events: list[object] = []

    def read_byte() -> int:
        events.append("read")
        return -1

    grid = parse_program(b"3P2PRr")
    io = MachineIO(
        write=lambda b: events.append(bytes(b)), read_byte=read_byte, interactive=interactive
    )
    run(grid, io, engine=engine, tiered=False)
    if interactive:  # the prompt is on the screen before the program waits
        assert events[:2] == [b"H\nInput a character: ", "read"]
    else:  # a pipe: one write at the end
        assert events[0] == "read"
        assert b"".join(e for e in events if isinstance(e, bytes)) == b"H\nInput a character: "


@pytest.mark.parametrize("engine", ["compiler", "interpreter"])
@pytest.mark.parametrize(("flush_at", "chunks"), [(1, 5), (1 << 16, 1)])
def test_a_terminal_gets_output_promptly(engine: str, flush_at: int, chunks: int) -> None:
    # Reads a count, then prints one byte per turn: with flush_at=1 (stdout is a
    # terminal) each byte is handed over as the loop goes, not all at the end.
    grid = parse_program(b"rBR/pb b")
    seen: list[bytes] = []
    io = MachineIO(
        write=lambda b: seen.append(bytes(b)), read_byte=lambda: 5, prompt=False,
        flush_at=flush_at,
    )  # fmt: skip
    run(grid, io, engine=engine, tiered=False)
    assert b"".join(seen) == bytes([5, 4, 3, 2, 1])
    assert len([chunk for chunk in seen if chunk]) == chunks
