"""Statement rules: declarations, assignment, control flow, returns and narrowing."""

from __future__ import annotations

from typing import assert_never

from esochess.fen.suggest import close_matches, did_you_mean
from esochess.gambit import ast as A
from esochess.gambit import types as T
from esochess.gambit.analysis import (
    ForSlots,
    LocalRef,
    NaryRef,
    PropRef,
)
from esochess.gambit.check.common import (
    pos_of,
    zero_missing,
)
from esochess.gambit.check.context import (
    BodyLike,
    Local,
    Stop,
)
from esochess.gambit.check.purity import (
    loop_exits,
)
from esochess.gambit.resolver import (
    PropInfo,
    resolve_type,
)


class StatementRules:
    """Statement rules: declarations, assignment, control flow, returns and narrowing."""

    def stmt(self: BodyLike, s: A.Stmt) -> bool:
        """Check a statement; True when it always terminates
        (docs/reference/gambit.md#statements)."""
        try:
            return self._stmt(s)
        except Stop:
            return False

    def _stmt(self: BodyLike, s: A.Stmt) -> bool:
        if isinstance(s, A.ExprStmt):
            self.ex(s.expr, None, statement=True)
            return False
        if isinstance(s, A.DeclStmt):
            if self.value_as_type(s):
                return False
            t = resolve_type(self.sym, s.type)
            if s.value is not None:
                vt = self.ex(s.value, t)
                self.coerce(s.value, vt, t)
            elif not isinstance(t, T.ErrT) and zero_missing(self.sym, t):
                self.err(s.pos, f"variable '{s.name}' of type {T.show(t)} needs an initial value")
            self.an.declared[s] = self.declare_local(s.name, t, s.name_pos)
            return False
        if isinstance(s, A.Assign):
            self.assign(s)
            return False
        if isinstance(s, A.IncDec):
            t = self.place(s.target)
            if not (T.is_subtype(t, T.NUM) or isinstance(t, T.ErrT)):
                self.err(s.pos, f"operator '{s.op}' cannot be applied to {T.show(t)}")
            return False
        if isinstance(s, A.Swap):
            ta = self.place(s.a)
            tb = self.place(s.b)
            if ta != tb and not isinstance(ta, T.ErrT) and not isinstance(tb, T.ErrT):
                self.err(s.pos, f"swap needs two places of the same type, found {T.show(ta)} "
                         f"and {T.show(tb)}")  # fmt: skip
            return False
        if isinstance(s, A.EndStmt):
            self.impure(s.pos, f"use '{s.kind}'")
            t = self.ex(s.who, None)
            ok = T.is_subtype(t, T.EntityT("Player")) or T.is_subtype(
                t, T.ListT(T.EntityT("Player"))
            )
            if not ok:
                self.err(pos_of(s.who), f"'{s.kind}' needs a Player or a list of players, "
                         f"found {T.show(t)}")  # fmt: skip
            return True
        if isinstance(s, A.Simple):
            k = s.kind
            if k in ("break", "continue"):
                if not self.loops:
                    self.err(s.pos, f"'{k}' outside a loop")
                elif k == "break":
                    self.loops[-1][0] = True
                return True
            self.impure(s.pos, f"use '{k}'")
            if k == "illegal":
                self.sym.has_illegal = True
            return k in ("draw", "illegal")
        if isinstance(s, A.Return):
            return self.ret(s)
        if isinstance(s, A.If):
            return self.if_stmt(s)
        if isinstance(s, A.For):
            it = self.ex(s.iterable, None)
            elem = T.element_type(it)
            if elem is None:
                self.err(pos_of(s.iterable), f"cannot iterate over {T.show(it)}")
                elem = T.ERR
            self.push()
            it_slot = self.new_slot()
            var_slot = self.declare_local(s.var, elem, s.var_pos, readonly=True)
            self.an.for_slots[s] = ForSlots(it_slot, var_slot)
            self.loops.append([False])
            self.block(s.body)
            self.loops.pop()
            self.pop()
            return False
        if isinstance(s, A.While):
            then_n, _ = self.cond(s.cond)
            saved = dict(self.narrow)
            self.narrow.update(then_n)
            self.loops.append([False])
            self.block(s.body)
            self.loops.pop()
            self.narrow = saved
            return False
        if isinstance(s, A.Loop):
            self.loops.append([False])
            self.block(s.body)
            broke = self.loops.pop()[0]
            if not broke and not loop_exits(s.body, self.an, self.sym):
                self.pc.warn(s.pos, "this loop never ends")
            return not broke
        if isinstance(s, A.MatchStmt):
            st = self.ex(s.subject, None)
            loc = self.subject_local(s.subject)
            all_term = True
            has_else = False
            for arm in s.arms:
                saved = dict(self.narrow)
                if has_else:
                    self.err(arm.pos, "unreachable match arm: an earlier arm matches everything")
                if arm.pattern is None or isinstance(arm.pattern, A.PAny):
                    has_else = True
                if arm.pattern is not None:
                    nt = self.pattern(arm.pattern, st)
                    if loc is not None and nt is not None:
                        self.narrow[loc.slot] = nt
                term = self.block(arm.body)
                all_term = all_term and term
                self.narrow = saved
            return has_else and all_term
        assert_never(s)

    def subject_local(self: BodyLike, e: A.Expr) -> Local | None:
        """The local a match subject names, for narrowing in its arms."""
        if isinstance(e, A.Name):
            return self.lookup(e.name)
        return None

    def ret(self: BodyLike, s: A.Return) -> bool:
        """Check a return statement (docs/reference/gambit.md#statements)."""
        declared = self.ctx.declared_ret
        if self.ctx.kind == "notation":
            if s.value is not None:
                t = self.ex(s.value, declared)
                if declared is not None:
                    self.coerce(s.value, t, declared)
            return True
        if s.value is None:
            if declared is not None and declared != T.NOVALUE and not T.contains_none(declared):
                self.err(s.pos, f"'return' needs a value of type {T.show(declared)}")
            self.returns.append(T.NOVALUE)
            return True
        if self.ctx.kind == "main":
            self.err(s.pos, "'main' returns no value")
        t = self.ex(s.value, declared)
        if declared is not None:
            self.coerce(s.value, t, declared)
        elif t == T.NOVALUE:
            self.err(pos_of(s.value), "this call returns no value")
        if isinstance(s.value, A.SelectorExpr) and declared is None:
            t = T.ListT(T.EntityT(s.value.selector.entity))
        self.returns.append(t)
        return True

    def if_stmt(self: BodyLike, s: A.If) -> bool:
        """Check an if statement with its narrowing (docs/reference/gambit.md#narrowing); True when
        it terminates."""
        saved = dict(self.narrow)
        all_term = True
        else_narrow: dict[int, T.Type] = {}
        for cond, block in s.branches:
            self.narrow = dict(saved)
            self.narrow.update(else_narrow)
            then_n, else_n = self.cond(cond)
            self.narrow.update(then_n)
            term = self.block(block)
            all_term = all_term and term
            else_narrow.update(else_n)
        self.narrow = dict(saved)
        self.narrow.update(else_narrow)
        if s.orelse is not None:
            term = self.block(s.orelse)
            all_term = all_term and term
            self.narrow = saved
            return all_term
        if all_term:
            # `if c == none: return` narrows the rest of the block
            # (docs/reference/gambit.md#narrowing).
            self.narrow = dict(saved)
            self.narrow.update(else_narrow)
            return False
        self.narrow = saved
        return False

    def cond(self: BodyLike, e: A.Expr) -> tuple[dict[int, T.Type], dict[int, T.Type]]:
        """Check a condition; return the narrowings for its true and false regions."""
        t = self.ex(e, None)
        if not (t == T.BOOL or T.contains_none(t) or isinstance(t, T.ErrT)):
            self.err(pos_of(e), f"condition must be bool or optional, found {T.show(t)}")
        return self.narrowing(e)

    def narrowing(self: BodyLike, e: A.Expr) -> tuple[dict[int, T.Type], dict[int, T.Type]]:
        """The (then, else) narrowings of a condition, by local slot."""
        if isinstance(e, A.Unary) and e.op == "not":
            a, b = self.narrowing(e.operand)
            return b, a
        if isinstance(e, A.Binary) and e.op == "and":
            a1, _ = self.narrowing(e.left)
            a2, _ = self.narrowing(e.right)
            return {**a1, **a2}, {}
        if isinstance(e, A.Binary) and e.op == "or":
            _, b1 = self.narrowing(e.left)
            _, b2 = self.narrowing(e.right)
            return {}, {**b1, **b2}
        if isinstance(e, A.Name):
            loc = self.lookup(e.name)
            if loc is not None:
                t = self.local_type(loc)
                if T.contains_none(t) and t != T.ANY:
                    return {loc.slot: T.strip_none(t)}, {loc.slot: T.NONE}
        if isinstance(e, A.Binary) and e.op in ("==", "!=") and isinstance(e.left, A.Name):
            loc = self.lookup(e.left.name)
            if loc is not None and isinstance(e.right, A.Lit) and e.right.value is None:
                t = self.local_type(loc)
                yes: dict[int, T.Type] = {loc.slot: T.NONE}
                no: dict[int, T.Type] = {loc.slot: T.strip_none(t)}
                return (yes, no) if e.op == "==" else (no, yes)
        if isinstance(e, A.Is) and isinstance(e.value, A.Name):
            loc = self.lookup(e.value.name)
            nt = self.an.narrowed.get(e) if isinstance(e, A.Is) else None
            if loc is not None and nt is not None:
                t = self.local_type(loc)
                rest = [m for m in T.members(t) if not T.is_subtype(m, nt)]
                else_t = T.union(rest) if rest and len(rest) < len(T.members(t)) else t
                return {loc.slot: nt}, {loc.slot: else_t}
        return {}, {}

    def assign(self: BodyLike, s: A.Assign) -> None:
        """Check an assignment, which may declare a local (docs/reference/gambit.md#statements)."""
        tgt = s.target
        if isinstance(tgt, A.Name) and s.op == "=":
            loc = self.lookup(tgt.name)
            if loc is None and self.sym.nullary(tgt.name) is None:
                if tgt.name in ("wins", "loses"):
                    self.err(tgt.pos, f"'{tgt.name}' cannot name a local")
                t = self.ex(s.value, None)
                if isinstance(s.value, A.Lit) and s.value.value is None:
                    self.err(tgt.pos, f"cannot infer the type of '{tgt.name}' from none; write "
                             f"e.g. 'Card? {tgt.name} = none'")  # fmt: skip
                    t = T.ERR
                elif isinstance(s.value, A.ListLit) and not s.value.items:
                    self.err(tgt.pos, "cannot infer the element type of an empty list; write "
                             f"e.g. '[Card] {tgt.name} = []'")  # fmt: skip
                    t = T.ERR
                elif t == T.NOVALUE:
                    self.err(pos_of(s.value), "this call returns no value")
                    t = T.ERR
                self.an.declared[s] = self.declare_local(tgt.name, t, tgt.pos)
                return
        pt = self.place(tgt)
        if s.op == "=":
            vt = self.ex(s.value, pt)
            self.coerce(s.value, vt, pt)
            if isinstance(tgt, A.Name):
                loc = self.lookup(tgt.name)
                if loc is not None:
                    self.narrow.pop(loc.slot, None)
            return
        vt = self.ex(s.value, None)
        if isinstance(tgt, A.Name):
            self.an.types[tgt] = pt  # what the compound assignment reads (the compiler's int `+=`)
        op = s.op[0]
        rt = self.arith(op, pt, vt, s.pos)
        if not isinstance(rt, T.ErrT) and not T.is_subtype(rt, pt):
            self.err(s.pos, f"type mismatch: '{s.op}' gives {T.show(rt)}, but the place holds "
                     f"{T.show(pt)}")  # fmt: skip

    def place(self: BodyLike, e: A.Expr) -> T.Type:
        """Check an assignable place and return its type."""
        if isinstance(e, A.Name):
            loc = self.lookup(e.name)
            if loc is not None:
                if loc.readonly:
                    self.err(e.pos, f"cannot assign to loop variable '{e.name}'")
                self.an.resolved[e] = LocalRef(loc.slot)
                return loc.type
            p = self.sym.nullary(e.name)
            if p is not None:
                self.an.resolved[e] = PropRef(p)
                return self.prop_place(p, e.pos)
            self.err(e.pos, f"'{e.name}' is not defined")
            raise Stop()
        if isinstance(e, A.Member):
            if isinstance(e.obj, A.TupleExpr):
                ts = [self.ex(x, None) for x in e.obj.items]
                p = self.nary_prop(e, ts)
                return self.prop_place(p, e.pos)
            ot = self.ex(e.obj, None, as_place_root=True)
            base = ot
            if isinstance(base, T.SelT):
                base = T.EntityT(base.entity)
            if isinstance(base, T.EntityT):
                p = self.unary_prop(e, base)
                return self.prop_place(p, e.pos)
            if isinstance(base, T.StructT):
                self.place(e.obj)
                return self.struct_member(e, base)
            self.member_error(e, ot)
        if isinstance(e, A.Index):
            lt = self.place(e.obj)
            it = self.ex(e.index, T.INT)
            self.coerce(e.index, it, T.INT)
            if isinstance(lt, T.ListT):
                return lt.elem
            if isinstance(lt, T.ErrT):
                return T.ERR
            self.err(e.pos, f"cannot assign to an element of {T.show(lt)}")
            raise Stop()
        self.err(pos_of(e), "this expression cannot be assigned to")
        raise Stop()

    def prop_place(self: BodyLike, p: PropInfo, pos: A.Pos) -> T.Type:
        """Check that a property may be assigned here and return its type."""
        if p.kind == "fixed":
            self.err(pos, f"cannot assign to fixed property '{p.name}'")
        elif p.kind == "trait":
            self.err(pos, f"cannot assign to trait '{p.name}'")
        elif self.pure:
            self.err(pos, f"{self.label()} cannot assign to state property '{p.name}'")
        return p.type

    def place_root_is_state(self: BodyLike, e: A.Expr) -> PropInfo | None:
        """The state property a place is rooted in, if any."""
        while isinstance(e, (A.Member, A.Index)):
            info = self.an.resolved.get(e)
            if isinstance(e, A.Member) and isinstance(info, (PropRef, NaryRef)):
                return info.prop
            e = e.obj
        if isinstance(e, A.Name):
            info = self.an.resolved.get(e)
            if isinstance(info, PropRef):
                return info.prop
        return None

    def value_as_type(self: BodyLike, s: A.DeclStmt) -> bool:
        """`current win`: a value where a declaration's type would be, so the statement is
        not a declaration at all; report it as the statement it looks like."""
        if not isinstance(s.type, A.TName) or s.value is not None or self.sym.is_type(s.type.name):
            return False
        name = s.type.name
        if self.lookup(name) is None and self.sym.nullary(name) is None:
            return False
        written = f"{name} {s.name}"
        endings = [f"{name} {w}" for w in close_matches(s.name, ["wins", "loses"])]
        hint = did_you_mean(written, endings)
        if hint is None:
            return False
        self.err(s.type.pos, f"'{written}' is not a statement; {hint}")
        return True
