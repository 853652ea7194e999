"""`while` loops whose walk is static, tabled per instance version and start.

In Connect Four's `run_length` the loop

    while on_grid(r, c) {
        if at(r, c).owner != p: break
        n += 1
        r += dr
        c += dc
    }

walks cells that depend only on where it starts (`r`, `c`), the step (`dr`, `dc`) and
the instances: the condition and `at(r, c)` are static calls of locals that the body
moves by static expressions; only the owner test reads the state. Such a loop keeps,
per (instance version, the values its walk reads at the start), the rows its
state-reading tests would compute -- here the cell of every step -- and runs as a
`for` over them: per step only the test and the body's own assignments run, the
condition and the static calls are not evaluated again.

The rule, for any loop (checked here, so it holds for every program):

* the body is a sequence of `if TEST: break` (no other branch) and assignments to
  locals, everything free of effects: no nested loop, no `continue`, no call that can
  change the state, print or create an instance, so nothing in the loop changes the
  instance version or the locals the walk reads except its own assignments;
* the walked locals (those the condition or a tabled part reads, closed under what
  their assignments read) are assigned only by static expressions (literals, locals,
  arithmetic, indexing, calls of static functions), and every local the walk reads
  has a hashable type -- so the steps, and each tabled part's value at its step, are a
  function of the key;
* a tabled part is what a test computes wherever it runs (codegen/tables.py,
  `static_parts`) from walked and unassigned locals;
* the table is filled by simulating the walk at the loop's own call level; when the
  simulation fails (a run-time error, a value too large, the call depth), or takes more
  than `STEPS` steps (the loop may stop only by a break), the entry records that (as a
  depth no call fits under) and the loop runs as before -- and fails, or stops, where it would have;
* the body's own statements (the assignments, also of the walked locals) still run
  at every step, so every local holds after the loop what it held before;
* like a memo hit, a table hit raises `peak` by the deepest level its calls reached;
  a tracing machine runs the loop as before.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from esochess.gambit import ast as A
from esochess.gambit.analysis import Analysis, EnumRef, LocalRef, UserCall
from esochess.gambit.codegen.tables import hashable, static_parts
from esochess.gambit.limits import CALL_DEPTH_LIMIT
from esochess.gambit.program import Overload

if TYPE_CHECKING:
    from esochess.gambit.codegen.bodies import BodySource

# The longest walk a table holds; a longer one runs as before.
STEPS = 4096
_OPS = ("=", "+=", "-=", "*=")


class _Except:
    """Every local slot but `bad`."""

    def __init__(self, bad: set[int]) -> None:
        self.bad = bad

    def __contains__(self, slot: object) -> bool:
        return slot not in self.bad


def static_reads(
    an: Analysis, e: A.Expr, static: set[str], groups: dict[str, list[Overload]],
) -> set[int] | None:  # fmt: skip
    """The local slots a static expression reads (literals, enum members, locals of
    hashable types, arithmetic and comparisons, indexing, calls of static functions with
    static arguments), or None when `e` is not one."""
    reads: set[int] = set()
    stack: list[A.Expr] = [e]
    while stack:
        n = stack.pop()
        if n in an.conversions:
            return None
        match n:
            case A.Lit():
                pass
            case A.Name():
                ref = an.resolved.get(n)
                if isinstance(ref, LocalRef) and hashable(an.types.get(n)):
                    reads.add(ref.slot)
                elif not isinstance(ref, EnumRef):
                    return None
            case A.Unary(operand=operand):
                stack.append(operand)
            case A.Binary(op=op, left=left, right=right) if op != "..":
                stack += [left, right]
            case A.Index(obj=obj, index=index):
                stack += [obj, index]
            case A.Call(args=args):
                info = an.calls.get(n)
                if not isinstance(info, UserCall) or info.name not in static:
                    return None
                group = [o for o in groups.get(info.name, []) if len(o.info.params) == len(args)]
                if len(group) != 1 or group[0].tests or any(a.name is not None for a in args):
                    return None
                stack += [a.value for a in args]
            case _:
                return None
    return reads


@dataclass(frozen=True)
class _Plan:
    """A tabled loop: the parts of each `if TEST: break` (by statement index), the
    walked locals and the slots its key reads, in order."""

    parts: dict[int, list[A.Expr]]
    walked: set[int]
    key: list[int]


def _assignment(an: Analysis, s: A.Stmt) -> tuple[int, A.Expr | None] | None:
    """(slot, value; None for `++`/`--`) of an assignment to a local, else None."""
    match s:
        case A.Assign(target=target, op=op, value=value) if op in _OPS:
            declared = an.declared.get(s)
            ref = an.resolved.get(target)
            if declared is not None:
                return declared, value
            if isinstance(target, A.Name) and isinstance(ref, LocalRef):
                return ref.slot, value
        case A.DeclStmt(value=value) if value is not None:
            return an.declared[s], value
        case A.IncDec(target=target):
            ref = an.resolved.get(target)
            if isinstance(target, A.Name) and isinstance(ref, LocalRef):
                return ref.slot, None
    return None


def _break_test(s: A.Stmt) -> A.Expr | None:
    """TEST of `if TEST: break`, else None."""
    if isinstance(s, A.If) and len(s.branches) == 1 and s.orelse is None:
        cond, blk = s.branches[0]
        if len(blk.stmts) == 1 and isinstance(b := blk.stmts[0], A.Simple) and b.kind == "break":
            return cond
    return None


class LoopTables:
    """The tabled `while` loops of one program's bodies (see the module docstring)."""

    def __init__(self, bodies: BodySource) -> None:
        self.b = bodies

    def plan(self, s: A.While) -> _Plan | None:
        """How `s` is tabled, or None when the rule does not hold."""
        c, an = self.b.c, self.b.an
        static, groups = c.static_names, c.overloads
        if not c.effect_free(s.cond):
            return None
        assigns: dict[int, list[set[int] | None]] = {}
        tests: dict[int, A.Expr] = {}
        for i, st in enumerate(s.body.stmts):
            test = _break_test(st)
            if test is not None:
                if not c.effect_free(test):
                    return None
                tests[i] = test
                continue
            got = _assignment(an, st)
            if got is None or (got[1] is not None and not c.effect_free(got[1])):
                return None
            slot, value = got
            reads = {slot} if value is None else static_reads(an, value, static, groups)
            if reads is not None and isinstance(st, A.Assign) and st.op != "=":
                reads = reads | {slot}
            assigns.setdefault(slot, []).append(reads)
        # Assigned locals whose values are not a static walk.
        dynamic = {k for k, rs in assigns.items() if any(r is None for r in rs)}
        while True:
            more = {k for k, rs in assigns.items() if k not in dynamic
                    and any(r is not None and r & dynamic for r in rs)}  # fmt: skip
            if not more:
                break
            dynamic |= more
        parts = {i: ps for i, t in tests.items()
                 if (ps := static_parts(an, t, _Except(dynamic), static, groups))}  # fmt: skip
        cond_reads = static_reads(an, s.cond, static, groups)
        if not parts or cond_reads is None or cond_reads & dynamic:
            return None
        needed = set(cond_reads)
        for ps in parts.values():
            for p in ps:
                reads = static_reads(an, p, static, groups)
                if reads is None:
                    return None
                needed |= reads
        walked: set[int] = set()
        todo = [k for k in needed if k in assigns]
        while todo:
            k = todo.pop()
            if k in walked:
                continue
            walked.add(k)
            for r in assigns[k]:
                assert r is not None
                needed |= r
                todo += [j for j in r if j in assigns]
        return _Plan(parts, walked, sorted(needed))

    def lines(self, s: A.While, depth: int) -> list[str] | None:
        """The lines of `s` as a tabled loop (with the loop as before when the table
        cannot be used), or None when the rule does not hold."""
        plan = self.plan(s)
        if plan is None:
            return None
        b, x, ns = self.b, self.b.x, self.b.ns
        pad = "    " * depth
        rows: list[str] = []
        outer = x.kept
        x.tables.escaped = False
        x.kept = dict(outer)
        for i in sorted(plan.parts):
            for p in plan.parts[i]:
                rows.append(ns.fresh("r"))
                x.kept[id(p)] = rows[-1]
        fast: list[str] = []
        try:
            b.block(s.body, fast, depth + 2)
        finally:
            x.kept = outer
        if x.tables.escaped:
            return None
        # (The loop as before runs only where the table cannot be used: its calls go
        # through their wrappers, so that a wrapper's body need not test its level
        # for inlined calls on the table's path, codegen/calls.py `settled_level`.)
        x.plain_calls = True
        try:
            slow = [f"{pad}    while {x.cond(s.cond)}:"]
            b.block(s.body, slow, depth + 2)
        finally:
            x.plain_calls = False
        tab = ns.const({}, "loop")
        sim = self.simulation(s, plan, rows)
        fill = ns.fresh("cw")
        args = [f"_a{k}" for k in plan.key]
        size = max([*plan.key, *plan.walked]) + 1
        ns.define(fill, [
            f"def {fill}(m, pos, {', '.join(args)}):",
            f"    L = [None] * {size}",
            *(f"    L[{k}] = {a}" for k, a in zip(plan.key, args, strict=True)),
            f"    return _loop_table(m, {tab}, (m.inst_version, {''.join(a + ', ' for a in args)}),"
            f" {sim}, L, m.depth + len(m.frames))",
        ], f"table of the loop at line {s.pos[0]}")  # fmt: skip
        reads = ", ".join(f"L[{k}]" for k in plan.key)
        t, tp = x.temp(), x.temp()
        row = rows[0] if len(rows) == 1 else "(" + ", ".join(rows) + ")"
        return [
            f"{pad}{t} = {tab}.get((m.inst_version, {reads}, ))",
            f"{pad}if {t} is None and not m.tracing:",
            f"{pad}    {t} = {fill}(m, {s.pos!r}, {reads})",
            f"{pad}if {t} is not None and not m.tracing"
            f" and ({tp} := _level + {t}[1]) < {CALL_DEPTH_LIMIT}:",
            f"{pad}    if {tp} > m.peak:",
            f"{pad}        m.peak = {tp}",
            f"{pad}    for {row} in {t}[0]:",
            *fast,
            f"{pad}else:",
            *slow,
        ]

    def simulation(self, s: A.While, plan: _Plan, rows: list[str]) -> str:
        """A function `f(m, L)` walking the loop from the locals in `L`: the tuple of
        its rows (the tabled parts of each step), or None past `STEPS` steps."""
        b, x, ns = self.b, self.b.x, self.b.ns
        out = [f"    while {x.cond(s.cond)}:", f"        if len(rows) >= {STEPS}:",
               "            return None"]  # fmt: skip
        names = iter(rows)
        for i, st in enumerate(s.body.stmts):
            if i in plan.parts:
                out += [f"        {next(names)} = {x.src(p)}" for p in plan.parts[i]]
                continue
            got = _assignment(b.an, st)
            if got is not None and got[0] in plan.walked:
                b.stmt(st, out, 2)
        row = rows[0] if len(rows) == 1 else "(" + ", ".join(rows) + ")"
        out.append(f"        rows.append({row})")
        name = ns.fresh("walk")
        ns.define(name, [f"def {name}(m, L):", "    rows = []", *out, "    return tuple(rows)"],
                  f"walk of the loop at line {s.pos[0]}")  # fmt: skip
        return name
