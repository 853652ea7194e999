"""Emitting the compiled code of straight-line instructions.

An `Emitter` holds the lines being generated (one `Writer` per generated function) and
turns one instruction at a time into changes of the compile-time state (`knowledge.Block`),
writing a line only for what is observable: output, input, the buffer, a loop test. It
also writes the traced form of an instruction (`--trace`: one statement group each) and
the code shared by every kind of loop: the step count, the loop errors, an endless spin.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from esochess.chazz.knowledge import DIRTY, Block
from esochess.chazz.program import Instr
from esochess.chazz.runtime import (
    LOOP_STACK_OVERFLOW,
    LOOP_STACK_UNDERFLOW,
    LOOP_START_NOT_FOUND,
    MASK32,
)

# The loop errors, passed to the generated code as ERRORS and raised by index.
ERRORS = (LOOP_START_NOT_FOUND, LOOP_STACK_OVERFLOW, LOOP_STACK_UNDERFLOW)
NOT_FOUND, OVERFLOW, UNDERFLOW = range(3)
# A step limit that is never reached.
NO_LIMIT = 1 << 200


@dataclass
class Writer:
    """Lines of one generated function; `indent` is the current block depth."""

    lines: list[str] = field(default_factory=list)
    indent: int = 1

    def line(self, text: str) -> None:
        """Append one line at the current indentation."""
        self.lines.append("    " * self.indent + text)


class GiveUp(Exception):
    """An unrolling trial ran out of its compile-time work budget."""


def pawn(instr: Instr) -> int:
    """What a pawn adds to its cell: 2**(column mod 32), negated for a black pawn."""
    delta = 1 << (instr.col & 31)
    return delta if instr.piece == "P" else -delta


class Emitter:
    """The generated functions, and the emission of straight-line code into the current
    one (`writer`) for a memory of `size` cells."""

    def __init__(self, size: int, counted: bool, traced: bool) -> None:
        self.size = size
        self.counted = counted
        self.traced = traced
        self.functions: list[Writer] = []
        self.writer = Writer()
        # Instructions simulated so far, and the point at which the current unrolling
        # attempt gives up (no attempt: never).
        self.work_done = 0
        self.deadline = NO_LIMIT

    # -- expressions and pending state -----------------------------------------------------
    def idx(self, offset: int) -> str:
        """The index expression of the cell `offset` squares right of `p` (mod M)."""
        offset %= self.size
        return "p" if offset == 0 else f"p-{self.size - offset}"

    def cell(self, offset: int) -> str:
        """The expression of the cell `offset` squares right of `p`."""
        return f"mem[{self.idx(offset)}]"

    def flush_steps(self, block: Block, check: bool = True) -> None:
        """Bring `st` up to date (counted code only), and test the limit."""
        if not self.counted:
            return
        if block.steps:
            self.writer.line(f"st += {block.steps}")
            block.steps = 0
        if check:
            self.writer.line("if st > LIM: lim()")

    def flush_text(self, block: Block) -> None:
        """Append pending constant output to `out` (before anything that can see it)."""
        if block.text:
            self.writer.line(f"out += {bytes(block.text)!r}")
            block.text.clear()

    def materialize(self, block: Block, offset: int) -> None:
        """Write a cell's pending effect to memory."""
        kind, value = block.state(offset)
        if kind == "add":
            if value:
                self.writer.line(f"{self.cell(offset)} += {value}")
            block.cells[offset] = DIRTY
        elif kind == "set":
            self.writer.line(f"{self.cell(offset)} = {value}")
            block.cells[offset] = ("known", value)
            block.memory.pop(offset, None)

    def materialize_all(self, block: Block) -> None:
        """Write every pending effect to memory."""
        for offset in list(block.cells):
            self.materialize(block, offset)

    def move_pointer(self, block: Block, base: int) -> None:
        """Emit the move of `p` that makes the machine pointer `base` squares right of it."""
        delta = (block.shift - base) % self.size
        if delta:
            self.writer.line(f"p = (p + {delta}) % {self.size}")
            block.cells = {(o - delta) % self.size: c for o, c in block.cells.items()}
            block.memory = {(o - delta) % self.size: v for o, v in block.memory.items()}
            block.shift = base

    # -- errors and endless loops ----------------------------------------------------------
    def raise_error(self, block: Block, kind: int) -> None:
        """Emit the raise of a loop error (constant output first)."""
        self.flush_text(block)
        self.writer.line(f"raise LoopError(ERRORS[{kind}])")

    def raise_if(self, block: Block, test: str, kind: int) -> None:
        """Emit `if TEST: raise` for a loop error."""
        self.writer.line(f"if {test}:")
        self.writer.indent += 1
        self.raise_error(block, kind)
        self.writer.indent -= 1

    def overflow_check(self, block: Block) -> None:
        """A `B` at depth 256 overflows on a non-zero cell and skips its body on 0."""
        self.raise_if(block, f"{self.cell(block.shift)} & {MASK32}", OVERFLOW)

    def spin(self, block: Block) -> None:
        """A loop that never ends: the step limit stops it, or it spins like the
        reference does."""
        if self.counted:
            self.flush_steps(block, check=False)
            self.writer.line("lim()")
        else:
            self.flush_text(block)
            self.writer.line("hang()")

    # -- straight-line instructions --------------------------------------------------------
    def instr(self, node: Instr, block: Block) -> None:
        """Evaluate one straight-line instruction, emitting code only where it must."""
        piece = node.piece
        self.work_done += 1
        if self.work_done > self.deadline:
            raise GiveUp
        block.steps += 1
        offset = block.shift
        if piece in "Pp":
            block.add(offset, pawn(node))
        elif piece == "N":
            block.shift = (offset + 1) % self.size
        elif piece == "n":
            block.shift = (offset - 1) % self.size
        elif piece in "Kk":
            block.set(offset, 1 if piece == "K" else 0)
        elif piece == "Q":
            known = block.value(offset)
            if known is None:
                self.materialize(block, offset)
                self.writer.line(f"buf = {self.cell(offset)}")
            else:
                self.writer.line(f"buf = {known}")
        elif piece == "q":
            block.overwrite(offset)
            self.writer.line(f"{self.cell(offset)} = buf")
        elif piece == "R":
            self.flush_steps(block)
            known = block.value(offset)
            if known is None:
                self.flush_text(block)
                self.materialize(block, offset)
                self.writer.line(f"out.append({self.cell(offset)} & 255)")
            elif self.counted:
                self.writer.line(f"out.append({known & 0xFF})")
            else:
                block.text.append(known & 0xFF)
        else:  # "r"
            self.flush_steps(block)
            self.flush_text(block)
            block.overwrite(offset)
            self.writer.line(f"{self.cell(offset)} = rd()")

    def instrs(self, body: list[Instr], block: Block) -> None:
        """Evaluate a flat run of instructions."""
        for instr in body:
            self.instr(instr, block)

    # -- tracing ---------------------------------------------------------------------------
    def trace_head(self, node: Instr) -> None:
        """Traced code: the step limit, the step count and the trace line of `node`."""
        w = self.writer
        w.line("if st >= LIM: lim()")
        w.line("st += 1")
        w.line(f"tr(st, {node.row}, {node.col}, {node.piece!r}, p, mem[p])")

    def traced_instr(self, node: Instr) -> None:
        """Traced code: one instruction, executed as the interpreter does."""
        self.trace_head(node)
        w = self.writer
        piece = node.piece
        if piece in "Pp":
            w.line(f"mem[p] = (mem[p] + {pawn(node)}) & {MASK32}")
        elif piece == "N":
            w.line(f"p = (p + 1) % {self.size}")
        elif piece == "n":
            w.line(f"p = (p - 1) % {self.size}")
        elif piece in "Kk":
            w.line(f"mem[p] = {1 if piece == 'K' else 0}")
        elif piece == "Q":
            w.line("buf = mem[p]")
        elif piece == "q":
            w.line("mem[p] = buf")
        elif piece == "R":
            w.line("out.append(mem[p] & 255)")
        else:
            w.line("mem[p] = rd()")
