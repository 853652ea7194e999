"""The CHAZZ compiler (docs/chazz.md#engines): a board becomes one Python function, built once.

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
- What holds at every test of a loop is found by a small fixpoint (`loop_head`); a body
  that, given it, makes no code at all is a closed form too, so nested counting loops
  collapse. A loop entered on a known cell whose cell stays known is unrolled at compile
  time (`unroll`, bounded), turning code that prints known values into bytes literals.
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
from dataclasses import dataclass, field, replace
from types import CodeType

from esochess.chazz.program import Instr, Loop, Node, OpenLoop, Program, StrayClose
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
    signed32,
    trace_line,
)

# Loop levels per generated function (CPython's limit is 20 nested blocks).
MAX_NEST = 8
_ERRORS = (LOOP_START_NOT_FOUND, LOOP_STACK_OVERFLOW, LOOP_STACK_UNDERFLOW)
_NOT_FOUND, _OVERFLOW, _UNDERFLOW = range(3)
_NO_LIMIT = 1 << 200
_RECURSION_LIMIT = 12 * MAX_LOOP_DEPTH + 1000
_LOCALS = "mem=mem, out=out, rd=rd"
# Loop-head analysis (see `_Codegen.loop_head`): only for loops with at most this many
# loop levels and instructions inside, and this many fixpoint rounds.
ANALYSED_HEIGHT = 3
ANALYSED_SIZE = 4000
ANALYSED_ROUNDS = 4
# Full unrolling (see `_Codegen.unroll`): at most this many turns and generated lines per
# loop, this many compile-time instructions per attempt, and attempts only while the
# compilation has simulated fewer instructions than UNROLL_WORK.
UNROLL_TURNS = 256
UNROLL_LINES = 500
UNROLL_ATTEMPT_WORK = 10_000
UNROLL_WORK = 100_000

# What the compiler knows about a cell: ("add", d) an addition not yet written,
# ("set", v) a value not yet written, ("known", v) memory holds v (mod 2**32),
# ("dirty", 0) memory holds something unknown and nothing is pending.
Cell = tuple[str, int]
_DIRTY: Cell = ("dirty", 0)
_ZERO: Cell = ("known", 0)


@dataclass
class _Writer:
    """Lines of one generated function; `indent` is the current block depth."""

    lines: list[str] = field(default_factory=list)
    indent: int = 1

    def line(self, text: str) -> None:
        """Append one line at the current indentation."""
        self.lines.append("    " * self.indent + text)


@dataclass
class _Block:
    """Compile-time state of straight-line code.

    `shift` is the machine pointer's offset from `p`; `cells` maps offsets from `p` to
    what is known of them; when `zeros` holds, cells not in `cells` are known to be 0.
    `memory` keeps, for a cell with a pending "set", the value memory is known to hold
    (so a store of that same value is dropped). `steps` are executed steps not yet added
    to `st`; `text` is constant output not yet appended to `out`.
    """

    shift: int = 0
    cells: dict[int, Cell] = field(default_factory=dict)
    zeros: bool = False
    memory: dict[int, int] = field(default_factory=dict)
    steps: int = 0
    text: bytearray = field(default_factory=bytearray)

    def state(self, offset: int) -> Cell:
        """What is known of the cell at `offset`."""
        return self.cells.get(offset, _ZERO if self.zeros else _DIRTY)

    def value(self, offset: int) -> int | None:
        """The cell's value if it is known (written or pending), else None."""
        kind, value = self.state(offset)
        return value if kind in ("set", "known") else None

    def add(self, offset: int, delta: int) -> None:
        """Record `cell += delta`."""
        kind, value = self.state(offset)
        if kind in ("dirty", "add"):
            self.cells[offset] = ("add", signed32(value + delta if kind == "add" else delta))
        else:
            self.set(offset, value + delta)

    def set(self, offset: int, value: int) -> None:
        """Record `cell = value` (dropped if memory already holds it)."""
        value = signed32(value)
        kind, old = self.state(offset)
        if kind == "known":
            self.memory[offset] = old
        elif kind != "set":
            self.memory.pop(offset, None)
        if self.memory.get(offset) == value:
            del self.memory[offset]
            self.cells[offset] = ("known", value)
        else:
            self.cells[offset] = ("set", value)

    def overwrite(self, offset: int) -> None:
        """Memory at `offset` gets an unknown value (input, the buffer)."""
        self.cells[offset] = _DIRTY
        self.memory.pop(offset, None)

    def clean(self) -> _Block:
        """What is known once pending effects are written, with nothing pending: the
        start state of code that begins here."""
        cells: dict[int, Cell] = {}
        for offset, (kind, value) in self.cells.items():
            # A pending store is as good as done: whoever starts here writes it first.
            if kind in ("known", "set"):
                cells[offset] = ("known", value)
            elif self.zeros:
                cells[offset] = _DIRTY
        return _Block(self.shift, cells, self.zeros)

    def same_knowledge(self, other: _Block) -> bool:
        """Whether two clean states know the same things."""
        keys = set(self.cells) | set(other.cells)
        return self.zeros == other.zeros and all(self.state(o) == other.state(o) for o in keys)


