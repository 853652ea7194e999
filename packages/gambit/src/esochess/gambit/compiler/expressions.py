"""Expressions -> closures `f(machine, locals)`: literals, names, members, lists."""

from __future__ import annotations

from typing import Any, assert_never

from esochess.gambit import ast as A
from esochess.gambit.analysis import (
    BoolList,
    EntityList,
    EnumList,
    EnumRef,
    FieldRef,
    FuncRef,
    LocalRef,
    NaryRef,
    NotationRef,
    PropRef,
    ToNum,
)
from esochess.gambit.compiler.context import CompilerLike
from esochess.gambit.compiler.runtime import (
    check_index,
    iterable,
    memo_call,
    truthy,
)
from esochess.gambit.machine import Machine
from esochess.gambit.program import (
    Ev,
)
from esochess.gambit.results import (
    RunError,
)
from esochess.gambit.spans import first_pos
from esochess.gambit.values import (
    UNSET,
    FuncVal,
)


class ExpressionRules:
    """Expressions -> closures `f(machine, locals)`: literals, names, members, lists."""

    def wrap_conv(self: CompilerLike, e: Any, f: Ev) -> Ev:
        """Apply the checker's implicit conversion of an expression, if any."""
        c = self.an.conversions.get(e)
        if c is None:
            return f
        if isinstance(c, ToNum):

            def num(m: Machine, L: list[Any]) -> Any:
                v = f(m, L)
                return float(v) if isinstance(v, int) and not isinstance(v, bool) else v

            return num
        ent, optional, text = c.entity, c.optional, c.text
        pos = first_pos(e)

        def coerce(m: Machine, L: list[Any]) -> Any:
            xs = f(m, L)
            if len(xs) == 1:
                return xs[0]
            if not xs and optional:
                return None
            raise RunError(pos, f"selector {text} matched {len(xs)} instances; exactly one "
                           f"{ent} was expected")  # fmt: skip

        return coerce

    def expr(self: CompilerLike, e: A.Expr) -> Ev:
        """Compile an expression into a closure."""
        o = self.override.get(id(e))
        if o is not None:
            return o
        return self.wrap_conv(e, self._expr(e))

    def _expr(self: CompilerLike, e: A.Expr) -> Ev:
        if isinstance(e, A.Lit):
            v = e.value
            return lambda m, L: v
        if isinstance(e, A.Name):
            return self.name(e)
        if isinstance(e, A.Member):
            return self.member(e)
        if isinstance(e, A.Index):
            obj = self.expr(e.obj)
            idx = self.expr(e.index)
            pos = e.pos

            def index(m: Machine, L: list[Any]) -> Any:
                xs = obj(m, L)
                i = check_index(idx(m, L), len(xs), pos)
                return xs[i - 1]

            return index
        if isinstance(e, A.Call):
            return self.call(e)
        if isinstance(e, A.FilterMap):
            src = self.expr(e.source)
            body = self.expr(e.body)
            slot = self.an.binders[e]
            if e.kind == "filter":

                def filt(m: Machine, L: list[Any]) -> Any:
                    out = []
                    for x in iterable(src(m, L)):
                        L[slot] = x
                        if truthy(body(m, L)):
                            out.append(x)
                    return tuple(out)

                return filt

            def mapper(m: Machine, L: list[Any]) -> Any:
                out = []
                for x in iterable(src(m, L)):
                    L[slot] = x
                    out.append(body(m, L))
                return tuple(out)

            return mapper
        if isinstance(e, A.Unary):
            return self.unary(e)
        if isinstance(e, A.Binary):
            return self.binary(e)
        if isinstance(e, A.Is):
            val = self.expr(e.value)
            match = self.pattern(e.pattern)
            return lambda m, L: match(m, L, val(m, L))
        if isinstance(e, A.SelectorExpr):
            return self.selector(e.selector)
        if isinstance(e, A.ListLit):
            items = [self.expr(x) for x in e.items]
            return lambda m, L: tuple(f(m, L) for f in items)
        if isinstance(e, A.IfExpr):
            arms = [(self.expr(a.cond) if a.cond is not None else None, self.expr(a.value))
                    for a in e.arms]  # fmt: skip

            def ifx(m: Machine, L: list[Any]) -> Any:
                for c, v in arms:
                    if c is None or truthy(c(m, L)):
                        return v(m, L)
                return None

            return ifx
        if isinstance(e, A.MatchExpr):
            subj = self.expr(e.subject)
            marms = [(self.pattern(a.pattern) if a.pattern is not None else None,
                      self.expr(a.value)) for a in e.arms]  # fmt: skip
            pos = first_pos(e.subject)

            def matchx(m: Machine, L: list[Any]) -> Any:
                v = subj(m, L)
                for p, val in marms:
                    if p is None or p(m, L, v):
                        return val(m, L)
                raise RunError(pos, f"no match arm matched value {m.display(v)}")

            return matchx
        if isinstance(e, A.NotationLit):
            return self.notation_lit(e)
        if isinstance(e, A.Choose):
            raise AssertionError("choose outside a procedure statement")
        if isinstance(e, (A.TupleExpr, A.Alt)):
            # Only inside `(a, b).p`, patterns and comparisons, which compile them there.
            raise AssertionError(f"{type(e).__name__} outside its context")
        assert_never(e)

    def name(self: CompilerLike, e: A.Name) -> Ev:
        """Compile a bare name."""
        info = self.an.resolved[e]
        match info:
            case LocalRef(slot):
                return lambda m, L: L[slot]
            case PropRef(p):
                prop = self.props[p.pid]
                pos = e.pos
                return lambda m, L: m.read_prop(prop, (), pos)
            case FuncRef(fname):
                fv = FuncVal(fname)
                return lambda m, L: fv
            case EnumRef(v):
                return lambda m, L: v
            case EntityList(name):
                return lambda m, L: m.instances[name]
            case EnumList(enum):
                vals = tuple(self.sym.enums[enum].values.values())
                return lambda m, L: vals
            case BoolList():
                return lambda m, L: (False, True)
            case NaryRef() | FieldRef() | NotationRef():
                raise AssertionError(f"a name resolved to {info}")
            case _:
                assert_never(info)

    def member(self: CompilerLike, e: A.Member) -> Ev:
        """Compile `x.name`."""
        info = self.an.resolved[e]
        pos = e.pos
        if isinstance(info, EnumRef):
            v = info.value
            return lambda m, L: v
        if isinstance(info, FieldRef):
            obj = self.expr(e.obj)
            name = info.name
            return lambda m, L: obj(m, L).get(name)
        assert isinstance(info, (PropRef, NaryRef)), info
        prop = self.props[info.prop.pid]
        if isinstance(info, NaryRef):
            assert isinstance(e.obj, A.TupleExpr)
            parts = [self.expr(x) for x in e.obj.items]
            return lambda m, L: m.read_prop(prop, tuple(p(m, L) for p in parts), pos)
        obj = self.expr(e.obj)
        if prop.kind == "fixed" and prop.pid == 0:
            return lambda m, L: obj(m, L).index
        if prop.kind == "fixed":
            key_pid = prop.pid

            def fixed(m: Machine, L: list[Any]) -> Any:
                inst = obj(m, L)
                v = m.store[key_pid].get(inst, UNSET)
                if v is UNSET:
                    return m.read_prop(prop, (inst,), pos)
                return v

            return fixed
        if prop.kind == "trait":
            assert prop.code is not None
            return memo_call(prop.code, [obj], pos)
        state_pid = prop.pid

        def state(m: Machine, L: list[Any]) -> Any:
            # read_prop's store lookup, inlined; defaults, zeros and errors stay there.
            inst = obj(m, L)
            v = m.store[state_pid].get(inst, UNSET)
            if v is UNSET:
                return m.read_prop(prop, (inst,), pos)
            return v

        return state
