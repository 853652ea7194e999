"""The CHAZZ compiler (docs/chazz.md#engines): a board becomes one Python function, built once.

This module compiles the generated source and runs it; the stages that make the source
are `knowledge.py` (what is known of each cell), `emitter.py` (straight-line code),
`closed_form.py` (loops without a `while`), `loop_analysis.py` (fixpoint and unrolling)
and `codegen.py` (the walk over the loop tree that chooses each loop's form).

Code shape, and why:
- Straight-line code is evaluated at compile time as far as it can be. Pointer moves
  become a constant offset from `p`; pawn runs and `K`/`k` become one pending effect per
  cell; cells whose value is known (all of memory at the start, a cell a loop has just
  left at 0) fold into constants, so `R` on a known cell writes a constant byte. Only
  what is observable — output, input, loop tests — forces code. A cell is indexed as
  `mem[p-(M-o)]`, which Python's negative indices wrap for free (0 <= p, o < M).
- Jumps are precomputed (static bracket matching, `program.py`): a loop is a `while`
  whose test is the `B` on entry and the `b` afterwards, exactly the reference's
  behaviour. `p` moves only when a loop body's net pointer move is not 0.
- Loops that only add to or set cells, with a net pointer move of 0 (`Bpb`, transfer
  and multiply loops), are solved in closed form — at compile time when the counter is
  known. A flat body that ends with its cell set to 0 runs at most once: an `if`.
- What holds at every test of a loop is found by a small fixpoint (`loop_head`); a
  body that, given it, makes no code at all is a closed form too, so nested counting
  loops collapse. A loop entered on a known cell whose cell stays known is unrolled at
  compile time (`unroll`, bounded), turning code that prints known values into bytes
  literals.
- CPython allows only 20 nested blocks per function, so every `MAX_NEST` loop levels
  the next loop is moved into a separate function taking and returning the machine's
  registers. Any depth up to the reference's 256 works.
- Cell values are Python ints reduced modulo 2**32 only where it matters (tests, output),
  so the common `+= 1` stays a small-int add.

With `--max-steps` the code also counts steps (`counted`): the count is brought up to
date before every observable event and on every loop back-edge, so the limit stops a
program after exactly the same output as the interpreter. `--trace` compiles without
any compile-time evaluation: one traced statement group per instruction.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import CodeType

from esochess.chazz.codegen import Codegen
from esochess.chazz.emitter import ERRORS, NO_LIMIT
from esochess.chazz.program import Program
from esochess.chazz.runtime import (
    MAX_LOOP_DEPTH,
    PROMPT,
    LoopError,
    MachineIO,
    StepLimitReached,
    trace_line,
)

_RECURSION_LIMIT = 12 * MAX_LOOP_DEPTH + 1000


@dataclass(frozen=True)
class CompiledProgram:
    """A compiled board: Python source and its code object, ready to run many times."""

    source: str
    code: CodeType
    memory_size: int
    counted: bool
    traced: bool

    def run(self, io: MachineIO, max_steps: int | None = None) -> int | None:
        """Run the program; same contract as `interpreter.interpret`.

        Returns the number of executed instructions when compiled `counted`, else None.
        """
        namespace: dict[str, object] = {}
        exec(self.code, namespace)
        make = namespace["_make"]
        assert callable(make)
        out = bytearray()
        limit = NO_LIMIT if max_steps is None else max_steps
        prompt = PROMPT if io.prompt else b""
        write = io.write
        read_byte = io.read_byte

        interactive = io.interactive
        flush_at = io.flush_at

        def rd() -> int:
            out.extend(prompt)
            # A person must see the prompt (and all before it) before typing; a pipe
            # need not, and handing over output for every byte read would be slow.
            if interactive or len(out) >= flush_at:
                write(out)
                out.clear()
            return read_byte()

        def fl() -> None:
            write(out)
            out.clear()

        def lim() -> None:
            raise StepLimitReached(limit)

        tr = _tracer(io.trace)

        def hang() -> None:
            fl()  # what was printed before the endless loop is shown
            _hang()

        main = make(
            [0] * self.memory_size,
            out,
            rd,
            fl,
            tr,
            lim,
            hang,
            limit,
            LoopError,
            ERRORS,
            io.flush_at,
        )
        try:
            steps = main(0, 0, 0)
        finally:
            if out:
                write(out)
        return steps if self.counted else None


def _tracer(sink: Callable[[str], object] | None) -> Callable[[int, int, int, str, int, int], None]:
    def tr(step: int, row: int, col: int, piece: str, ptr: int, cell: int) -> None:
        if sink is not None:
            sink(trace_line(step, row, col, piece, ptr, cell))

    return tr


def _hang() -> None:
    """Spin forever, as the reference does in a loop whose cell never reaches 0."""
    while True:
        time.sleep(3600)


def generate_source(program: Program, *, counted: bool = False, traced: bool = False) -> str:
    """Return the Python source of the factory `_make(...)` for `program`."""
    # Code generation recurses a few frames per loop level; 256 levels need more than
    # Python's default limit of 1000 frames.
    old_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old_limit, _RECURSION_LIMIT))
    try:
        return Codegen(program, counted, traced).generate(program)
    finally:
        sys.setrecursionlimit(old_limit)


def compile_program(
    program: Program, *, counted: bool = False, traced: bool = False
) -> CompiledProgram:
    """Compile a program once; `counted` is needed for `--max-steps`, `traced` for
    `--trace`."""
    source = generate_source(program, counted=counted, traced=traced)
    code = compile(source, "<chazz>", "exec")
    return CompiledProgram(source, code, program.memory_size, counted or traced, traced)
