"""Sub-expressions of a `map`/`filter` body that are the same for every element.

In `has_line`'s `line map (i: at(i).mark == p.symbol)` the trait read `p.symbol` does
not involve the element: an effect-free body cannot change the state while the list is
mapped, so every element would compute it again, through a memo lookup, to the same
value. The generated map evaluates such a sub-expression where the body first needs it
and keeps the value for the other elements (codegen/expressions.py). Everything
observable stays: it is evaluated at the same point of the first element that reaches
it (never, when none does), so it raises the same error there; its value cannot differ
later; and a tracing machine, whose trace shows every call, evaluates it every time.
"""

from __future__ import annotations

import re

from esochess.gambit import ast as A
from esochess.gambit.analysis import Analysis, LocalRef, PropRef, UserCall
from esochess.gambit.codegen.inline import outside_literals
from esochess.gambit.compiler.horizon import nodes

# Nodes whose sub-expressions are generated inline, in the map's own function (a nested
# map, a selector or a match gets functions or closures of its own).
_INLINE = (A.Binary, A.Unary, A.Member, A.Call, A.Index, A.ListLit, A.TupleExpr, A.IfExpr)


def _worth(an: Analysis, e: A.Expr) -> bool:
    """A trait read or a user function call: a memo lookup or a call at least."""
    if isinstance(e, A.Member):
        ref = an.resolved.get(e)
        return isinstance(ref, PropRef) and ref.prop.kind == "trait"
    return isinstance(e, A.Call) and isinstance(an.calls.get(e), UserCall)


def invariants(an: Analysis, e: A.FilterMap) -> list[A.Expr]:
    """The largest sub-expressions of the body of `e`, generated in its function, that
    read no binder of `e` or of a map inside it and are worth keeping."""
    bound = {an.binders[n] for n in nodes(e) if isinstance(n, A.FilterMap) and n in an.binders}

    def free(n: A.Expr) -> bool:
        return not any(
            isinstance(r := an.resolved.get(k), LocalRef) and r.slot in bound
            for k in nodes(n) if isinstance(k, A.Name)
        )  # fmt: skip

    found: list[A.Expr] = []

    def visit(n: A.Expr) -> None:
        if _worth(an, n) and free(n):
            found.append(n)
            return
        if isinstance(n, A.IfExpr):
            for arm in n.arms:
                if arm.cond is not None:
                    visit(arm.cond)
                visit(arm.value)
        elif isinstance(n, A.Call):
            for a in n.args:
                visit(a.value)
        elif isinstance(n, _INLINE):
            for k in _children(n):
                visit(k)

    visit(e.body)
    return found


def _children(n: A.Expr) -> list[A.Expr]:
    match n:
        case A.Binary(left=left, right=right):
            return [left, right]
        case A.Unary(operand=operand):
            return [operand]
        case A.Member(obj=obj):
            return list(obj.items) if isinstance(obj, A.TupleExpr) else [obj]
        case A.Index(obj=obj, index=index):
            return [obj, index]
        case A.ListLit(items=items) | A.TupleExpr(items=items):
            return list(items)
        case _:
            return []


_STORE = re.compile(r"(?<![\w.])m\.store\[(\d+)\]")
# A memo lookup's tracing test (codegen/inline.py): nothing turns tracing on or off while
# a list is mapped.
_TRACING = " and not m.tracing and ("
# The name a map's function keeps the machine's tracing flag in.
TRACING = re.compile(r"(?<![\w.])_tracing\b")
_VERSION = re.compile(r"m\.inst_version if (_memoflag\d+) else m\.version")


def loop_lookups(body: str, effect_free: bool) -> tuple[str, list[str]]:
    """A map's per-element source with what it looks up on the machine for every element
    looked up once before the loop, and those lines (at indentation 1): the dict of each
    property it reads (a machine never replaces one), whether it traces, and -- when the
    body is effect-free, so that no version can change while the list is mapped -- the
    version each memo lookup keys its results by."""
    found: dict[str, str] = {}

    def local(code: str) -> str:
        def store(g: re.Match[str]) -> str:
            found[f"_s{g[1]}"] = g[0]
            return f"_s{g[1]}"

        def version(g: re.Match[str]) -> str:
            name = "_v" + g[1].removeprefix("_memoflag")
            found[name] = g[0]
            return name

        code = _VERSION.sub(version, code) if effect_free else code
        if _TRACING in code:
            found["_tracing"] = "m.tracing"
            code = code.replace(_TRACING, " and not _tracing and (")
        return _STORE.sub(store, code)

    body = outside_literals(body, local)
    return body, [f"    {name} = {lookup}" for name, lookup in found.items()]
