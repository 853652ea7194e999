"""Loops solved in closed form: their effect is emitted without a `while`.

A loop whose every turn adds to or sets cells, with no net pointer move (`Bpb`, transfer
and multiply loops, and bodies `loop_analysis.loop_head` folds into such effects), runs
`iterations(v, step)` turns, computed at compile time when the counter is known and by
modular arithmetic otherwise. A turn that leaves the counter at 0 makes the loop an `if`;
one that never changes it makes the loop spin once entered.
"""

from __future__ import annotations

from esochess.chazz.emitter import Emitter, Writer
from esochess.chazz.knowledge import DIRTY, ZERO, Block, Cell
from esochess.chazz.program import Instr
from esochess.chazz.runtime import MASK32


def iterations(value: int, step: int) -> int | None:
    """Turns until `value + n*step` is 0 modulo 2**32, or None if it never is."""
    value &= MASK32
    step &= MASK32
    if value == 0:
        return 0
    if step == 0:
        return None
    twos = (step & -step).bit_length() - 1
    if value & ((1 << twos) - 1):
        return None
    bits = 32 - twos
    return (((-value) & MASK32) >> twos) * pow(step >> twos, -1, 1 << bits) % (1 << bits)


def flat_effects(em: Emitter, body: list[Instr]) -> dict[int, Cell] | None:
    """The per-turn effects of a flat body of adds and sets with no net pointer move."""
    if any(n.piece not in "PpNnKk" for n in body):
        return None
    sim = Block()
    em.instrs(body, sim)
    return None if sim.shift else sim.cells


def solve(em: Emitter, block: Block, effects: dict[int, Cell], turn: int) -> bool:
    """Emit a loop whose every turn applies `effects` (offsets from the counter) and
    executes `turn` steps, in closed form. Returns whether code after it is reachable.

    The counter must have an "add" effect; other cells "add" or "set".
    """
    kind, step = effects.get(0, DIRTY)
    if kind != "add" or step % (1 << 32) == 0:
        if kind == "set" and step == 0:
            return solve_once(em, block, effects, turn)
        return spin_if_entered(em, block)
    base = block.shift
    targets = [(o, c) for o, c in effects.items() if o != 0]
    known = block.value(base)
    if known is not None:
        turns = iterations(known, step)
        if turns is None:
            em.spin(block)
            return False
        block.steps += turns * turn
        for offset, (ekind, value) in targets:
            target = (base + offset) % em.size
            if ekind == "set":
                block.set(target, value)
            else:
                block.add(target, turns * value)
        block.set(base, 0)
        return True
    if step & 1 and not targets and not em.counted:
        block.set(base, 0)  # a clear loop: it always ends, at 0
        return True
    w = em.writer
    # Nothing pending may be settled inside the branches below.
    em.flush_text(block)
    em.flush_steps(block, check=False)
    em.materialize(block, base)
    for offset, _ in targets:
        em.materialize(block, base + offset)
    twos = (step & -step).bit_length() - 1
    bits = 32 - twos
    inverse = pow((step >> twos) % (1 << bits), -1, 1 << bits)
    w.line(f"v = {em.cell(base)} & {MASK32}")
    w.line("if v:")
    w.indent += 1
    if twos:
        # Unless v is a multiple of 2**twos the cell never reaches 0: the loop spins.
        w.line(f"if v & {(1 << twos) - 1}:")
        w.indent += 1
        em.spin(block)
        w.indent -= 1
    if step == -1:
        w.line("n = v")
    else:
        w.line(f"n = (((-v) & {MASK32}) >> {twos}) * {inverse} & {(1 << bits) - 1}")
    if em.counted:
        w.line(f"st += n * {turn}")
    for offset, (ekind, value) in targets:
        cell = em.cell(base + offset)
        if ekind == "set":
            w.line(f"{cell} = {value}")
        elif value == 1:
            w.line(f"{cell} += n")
        elif value == -1:
            w.line(f"{cell} -= n")
        elif value:
            w.line(f"{cell} += n * {value}")
    w.line(f"{em.cell(base)} = 0")
    w.indent -= 1
    for offset, _ in targets:
        block.overwrite((base + offset) % em.size)
    block.cells[base] = ZERO
    block.memory.pop(base, None)
    return True


def solve_once(em: Emitter, block: Block, effects: dict[int, Cell], turn: int) -> bool:
    """Per-turn effects that leave the counter at 0: the body runs at most once."""
    base = block.shift
    if block.value(base) is not None:  # known non-zero: exactly once, right here
        for offset, (kind, value) in effects.items():
            target = (base + offset) % em.size
            if kind == "set":
                block.set(target, value)
            else:
                block.add(target, value)
        block.steps += turn
        return True
    w = em.writer
    em.flush_text(block)
    em.flush_steps(block, check=False)
    em.materialize_all(block)
    w.line(f"if {em.cell(base)} & {MASK32}:")
    w.indent += 1
    if em.counted:
        w.line(f"st += {turn}")
    for offset, (kind, value) in effects.items():
        cell = em.cell(base + offset)
        w.line(f"{cell} = {value}" if kind == "set" else f"{cell} += {value}")
    w.indent -= 1
    for offset in effects:
        block.overwrite((base + offset) % em.size)
    block.cells[base] = ZERO
    return True


def spin_if_entered(em: Emitter, block: Block) -> bool:
    """Per-turn effects that never change the counter, or set it non-zero: the loop
    never ends once entered."""
    base = block.shift
    if block.value(base) is not None:
        em.spin(block)
        return False
    em.flush_text(block)
    em.flush_steps(block, check=False)
    em.materialize(block, base)
    em.writer.line(f"if {em.cell(base)} & {MASK32}:")
    em.writer.indent += 1
    em.spin(block)
    em.writer.indent -= 1
    block.cells[base] = ZERO
    return True


def once_loop(em: Emitter, body: list[Instr], block: Block) -> bool:
    """A flat body that leaves `p` where it was and its cell at 0 runs at most once."""
    outer = em.writer
    em.writer = Writer()
    sim = Block()
    em.instrs(body, sim)
    em.writer = outer
    if sim.shift or sim.state(0) not in (("set", 0), ("known", 0)):
        return False
    base = block.shift
    if block.value(base) is not None:
        # Known non-zero: the body runs exactly once, right here.
        em.instrs(body, block)
        block.steps += 1
        return True
    em.materialize_all(block)
    em.flush_text(block)
    em.flush_steps(block, check=False)
    outer.line(f"if {em.cell(base)} & {MASK32}:")
    outer.indent += 1
    inner = block.clean()
    em.instrs(body, inner)
    inner.steps += 1  # the `b`, which finds 0 and falls through
    em.materialize_all(inner)
    em.flush_text(inner)
    em.flush_steps(inner, check=False)
    outer.indent -= 1
    for offset in inner.cells:
        block.overwrite(offset)
    block.cells[base] = ZERO
    return True
