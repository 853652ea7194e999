"""The compiler engine's trial run (engines.py): tiny programs end in the trial; longer
ones hand over to the compiled code, which replays the input the trial read."""

from __future__ import annotations

import pytest
from chazz_helpers import run_grid, run_line

from esochess.chazz.engines import TRIAL_STEPS, TRIAL_STEPS_PER_PIECE
from esochess.chazz.loader import parse_program

# Reads two bytes, counts 1024 down by 2 (1025 steps, more than the trial's budget of
# 512 + 16 * 12 pieces), then prints the bytes back in reverse order.
LONG = b"rNrN/10P/Bpb/nRnR b"


def test_the_long_program_outlives_the_trial() -> None:
    pieces = 12
    steps = len(run_line(LONG, b"ab", engine="interpreter", trace=True).trace)
    assert steps > TRIAL_STEPS + TRIAL_STEPS_PER_PIECE * pieces


@pytest.mark.parametrize("interactive", [False, True])
def test_input_read_by_the_trial_is_replayed(interactive: bool) -> None:
    grid = parse_program(LONG)
    tiered = run_grid(grid, b"ab", tiered=True, interactive=interactive, prompt=False)
    assert tiered.stdout == b"ba\n"
    assert tiered == run_grid(grid, b"ab", engine="interpreter", prompt=False)


@pytest.mark.parametrize("limit", [0, 3, 600, 700, 1029, 1030, 5000])
def test_a_step_limit_inside_or_beyond_the_trial(limit: int) -> None:
    grid = parse_program(LONG)
    tiered = run_grid(grid, b"ab", tiered=True, max_steps=limit, prompt=False)
    assert tiered == run_grid(grid, b"ab", engine="interpreter", max_steps=limit, prompt=False)


def test_a_loop_error_inside_the_trial_keeps_the_output_before_it() -> None:
    result = run_line("P5PR/b7", tiered=True)
    assert (result.stdout, result.status) == (b"AError: Loop stack underflow\n", "error")
