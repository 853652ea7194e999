"""The code generator: a `Program`'s loop tree → the source of the factory `_make(...)`.

It walks the tree in order, handing straight-line instructions to the `Emitter` and
choosing for each loop its cheapest correct form: skipped (known 0), solved in closed
form (`closed_form`), unrolled at compile time (`loop_analysis.unroll`), or a `while`
that sees what `loop_analysis.loop_head` proved holds at its every test. Unmatched `B`
and `b` become the loop errors. `compiler.py` compiles and runs the result.
"""

from __future__ import annotations

from dataclasses import replace

from esochess.chazz.closed_form import flat_effects, once_loop, solve
from esochess.chazz.emitter import NOT_FOUND, OVERFLOW, UNDERFLOW, Emitter, Writer
from esochess.chazz.knowledge import ZERO, Block
from esochess.chazz.loop_analysis import loop_head, unroll
from esochess.chazz.program import Instr, Loop, Node, OpenLoop, Program, StrayClose
from esochess.chazz.runtime import MASK32, MAX_LOOP_DEPTH

# Loop levels per generated function (CPython's limit is 20 nested blocks).
MAX_NEST = 8
# What every generated function binds as locals.
_LOCALS = "mem=mem, out=out, rd=rd"


def contains_output(nodes: tuple[Node, ...]) -> bool:
    """Whether `nodes` hold an `R`, at any loop level."""
    for node in nodes:
        if isinstance(node, Instr) and node.piece == "R":
            return True
        if isinstance(node, Loop) and contains_output(node.body):
            return True
    return False


class Codegen:
    """Turns a `Program` into the source of a factory function (see `compiler.py`)."""

    def __init__(self, program: Program, counted: bool, traced: bool) -> None:
        self.em = Emitter(program.memory_size, counted or traced, traced)

    # -- structure -------------------------------------------------------------------------
    def sequence(self, nodes: tuple[Node, ...], block: Block) -> bool:
        """Emit nodes; return False when the code after them is unreachable."""
        em = self.em
        for node in nodes:
            if isinstance(node, Instr):
                if em.traced:
                    em.traced_instr(node)
                else:
                    em.instr(node, block)
            elif isinstance(node, Loop):
                if not self.loop(node, block):
                    return False
            elif isinstance(node, OpenLoop):
                if not self.open_loop(node, block):
                    return False
            else:
                self.stray_close(node, block)
                return False
        return True

    def stray_close(self, node: StrayClose, block: Block) -> None:
        """A `b` with no `B`: the underflow error."""
        em = self.em
        if em.traced:
            em.trace_head(node.close)
        else:
            block.steps += 1
            em.flush_steps(block)
        em.raise_error(block, UNDERFLOW)

    def open_loop(self, node: OpenLoop, block: Block) -> bool:
        """An unmatched `B`: fails on 0; otherwise it just stays on the loop stack."""
        em = self.em
        # Constant output must reach `out` before any branch that may raise.
        em.flush_text(block)
        if em.traced:
            em.trace_head(node.open)
            known = None
        else:
            block.steps += 1
            known = block.value(block.shift)
        if known is None:
            em.materialize(block, block.shift)
        em.flush_steps(block)
        test = f"{em.cell(block.shift)} & {MASK32}"
        if node.depth >= MAX_LOOP_DEPTH or known == 0:
            if known is None:
                em.raise_if(block, test, OVERFLOW)
            em.raise_error(block, NOT_FOUND if known == 0 else OVERFLOW)
            return False
        if known is None:
            em.raise_if(block, f"not ({test})", NOT_FOUND)
        return True

    def loop(self, node: Loop, block: Block) -> bool:
        """Emit a matched loop; return False when the code after it is unreachable."""
        em = self.em
        if em.traced:
            em.trace_head(node.open)
            if node.depth >= MAX_LOOP_DEPTH:
                em.overflow_check(block)
            else:
                self.while_loop(node, Block())
            return True
        block.steps += 1
        base = block.shift
        known = block.value(base)
        if known == 0:
            return True  # the `B` skips its body
        if node.depth >= MAX_LOOP_DEPTH:
            em.flush_text(block)
            if known is not None:
                em.flush_steps(block)
                em.raise_error(block, OVERFLOW)
                return False
            em.materialize(block, base)
            em.flush_steps(block)
            em.overflow_check(block)
            return True
        flat = [n for n in node.body if isinstance(n, Instr)]
        if len(flat) == len(node.body):
            effects = flat_effects(em, flat)
            if effects is not None:
                return solve(em, block, effects, node.body_size + 1)
            if once_loop(em, flat, block):
                return True
        head, folded = loop_head(em, self.sequence, node, block.clean())
        if folded is not None:
            return solve(em, block, *folded)
        if known is not None and unroll(em, self.sequence, node, block):
            return True
        em.materialize_all(block)
        em.flush_text(block)
        em.flush_steps(block, check=False)
        self.general_loop(node, block, head)
        return True

    def general_loop(self, node: Loop, block: Block, head: Block) -> None:
        """A `while` (moved to its own function when nested too deep). Afterwards, what
        held at every test still holds, and the loop's cell is 0."""
        em = self.em
        outer = em.writer
        if outer.indent > MAX_NEST:
            name = f"_f{len(em.functions)}"
            outer.line(f"p, buf, st = {name}(p, buf, st)")
            em.writer = Writer()
            em.functions.append(em.writer)
            em.writer.lines.append(f"def {name}(p, buf, st, {_LOCALS}):")
            self.while_loop(node, head)
            em.writer.line("return p, buf, st")
            em.writer = outer
        else:
            self.while_loop(node, head)
        after = head.clean()
        block.cells = after.cells
        block.zeros = after.zeros
        block.memory = {}
        block.cells[block.shift] = ZERO

    def while_loop(self, node: Loop, head: Block) -> None:
        """Emit the `while` of a loop whose tests all see the state `head`."""
        em = self.em
        base = head.shift
        w = em.writer
        w.line(f"while {em.cell(base)} & {MASK32}:")
        start = len(w.lines)
        w.indent += 1
        inner = replace(head, cells=dict(head.cells), memory={}, steps=0, text=bytearray())
        if self.sequence(node.body, inner):
            if em.traced:
                em.trace_head(node.close)
            else:
                inner.steps += 1
                em.materialize_all(inner)
                em.flush_text(inner)
                # The `b` tests the cell under the pointer: bring it back to `base`.
                em.move_pointer(inner, base)
                # Back-edge: keeps an endless loop stoppable by the step limit.
                em.flush_steps(inner)
            if contains_output(node.body):
                w.line("if len(out) >= FLUSH_AT: fl()")
        if len(w.lines) == start:
            w.line("pass")  # a body that changes nothing: the reference spins here too
        w.indent -= 1

    # -- whole program ---------------------------------------------------------------------
    def generate(self, program: Program) -> str:
        """The whole factory's source."""
        em = self.em
        main = em.writer
        main.lines.append(f"def _main(p, buf, st, {_LOCALS}):")
        block = Block(zeros=True)
        if self.sequence(program.body, block) and not em.traced:
            # Pending cell effects die with the program; only output and steps matter.
            em.flush_text(block)
            em.flush_steps(block)
        main.line("return st")
        parts = ["def _make(mem, out, rd, fl, tr, lim, hang, LIM, LoopError, ERRORS, FLUSH_AT):"]
        for writer in [*em.functions, main]:
            parts.extend("    " + text for text in writer.lines)
        parts.append("    return _main")
        return "\n".join(parts) + "\n"
