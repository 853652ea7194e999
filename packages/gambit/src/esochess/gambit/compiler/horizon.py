"""The look-ahead horizon of a turn loop: where no `illegal` can run before the turn ends.

Look-ahead explores an option until its turn ends (docs/reference/gambit.md#turns-illegal-and-commit). In the usual game loop

    loop {
        show()
        cell = drop(current)          // `current` decides (here or in the procedure)
        if connects(cell, current) { current wins }
        current = next_player(current)
    }

nothing after the last statement that can decide or say `illegal` can make the option
illegal any more: the turn ends at the next iteration's decision, which belongs to
`next_player(current)` -- another player whenever there are at least two. The loop's
horizon is the statement after that last one; a look-ahead fork stops there (OP_HORIZON)
instead of running the win test, the board printout and the next decision's options.

The analysis is deliberately narrow and sound. A loop gets a horizon when:

* it has no `break`, `continue` or `return` (it ends only with the game), and contains no
  call through a function value;
* every `choose` in it -- directly or in the procedures it calls -- is made by one local
  player variable `v` (a callee's through the parameter it passes `v` to, which the callee
  never reassigns; such a callee makes its decisions itself, calling no deciding procedure);
* the first statement that can decide or say `illegal` reaches a decision by `v` before
  anything else that can (so the next iteration's first danger is a decision of `v`);
* after the last such statement, exactly one top-level statement is `v = next_player(v)`,
  and nothing else in the loop assigns `v`.

At run time the horizon also needs at least two players (else `next_player(v)` is `v`).
"""

from __future__ import annotations

from typing import Any

from esochess.gambit import ast as A
from esochess.gambit.analysis import BuiltinCall, LocalRef, UserCall, ValueCall
from esochess.gambit.compiler.common import with_callers
from esochess.gambit.compiler.context import CompilerLike


def nodes(node: Any, skip: tuple[type, ...] = ()) -> list[Any]:
    """Every AST node in `node` (statements and expressions), `node` included, except
    nodes of the types in `skip` and everything inside them."""
    out: list[Any] = []
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, (list, tuple)):
            stack.extend(n)
        elif hasattr(n, "__dataclass_fields__") and not isinstance(n, skip):
            out.append(n)
            stack.extend(getattr(n, f) for f in n.__dataclass_fields__)
    return out


def _procedures(c: CompilerLike, name: str) -> list[Any]:
    return [f for f in c.sym.funcs.get(name, []) if not f.pure]


def _dangerous_procs(c: CompilerLike) -> set[str]:
    """Procedures that may decide or say `illegal` (directly or by a call)."""
    out = set(c.ck.choosers) | set(c.ck.uses_value_calls)
    for name, fs in c.sym.funcs.items():
        if any(not f.pure and any(_is_illegal(n) for n in nodes(f.decl.body)) for f in fs):
            out.add(name)
    return with_callers(out, c.ck.call_graph)


def _is_illegal(n: Any) -> bool:
    return isinstance(n, A.Simple) and n.kind == "illegal"


def _slot(c: CompilerLike, e: Any) -> int | None:
    ref = c.an.resolved.get(e) if isinstance(e, A.Name) else None
    return ref.slot if isinstance(ref, LocalRef) else None


def _assigned_slots(c: CompilerLike, node: Any) -> list[int | None]:
    """Local slots written anywhere in `node` (None for a write the analysis cannot name)."""
    out: list[int | None] = []
    for n in nodes(node):
        targets: list[Any] = []
        if isinstance(n, (A.Assign, A.IncDec)):
            targets = [n.target]
        elif isinstance(n, A.Swap):
            targets = [n.a, n.b]
        elif isinstance(n, A.DeclStmt):
            out.append(c.an.declared.get(n))
        elif isinstance(n, A.For):
            slots = c.an.for_slots.get(n)
            out.append(slots.variable if slots is not None else None)
        for t in targets:
            if not isinstance(t, A.Name):
                continue  # a property or element write, not a local
            ref = c.an.resolved.get(t)
            if isinstance(ref, LocalRef):
                out.append(ref.slot)
            elif ref is None:
                declared = c.an.declared.get(n) if isinstance(n, A.Assign) else None
                out.append(declared)
    return out


