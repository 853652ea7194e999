"""The two engines behind one call: `run(grid, io, engine=...)`.

`compiler` (the default) compiles the board once and runs the Python function;
`interpreter` is the literal reference semantics. Both have the same contract (see
`runtime`) and give identical output, exit status and trace.
"""

from __future__ import annotations

from typing import Literal

from esochess.chazz.compiler import compile_program
from esochess.chazz.interpreter import interpret
from esochess.chazz.program import build_program
from esochess.chazz.runtime import MachineIO
from esochess.fen import Grid

Engine = Literal["compiler", "interpreter"]
ENGINES: tuple[Engine, ...] = ("compiler", "interpreter")


def run(
    grid: Grid, io: MachineIO, *, engine: Engine = "compiler", max_steps: int | None = None
) -> None:
    """Run a loaded program to its end; raises `LoopError` or `StepLimitReached`."""
    if engine == "interpreter":
        interpret(grid, io, max_steps)
        return
    compiled = compile_program(
        build_program(grid), counted=max_steps is not None, traced=io.trace is not None
    )
    compiled.run(io, max_steps)
