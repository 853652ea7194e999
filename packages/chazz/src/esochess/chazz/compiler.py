"""The CHAZZ compiler (spec §7): a board becomes one Python function, built once.

Code shape, and why:
- Straight-line code is evaluated lazily at compile time: pointer moves become a
  constant offset, pawn runs and `K`/`k` become one pending effect per cell, and only
  what is observable (output, input, loop tests) forces code. Cells are indexed as
  `mem[p-(M-o)]`, which Python's negative indices wrap for free (0 <= p, o < M).
- Jumps are precomputed (static bracket matching, `program.py`): a loop is a `while`
  whose test is the `B` on entry and the `b` afterwards, exactly the reference's
  behaviour. Loops that only add to cells with a net pointer move of 0 (`Bpb`, transfer
  and multiply loops) are solved in closed form; loops whose body ends with the tested
  cell set to 0 run at most once and become an `if`.
- CPython allows only 20 nested blocks per function, so every `MAX_NEST` loop levels
  the next loop is moved into a separate function taking and returning the machine's
  registers. Any depth up to the reference's 256 works.
- Cell values are Python ints kept modulo 2**32 only where it matters (tests, output),
  so the common `+= 1` stays a small-int add.

With `--max-steps` the code also counts steps (`counted`): the count is brought up to
date before every observable event and on every loop back-edge, so the limit stops a
program after exactly the same output as the interpreter. `--trace` compiles without
any of the lazy evaluation: one traced statement group per instruction.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from types import CodeType

from esochess.chazz.program import Instr, Loop, Node, OpenLoop, Program, StrayClose
from esochess.chazz.runtime import (
    FLUSH_AT,
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

# Loop levels per generated function (each level may use two blocks: `if` + `while`).
MAX_NEST = 8
_ERRORS = (LOOP_START_NOT_FOUND, LOOP_STACK_OVERFLOW, LOOP_STACK_UNDERFLOW)
_NOT_FOUND, _OVERFLOW, _UNDERFLOW = range(3)
_NO_LIMIT = 1 << 200
_LOCALS = "mem=mem, out=out, rd=rd"


@dataclass
class _Writer:
    """Lines of one generated function; `indent` is the current block depth."""

    lines: list[str] = field(default_factory=list)
    indent: int = 1

    def line(self, text: str) -> None:
        self.lines.append("    " * self.indent + text)


@dataclass
class _Block:
    """Compile-time state of straight-line code since `p` was last normalised."""

    shift: int = 0
    # offset -> ("add", delta) or ("set", value); deltas and values are signed 32-bit.
    effects: dict[int, tuple[str, int]] = field(default_factory=dict)
    steps: int = 0


def _contains_output(nodes: tuple[Node, ...]) -> bool:
    for node in nodes:
        if isinstance(node, Instr) and node.piece == "R":
            return True
        if isinstance(node, Loop) and _contains_output(node.body):
            return True
    return False


def _pawn(instr: Instr) -> int:
    delta = 1 << (instr.col & 31)
    return delta if instr.piece == "P" else -delta


class _Codegen:
    """Turns a `Program` into the source of a factory function (see `compile_program`)."""

    def __init__(self, program: Program, counted: bool, traced: bool) -> None:
        self.size = program.memory_size
        self.counted = counted or traced
        self.traced = traced
        self.functions: list[_Writer] = []
        self.writer = _Writer()

    # -- helpers ---------------------------------------------------------------------
    def idx(self, offset: int) -> str:
        """The index expression of the cell `offset` squares right of `p` (mod M)."""
        offset %= self.size
        return "p" if offset == 0 else f"p-{self.size - offset}"

    def check_limit(self) -> None:
        if self.counted:
            self.writer.line("if st > LIM: lim()")

    def flush_steps(self, block: _Block, check: bool = True) -> None:
        if self.counted and block.steps:
            self.writer.line(f"st += {block.steps}")
            block.steps = 0
        if check:
            self.check_limit()

    def flush_cell(self, block: _Block, offset: int) -> None:
        effect = block.effects.pop(offset, None)
        if effect is None:
            return
        kind, value = effect
        if kind == "set":
            self.writer.line(f"mem[{self.idx(offset)}] = {value}")
        elif value:
            self.writer.line(f"mem[{self.idx(offset)}] += {value}")

    def flush(self, block: _Block) -> None:
        """Force every pending effect into code and make `p` the current pointer."""
        for offset in list(block.effects):
            self.flush_cell(block, offset)
        if block.shift:
            self.writer.line(f"p = (p + {block.shift}) % {self.size}")
            block.shift = 0

    def raise_error(self, kind: int) -> None:
        self.writer.line(f"raise LoopError(ERRORS[{kind}])")

    # -- straight-line instructions ------------------------------------------------------
    def instr(self, node: Instr, block: _Block) -> None:
        piece = node.piece
        block.steps += 1
        offset = block.shift
        effects = block.effects
        if piece in "Pp":
            kind, value = effects.get(offset, ("add", 0))
            effects[offset] = (kind, signed32(value + _pawn(node)))
        elif piece == "N":
            block.shift = (offset + 1) % self.size
        elif piece == "n":
            block.shift = (offset - 1) % self.size
        elif piece in "Kk":
            effects[offset] = ("set", 1 if piece == "K" else 0)
        elif piece == "Q":
            known = effects.get(offset)
            if known is not None and known[0] == "set":
                self.writer.line(f"buf = {known[1]}")
            else:
                self.flush_cell(block, offset)
                self.writer.line(f"buf = mem[{self.idx(offset)}]")
        elif piece == "q":
            effects.pop(offset, None)
            self.writer.line(f"mem[{self.idx(offset)}] = buf")
        elif piece == "R":
            self.flush_steps(block)
            known = effects.get(offset)
            if known is not None and known[0] == "set":
                self.writer.line(f"out.append({known[1] & 0xFF})")
            else:
                self.flush_cell(block, offset)
                self.writer.line(f"out.append(mem[{self.idx(offset)}] & 255)")
        else:  # "r"
            self.flush_steps(block)
            effects.pop(offset, None)
            self.writer.line(f"mem[{self.idx(offset)}] = rd()")

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
                self.loop(node, block)
            elif isinstance(node, OpenLoop):
                self.open_loop(node, block)
            else:
                self.stray_close(node, block)
                return False
        return True

    def stray_close(self, node: StrayClose, block: _Block) -> None:
        if self.traced:
            self.trace_head(node.close)
        else:
            block.steps += 1
            self.flush_steps(block)
        self.raise_error(_UNDERFLOW)

    def open_loop(self, node: OpenLoop, block: _Block) -> None:
        if self.traced:
            self.trace_head(node.open)
        else:
            block.steps += 1
            self.flush(block)
            self.flush_steps(block)
        w = self.writer
        if node.depth >= MAX_LOOP_DEPTH:
            w.line(f"if mem[p] & {MASK32}:")
            w.indent += 1
            self.raise_error(_OVERFLOW)
            w.indent -= 1
            self.raise_error(_NOT_FOUND)
        else:
            w.line(f"if not (mem[p] & {MASK32}):")
            w.indent += 1
            self.raise_error(_NOT_FOUND)
            w.indent -= 1

    def loop(self, node: Loop, block: _Block) -> None:
        if self.traced:
            self.trace_head(node.open)
        else:
            block.steps += 1
            self.flush(block)
            if node.depth >= MAX_LOOP_DEPTH:
                self.flush_steps(block)
        if node.depth >= MAX_LOOP_DEPTH:
            # Running this `B` on a non-zero cell overflows; on 0 it skips its body.
            self.writer.line(f"if mem[p] & {MASK32}:")
            self.writer.indent += 1
            self.raise_error(_OVERFLOW)
            self.writer.indent -= 1
            return
        if self.counted and not self.traced:
            # The `B` and everything before it are executed whether or not we enter.
            self.flush_steps(block, check=False)
        if self.writer.indent > MAX_NEST:
            self.outlined_loop(node)
        elif self.traced or not self.closed_form(node):
            self.general_loop(node)

    def outlined_loop(self, node: Loop) -> None:
        outer = self.writer
        name = f"_f{len(self.functions)}"
        outer.line(f"p, buf, st = {name}(p, buf, st)")
        self.writer = _Writer()
        self.functions.append(self.writer)
        self.writer.lines.append(f"def {name}(p, buf, st, {_LOCALS}):")
        self.general_loop(node)
        self.writer.line("return p, buf, st")
        self.writer = outer

    def general_loop(self, node: Loop) -> None:
        w = self.writer
        w.line(f"while mem[p] & {MASK32}:")
        head = len(w.lines)
        w.indent += 1
        inner = _Block()
        if self.sequence(node.body, inner):
            if self.traced:
                self.trace_head(node.close)
            else:
                inner.steps += 1
                self.flush(inner)
                # Back-edge: keeps an endless loop stoppable by the step limit.
                self.flush_steps(inner)
            if _contains_output(node.body):
                w.line(f"if len(out) >= {FLUSH_AT}: fl()")
        if len(w.lines) == head:
            w.line("pass")  # a body that changes nothing: the reference spins here too
        w.indent -= 1

    def closed_form(self, node: Loop) -> bool:
        """Emit a loop solved at compile time, if it is one; return whether it was."""
        if not all(isinstance(n, Instr) for n in node.body):
            return False
        body: list[Instr] = [n for n in node.body if isinstance(n, Instr)]
        if any(n.piece not in "PpNnKk" for n in body):
            return self.once_loop(node, body)
        sim = _Block()
        for instr in body:
            self.instr(instr, sim)
        if sim.shift:
            return False
        kind, step = sim.effects.get(0, ("add", 0))
        if kind == "set":
            return self.once_loop(node, body)
        if step % (1 << 32) == 0:
            return False
        w = self.writer
        w.line(f"v = mem[p] & {MASK32}")
        w.line("if v:")
        w.indent += 1
        twos = (step & -step).bit_length() - 1  # step = 2**twos * odd
        bits = 32 - twos
        inverse = pow((step >> twos) % (1 << bits), -1, 1 << bits)
        if twos:
            # Unless v is a multiple of 2**twos the cell never reaches 0: the loop spins.
            w.line(f"if v & {(1 << twos) - 1}: {'lim()' if self.counted else 'hang()'}")
        if step == -1:
            w.line("n = v")
        else:
            w.line(f"n = (((-v) & {MASK32}) >> {twos}) * {inverse} & {(1 << bits) - 1}")
        if self.counted:
            w.line(f"st += n * {node.body_size + 1}")
        for offset, (ekind, value) in sim.effects.items():
            if offset == 0:
                continue
            cell = f"mem[{self.idx(offset)}]"
            if ekind == "set":
                w.line(f"{cell} = {value}")
            elif value:
                w.line(f"{cell} = ({cell} + n * {value}) & {MASK32}")
        w.line("mem[p] = 0")
        w.indent -= 1
        return True

    def once_loop(self, node: Loop, body: list[Instr]) -> bool:
        """A flat body that leaves `p` where it was and its cell at 0 runs at most once."""
        outer = self.writer
        self.writer = _Writer(indent=outer.indent + 1)
        sim = _Block()
        for instr in body:
            self.instr(instr, sim)
        lines = self.writer.lines
        self.writer = outer
        if sim.shift or sim.effects.get(0) != ("set", 0):
            return False
        outer.line(f"if mem[p] & {MASK32}:")
        outer.lines.extend(lines)
        outer.indent += 1
        sim.steps += 1  # the `b`, which finds 0 and falls through
        self.flush(sim)
        self.flush_steps(sim, check=False)
        outer.indent -= 1
        return True

    # -- tracing -------------------------------------------------------------------------
    def trace_head(self, node: Instr) -> None:
        w = self.writer
        w.line("if st >= LIM: lim()")
        w.line("st += 1")
        w.line(f"tr(st, {node.row}, {node.col}, {node.piece!r}, p, mem[p])")

    def traced_instr(self, node: Instr) -> None:
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
        main = self.writer
        main.lines.append(f"def _main(p, buf, st, {_LOCALS}):")
        block = _Block()
        if self.sequence(program.body, block) and not self.traced:
            # Pending cell effects die with the program; only the step count matters.
            self.flush_steps(block)
        main.line("return st")
        parts = ["def _make(mem, out, rd, fl, tr, lim, hang, LIM, LoopError, ERRORS):"]
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

    def run(self, io: MachineIO, max_steps: int | None = None) -> None:
        """Run the program; same contract as `interpreter.interpret`."""
        namespace: dict[str, object] = {}
        exec(self.code, namespace)
        make = namespace["_make"]
        assert callable(make)
        out = bytearray()
        limit = _NO_LIMIT if max_steps is None else max_steps
        prompt = PROMPT if io.prompt else b""
        write = io.write
        read_byte = io.read_byte

        def rd() -> int:
            out.extend(prompt)
            write(out)
            out.clear()
            return read_byte()

        def fl() -> None:
            write(out)
            out.clear()

        def lim() -> None:
            raise StepLimitReached(limit)

        tr = _tracer(io.trace)
        main = make([0] * self.memory_size, out, rd, fl, tr, lim, _hang, limit, LoopError, _ERRORS)
        try:
            main(0, 0, 0)
        finally:
            if out:
                write(out)


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
    return _Codegen(program, counted, traced).generate(program)


def compile_program(
    program: Program, *, counted: bool = False, traced: bool = False
) -> CompiledProgram:
    """Compile a program once; `counted` is needed for `--max-steps`, `traced` for
    `--trace`."""
    source = generate_source(program, counted=counted, traced=traced)
    code = compile(source, "<chazz>", "exec")
    return CompiledProgram(source, code, program.memory_size, counted or traced, traced)
