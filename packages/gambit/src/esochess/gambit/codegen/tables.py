"""Static calls and parts of a map's element, tabled per instance version.

In `has_line`'s `line map (i: at(i).mark == p.symbol)` the call `at(i)` reads only the
element and fixed data: a static function, memoised per instance version. The map
still looks it up in the memo for every element (a key tuple, a dict lookup and the
depth-limit test of a hit). Here the map keeps, per (instance version, list), the
results of such calls for every element of the list -- one table lookup and one
depth test per map instead of one per element -- so the element reads `at(i)` as a
plain value, as a board indexed by ints would. Parts of the element (`d[1]`, `-d[2]`
in `DIRECTIONS filter (d: ...)`) are kept the same way, without their index tests.

`all`/`some` of such a map stop at the element that decides them once nothing left can
fail (the element's remaining code calls no helper and computes nothing, and the values
kept for every element, codegen/hoist.py, are computed): the elements skipped would
have been evaluated without effect or error. A map whose element is `all`/`some` of
such a map of it (`LINES map (line: all(line map (i: ...)))`) keeps one table of the
inner map's tables and runs the inner loop in its own.

Everything observable stays:

* only what every element evaluates is tabled (not under a condition, nor the right
  side of `and`/`or`): calls of a static function, and parts of the element, whose
  arguments read nothing but the element and constants -- each gives the same value
  wherever the element's body would have computed it;
* the table is filled by running those calls, in element order, at the map's own call
  level; when any of them fails, or the call depth a stored table needed does not fit
  under the limit from here, the map runs as before and fails where it would have;
* like a memo hit, a table hit raises `peak` by the deepest level its calls reached
  (at worst by more than one element's call needs: `peak` only limits later memo hits,
  so a too-high value only costs a recomputation);
* a tracing machine, whose trace shows every call, runs the map as before.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from esochess.gambit import ast as A
from esochess.gambit import types as T
from esochess.gambit.analysis import Analysis, EnumRef, LocalRef, UserCall
from esochess.gambit.codegen.hoist import TRACING, invariants, loop_lookups
from esochess.gambit.codegen.inline import HELPER_CALL, outside_literals, without_literals
from esochess.gambit.limits import CALL_DEPTH_LIMIT
from esochess.gambit.program import Overload

if TYPE_CHECKING:
    from esochess.gambit.codegen.expressions import ExprSource

# How a map's loop over a table reads an element's row (`_r`, or its parts `_r0`, `_r1`…)
# or a nested map's (`_rr`).
ROW_READ = re.compile(r"(?<![\w.])_r(?:r|\d*)\b")
# What a tabled call's arguments (and a tabled part of the element) may be built of.
_ARG_NODES = (A.Lit, A.Name, A.Unary, A.Binary, A.Index)


def hashable(t: T.Type | None) -> bool:
    """True for a type whose values are hashable Python values (a table key)."""
    if isinstance(t, T.ListT):
        return hashable(t.elem)
    return t in (T.INT, T.STR, T.BOOL) or isinstance(t, (T.EnumT, T.EntityT))


def tabled_parts(
    an: Analysis, e: A.FilterMap, static: set[str], groups: dict[str, list[Overload]],
) -> list[A.Expr]:  # fmt: skip
    """What `e`'s body computes for every element from the element and constants alone
    (see the module docstring): calls of static functions, and parts of the element
    (`d[1]`, `-d[2]` of `DIRECTIONS filter (d: ...)`)."""
    slot = an.binders.get(e)
    if slot is None or not hashable(an.types.get(e.source)):
        return []

    def element_only(x: A.Expr) -> bool:
        reads = False
        stack: list[A.Expr] = [x]
        while stack:
            n = stack.pop()
            if not isinstance(n, _ARG_NODES) or n in an.conversions:
                return False
            if isinstance(n, A.Name):
                ref = an.resolved.get(n)
                if isinstance(ref, LocalRef) and ref.slot == slot:
                    reads = True
                elif not isinstance(ref, EnumRef):
                    return False
            elif isinstance(n, A.Unary):
                stack.append(n.operand)
            elif isinstance(n, A.Index):
                stack += [n.obj, n.index]
            elif isinstance(n, A.Binary):
                if n.op in ("and", "or", ".."):
                    return False
                stack += [n.left, n.right]
        return reads

    def static_call(n: A.Call) -> bool:
        info = an.calls.get(n)
        if not isinstance(info, UserCall) or info.name not in static or n in an.conversions:
            return False
        group = [o for o in groups.get(info.name, []) if len(o.info.params) == len(n.args)]
        return len(group) == 1 and not group[0].tests and bool(n.args) \
            and all(element_only(a.value) for a in n.args)  # fmt: skip

    def part(n: A.Expr) -> bool:
        if isinstance(n, A.Unary) and n.op == "-":
            return isinstance(n.operand, A.Index) and part(n.operand)
        return isinstance(n, A.Index) and element_only(n)

    found: list[A.Expr] = []

    def visit(n: A.Expr) -> None:
        if (isinstance(n, A.Call) and static_call(n)) or part(n):
            found.append(n)
            return
        match n:
            case A.Binary(op=op, left=left, right=right):
                visit(left)
                if op not in ("and", "or"):
                    visit(right)
            case A.IfExpr(arms=arms) if arms and arms[0].cond is not None:
                visit(arms[0].cond)
            case A.Call(args=args):
                for a in args:
                    visit(a.value)
            case A.Unary(operand=operand):
                visit(operand)
            case A.Member(obj=obj):
                for k in (obj.items if isinstance(obj, A.TupleExpr) else (obj,)):
                    visit(k)
            case A.Index(obj=obj, index=index):
                visit(obj)
                visit(index)
            case A.ListLit(items=items) | A.TupleExpr(items=items):
                for k in items:
                    visit(k)
            case _:
                pass

    visit(e.body)
    return found


def may_fail(source: str) -> bool:
    """True unless generated source surely cannot fail: when it calls a helper or a
    wrapper (codegen/inline.py: the paths that can raise a run-time error or leave the
    fast path) or computes anything (arithmetic can outgrow the memory)."""
    text = without_literals(source)
    return HELPER_CALL.search(text) is not None or any(op in text for op in "+-*/%")


def fill_lines(name: str, slot: int, parts: list[str]) -> list[str]:
    """A function `name(m, L, xs)` giving the tabled values for each element of `xs`
    (one value per element for one part, else a tuple per element)."""
    row = parts[0] if len(parts) == 1 else "(" + "".join(f"{c}, " for c in parts) + ")"
    return [
        f"def {name}(m, L, xs):",
        "    rows = []",
        "    for x in xs:",
        f"        L[{slot}] = x",
        f"        rows.append({row})",
        "    return tuple(rows)",
    ]


def row_reads(n: int) -> list[str]:
    """How the element's body reads the tabled values of its row (a value for one, else
    a tuple unpacked by the loop: see `row_target`)."""
    return ["_r"] if n == 1 else [f"_r{i}" for i in range(n)]


def row_target(n: int) -> str:
    """The loop target a row of `n` tabled values is read into."""
    return "_r" if n == 1 else "(" + ", ".join(row_reads(n)) + ")"


@dataclass(frozen=True)
class Tabled:
    """A map whose list is tabled, as the map around it may run it in its own loop:
    `fill` makes its table, `test` is what an element's row (read into `target`)
    decides it by, once `settled` holds (else "False"), `setup` what the test looks up
    first (lines at indentation 1)."""

    fill: str
    target: str
    reduce: str
    test: str
    settled: str
    setup: tuple[str, ...]


class MapTables:
    """The table-hit paths of the maps of one program (see the module docstring)."""

    def __init__(self, x: ExprSource) -> None:
        self.x = x
        # Maps reduced by all/some and tabled, by node id, for a map whose element is one.
        self.tabled: dict[int, Tabled] = {}
        # Set when a row read went into a function of its own (a sub-expression without
        # source form is the interpreter's closure): it cannot see the loop's row there.
        self.escaped = False

    def table(
        self, e: A.FilterMap, slot: int, reduce: str | None, inits: list[str], kept: list[str],
    ) -> list[str]:  # fmt: skip
        """The start of map `e` (its list in `xs`) over a table, or [] when it has none;
        `inits` and `kept` are its kept values' lines and names (codegen/hoist.py)."""
        x = self.x
        if not x.c.effect_free(e.body) or e.source in x.an.conversions:
            return []
        parts = tabled_parts(x.an, e, x.c.static_names, x.c.overloads)
        if not parts:
            return self.nested(e, slot, reduce)
        fill = x.ns.fresh("fill")
        x.ns.define(fill, fill_lines(fill, slot, [x.src(c) for c in parts]),
                    f"tabled parts of the {e.kind} at line {e.pos[0]}")  # fmt: skip
        for c, r in zip(parts, row_reads(len(parts)), strict=True):
            x.kept[id(c)] = r
        tab = x.ns.const({}, "tab")
        self.escaped = False
        fast = x.element(e).replace("\n            ", "\n                ") if reduce is None \
            else x.src(e.body)  # fmt: skip
        if self.escaped:
            return []
        rest = fast
        for n in invariants(x.an, e):
            rest = rest.replace(x.kept[id(n)], "")
        fast, setup = loop_lookups(fast, True)
        # (A table hit runs only on a machine that does not trace.)
        fast = outside_literals(fast, lambda code: TRACING.sub("False", code))
        fast, chosen = x.c.calls.settled_calls(fast)
        setup = [*(line for line in setup if line != "    _tracing = m.tracing"), *chosen, *inits]
        head = _hit(tab, fill, setup)
        # (Only the map's body reads its element's slot: where it reads only the table, the
        # slot need not be written.)
        reads = f"L[{slot}]" in fast
        row = row_target(len(parts))
        loop = [f"        for {row} in _tr[0]:"] if not reads and e.kind == "map" \
            else [f"        for x, {row} in zip(xs, _tr[0]):", *([f"            L[{slot}] = x"] if reads else [])]  # fmt: skip
        if reduce is None:
            return [*head, "        out = []", *loop, f"            {fast}", "        return tuple(out)"]
        # Nothing left that can fail once the kept values are computed.
        settled = "False" if may_fail(rest) else " and ".join(f"{h} is not UNSET" for h in kept) or "True"
        test = f"not ({fast})" if reduce == "all" else fast
        if not reads:
            self.tabled[id(e)] = Tabled(fill, row, reduce, test, settled, tuple(setup))
        return [*head, f"        _res = {reduce == 'all'}", *loop,
                *_decide("            ", test, reduce, settled, "_res", "return"),
                "        return _res"]  # fmt: skip

    def nested(self, e: A.FilterMap, slot: int, reduce: str | None) -> list[str]:
        """The table hit of a map whose element is all/some of a tabled map of the
        element (`LINES map (line: all(line map (i: at(i).mark == s)))`): one table of
        the inner map's tables, and the inner loop run in place of its function."""
        x = self.x
        body = e.body
        if not (e.kind == "map" and isinstance(body, A.Call) and len(body.args) == 1
                and body not in x.an.conversions
                and isinstance(inner := body.args[0].value, A.FilterMap)
                and isinstance(name := inner.source, A.Name)):  # fmt: skip
            return []
        t = self.tabled.get(id(inner))
        ref = x.an.resolved.get(name)
        if t is None or not isinstance(ref, LocalRef) or ref.slot != slot \
                or name in x.an.conversions or not hashable(x.an.types.get(e.source)):  # fmt: skip
            return []
        fill = x.ns.fresh("fill")
        x.ns.define(fill, [
            f"def {fill}(m, L, xs):", "    rows = []", "    for x in xs:", f"        L[{slot}] = x",
            f"        rows.append({t.fill}(m, L, x))", "    return tuple(rows)",
        ], f"tabled parts of the maps at line {e.pos[0]}")  # fmt: skip
        inner_loop = [
            f"            _ri = {t.reduce == 'all'}", f"            for {t.target} in _rr:",
            *_decide("                ", t.test, t.reduce, t.settled, "_ri", "break"),
        ]  # fmt: skip
        head = _hit(x.ns.const({}, "tab"), fill, list(t.setup))
        loop = ["        for _rr in _tr[0]:", *inner_loop]
        if reduce is None:
            return [*head, "        out = []", *loop, "            out.append(_ri)",
                    "        return tuple(out)"]  # fmt: skip
        test = "not _ri" if reduce == "all" else "_ri"
        return [*head, f"        _res = {reduce == 'all'}", *loop,
                *_decide("            ", test, reduce, t.settled, "_res", "return"),
                "        return _res"]  # fmt: skip


def _hit(table: str, fill: str, setup: list[str]) -> list[str]:
    """A table lookup for the list `xs`, filling the table on a miss; on a hit (at
    indentation 2) `setup` has run and `_tr[0]` holds the rows."""
    return [
        f"    _tr = {table}.get((m.inst_version, xs))",
        "    if _tr is None and not m.tracing:",
        f"        _tr = _table(m, {table}, (m.inst_version, xs), {fill}, L, xs, _level)",
        f"    if _tr is not None and not m.tracing and (_tp := _level + _tr[1]) < {CALL_DEPTH_LIMIT}:",
        "        if _tp > m.peak:",
        "            m.peak = _tp",
        *("    " + line for line in setup),
    ]


def _decide(indent: str, test: str, reduce: str, settled: str, res: str, stop: str) -> list[str]:
    """Lines that record in `res` an element deciding all/some (`test`), and stop
    (`return` the value, or `break`) once `settled` holds."""
    decided = "False" if reduce == "all" else "True"
    end = f"return {decided}" if stop == "return" else "break"
    return [f"{indent}if {test}:", f"{indent}    {res} = {decided}",
            f"{indent}    if {settled}:", f"{indent}        {end}"]  # fmt: skip
