"""What the compiler learns about a loop by generating its body at compile time.

`loop_head` finds, by a small fixpoint, what holds at every test of a loop; a body that,
given it, makes no code at all folds into per-turn effects for `closed_form.solve`, so
nested counting loops collapse. `unroll` runs a loop entered on a known cell turn by turn
at compile time, while its cell stays known, turning code that prints known values into
bytes literals. Both generate the body through the code generator's own `EmitNodes`
(`codegen.Codegen.sequence`) into a scratch writer, and keep or drop what it wrote.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from esochess.chazz.emitter import Emitter, GiveUp, Writer
from esochess.chazz.knowledge import DIRTY, Block, Cell, meet
from esochess.chazz.program import Loop, Node

# Emits nodes from a state; returns False when the code after them is unreachable.
EmitNodes = Callable[[tuple[Node, ...], Block], bool]

# Loop-head analysis (see `loop_head`): only for loops with at most this many loop levels
# and instructions inside, and this many fixpoint rounds.
ANALYSED_HEIGHT = 3
ANALYSED_SIZE = 4000
ANALYSED_ROUNDS = 4
# Full unrolling (see `unroll`): at most this many turns and generated lines per loop,
# this many compile-time instructions per attempt, and attempts only while the
# compilation has simulated fewer instructions than UNROLL_WORK.
UNROLL_TURNS = 256
UNROLL_LINES = 500
UNROLL_ATTEMPT_WORK = 10_000
UNROLL_WORK = 100_000


def height(node: Loop) -> int:
    """Loop levels inside `node` (0 for a loop with no loop in its body)."""
    return max((1 + height(n) for n in node.body if isinstance(n, Loop)), default=0)


def speculate(em: Emitter, emit: EmitNodes, node: Loop, head: Block) -> tuple[Block, bool, bool]:
    """Generate the body once from `head`, throwing the code away.

    Returns the state at the `b` (nothing written yet), whether the body made no
    code at all, and whether its end is reachable.
    """
    saved_writer, saved_functions = em.writer, len(em.functions)
    em.writer = Writer(indent=saved_writer.indent + 1)
    inner = replace(head, cells=dict(head.cells), memory={}, steps=0, text=bytearray())
    reachable = emit(node.body, inner)
    code_free = not em.writer.lines and not inner.text
    em.writer = saved_writer
    del em.functions[saved_functions:]
    return inner, code_free, reachable


def loop_head(
    em: Emitter, emit: EmitNodes, node: Loop, entry: Block
) -> tuple[Block, tuple[dict[int, Cell], int] | None]:
    """What is known at every test of the loop (a small fixpoint), and, when the body
    then folds completely into per-turn effects, those effects and steps per turn.

    Only loops with little below them are analysed: each level multiplies the work.
    """
    unknown = Block(entry.shift)
    if height(node) > ANALYSED_HEIGHT or node.body_size > ANALYSED_SIZE:
        return unknown, None
    head = entry
    for _ in range(ANALYSED_ROUNDS):
        inner, code_free, reachable = speculate(em, emit, node, head)
        if not reachable or inner.shift != head.shift:
            return unknown, None
        back = replace(inner, cells=dict(inner.cells), memory=dict(inner.memory))
        for offset, (kind, value) in list(back.cells.items()):
            if kind == "set":
                back.cells[offset] = ("known", value)
            elif kind == "add":
                back.cells[offset] = DIRTY
        new_head = meet(head, back)
        if new_head.same_knowledge(head):
            folded = None
            if code_free:
                # Offsets from the loop's own cell, as `solve` takes them.
                effects = {
                    (o - head.shift) % em.size: c
                    for o, c in inner.cells.items()
                    if c[0] in ("add", "set")
                }
                folded = (effects, inner.steps + 1)
            return head, folded
        head = new_head
    return unknown, None


def unroll(em: Emitter, emit: EmitNodes, node: Loop, block: Block) -> bool:
    """Unroll a loop entered on a known cell, turn by turn at compile time, if its
    cell is known at every `b` and reaches 0 soon.

    The turns are generated on a copy of the state into a separate writer; on
    success the copy and its code replace the originals, on failure both are dropped.
    Work is bounded per attempt (nested attempts share their parent's allowance) and
    per compilation.
    """
    if em.work_done >= UNROLL_WORK:
        return False
    saved_writer, saved_functions, saved_deadline = (
        em.writer,
        len(em.functions),
        em.deadline,
    )
    em.writer = Writer(indent=saved_writer.indent)
    trial = replace(
        block, cells=dict(block.cells), memory=dict(block.memory), text=bytearray(block.text)
    )
    em.deadline = min(saved_deadline, em.work_done + UNROLL_ATTEMPT_WORK)
    done = False
    try:
        for _ in range(UNROLL_TURNS):
            if not emit(node.body, trial):
                break
            trial.steps += 1  # the `b`: it goes on while the cell is non-zero
            value = trial.value(trial.shift)
            if value is None or len(em.writer.lines) > UNROLL_LINES:
                break
            if value == 0:
                done = True
                break
    except GiveUp:
        done = False
    finally:
        trial_writer = em.writer
        em.writer = saved_writer
        em.deadline = saved_deadline
    if not done:
        del em.functions[saved_functions:]
        return False
    saved_writer.lines.extend(trial_writer.lines)
    block.shift, block.cells, block.zeros = trial.shift, trial.cells, trial.zeros
    block.memory, block.steps, block.text = trial.memory, trial.steps, trial.text
    return True
