"""Static bracket matching from the start square (spec §4, static equivalence)."""

from __future__ import annotations

from esochess.chazz.loader import parse_program
from esochess.chazz.program import Instr, Loop, OpenLoop, StrayClose, build_program


def test_instructions_keep_their_squares_and_start_at_the_start_square() -> None:
    program = build_program(parse_program(b"pR/1P b"))
    assert program.body == (Instr("p", 0, 0), Instr("R", 0, 1), Instr("P", 1, 1))
    assert program.memory_size == 4
    white = build_program(parse_program(b"pR/1P w"))
    assert white.body == (Instr("R", 0, 1), Instr("P", 1, 1))


def test_loops_nest_with_depth_and_size() -> None:
    (outer,) = build_program(parse_program(b"BNBpbb")).body
    assert isinstance(outer, Loop)
    assert (outer.depth, outer.body_size) == (0, 4)
    inner = outer.body[1]
    assert isinstance(inner, Loop)
    assert (inner.depth, inner.body, inner.body_size) == (1, (Instr("p", 0, 3),), 1)


def test_a_stray_close_ends_the_reachable_code() -> None:
    body = build_program(parse_program(b"PbRR")).body
    assert body == (Instr("P", 0, 0), StrayClose(Instr("b", 0, 1)))


def test_a_b_whose_B_is_before_the_start_is_stray() -> None:
    body = build_program(parse_program(b"Bpb b")).body
    assert body == (Instr("p", 0, 1), StrayClose(Instr("b", 0, 2)))


def test_unclosed_B_keeps_what_follows_at_its_level() -> None:
    body = build_program(parse_program(b"BRBpbB")).body
    assert body[0] == OpenLoop(Instr("B", 0, 0), 0)
    assert body[1] == Instr("R", 0, 1)
    assert isinstance(body[2], Loop) and body[2].depth == 1
    assert body[3] == OpenLoop(Instr("B", 0, 5), 1)
