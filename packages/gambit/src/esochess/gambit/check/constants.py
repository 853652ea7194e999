"""Constant evaluation of selector entries and patterns, for overload cells
(docs/reference/gambit.md#overloads)."""

from __future__ import annotations

from typing import Any

from esochess.gambit import ast as A
from esochess.gambit import types as T
from esochess.gambit.check.context import (
    BodyLike,
    ProgramLike,
)
from esochess.gambit.resolver import (
    PropInfo,
)
from esochess.gambit.values import EnumVal, make_multi


class NotConstant(Exception):
    """A selector entry value that is not a constant."""


def const_value(pc: ProgramLike, e: A.Expr, t: T.Type) -> Any:
    """The value of a constant entry expression (enum member, literal, `&` set)."""
    if isinstance(e, A.Lit):
        return e.value
    if isinstance(e, A.Name):
        cands = [info for info in pc.sym.members.get(e.name, [])]
        en = T.enums_of(T.strip_none(t)) or set()
        pick = [c for c in cands if c.name in en] or cands
        if len(pick) == 1:
            return pick[0].values[e.name]
        raise NotConstant()
    if isinstance(e, A.Member) and isinstance(e.obj, A.Name) and e.obj.name in pc.sym.enums:
        v = pc.sym.enums[e.obj.name].values.get(e.name)
        if v is None:
            raise NotConstant()
        return v
    if isinstance(e, A.Binary) and e.op == "&":
        a = const_value(pc, e.left, t)
        b = const_value(pc, e.right, t)
        from esochess.gambit.values import multi_members

        return make_multi(multi_members(a) + multi_members(b))
    raise NotConstant()


def const_pattern(pc: ProgramLike, pat: A.Pattern, t: T.Type, v: Any) -> bool:
    from esochess.gambit.values import is_superset, values_equal

    if isinstance(pat, A.PAlt):
        return any(const_pattern(pc, a, t, v) for a in pat.alts)
    if isinstance(pat, A.PNot):
        return not const_pattern(pc, pat.inner, t, v)
    if isinstance(pat, A.PNone):
        return v is None
    if isinstance(pat, A.PAny):
        return True
    if isinstance(pat, A.PRange):
        lo = const_value(pc, pat.lo, T.INT)
        hi = const_value(pc, pat.hi, T.INT)
        return isinstance(v, int) and lo <= v <= hi
    if isinstance(pat, A.PValue):
        c = const_value(pc, pat.value, t)
        if isinstance(v, str) and v == "\x00other":
            return False
        return bool(is_superset(v, c)) if v is not None else values_equal(v, c)
    raise NotConstant()


def const_pattern_check(pc: ProgramLike, pat: A.Pattern, t: T.Type) -> None:
    """Raise NotConstant unless every leaf of the pattern is a constant."""
    if isinstance(pat, A.PAlt):
        for a in pat.alts:
            const_pattern_check(pc, a, t)
    elif isinstance(pat, A.PNot):
        const_pattern_check(pc, pat.inner, t)
    elif isinstance(pat, A.PRange):
        const_value(pc, pat.lo, T.INT)
        const_value(pc, pat.hi, T.INT)
    elif isinstance(pat, A.PValue):
        const_value(pc, pat.value, t)
    elif isinstance(pat, A.PType):
        raise NotConstant()


def const_entry(pc: ProgramLike, e: A.Entry, p: PropInfo, v: Any) -> bool:
    from esochess.gambit.values import values_equal

    if e.op == "true":
        return v is True
    if e.op == "false":
        return v is False
    if e.op == "pat":
        assert e.pattern is not None
        return const_pattern(pc, e.pattern, p.type, v)
    assert e.value is not None
    c = const_value(pc, e.value, p.type)
    if e.op == "==":
        return values_equal(v, c)
    if e.op == "!=":
        return not values_equal(v, c)
    if v is None or (isinstance(v, str) and v.startswith("\x00")):
        return False
    a = v.ordinal if isinstance(v, EnumVal) else v
    b = c.ordinal if isinstance(c, EnumVal) else c
    return bool(a <= b) if e.op == "<=" else bool(a >= b)


def constant_entries(bc: BodyLike, sel: A.Selector) -> A.Selector:
    """Keep only entries on fixed properties with constant values
    (docs/reference/gambit.md#overloads)."""
    keep = []
    for en in sel.entries:
        p = bc.sym.prop(en.prop, (sel.entity,))
        if p is None or p.kind != "fixed":
            continue
        try:
            if en.op == "pat" and en.pattern is not None:
                const_pattern_check(bc.pc, en.pattern, p.type)
            elif en.value is not None:
                const_value(bc.pc, en.value, p.type)
        except NotConstant:
            continue
        keep.append(en)
    return A.Selector(sel.pos, sel.entity, tuple(keep), sel.end)
