"""The literal CHAZZ interpreter (docs/reference/chazz.md#machine and
docs/reference/chazz.md#ending-and-errors): square by square, as the reference runs.

It keeps the reference's run-time loop stack and scans forward for a matching `b` at
run time. It is the oracle the compiler is tested against, so it stays plain: no
precomputation beyond the start square.
"""

from __future__ import annotations

from esochess.chazz.runtime import (
    LOOP_STACK_OVERFLOW,
    LOOP_STACK_UNDERFLOW,
    LOOP_START_NOT_FOUND,
    MASK32,
    MAX_LOOP_DEPTH,
    PROMPT,
    LoopError,
    MachineIO,
    StepLimitReached,
    start_index,
    trace_line,
)
from esochess.fen import Grid


def interpret(grid: Grid, io: MachineIO, max_steps: int | None = None) -> None:
    """Run `grid` as a CHAZZ program with the reference semantics.

    Returns at the normal end; raises `LoopError` or `StepLimitReached`. Output written
    before any exit (including KeyboardInterrupt) has been handed to `io.write`.
    """
    cells = grid.cells
    size = len(cells)
    cols = grid.cols
    mem = [0] * size
    ptr = 0
    buf = 0
    stack: list[int] = []
    out = bytearray()
    steps = 0
    # Without a limit, one that is never reached: one comparison per step either way.
    limit = (1 << 200) if max_steps is None else max_steps
    trace = io.trace
    flush_at = io.flush_at
    i = start_index(cells, grid.side)
    try:
        while i < size:
            piece = cells[i]
            if not piece:
                i += 1
                continue
            if steps >= limit:
                raise StepLimitReached(steps)
            steps += 1
            if trace is not None:
                trace(trace_line(steps, i // cols, i % cols, piece, ptr, mem[ptr]))
            if piece == "P":
                mem[ptr] = (mem[ptr] + (1 << (i % cols & 31))) & MASK32
            elif piece == "p":
                mem[ptr] = (mem[ptr] - (1 << (i % cols & 31))) & MASK32
            elif piece == "N":
                ptr = (ptr + 1) % size
            elif piece == "n":
                ptr = (ptr - 1) % size
            elif piece == "R":
                out.append(mem[ptr] & 0xFF)
                if len(out) >= flush_at:
                    io.write(out)
                    out.clear()
            elif piece == "r":
                if io.prompt:
                    out += PROMPT
                # A person must see the prompt (and all before it) before typing.
                if io.interactive or len(out) >= flush_at:
                    io.write(out)
                    out.clear()
                mem[ptr] = io.read_byte() & MASK32
            elif piece == "Q":
                buf = mem[ptr]
            elif piece == "q":
                mem[ptr] = buf
            elif piece == "K":
                mem[ptr] = 1
            elif piece == "k":
                mem[ptr] = 0
            elif piece == "B":
                if mem[ptr] == 0:
                    depth = 1
                    j = i + 1
                    while j < size:
                        c = cells[j]
                        if c == "B":
                            depth += 1
                        elif c == "b":
                            depth -= 1
                            if depth == 0:
                                break
                        j += 1
                    else:
                        raise LoopError(LOOP_START_NOT_FOUND)
                    i = j
                elif len(stack) >= MAX_LOOP_DEPTH:
                    raise LoopError(LOOP_STACK_OVERFLOW)
                else:
                    stack.append(i)
            else:  # "b"
                if not stack:
                    raise LoopError(LOOP_STACK_UNDERFLOW)
                if mem[ptr] != 0:
                    # Resume right after the `B`: it is not executed again.
                    i = stack[-1]
                else:
                    stack.pop()
            i += 1
    finally:
        if out:
            io.write(out)
