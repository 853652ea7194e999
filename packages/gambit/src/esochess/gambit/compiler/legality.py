"""Legality as a predicate: where look-ahead of a decision's options needs no fork.

The horizon (horizon.py) lets look-ahead stop once no `illegal` can run before the turn
ends. When, in addition, the code between a `choose` and that point only computes locals
and tests them (declarations and assignments of locals with effect-free values, `if`,
`illegal`), an option is legal exactly when that code, run on a copy of the frame's locals
with the option as the chosen value, reaches the point without `illegal`: no fork, no
state copied. The `choose` instruction then carries `(stop, callee)`: the instruction
index where the test ends, and whether that point is the end of a procedure whose return
leads straight to its caller's horizon (checked at run time through `Code.horizon_returns`).

Two shapes qualify, as in the usual game loops:

* the `choose` is a statement of a loop with a horizon, and every statement from it to
  the horizon is local-only (tic-tac-toe: `square = current choose …` then
  `if square.mark != none: illegal`);
* the `choose` is a top-level statement of a procedure, the statements after it up to the
  last one that can decide or say `illegal` are local-only, none after that can, and the
  procedure is called as the last such statement of a loop with a horizon (Connect Four's
  `drop`: `column = p choose …`, `free = …`, `if #free == 0: illegal`).
"""

from __future__ import annotations

from typing import Any

from esochess.gambit import ast as A
from esochess.gambit.analysis import LocalRef
from esochess.gambit.compiler.context import CompilerLike
from esochess.gambit.compiler.horizon import _LoopCheck, _value_of
from esochess.gambit.program import OP_CALL, OP_CHOOSE, OP_EXEC, OP_JF, OP_JUMP, OP_SET

Span = tuple[int, int]
"""The instructions [start, end) a statement compiled to."""

_LOCAL_OPS = (OP_SET, OP_EXEC, OP_JF, OP_JUMP)


def _local_target(c: CompilerLike, s: A.Assign | A.IncDec) -> bool:
    if isinstance(s, A.Assign) and c.an.declared.get(s) is not None:
        return True
    return isinstance(s.target, A.Name) and isinstance(c.an.resolved.get(s.target), LocalRef)


def local_only(c: CompilerLike, s: A.Stmt) -> bool:
    """True when `s` writes only locals, evaluates only effect-free expressions and may say
    `illegal`, but cannot pause, end the game, leave its block or loop."""
    match s:
        case A.DeclStmt(value=value):
            return value is None or c.effect_free(value)
        case A.Assign(value=value):
            return _local_target(c, s) and c.effect_free(value)
        case A.IncDec():
            return _local_target(c, s)
        case A.Simple(kind=kind):
            return kind == "illegal"
        case A.If(branches=branches, orelse=orelse):
            blocks = [b for _, b in branches] + ([orelse] if orelse is not None else [])
            return all(c.effect_free(cond) for cond, _ in branches) and all(
                local_only(c, t) for b in blocks for t in b.stmts
            )
    return False


def _choose_at(c: CompilerLike, s: A.Stmt, span: Span) -> int | None:
    """The index of the `choose` instruction of a statement `x = p choose …`, if it is one."""
    if not isinstance(_value_of(s), A.Choose):
        return None
    if isinstance(s, A.Assign) and not (s.op == "=" and _local_target(c, s)):
        return None
    assert c.code is not None
    found = [i for i in range(*span) if c.code.instrs[i][0] == OP_CHOOSE]
    return found[-1] if len(found) == 1 else None


def _mark(c: CompilerLike, at: int, stop: int, callee: bool) -> None:
    """Give the `choose` at `at` its predicate span, when the code up to `stop` is plain."""
    assert c.code is not None
    instrs = c.code.instrs
    for ins in instrs[at + 1 : stop]:
        if ins[0] not in _LOCAL_OPS:
            return
        if ins[0] in (OP_JF, OP_JUMP) and not at < ins[-1] <= stop:
            return
    ins = instrs[at]
    instrs[at] = (*ins[:6], (stop, callee))


def mark_loop(c: CompilerLike, stmts: tuple[A.Stmt, ...], spans: list[Span], horizon: int) -> None:
    """A loop body with its horizon before statement `horizon`: mark its decisions whose
    legality is a predicate, and the return point of a deciding call just before it."""
    assert c.code is not None
    for i in range(horizon):
        at = _choose_at(c, stmts[i], spans[i])
        if at is not None and all(local_only(c, t) for t in stmts[i + 1 : horizon]):
            _mark(c, at, spans[horizon - 1][1], False)
    last = stmts[horizon - 1]
    value = _value_of(last)
    start, end = spans[horizon - 1]
    calls = [i for i in range(start, end) if c.code.instrs[i][0] == OP_CALL]
    if isinstance(value, A.Call) and len(calls) == 1 and c.an.conversions.get(value) is None:
        after = calls[0] + 1
        if all(c.code.instrs[i][0] == OP_SET for i in range(after, end)) and end - after <= 1:
            c.code.horizon_returns.add(after)


def mark_procedure(c: CompilerLike, stmts: tuple[A.Stmt, ...], spans: list[Span]) -> None:
    """A procedure body: mark a top-level decision whose legality is a predicate when the
    procedure returns to a horizon (checked at run time)."""
    check = _LoopCheck(c)
    risky = [i for i, s in enumerate(stmts) if check.dangerous(s)]
    for i, s in enumerate(stmts):
        at = _choose_at(c, s, spans[i])
        if at is None:
            continue
        k = max(i, max(risky, default=i))
        if all(local_only(c, t) for t in stmts[i + 1 : k + 1]):
            _mark(c, at, spans[k][1], True)
        return


def statement_spans(c: CompilerLike, stmts: tuple[A.Stmt, ...], before: Any = None) -> list[Span]:
    """Compile statements, returning the instruction span of each (`before(i)` runs
    before statement i is compiled)."""
    spans: list[Span] = []
    for i, s in enumerate(stmts):
        if before is not None:
            before(i)
        start = c.here()
        c.stmt(s)
        spans.append((start, c.here()))
    return spans
