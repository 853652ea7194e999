"""Small helpers over types, selectors and positions used by several checking rules."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from esochess.gambit import ast as A
from esochess.gambit import types as T
from esochess.gambit.check.context import (
    BodyLike,
)
from esochess.gambit.resolver import (
    FuncInfo,
    Symbols,
    selector_text,
)
from esochess.gambit.spans import first_pos, span_text


def type_selector(t: A.TypeExpr) -> A.Selector | None:
    while isinstance(t, A.TSuffix):
        t = t.inner
    return t.selector if isinstance(t, A.TSel) else None


def position_entities(group: list[FuncInfo], i: int) -> list[str]:
    """The distinct entities that the overloads of a group name at entity position `i`."""
    out: list[str] = []
    for f in group:
        ent = entity_of(f.params[i])
        if ent is not None and ent not in out:
            out.append(ent)
    return out


def entity_of(t: T.Type) -> str | None:
    if isinstance(t, T.EntityT):
        return t.name
    if isinstance(t, T.SelT):
        return t.entity
    ms = T.members(t)
    if len(ms) == 2 and T.NONE in ms:
        other = ms[0] if ms[1] == T.NONE else ms[1]
        return entity_of(other)
    return None


def literal_values(node: Any) -> Iterator[object]:
    """The values of every literal inside a node (a selector entry, say), found by walking
    its fields."""
    if isinstance(node, A.Lit):
        yield node.value
    elif isinstance(node, (list, tuple)):
        for x in node:
            yield from literal_values(x)
    elif hasattr(node, "__dataclass_fields__"):
        for name in node.__dataclass_fields__:
            if name != "pos":
                yield from literal_values(getattr(node, name))


def find_selector(sym: Symbols, t: T.SelT) -> A.Selector | None:
    for fs in sym.funcs.values():
        for f in fs:
            for prm in f.decl.params:
                x = prm.type
                while isinstance(x, A.TSuffix):
                    x = x.inner
                if isinstance(x, A.TSel) and id(x.selector) == t.key:
                    return x.selector
    return None


def signature(sym: Symbols, f: FuncInfo) -> str:
    """An overload's `name(params)` as written, for messages."""
    text = span_text(sym.source, f.decl.name_pos, f.decl.params_end)
    return text if text is not None else f.name + "(…)"


def param_expect(t: T.Type) -> T.Type:
    if isinstance(t, T.SelT):
        return T.EntityT(t.entity)
    return T.union([T.EntityT(m.entity) if isinstance(m, T.SelT) else m for m in T.members(t)])


def sel_text(bc: BodyLike, e: A.Expr) -> str:
    if isinstance(e, A.SelectorExpr):
        return selector_text(bc.sym, e.selector)
    return f"{e.name}<>" if isinstance(e, A.Name) else "selector"


def zero_missing(sym: Symbols, t: T.Type) -> bool:
    """True when a type has no zero value (docs/reference/gambit.md#zero-values)."""
    if t in (T.INT, T.NUM, T.BOOL, T.STR, T.ANY) or T.contains_none(t):
        return False
    if isinstance(t, T.ListT):
        return False
    if isinstance(t, T.StructT):
        return any(d is None and zero_missing(sym, mt) for _, mt, d, _ in sym.structs[t.name].members)
    return True


def pos_of(e: Any) -> A.Pos:
    if isinstance(e, (A.Binary, A.Unary, A.Member, A.Index, A.Call, A.Is)):
        pos: A.Pos = e.pos
        return pos
    return first_pos(e)


def stmt_pos(s: Any) -> A.Pos:
    if isinstance(s, A.ExprStmt):
        return first_pos(s.expr)
    if isinstance(s, (A.Assign, A.IncDec)):
        return first_pos(s.target)
    if isinstance(s, A.EndStmt):
        return first_pos(s.who)
    pos: A.Pos = s.pos
    return pos
