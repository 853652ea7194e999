"""Expression rules: literals, names, members, choose, lists and notation literals."""

from __future__ import annotations

from typing import assert_never

from esochess.gambit import ast as A
from esochess.gambit import types as T
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
from esochess.gambit.check.common import (
    pos_of,
)
from esochess.gambit.check.context import (
    BodyLike,
    Stop,
)
from esochess.gambit.notations import fullmatch_groups
from esochess.gambit.resolver import (
    PropInfo,
)
from esochess.gambit.values import EnumVal


class ExpressionRules:
    """Expression rules: literals, names, members, choose, lists and notation literals."""

    def ex(self: BodyLike, e: A.Expr, expected: T.Type | None, *, statement: bool = False,
           as_place_root: bool = False) -> T.Type:  # fmt: skip
        """Check an expression against an optional expected type and return its type."""
        try:
            t = self._ex(e, expected, statement)
        except Stop:
            # The error is reported; the expression's type is unknown from here on.
            t = T.ERR
        self.an.types[e] = t
        return t

    def _ex(self: BodyLike, e: A.Expr, expected: T.Type | None, statement: bool) -> T.Type:
        if isinstance(e, A.Lit):
            v = e.value
            if v is None:
                return T.NONE
            if isinstance(v, bool):
                return T.BOOL
            if isinstance(v, int):
                return T.INT
            if isinstance(v, float):
                return T.NUM
            return T.STR
        if isinstance(e, A.Name):
            return self.name(e, expected)
        if isinstance(e, A.NotationLit):
            return self.notation_lit(e, expected)
        if isinstance(e, A.Member):
            return self.member(e)
        if isinstance(e, A.TupleExpr):
            self.err(e.pos, "tuples can only be used to access an n-ary property")
            raise Stop()
        if isinstance(e, A.Index):
            ot = self.ex(e.obj, None)
            it = self.ex(e.index, T.INT)
            self.coerce(e.index, it, T.INT)
            if isinstance(ot, T.ListT):
                return ot.elem
            if ot == T.STR:
                return T.STR
            if isinstance(ot, T.ErrT):
                return T.ERR
            self.err(e.pos, f"cannot index a value of type {T.show(ot)}")
            raise Stop()
        if isinstance(e, A.Call):
            return self.call(e, expected, statement)
        if isinstance(e, A.FilterMap):
            st = self.ex(e.source, None)
            elem = T.element_type(st)
            if elem is None:
                self.err(pos_of(e.source), f"cannot iterate over {T.show(st)}")
                elem = T.ERR
            self.push()
            slot = self.declare_local(e.var, elem, e.var_pos, readonly=True)
            self.an.binders[e] = slot
            self.pure_stack.append("filter")
            try:
                bt = self.ex(e.body, T.BOOL if e.kind == "filter" else None)
            finally:
                self.pure_stack.pop()
                self.pop()
            if e.kind == "filter":
                if not (bt == T.BOOL or T.contains_none(bt) or isinstance(bt, T.ErrT)):
                    self.err(pos_of(e.body), f"condition must be bool or optional, found "
                             f"{T.show(bt)}")  # fmt: skip
                return T.ListT(elem) if not isinstance(st, T.ListT) else st
            if bt == T.NOVALUE:
                self.err(pos_of(e.body), "this call returns no value")
                bt = T.ERR
            return T.ListT(bt)
        if isinstance(e, A.Unary):
            return self.unary(e)
        if isinstance(e, A.Binary):
            return self.binary(e, expected)
        if isinstance(e, A.Alt):
            self.err(e.pos, "'|' builds alternatives; use it in a pattern, a selector, or on "
                     "the right of == / != / is")  # fmt: skip
            raise Stop()
        if isinstance(e, A.Is):
            vt = self.ex(e.value, None)
            nt = self.pattern(e.pattern, vt)
            if nt is not None:
                self.an.narrowed[e] = nt
            return T.BOOL
        if isinstance(e, A.SelectorExpr):
            self.selector(e.selector, pattern=False)
            return T.ListT(T.EntityT(e.selector.entity))
        if isinstance(e, A.ListLit):
            return self.list_lit(e, expected)
        if isinstance(e, A.IfExpr):
            result: T.Type | None = None
            has_else = False
            saved = dict(self.narrow)
            for arm in e.arms:
                if arm.cond is None:
                    has_else = True
                else:
                    then_n, _ = self.cond(arm.cond)
                    self.narrow.update(then_n)
                vt = self.ex(arm.value, expected)
                self.narrow = dict(saved)
                result = vt if result is None else T.join(result, vt)
            assert result is not None
            return result if has_else else T.join(result, T.NONE)
        if isinstance(e, A.MatchExpr):
            st = self.ex(e.subject, None)
            loc = self.subject_local(e.subject)
            result = None
            seen_else = False
            for marm in e.arms:
                if seen_else:
                    self.err(marm.pos, "unreachable match arm: an earlier arm matches everything")
                if marm.pattern is None or isinstance(marm.pattern, A.PAny):
                    seen_else = True
                saved = dict(self.narrow)
                if marm.pattern is not None:
                    nt = self.pattern(marm.pattern, st)
                    if loc is not None and nt is not None:
                        self.narrow[loc.slot] = nt
                vt = self.ex(marm.value, expected)
                self.narrow = saved
                result = vt if result is None else T.join(result, vt)
            assert result is not None
            return result
        if isinstance(e, A.Choose):
            return self.choose(e)
        assert_never(e)

    def choose(self: BodyLike, e: A.Choose) -> T.Type:
        """Check a choose expression (docs/reference/gambit.md#choose)."""
        self.impure(e.pos, "use 'choose'")
        self.pc.out.choosers.add(self.ctx.name)
        pt = self.ex(e.player, T.EntityT("Player"))
        self.coerce(e.player, pt, T.EntityT("Player"))
        if e.k is not None:
            kt = self.ex(e.k, T.INT)
            self.coerce(e.k, kt, T.INT)
        if e.prompt is not None:
            prt = self.ex(e.prompt, T.STR)
            self.coerce(e.prompt, prt, T.STR)
        elif self.prompt_after_options(e):
            return T.ERR
        ot = self.ex(e.options, None)
        if isinstance(ot, T.ListT):
            elem = ot.elem
        elif isinstance(ot, T.MultiT) or (T.contains_none(ot) and isinstance(T.strip_none(ot),
                                                                           T.MultiT)):
            elem = T.element_type(ot) or T.ERR
        elif isinstance(ot, T.ErrT):
            elem = T.ERR
        else:
            self.err(pos_of(e.options), f"choose needs options: a list, found {T.show(ot)}")
            elem = T.ERR
        return T.ListT(elem) if e.k is not None else elem

    def list_lit(self: BodyLike, e: A.ListLit, expected: T.Type | None) -> T.Type:
        """Check a list literal with the expected element type."""
        exp_elem = None
        if expected is not None:
            for m in T.members(expected):
                if isinstance(m, T.ListT):
                    exp_elem = m.elem
                    break
        if not e.items:
            if exp_elem is None:
                if expected is None:
                    return T.ListT(T.ERR)
                return T.ListT(T.ERR)
            return T.ListT(exp_elem)
        elem: T.Type | None = None
        for x in e.items:
            xt = self.ex(x, exp_elem)
            if xt == T.NOVALUE:
                self.err(pos_of(x), "this call returns no value")
                xt = T.ERR
            if exp_elem is not None and T.is_subtype(xt, exp_elem):
                if xt == T.INT and exp_elem == T.NUM:
                    self.an.conversions[x] = ToNum()
                xt = exp_elem
            elem = xt if elem is None else T.join(elem, xt)
        assert elem is not None
        return T.ListT(elem)

    def name(self: BodyLike, e: A.Name, expected: T.Type | None) -> T.Type:
        """Resolve and type a bare name (docs/reference/gambit.md#scopes)."""
        loc = self.lookup(e.name)
        if loc is not None:
            self.an.resolved[e] = LocalRef(loc.slot)
            return self.local_type(loc)
        p = self.sym.nullary(e.name)
        if p is not None:
            self.static_read(p, e.pos)
            self.an.resolved[e] = PropRef(p)
            return p.type
        if e.name in self.sym.funcs:
            fs = self.sym.funcs[e.name]
            # A function value is a constant name: allowed in static defaults.
            self.an.resolved[e] = FuncRef(e.name)
            return T.FUNCTION if fs[0].pure else T.PROCEDURE
        if e.name in self.sym.members:
            v = self.enum_member(e.name, expected, e.pos)
            self.an.resolved[e] = EnumRef(v)
            return T.EnumT(v.enum)
        if e.name in self.sym.entities:
            if self.ctx.static:
                self.err(e.pos, f"{self.label()} must be static: it uses the instance list "
                         f"'{e.name}'")  # fmt: skip
            self.an.resolved[e] = EntityList(e.name)
            return T.ListT(T.EntityT(e.name))
        if e.name in self.sym.enums:
            self.an.resolved[e] = EnumList(e.name)
            return T.ListT(T.EnumT(e.name))
        if e.name in ("bool", "Boolean"):
            self.an.resolved[e] = BoolList()
            return T.ListT(T.BOOL)
        if self.sym.is_type(e.name):
            self.err(e.pos, f"the type '{e.name}' cannot be used as a value")
            raise Stop()
        if self.sym.props_named(e.name):
            self.err(e.pos, f"'{e.name}' is a property of an entity; write x.{e.name}")
            raise Stop()
        self.err(e.pos, f"'{e.name}' is not defined")
        raise Stop()

    def enum_member(self: BodyLike, name: str, expected: T.Type | None, pos: A.Pos) -> EnumVal:
        """Resolve a bare enum member by the expected type (docs/reference/gambit.md#enum)."""
        cands = self.sym.members[name]
        if expected is not None:
            want = T.enums_of(T.strip_none(expected)) if expected != T.ANY else None
            if want is None:
                want = {m.name for m in T.members(expected) if isinstance(m, T.EnumT)}
                for m in T.members(expected):
                    if isinstance(m, T.MultiT):
                        want |= T.enums_of(m.inner) or set()
            pick = [c for c in cands if c.name in want]
            if len(pick) == 1:
                return pick[0].values[name]
            if want and not pick and len(cands) >= 1 and len(want) == 1:
                self.err(pos, f"'{name}' is not a member of {next(iter(want))}")
                raise Stop()
        if len(cands) == 1:
            return cands[0].values[name]
        options = " or ".join(f"{c.name}.{name} (line {c.decl.pos[0]})" for c in cands)
        self.err(pos, f"ambiguous enum member '{name}': could be {options}; write "
                 f"{cands[0].name}.{name}")  # fmt: skip
        raise Stop()

    def static_read(self: BodyLike, p: PropInfo, pos: A.Pos) -> None:
        """Report a read that a static default may not make
        (docs/reference/gambit.md#properties)."""
        if self.ctx.static and p.kind != "fixed":
            self.err(pos, f"{self.label()} must be static: it reads {p.kind} property "
                     f"'{p.name}'")  # fmt: skip

    def member(self: BodyLike, e: A.Member) -> T.Type:
        """Check `x.name`: property, struct member or qualified enum member."""
        if isinstance(e.obj, A.Name) and e.obj.name in self.sym.enums \
                and self.lookup(e.obj.name) is None:  # fmt: skip
            info = self.sym.enums[e.obj.name]
            v = info.values.get(e.name)
            if v is None:
                self.err(e.pos, f"'{e.name}' is not a member of {info.name}")
                raise Stop()
            self.an.resolved[e] = EnumRef(v)
            return T.EnumT(info.name)
        if isinstance(e.obj, A.TupleExpr):
            ts = [self.ex(x, None) for x in e.obj.items]
            p = self.nary_prop(e, ts)
            return p.type
        ot = self.ex(e.obj, None)
        base = T.EntityT(ot.entity) if isinstance(ot, T.SelT) else ot
        if isinstance(base, T.EntityT):
            return self.unary_prop(e, base).type
        if isinstance(base, T.StructT):
            return self.struct_member(e, base)
        self.member_error(e, ot)
        raise Stop()

    def member_error(self: BodyLike, e: A.Member, ot: T.Type) -> None:
        """Report why `x.name` cannot be read from a value of type `ot`."""
        if isinstance(ot, T.ErrT):
            raise Stop()
        if ot == T.ANY:
            self.err(e.pos, "narrow this any value with 'is' first")
            raise Stop()
        if T.contains_none(ot) and ot != T.NONE:
            self.err(e.pos, f"cannot read '{e.name}' of a {T.show(ot)} value; check it is not "
                     "none first")  # fmt: skip
            raise Stop()
        if isinstance(ot, T.UnionT):
            self.err(e.pos, f"cannot read '{e.name}' of a {T.show(ot)} value; narrow it first")
            raise Stop()
        self.err(e.pos, f"{T.show(ot)} has no property '{e.name}'")
        raise Stop()

    def unary_prop(self: BodyLike, e: A.Member, t: T.EntityT) -> PropInfo:
        """The unary property `name` of an entity type."""
        p = self.sym.prop(e.name, (t.name,))
        if p is None:
            self.err(e.pos, f"{t.name} has no property '{e.name}'")
            raise Stop()
        self.static_read(p, e.pos)
        self.an.resolved[e] = PropRef(p)
        return p

    def nary_prop(self: BodyLike, e: A.Member, ts: list[T.Type]) -> PropInfo:
        """The n-ary property read by `(a, b).name`."""
        names: list[str] = []
        for t, x in zip(ts, e.obj.items if isinstance(e.obj, A.TupleExpr) else (), strict=False):
            base = T.EntityT(t.entity) if isinstance(t, T.SelT) else t
            if not isinstance(base, T.EntityT):
                if not isinstance(t, T.ErrT):
                    self.err(pos_of(x), f"cannot read '{e.name}' of a {T.show(t)} value; "
                             "narrow it first")  # fmt: skip
                raise Stop()
            names.append(base.name)
        p = self.sym.prop(e.name, tuple(names))
        if p is None:
            self.err(e.pos, f"({', '.join(names)}) has no property '{e.name}'")
            raise Stop()
        self.static_read(p, e.pos)
        self.an.resolved[e] = NaryRef(p)
        return p

    def struct_member(self: BodyLike, e: A.Member, t: T.StructT) -> T.Type:
        """The type of a struct member."""
        for name, mt, _, _ in self.sym.structs[t.name].members:
            if name == e.name:
                self.an.resolved[e] = FieldRef(name)
                return mt
        self.err(e.pos, f"{t.name} has no member '{e.name}'")
        raise Stop()

    def notation_lit(self: BodyLike, e: A.NotationLit, expected: T.Type | None) -> T.Type:
        """Choose the notation of a literal from its candidates and context
        (docs/reference/gambit.md#notations)."""
        cands = [n for n in self.sym.notations if fullmatch_groups(n.regex, e.text) is not None]
        if not cands:
            self.err(e.pos, f"no notation matches '{e.text}'")
            raise Stop()
        if self.ctx.static:
            self.err(e.pos, f"{self.label()} must be static: it uses a notation")
        pick = cands
        if expected is not None and expected != T.ANY:
            pick = [n for n in cands if T.is_subtype(n.type, expected)]
            if not pick:
                self.err(e.pos, f"no notation for type {T.show(expected)} matches '{e.text}'")
                raise Stop()
        types = {n.type_name for n in pick}
        if len(pick) > 1:
            if len(types) < len(pick):
                dup = [n for n in pick]
                self.err(e.pos, f"ambiguous notation '{e.text}': two notations for "
                         f"{dup[0].type_name} match it")  # fmt: skip
                raise Stop()
            desc = " and ".join(f"{n.type_name} (line {n.decl.pos[0]})" for n in pick)
            self.err(e.pos, f"ambiguous notation '{e.text}': it matches {desc}; give it a type, "
                     f"e.g. {pick[0].type_name} c = '{e.text}'")  # fmt: skip
            raise Stop()
        self.an.resolved[e] = NotationRef(pick[0])
        return pick[0].type

    def prompt_after_options(self: BodyLike, e: A.Choose) -> bool:
        """`choose [1, 2] ("Pick")`: the prompt after the options, as another Gambit dialect
        writes it, reads as a call of the options; report it with the supported order."""
        call = e.options
        while isinstance(call, A.Binary):  # `1..3 ("How many?")` calls the 3
            call = call.right
        if not isinstance(call, A.Call) or call.method or len(call.args) != 1:
            return False
        prompt = call.args[0].value
        if not (isinstance(prompt, A.Lit) and isinstance(prompt.value, str)):
            return False
        f = call.func
        options_like = isinstance(f, (A.ListLit, A.SelectorExpr, A.Binary, A.Lit)) or (
            isinstance(f, A.Name) and self.lookup(f.name) is None
            and (self.sym.is_type(f.name) or f.name in self.sym.entities)
        )  # fmt: skip
        if not options_like:
            return False
        self.err(call.args[0].pos, "the prompt of a choose comes before its options (the "
                 "order of another Gambit dialect is not supported): write "
                 f"'choose (\"{prompt.value}\") OPTIONS'")  # fmt: skip
        return True
