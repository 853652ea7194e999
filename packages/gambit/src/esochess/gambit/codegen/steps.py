"""The compiled engine's steps: a procedure that can pause run as generated Python from
each place it can be entered to the next place it leaves its frame.

A procedure that can pause keeps its explicit frame (`fork()` copies frames, a decision
resumes one), but the compiled engine does not step through its instructions one by one
as `Machine._exec` does. Execution enters a frame only at a few instructions: the first,
the one after a call (the callee returned), after a `choose`, `commit` or horizon (a
pause ended), a `choose` again (a look-ahead fork stopped before another turn's decision)
and where a legality test stopped (predicate.py resumes there). For each such entry this
module generates one function `step(m, frames, frame, L)` that runs the instructions
it can reach from there -- plain ones as guarded lines with the generated expressions and
property writes pasted in, as codegen/runs.py does for a run, and the skip test of a
statement quiet machines skip (compiler/quiet.py) in place; jumps inside the function --
until the frame calls a procedure (it pushes the callee's frame and runs the callee's
first step), returns (it pops its own) or pauses. A `choose` whose legality is a
predicate first offers its decision to the machine's `autoplay` (autoplay.py), if any,
and goes on without pausing when that answers it. `drive`
runs the steps of the top frame until one pauses or `main` returns: it is what
`Machine._exec(0)` does, instruction for instruction, with the frames, the locals, the
program counters written back and the errors raised exactly where the instruction loop
writes and raises them, so records, hashes and errors stay the same.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from esochess.gambit.codegen.bodies import STATEMENTS
from esochess.gambit.codegen.emit import Namespace
from esochess.gambit.codegen.inline import LEVEL, LEVEL_LINE
from esochess.gambit.codegen.runs import InstructionText
from esochess.gambit.compiler.quiet import SKIPPABLE
from esochess.gambit.limits import CALL_DEPTH_LIMIT
from esochess.gambit.machine import Machine
from esochess.gambit.program import (
    OP_CALL,
    OP_CHOOSE,
    OP_COMMIT,
    OP_EXEC,
    OP_HORIZON,
    OP_ITER,
    OP_JF,
    OP_JUMP,
    OP_NEXT,
    OP_RET,
    OP_RUN,
    OP_SET,
    Code,
    Frame,
)
from esochess.gambit.results import Committed, Decision, RunError

Step = Callable[[Machine, list[Frame], Frame, list[Any]], Any]


class _End:
    """What a step returns when `main` returned: the game ends with no result."""


END = _End()


def drive(m: Machine) -> Any:
    """`m._exec(0)` by steps: the Decision or Committed the run paused at, or None when
    `main` returned."""
    frames = m.frames
    while True:
        frame = frames[-1]
        out = frame.code.steps[frame.pc](m, frames, frame, frame.locals)
        if out is not None:
            return None if out is END else out


def _loop(m: Machine, frames: list[Frame], frame: Frame, L: list[Any]) -> Any:
    """The step of a place no generated step enters: the instruction loop, to the pause."""
    out = m._exec(0)
    return out if isinstance(out, (Decision, Committed)) else END


def _call_depth(pos: tuple[int, int], code: Code) -> RunError:
    return RunError(pos, f"call depth limit ({CALL_DEPTH_LIMIT}) exceeded in '{code.name}'")


class Site:
    """A `choose` whose legality is a predicate (compiler/legality.py), as a generated step
    hands it to the machine's `autoplay` (autoplay.py): what the instruction loop's
    `_decide` reads from the instruction, and where the legality test stops."""

    __slots__ = ("spec", "dest", "pos", "secret", "after", "stop", "callee", "instrs", "scan")

    def __init__(self, instrs: list[tuple[Any, ...]], k: int) -> None:
        ins = _plain(instrs[k])
        self.spec, self.dest, self.pos, self.secret = ins[1], ins[2], ins[3], ins[4]
        self.after = k + 1
        self.stop, self.callee = ins[6]
        self.instrs = instrs
        # The legality scan (predicate.py), made at the first decision that needs it.
        self.scan: Any = None


HELPERS: dict[str, Any] = {"_Frame": Frame, "_new": object.__new__, "_Committed": Committed,
                           "_END": END, "_call_depth": _call_depth}  # fmt: skip


def _written(f: Any) -> list[str] | None:
    """The lines of a generated property write (codegen/bodies.py), to paste in place."""
    try:
        return STATEMENTS.get(f)
    except TypeError:  # not weakly referable (SayIllegal)
        return None


def _skippable(f: Any) -> tuple[int, bool, set[Any]] | None:
    """The skip test of a statement quiet machines skip (compiler/quiet.py)."""
    try:
        return SKIPPABLE.get(f)
    except TypeError:  # not weakly referable (SayIllegal)
        return None


def _plain(ins: tuple[Any, ...]) -> tuple[Any, ...]:
    return ins[2] if ins[0] == OP_RUN else ins


def entries(instrs: list[tuple[Any, ...]]) -> list[int]:
    """Where execution can enter a frame of this body (see the module's docstring)."""
    out = {0}
    for k, ins in enumerate(instrs):
        op = ins[0]
        if op in (OP_CALL, OP_COMMIT, OP_HORIZON):
            out.add(k + 1)
        elif op == OP_CHOOSE:
            out |= {k, k + 1}
            if len(ins) > 6:
                out.add(ins[6][0])
    return sorted(e for e in out if e < len(instrs))


def _targets(ins: tuple[Any, ...]) -> list[int]:
    if ins[0] == OP_JF:
        return [ins[2]]
    if ins[0] == OP_JUMP:
        return [ins[1]]
    if ins[0] == OP_NEXT:
        return [ins[3]]
    return []


def _reached(instrs: list[tuple[Any, ...]], entry: int) -> list[int]:
    """The instructions the step entering at `entry` may run before it leaves the frame's
    body (a call, a return or a `choose` leaves it), in order."""
    seen: set[int] = set()
    todo = [entry]
    while todo:
        k = todo.pop()
        if k in seen or k >= len(instrs):
            continue
        seen.add(k)
        ins = _plain(instrs[k])
        if ins[0] not in (OP_RET, OP_CALL, OP_CHOOSE, OP_JUMP):
            todo.append(k + 1)
        todo += _targets(ins)
    return sorted(seen)


def _guarded(instrs: list[tuple[Any, ...]], lines: list[int], entry: int) -> set[int]:
    """The lines execution may skip: before the entry, before a backward jump's target,
    between a forward jump and its target."""
    lo = lines[0]
    out = set(range(lo, entry))
    for j in lines:
        for t in _targets(_plain(instrs[j])):
            out |= set(range(lo, t)) if t <= j else set(range(j + 1, t))
    return out


def build_steps(code: Code, ns: Namespace, generate: bool = True) -> None:
    """Give `code` a step for every entry (`code.steps[pc]`; the instruction loop for
    every other pc, which no execution reaches), or only the instruction loop."""
    ns.globals.update(HELPERS)
    instrs = code.instrs
    steps: list[Step] = [_loop] * (len(instrs) + 1)
    code.steps = steps
    if not generate or not instrs or instrs[-1][0] != OP_RET:
        return
    names = {entry: ns.fresh("step") for entry in entries(instrs)}
    for entry, name in names.items():
        steps[entry] = ns.define(name, _lines(name, instrs, entry, ns, names),
                                 f"{code.where}, step from instruction {entry}")  # fmt: skip


def _lines(name: str, instrs: list[tuple[Any, ...]], entry: int, ns: Namespace,
           names: dict[int, str]) -> list[str]:  # fmt: skip
    """The source of the step entering at `entry` (`names`: the steps by entry)."""
    reached = _reached(instrs, entry)
    guarded = _guarded(instrs, reached, entry)
    looping = any(t <= j for j in reached for t in _targets(_plain(instrs[j])))
    use = InstructionText(ns)

    def goto(k: int, target: int) -> str:
        if target <= k:
            return f"s = {target}; continue"
        return f"s = {target}"

    body: list[str] = []
    pad = "        " if looping else "    "
    for k in reached:
        ins = _plain(instrs[k])
        op = ins[0]
        skip = _skippable(ins[1]) if op == OP_EXEC else None
        written = _written(ins[1]) if op == OP_EXEC else None
        lines: list[str]
        if op == OP_SET:
            lines = [f"L[{ins[1]}] = {use(ins[2])}"]
        elif skip is not None:
            # A statement silent and quiet machines skip (compiler/quiet.py): its test here.
            height, keyed, seen = skip
            use.needs_level = True
            test = f"(m.silent or m.quiet) and {LEVEL} + {height} < {CALL_DEPTH_LIMIT}"
            if keyed:
                test += f" and m.inst_version in {ns.const(seen, 'seen')}"
            lines = [f"if not ({test}): {ns.const(ins[1], 'ins')}(m, L)"]
        elif written is not None:
            lines = [line[4:] for line in written]  # its lines in place, as pasted expressions
            use.needs_level = use.needs_level or any(LEVEL in line for line in lines)
        elif op == OP_EXEC:
            lines = [use(ins[1])]
        elif op == OP_JF:
            lines = [f"if not {use(ins[1])}: {goto(k, ins[2])}"]
        elif op == OP_JUMP:
            lines = [goto(k, ins[1])]
        elif op == OP_ITER:
            lines = [f"L[{ins[2]}] = ({use(ins[1])}, 0)"]
        elif op == OP_NEXT:
            lines = [f"_sq, _si = L[{ins[1]}]",
                     f"if _si >= len(_sq): {goto(k, ins[3])}",
                     "else:", f"    L[{ins[2]}] = _sq[_si]", f"    L[{ins[1]}] = (_sq, _si + 1)"]  # fmt: skip
        elif op == OP_RET:
            value = "None" if ins[1] is None else use(ins[1])
            lines = [f"_sv = {value}", "frames.pop()", "if not frames: return _END",
                     "if frame.dest >= 0: frames[-1].locals[frame.dest] = _sv", "return None"]  # fmt: skip
        elif op == OP_CALL:
            lines = [f"_sc, _sa = {ns.const(ins[1], 'ins')}(m, L)",
                     f"if len(frames) + m.depth >= {CALL_DEPTH_LIMIT}: "
                     f"raise _call_depth({ins[3]!r}, _sc)",
                     f"frame.pc = {k + 1}",
                     # `Frame(_sc, _sa, dest, pos)` without the Python call of its __init__.
                     "_sf = _new(_Frame)", "_sf.code = _sc", "_sf.pc = 0",
                     "_sf.locals = list(_sa) + [None] * (_sc.nlocals - len(_sa))",
                     f"_sf.dest = {ins[2]}", f"_sf.call_pos = {ins[3]!r}", "frames.append(_sf)",
                     # The callee's first step right away (it returns at its first exit).
                     "return _sc.steps[0](m, frames, _sf, _sf.locals)"]  # fmt: skip
        elif op == OP_CHOOSE:
            lines = []
            if ins[5] is not None:
                lines += [f"if m.lookahead_seat is not None and (m.committed or "
                          f"{use(ins[5])}.index != m.lookahead_seat):",
                          f"    frame.pc = {k}", f"    return _Committed{ins[3]!r}"]  # fmt: skip
            if len(ins) > 6:
                lines += ["_ap = m.autoplay",
                          "if _ap is not None and m.decisions_made < _ap.limit:",
                          f"    _sr = _ap.play(m, frame, L, {ns.const(Site(instrs, k), 'site')})",
                          f"    if _sr is True: return {names[k + 1]}(m, frames, frame, L)",
                          f"    if type(_sr) is list: return {names[ins[6][0]]}(m, frames, frame, _sr)",
                          "    if _sr is not None: return _sr"]  # fmt: skip
            lines += [f"frame.pc = {k + 1}", f"return m._decide({ns.const(ins, 'choose')}, L, 0)"]
        elif op == OP_HORIZON:
            lines = ["if m.lookahead_seat is not None and m.seats >= 2:",
                     f"    frame.pc = {k + 1}", f"    return _Committed{ins[1]!r}"]  # fmt: skip
        elif op == OP_COMMIT:
            lines = ["if m.decisions_made > 0:", "    m.committed = True",
                     "    if m.pause_at_commit:", f"        frame.pc = {k + 1}",
                     f"        return _Committed{ins[1]!r}"]  # fmt: skip
        else:  # pragma: no cover - the compiler emits only the opcodes above
            raise AssertionError(f"bad opcode {op}")
        if k in guarded:
            body.append(f"{pad}if s <= {k}:")
            body += [f"{pad}    {line}" for line in lines]
        else:
            body += [pad + line for line in lines]
    head = [LEVEL_LINE] if use.needs_level else []
    if looping:
        return [f"def {name}(m, frames, frame, L):", *head, f"    s = {entry}", "    while True:", *body]
    start = [f"    s = {entry}"] if guarded else []
    return [f"def {name}(m, frames, frame, L):", *head, *start, *body]