class _LoopCheck:
    def __init__(self, c: CompilerLike) -> None:
        self.c = c
        self.danger = _dangerous_procs(c)

    def risky_call(self, n: Any) -> str | None:
        """For a call through a value or of a procedure that may decide or say `illegal`:
        the procedure's name ("" for a value call); None for anything else."""
        if not isinstance(n, A.Call):
            return None
        target = self.c.an.calls.get(n)
        if isinstance(target, ValueCall):
            return ""
        if isinstance(target, UserCall) and target.name in self.danger:
            return target.name
        return None

    def dangerous(self, node: Any) -> bool:
        return any(_is_illegal(n) or isinstance(n, A.Choose) or self.risky_call(n) is not None
                   for n in nodes(node))  # fmt: skip

    def decides_only_by(self, node: Any, v: int) -> bool:
        """Every decision in `node` is made by local `v` (here or in a called procedure)."""
        for n in nodes(node):
            if isinstance(n, A.Choose) and _slot(self.c, n.player) != v:
                return False
            name = self.risky_call(n)
            if name is not None and not (name and self.callee_decides_by(n, name, v)):
                return False
        return True

    def callee_decides_by(self, call: A.Call, name: str, v: int) -> bool:
        """The called procedure decides only through the parameter given `v`."""
        positions = [i for i, a in enumerate(call.args) if _slot(self.c, a.value) == v]
        if any(a.name is not None for a in call.args) or len(positions) != 1:
            return False
        p = positions[0]
        for f in _procedures(self.c, name):
            body = f.decl.body
            if p in _assigned_slots(self.c, body) or None in _assigned_slots(self.c, body):
                return False
            for n in nodes(body):
                if isinstance(n, A.Choose) and _slot(self.c, n.player) != p:
                    return False
                if self.risky_call(n) is not None:
                    return False  # the callee makes its decisions itself
        return True

    def decides_first(self, s: A.Stmt, v: int) -> bool:
        """Running `s`, the first thing that can decide or say `illegal` is a decision."""
        value = _value_of(s)
        if value is None or not self.decides_only_by(s, v):
            return False
        if isinstance(s, A.Assign) and self.dangerous(s.target):
            return False
        if isinstance(value, A.Choose):
            return not any(self.dangerous(x) for x in (value.k, value.prompt, value.options)
                           if x is not None)  # fmt: skip
        if not isinstance(value, A.Call) or any(self.dangerous(a.value) for a in value.args):
            return False
        target = self.c.an.calls.get(value)
        if not isinstance(target, UserCall):
            return False
        for f in _procedures(self.c, target.name):
            stmts = f.decl.body.stmts if isinstance(f.decl.body, A.Block) else ()
            first = next((t for t in stmts if self.dangerous(t)), None)
            if first is None or any(isinstance(n, A.Return) for t in stmts[: stmts.index(first)]
                                    for n in nodes(t)):  # fmt: skip
                return False
            inner = _value_of(first)
            if not isinstance(inner, A.Choose):
                return False
            if any(self.dangerous(x) for x in (inner.k, inner.prompt, inner.options) if x):
                return False
        return True


def _value_of(s: A.Stmt) -> Any:
    """The expression an assignment, declaration or expression statement evaluates."""
    if isinstance(s, (A.Assign, A.DeclStmt)):
        return s.value
    return s.expr if isinstance(s, A.ExprStmt) else None


def _is_next_player_of(c: CompilerLike, s: A.Stmt, v: int) -> bool:
    if not (isinstance(s, A.Assign) and s.op == "=" and _slot(c, s.target) == v):
        return False
    e = s.value
    return (
        isinstance(e, A.Call)
        and c.an.calls.get(e) == BuiltinCall("next_player")
        and len(e.args) == 1
        and _slot(c, e.args[0].value) == v
    )


def loop_horizon(c: CompilerLike, loop: A.Loop) -> int | None:
    """The index of the body statement before which look-ahead may stop, or None."""
    stmts = loop.body.stmts
    all_nodes = nodes(loop.body)
    if any(isinstance(n, A.Return) or (isinstance(n, A.Simple) and n.kind in ("break", "continue"))
           for n in all_nodes):  # fmt: skip
        return None
    check = _LoopCheck(c)
    risky = [i for i, s in enumerate(stmts) if check.dangerous(s)]
    if not risky:
        return None
    first, last = risky[0], risky[-1]
    s_first = stmts[first]
    value = _value_of(s_first)
    player = value.player if isinstance(value, A.Choose) else None
    if isinstance(value, A.Call):
        slots = [_slot(c, a.value) for a in value.args]
        player = next((a.value for a, sl in zip(value.args, slots, strict=True)
                       if sl is not None and check.callee_decides_by(value, _name(c, value), sl)),
                      None)  # fmt: skip
    v = _slot(c, player)
    if v is None or not check.decides_only_by(loop.body, v) or not check.decides_first(s_first, v):
        return None
    writers = [i for i, s in enumerate(stmts) if v in _assigned_slots(c, s) or
               None in _assigned_slots(c, s)]  # fmt: skip
    if len(writers) != 1 or writers[0] <= last or not _is_next_player_of(c, stmts[writers[0]], v):
        return None
    return last + 1


def _name(c: CompilerLike, call: A.Call) -> str:
    target = c.an.calls.get(call)
    return target.name if isinstance(target, UserCall) else ""
