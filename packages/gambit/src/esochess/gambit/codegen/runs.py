"""Runs of plain instructions generated as one function each, in the bodies the machine
steps through instruction by instruction (procedures that can pause).

Between two instructions that pause, call or return, a procedure's statements are plain
instructions (`OP_EXEC`, `OP_SET`, `OP_JF`, `OP_JUMP`) the machine would dispatch one
by one. A run of two or more becomes one generated function `run(m, L) -> next pc`, put
in place of the run's first instruction as `(OP_RUN, run, first)`: each instruction is
one guarded line (`s` is the index execution continues at, so the instructions a jump
passes over do not run), a generated expression pasted in (see `RETURNS`), any other
instruction function called. A jump back within the run loops; a jump out of it, or the
end of the run, returns where the machine goes on. The other instructions stay, so
execution that enters the run elsewhere (a jump target, a legality test's stop) runs
them one by one as before. Errors propagate exactly as from the single instructions:
the machine abandons a frame an exception leaves, and no instruction sees the others'
program counter.
"""

from __future__ import annotations

from typing import Any

from esochess.gambit.codegen.emit import Namespace
from esochess.gambit.codegen.inline import LEVEL_LINE
from esochess.gambit.program import (
    OP_CHOOSE,
    OP_EXEC,
    OP_JF,
    OP_JUMP,
    OP_RUN,
    OP_SET,
    RETURNS,
    Code,
)

_PLAIN = (OP_EXEC, OP_SET, OP_JF, OP_JUMP)


def fuse_runs(code: Code, ns: Namespace) -> None:
    """Replace the first instruction of every run of plain instructions of `code` by
    the run as one generated function; likewise where a legality test of a decision
    stops inside a run, since playing a tested option resumes there (predicate.py)."""
    instrs = code.instrs
    stops = {ins[6][0] for ins in instrs if ins[0] == OP_CHOOSE and len(ins) > 6}
    k = 0
    while k < len(instrs):
        end = k
        while end < len(instrs) and instrs[end][0] in _PLAIN:
            end += 1
        for start in sorted({k} | {s for s in stops if k < s < end}):
            if end - start >= 2:
                name = ns.fresh("run")
                ns.define(name, _lines(name, instrs, start, end, ns),
                          f"{code.where}, instructions {start}..{end - 1}")  # fmt: skip
                instrs[start] = (OP_RUN, ns.globals[name], instrs[start])
        k = max(end, k + 1)


def instruction_source(f: Any, ns: Namespace) -> tuple[str, bool]:
    """How generated code runs instruction function `f` on `m` and `L`: its generated
    expression pasted in (see `RETURNS`), or a call of it; and whether the source needs
    the call level (`_level`)."""
    try:
        pasted = RETURNS.get(f)
    except TypeError:  # not weakly referable (SayIllegal): not generated
        pasted = None
    if pasted is None:
        return f"{ns.const(f, 'ins')}(m, L)", False
    return f"({pasted[1]})", bool(pasted[0])


class InstructionText:
    """`instruction_source` for the instructions of one generated function, remembering
    whether any of them needs the call level (`needs_level`)."""

    def __init__(self, ns: Namespace) -> None:
        self.ns = ns
        self.needs_level = False

    def __call__(self, f: Any) -> str:
        text, needs_level = instruction_source(f, self.ns)
        self.needs_level = self.needs_level or needs_level
        return text


def _lines(name: str, instrs: list[tuple[Any, ...]], start: int, end: int, ns: Namespace) -> list[str]:
    """The source of the run start..end (exclusive)."""
    body: list[str] = []
    use = InstructionText(ns)

    def goto(k: int, target: int) -> str:
        if target <= start or target > end:
            return f"return {target}"
        if target <= k:
            return f"s = {target}; continue"  # a loop within the run
        return f"s = {target}"

    for k in range(start, end):
        ins = instrs[k] if instrs[k][0] != OP_RUN else instrs[k][2]
        guard = f"        if s <= {k}"
        if ins[0] == OP_SET:
            body.append(f"{guard}: L[{ins[1]}] = {use(ins[2])}")
        elif ins[0] == OP_EXEC:
            body.append(f"{guard}: {use(ins[1])}")
        elif ins[0] == OP_JF:
            body.append(f"{guard} and not {use(ins[1])}: {goto(k, ins[2])}")
        else:
            body.append(f"{guard}: {goto(k, ins[1])}")
    # Every instruction of the run starts at the same call level (see predicate.py).
    head = [LEVEL_LINE] if use.needs_level else []
    return [f"def {name}(m, L):", *head, f"    s = {start}", "    while True:", *body,
            f"        return {end}"]  # fmt: skip
