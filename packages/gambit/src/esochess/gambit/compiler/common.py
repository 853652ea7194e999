"""Compile-time helpers over AST nodes and overload sets."""

from __future__ import annotations

from typing import Any

from esochess.gambit import ast as A
from esochess.gambit import types as T
from esochess.gambit.check import signature
from esochess.gambit.resolver import FuncInfo, Symbols


def mixed_entity_positions(f: FuncInfo, fs: list[FuncInfo]) -> dict[int, str]:
    """Positions where overloads of `f`'s arity name different entities: position -> f's."""
    out: dict[int, str] = {}
    group = [g for g in fs if len(g.params) == len(f.params)]
    for i, t in enumerate(f.params):
        ent = entity_name(t)
        if ent is not None and any(entity_name(g.params[i]) not in (ent, None) for g in group):
            out[i] = ent
    return out


def entity_name(t: T.Type) -> str | None:
    base = T.strip_none(t)
    if isinstance(base, T.EntityT):
        return base.name
    return base.entity if isinstance(base, T.SelT) else None


def contains_commit(node: Any) -> bool:
    if isinstance(node, A.Simple):
        return node.kind == "commit"
    if isinstance(node, (list, tuple)):
        return any(contains_commit(x) for x in node)
    if hasattr(node, "__dataclass_fields__"):
        return any(contains_commit(getattr(node, f)) for f in node.__dataclass_fields__)
    return False


def selector_of(t: A.TypeExpr) -> A.Selector | None:
    while isinstance(t, A.TSuffix):
        t = t.inner
    return t.selector if isinstance(t, A.TSel) else None


def sig(sym: Symbols, f: FuncInfo) -> str:
    return signature(sym, f)


def children(e: Any) -> list[Any]:
    """Direct sub-expressions in evaluation order (for lowering)."""
    if isinstance(e, A.Call):
        kids = [] if isinstance(e.func, A.Name) else [e.func]
        return kids + [a.value for a in e.args]
    if isinstance(e, A.Choose):
        return [x for x in (e.player, e.k, e.prompt, e.options) if x is not None]
    if isinstance(e, (A.Binary,)):
        return [e.left, e.right]
    if isinstance(e, A.Unary):
        return [e.operand]
    if isinstance(e, A.Member):
        return list(e.obj.items) if isinstance(e.obj, A.TupleExpr) else [e.obj]
    if isinstance(e, A.Index):
        return [e.obj, e.index]
    if isinstance(e, A.ListLit):
        return list(e.items)
    if isinstance(e, A.Is):
        return [e.value]
    if isinstance(e, A.FilterMap):
        return [e.source]
    if isinstance(e, A.IfExpr):
        return [x for a in e.arms for x in ((a.cond, a.value) if a.cond is not None else (a.value,))]
    if isinstance(e, A.MatchExpr):
        return [e.subject] + [a.value for a in e.arms]
    if isinstance(e, A.Alt):
        return list(e.alts)
    return []


def with_callers(names: set[str], call_graph: dict[str, set[str]]) -> set[str]:
    """`names` and every body that calls one of them, directly or not."""
    out = set(names)
    changed = True
    while changed:
        changed = False
        for caller, callees in call_graph.items():
            if caller not in out and callees & out:
                out.add(caller)
                changed = True
    return out