def _meet(a: _Block, b: _Block) -> _Block:
    """What holds in both clean states a and b (at the same `p`)."""
    zeros = a.zeros and b.zeros
    cells: dict[int, Cell] = {}
    for offset in set(a.cells) | set(b.cells):
        state = a.state(offset)
        if state == b.state(offset) and state[0] == "known":
            cells[offset] = state
        elif zeros:
            cells[offset] = _DIRTY
    return _Block(a.shift, cells, zeros)


def _contains_output(nodes: tuple[Node, ...]) -> bool:
    for node in nodes:
        if isinstance(node, Instr) and node.piece == "R":
            return True
        if isinstance(node, Loop) and _contains_output(node.body):
            return True
    return False


class _GiveUp(Exception):
    """An unrolling trial ran out of its compile-time work budget."""


def _height(node: Loop) -> int:
    """Loop levels inside `node` (0 for a loop with no loop in its body)."""
    return max((1 + _height(n) for n in node.body if isinstance(n, Loop)), default=0)


def _pawn(instr: Instr) -> int:
    delta = 1 << (instr.col & 31)
    return delta if instr.piece == "P" else -delta


def _iterations(value: int, step: int) -> int | None:
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


class _Codegen:
    """Turns a `Program` into the source of a factory function (see `compile_program`)."""

    def __init__(self, program: Program, counted: bool, traced: bool) -> None:
        self.size = program.memory_size
        self.counted = counted or traced
        self.traced = traced
        self.functions: list[_Writer] = []
        self.writer = _Writer()
        # Instructions simulated so far, and the point at which the current unrolling
        # attempt gives up (no attempt: never).
        self.work_done = 0
        self.deadline = _NO_LIMIT

    # -- helpers ---------------------------------------------------------------------
    def idx(self, offset: int) -> str:
        """The index expression of the cell `offset` squares right of `p` (mod M)."""
        offset %= self.size
        return "p" if offset == 0 else f"p-{self.size - offset}"

    def cell(self, offset: int) -> str:
        """The expression of the cell `offset` squares right of `p`."""
        return f"mem[{self.idx(offset)}]"

    def flush_steps(self, block: _Block, check: bool = True) -> None:
        """Bring `st` up to date (counted code only), and test the limit."""
        if not self.counted:
            return
        if block.steps:
            self.writer.line(f"st += {block.steps}")
            block.steps = 0
        if check:
            self.writer.line("if st > LIM: lim()")

    def flush_text(self, block: _Block) -> None:
        """Append pending constant output to `out` (before anything that can see it)."""
        if block.text:
            self.writer.line(f"out += {bytes(block.text)!r}")
            block.text.clear()

    def materialize(self, block: _Block, offset: int) -> None:
        """Write a cell's pending effect to memory."""
        kind, value = block.state(offset)
        if kind == "add":
            if value:
                self.writer.line(f"{self.cell(offset)} += {value}")
            block.cells[offset] = _DIRTY
        elif kind == "set":
            self.writer.line(f"{self.cell(offset)} = {value}")
            block.cells[offset] = ("known", value)
            block.memory.pop(offset, None)

    def materialize_all(self, block: _Block) -> None:
        """Write every pending effect to memory."""
        for offset in list(block.cells):
            self.materialize(block, offset)

    def move_pointer(self, block: _Block, base: int) -> None:
        """Emit the move of `p` that makes the machine pointer `base` squares right of it."""
        delta = (block.shift - base) % self.size
        if delta:
            self.writer.line(f"p = (p + {delta}) % {self.size}")
            block.cells = {(o - delta) % self.size: c for o, c in block.cells.items()}
            block.memory = {(o - delta) % self.size: v for o, v in block.memory.items()}
            block.shift = base

    def raise_error(self, block: _Block, kind: int) -> None:
        """Emit the raise of a loop error (constant output first)."""
        self.flush_text(block)
        self.writer.line(f"raise LoopError(ERRORS[{kind}])")

    # -- straight-line instructions ------------------------------------------------------
    def instr(self, node: Instr, block: _Block) -> None:
        """Evaluate one straight-line instruction, emitting code only where it must."""
        piece = node.piece
        self.work_done += 1
        if self.work_done > self.deadline:
            raise _GiveUp
        block.steps += 1
        offset = block.shift
        if piece in "Pp":
            block.add(offset, _pawn(node))
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

    # -- structure -------------------------------------------------------------------------
    def sequence(self, nodes: tuple[Node, ...], block: _Block) -> bool:
        """Emit nodes; return False when the code after them is unreachable."""
        for node in nodes:
            if isinstance(node, Instr):
                if self.traced:
                    self.traced_instr(node)
                else:
                    self.instr(node, block)
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

    def stray_close(self, node: StrayClose, block: _Block) -> None:
        """A `b` with no `B`: the underflow error."""
        if self.traced:
            self.trace_head(node.close)
        else:
            block.steps += 1
            self.flush_steps(block)
        self.raise_error(block, _UNDERFLOW)

    def open_loop(self, node: OpenLoop, block: _Block) -> bool:
        """An unmatched `B`: fails on 0; otherwise it just stays on the loop stack."""
        # Constant output must reach `out` before any branch that may raise.
        self.flush_text(block)
        if self.traced:
            self.trace_head(node.open)
            known = None
        else:
            block.steps += 1
            known = block.value(block.shift)
        if known is None:
            self.materialize(block, block.shift)
        self.flush_steps(block)
        test = f"{self.cell(block.shift)} & {MASK32}"
        if node.depth >= MAX_LOOP_DEPTH or known == 0:
            if known is None:
                self.raise_if(block, test, _OVERFLOW)
            self.raise_error(block, _NOT_FOUND if known == 0 else _OVERFLOW)
            return False
        if known is None:
            self.raise_if(block, f"not ({test})", _NOT_FOUND)
        return True

    def loop(self, node: Loop, block: _Block) -> bool:
        """Emit a matched loop; return False when the code after it is unreachable."""
        if self.traced:
            self.trace_head(node.open)
            if node.depth >= MAX_LOOP_DEPTH:
                self.overflow_check(block)
            else:
                self.while_loop(node, _Block())
            return True
        block.steps += 1
        base = block.shift
        known = block.value(base)
        if known == 0:
            return True  # the `B` skips its body
        if node.depth >= MAX_LOOP_DEPTH:
            self.flush_text(block)
            if known is not None:
                self.flush_steps(block)
                self.raise_error(block, _OVERFLOW)
                return False
            self.materialize(block, base)
            self.flush_steps(block)
            self.overflow_check(block)
            return True
        flat = [n for n in node.body if isinstance(n, Instr)]
        if len(flat) == len(node.body):
            effects = self.flat_effects(flat)
            if effects is not None:
                return self.solve(node, block, effects, node.body_size + 1)
            if self.once_loop(node, flat, block):
                return True
        head, folded = self.loop_head(node, block.clean())
        if folded is not None:
            return self.solve(node, block, *folded)
        if known is not None and self.unroll(node, block):
            return True
        self.materialize_all(block)
        self.flush_text(block)
        self.flush_steps(block, check=False)
        self.general_loop(node, block, head)
        return True

    def overflow_check(self, block: _Block) -> None:
        """A `B` at depth 256 overflows on a non-zero cell and skips its body on 0."""
        self.raise_if(block, f"{self.cell(block.shift)} & {MASK32}", _OVERFLOW)

    def raise_if(self, block: _Block, test: str, kind: int) -> None:
        """Emit `if TEST: raise` for a loop error."""
        self.writer.line(f"if {test}:")
        self.writer.indent += 1
        self.raise_error(block, kind)
        self.writer.indent -= 1

    def unroll(self, node: Loop, block: _Block) -> bool:
        """Unroll a loop entered on a known cell, turn by turn at compile time, if its
        cell is known at every `b` and reaches 0 soon.

        The turns are generated on a copy of the state into a separate writer; on
        success the copy and its code replace the originals, on failure both are dropped.
        Work is bounded per attempt (nested attempts share their parent's allowance) and
        per compilation.
        """
        if self.work_done >= UNROLL_WORK:
            return False
        saved_writer, saved_functions, saved_deadline = (
            self.writer,
            len(self.functions),
            self.deadline,
        )
        self.writer = _Writer(indent=saved_writer.indent)
        trial = replace(
            block, cells=dict(block.cells), memory=dict(block.memory), text=bytearray(block.text)
        )
        self.deadline = min(saved_deadline, self.work_done + UNROLL_ATTEMPT_WORK)
        done = False
        try:
            for _ in range(UNROLL_TURNS):
                if not self.sequence(node.body, trial):
                    break
                trial.steps += 1  # the `b`: it goes on while the cell is non-zero
                value = trial.value(trial.shift)
                if value is None or len(self.writer.lines) > UNROLL_LINES:
                    break
                if value == 0:
                    done = True
                    break
        except _GiveUp:
            done = False
        finally:
            trial_writer = self.writer
            self.writer = saved_writer
            self.deadline = saved_deadline
        if not done:
            del self.functions[saved_functions:]
            return False
        saved_writer.lines.extend(trial_writer.lines)
        block.shift, block.cells, block.zeros = trial.shift, trial.cells, trial.zeros
        block.memory, block.steps, block.text = trial.memory, trial.steps, trial.text
        return True

    def flat_effects(self, body: list[Instr]) -> dict[int, Cell] | None:
        """The per-turn effects of a flat body of adds and sets with no net pointer move."""
        if any(n.piece not in "PpNnKk" for n in body):
            return None
        sim = _Block()
        for instr in body:
            self.instr(instr, sim)
        return None if sim.shift else sim.cells

    def speculate(self, node: Loop, head: _Block) -> tuple[_Block, bool, bool]:
        """Generate the body once from `head`, throwing the code away.

        Returns the state at the `b` (nothing written yet), whether the body made no
        code at all, and whether its end is reachable.
        """
        saved_writer, saved_functions = self.writer, len(self.functions)
        self.writer = _Writer(indent=saved_writer.indent + 1)
        inner = replace(head, cells=dict(head.cells), memory={}, steps=0, text=bytearray())
        reachable = self.sequence(node.body, inner)
        code_free = not self.writer.lines and not inner.text
        self.writer = saved_writer
        del self.functions[saved_functions:]
        return inner, code_free, reachable

    def loop_head(
        self, node: Loop, entry: _Block
    ) -> tuple[_Block, tuple[dict[int, Cell], int] | None]:
        """What is known at every test of the loop (a small fixpoint), and, when the body
        then folds completely into per-turn effects, those effects and steps per turn.

        Only loops with little below them are analysed: each level multiplies the work.
        """
        unknown = _Block(entry.shift)
        if _height(node) > ANALYSED_HEIGHT or node.body_size > ANALYSED_SIZE:
            return unknown, None
        head = entry
        for _ in range(ANALYSED_ROUNDS):
            inner, code_free, reachable = self.speculate(node, head)
            if not reachable or inner.shift != head.shift:
                return unknown, None
            back = replace(inner, cells=dict(inner.cells), memory=dict(inner.memory))
            for offset, (kind, value) in list(back.cells.items()):
                if kind == "set":
                    back.cells[offset] = ("known", value)
                elif kind == "add":
                    back.cells[offset] = _DIRTY
            new_head = _meet(head, back)
            if new_head.same_knowledge(head):
                folded = None
                if code_free:
                    # Offsets from the loop's own cell, as `solve` takes them.
                    effects = {
                        (o - head.shift) % self.size: c
                        for o, c in inner.cells.items()
                        if c[0] in ("add", "set")
                    }
                    folded = (effects, inner.steps + 1)
                return head, folded
            head = new_head
        return unknown, None

    def solve(self, node: Loop, block: _Block, effects: dict[int, Cell], turn: int) -> bool:
        """Emit a loop whose every turn applies `effects` (offsets from the counter) and
        executes `turn` steps, in closed form. Returns whether code after it is reachable.

        The counter must have an "add" effect; other cells "add" or "set".
        """
        kind, step = effects.get(0, _DIRTY)
        if kind != "add" or step % (1 << 32) == 0:
            if kind == "set" and step == 0:
                return self.solve_once(block, effects, turn)
            return self.spin_if_entered(node, block, effects, turn)
        base = block.shift
        targets = [(o, c) for o, c in effects.items() if o != 0]
        known = block.value(base)
        if known is not None:
            turns = _iterations(known, step)
            if turns is None:
                self.spin(block)
                return False
            block.steps += turns * turn
            for offset, (ekind, value) in targets:
                target = (base + offset) % self.size
                if ekind == "set":
                    block.set(target, value)
                else:
                    block.add(target, turns * value)
            block.set(base, 0)
            return True
        if step & 1 and not targets and not self.counted:
            block.set(base, 0)  # a clear loop: it always ends, at 0
            return True
        w = self.writer
        # Nothing pending may be settled inside the branches below.
        self.flush_text(block)
        self.flush_steps(block, check=False)
        self.materialize(block, base)
        for offset, _ in targets:
            self.materialize(block, base + offset)
        twos = (step & -step).bit_length() - 1
        bits = 32 - twos
        inverse = pow((step >> twos) % (1 << bits), -1, 1 << bits)
        w.line(f"v = {self.cell(base)} & {MASK32}")
        w.line("if v:")
        w.indent += 1
        if twos:
            # Unless v is a multiple of 2**twos the cell never reaches 0: the loop spins.
            w.line(f"if v & {(1 << twos) - 1}:")
            w.indent += 1
            self.spin(block)
            w.indent -= 1
        if step == -1:
            w.line("n = v")
        else:
            w.line(f"n = (((-v) & {MASK32}) >> {twos}) * {inverse} & {(1 << bits) - 1}")
        if self.counted:
            w.line(f"st += n * {turn}")
        for offset, (ekind, value) in targets:
            cell = self.cell(base + offset)
            if ekind == "set":
                w.line(f"{cell} = {value}")
            elif value == 1:
                w.line(f"{cell} += n")
            elif value == -1:
                w.line(f"{cell} -= n")
            elif value:
                w.line(f"{cell} += n * {value}")
        w.line(f"{self.cell(base)} = 0")
        w.indent -= 1
        for offset, _ in targets:
            block.overwrite((base + offset) % self.size)
        block.cells[base] = _ZERO
        block.memory.pop(base, None)
        return True

    def solve_once(self, block: _Block, effects: dict[int, Cell], turn: int) -> bool:
        """Per-turn effects that leave the counter at 0: the body runs at most once."""
        base = block.shift
        if block.value(base) is not None:  # known non-zero: exactly once, right here
            for offset, (kind, value) in effects.items():
                target = (base + offset) % self.size
                if kind == "set":
                    block.set(target, value)
                else:
                    block.add(target, value)
            block.steps += turn
            return True
        w = self.writer
        self.flush_text(block)
        self.flush_steps(block, check=False)
        self.materialize_all(block)
        w.line(f"if {self.cell(base)} & {MASK32}:")
        w.indent += 1
        if self.counted:
            w.line(f"st += {turn}")
        for offset, (kind, value) in effects.items():
            cell = self.cell(base + offset)
            w.line(f"{cell} = {value}" if kind == "set" else f"{cell} += {value}")
        w.indent -= 1
        for offset in effects:
            block.overwrite((base + offset) % self.size)
        block.cells[base] = _ZERO
        return True

    def spin_if_entered(
        self, node: Loop, block: _Block, effects: dict[int, Cell], turn: int
    ) -> bool:
        """Per-turn effects that never change the counter, or set it non-zero: the loop
        never ends once entered."""
        base = block.shift
        if block.value(base) is not None:
            self.spin(block)
            return False
        self.flush_text(block)
        self.flush_steps(block, check=False)
        self.materialize(block, base)
        self.writer.line(f"if {self.cell(base)} & {MASK32}:")
        self.writer.indent += 1
        self.spin(block)
        self.writer.indent -= 1
        block.cells[base] = _ZERO
        return True

    def general_loop(self, node: Loop, block: _Block, head: _Block) -> None:
        """A `while` (moved to its own function when nested too deep). Afterwards, what
        held at every test still holds, and the loop's cell is 0."""
        outer = self.writer
        if outer.indent > MAX_NEST:
            name = f"_f{len(self.functions)}"
            outer.line(f"p, buf, st = {name}(p, buf, st)")
            self.writer = _Writer()
            self.functions.append(self.writer)
            self.writer.lines.append(f"def {name}(p, buf, st, {_LOCALS}):")
            self.while_loop(node, head)
            self.writer.line("return p, buf, st")
            self.writer = outer
        else:
            self.while_loop(node, head)
        after = head.clean()
        block.cells = after.cells
        block.zeros = after.zeros
        block.memory = {}
        block.cells[block.shift] = _ZERO

    def while_loop(self, node: Loop, head: _Block) -> None:
        """Emit the `while` of a loop whose tests all see the state `head`."""
        base = head.shift
        w = self.writer
        w.line(f"while {self.cell(base)} & {MASK32}:")
        start = len(w.lines)
        w.indent += 1
        inner = replace(head, cells=dict(head.cells), memory={}, steps=0, text=bytearray())
        if self.sequence(node.body, inner):
            if self.traced:
                self.trace_head(node.close)
            else:
                inner.steps += 1
                self.materialize_all(inner)
                self.flush_text(inner)
                # The `b` tests the cell under the pointer: bring it back to `base`.
                self.move_pointer(inner, base)
                # Back-edge: keeps an endless loop stoppable by the step limit.
                self.flush_steps(inner)
            if _contains_output(node.body):
                w.line("if len(out) >= FLUSH_AT: fl()")
        if len(w.lines) == start:
            w.line("pass")  # a body that changes nothing: the reference spins here too
        w.indent -= 1

    def spin(self, block: _Block) -> None:
        """A loop that never ends: the step limit stops it, or it spins like the
        reference does."""
        if self.counted:
            self.flush_steps(block, check=False)
            self.writer.line("lim()")
        else:
            self.flush_text(block)
            self.writer.line("hang()")

    def once_loop(self, node: Loop, body: list[Instr], block: _Block) -> bool:
        """A flat body that leaves `p` where it was and its cell at 0 runs at most once."""
        outer = self.writer
        self.writer = _Writer()
        sim = _Block()
        for instr in body:
            self.instr(instr, sim)
        self.writer = outer
        if sim.shift or sim.state(0) not in (("set", 0), ("known", 0)):
            return False
        base = block.shift
        if block.value(base) is not None:
            # Known non-zero: the body runs exactly once, right here.
            for instr in body:
                self.instr(instr, block)
            block.steps += 1
            return True
        self.materialize_all(block)
        self.flush_text(block)
        self.flush_steps(block, check=False)
        outer.line(f"if {self.cell(base)} & {MASK32}:")
        outer.indent += 1
        inner = block.clean()
        for instr in body:
            self.instr(instr, inner)
        inner.steps += 1  # the `b`, which finds 0 and falls through
        self.materialize_all(inner)
        self.flush_text(inner)
        self.flush_steps(inner, check=False)
        outer.indent -= 1
        for offset in inner.cells:
            block.overwrite(offset)
        block.cells[base] = _ZERO
        return True

    # -- tracing -------------------------------------------------------------------------
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
            w.line(f"mem[p] = (mem[p] + {_pawn(node)}) & {MASK32}")
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

    # -- whole program ---------------------------------------------------------------------
    def generate(self, program: Program) -> str:
        """The whole factory's source."""
        main = self.writer
        main.lines.append(f"def _main(p, buf, st, {_LOCALS}):")
        block = _Block(zeros=True)
        if self.sequence(program.body, block) and not self.traced:
            # Pending cell effects die with the program; only output and steps matter.
            self.flush_text(block)
            self.flush_steps(block)
        main.line("return st")
        parts = ["def _make(mem, out, rd, fl, tr, lim, hang, LIM, LoopError, ERRORS, FLUSH_AT):"]
        for writer in [*self.functions, main]:
            parts.extend("    " + text for text in writer.lines)
        parts.append("    return _main")
        return "\n".join(parts) + "\n"


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
        limit = _NO_LIMIT if max_steps is None else max_steps
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
            _ERRORS,
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
        return _Codegen(program, counted, traced).generate(program)
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
