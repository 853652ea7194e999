"""The two engines behind one call: `run(grid, io, engine=...)`.

`compiler` (the default) compiles the board once and runs the Python function;
`interpreter` is the literal reference semantics. Both have the same contract (see
`runtime`) and give identical output, exit status and trace.

Compiling costs more than interpreting a program that ends after a few hundred steps,
so the compiler engine first interprets with a small step budget (proportional to the
board). A program that ends within it is done; otherwise its buffered output is
dropped and the compiled code runs from the start, replaying any input the trial read.
The trial never blocks on interactive input (it hands over to the compiler instead), and
its buffered output is what the program wrote, so the result is the same either way.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Literal

from esochess.chazz.compiler import compile_program
from esochess.chazz.interpreter import interpret
from esochess.chazz.program import build_program
from esochess.chazz.runtime import MachineIO, StepLimitReached
from esochess.fen import Grid

Engine = Literal["compiler", "interpreter"]
ENGINES: tuple[Engine, ...] = ("compiler", "interpreter")
# The trial's step budget: a fixed part plus a part per piece, since compiling costs
# about as much as interpreting this many steps.
TRIAL_STEPS = 512
TRIAL_STEPS_PER_PIECE = 16


class _HandOver(Exception):
    """The trial stops: the program needs the compiler (or interactive input)."""


def run(
    grid: Grid,
    io: MachineIO,
    *,
    engine: Engine = "compiler",
    max_steps: int | None = None,
    tiered: bool = True,
) -> None:
    """Run a loaded program to its end; raises `LoopError` or `StepLimitReached`.

    `tiered=False` makes the compiler engine compile at once, without the trial run.
    """
    if engine == "interpreter":
        interpret(grid, io, max_steps)
        return
    if tiered and io.trace is None:
        consumed = _trial(grid, io, max_steps)
        if consumed is None:
            return
        io = replace(io, read_byte=_replay(consumed, io.read_byte))
    compiled = compile_program(
        build_program(grid), counted=max_steps is not None, traced=io.trace is not None
    )
    compiled.run(io, max_steps)


def _trial(grid: Grid, io: MachineIO, max_steps: int | None) -> list[int] | None:
    """Interpret within the budget. Returns None when the run is complete (its result
    delivered), else the input bytes it consumed."""
    pieces = len(grid.cells) - grid.cells.count("")
    budget = TRIAL_STEPS + TRIAL_STEPS_PER_PIECE * pieces
    limit = budget if max_steps is None else min(budget, max_steps)
    buffered = bytearray()
    consumed: list[int] = []

    def read_byte() -> int:
        if io.interactive:
            raise _HandOver
        value = io.read_byte()
        consumed.append(value)
        return value

    trial = MachineIO(buffered.extend, read_byte, io.prompt)
    try:
        interpret(grid, trial, limit)
    except _HandOver:
        return consumed
    except StepLimitReached:
        if max_steps is None or max_steps > budget:
            return consumed
        io.write(buffered)
        raise
    except BaseException:
        io.write(buffered)
        raise
    io.write(buffered)
    return None


def _replay(consumed: list[int], read_byte: Callable[[], int]) -> Callable[[], int]:
    """A reader that gives the trial's input again, then reads on."""
    pending = consumed[::-1]

    def replay() -> int:
        return pending.pop() if pending else read_byte()

    return replay
