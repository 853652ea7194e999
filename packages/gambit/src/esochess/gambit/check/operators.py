"""Operator rules: unary, arithmetic, comparison and logical operators."""

from __future__ import annotations

from esochess.gambit import ast as A
from esochess.gambit import types as T
from esochess.gambit.check.context import (
    ARITH,
    ORDER,
    BodyLike,
    Stop,
)


class OperatorRules:
    """Operator rules: unary, arithmetic, comparison and logical operators."""

    def unary(self: BodyLike, e: A.Unary) -> T.Type:
        """Check a prefix operation."""
        t = self.ex(e.operand, None)
        if isinstance(t, T.ErrT):
            return T.ERR if e.op != "not" else T.BOOL
        if t == T.ANY:
            self.err(e.pos, "narrow this any value with 'is' first")
            raise Stop()
        if e.op == "not":
            if not (t == T.BOOL or T.contains_none(t)):
                self.err(e.pos, f"operator 'not' cannot be applied to {T.show(t)}")
            return T.BOOL
        if e.op == "#":
            if isinstance(t, (T.ListT, T.MultiT)) or t == T.STR:
                return T.INT
            if T.contains_none(t) and isinstance(T.strip_none(t), T.MultiT):
                return T.INT
            self.err(e.pos, f"operator '#' cannot be applied to {T.show(t)}")
            raise Stop()
        if t in (T.INT, T.NUM):
            return t
        self.err(e.pos, f"operator '{e.op}' cannot be applied to {T.show(t)}")
        raise Stop()

    def arith(self: BodyLike, op: str, a: T.Type, b: T.Type, pos: A.Pos) -> T.Type:
        """The result type of an arithmetic operation (docs/reference/gambit.md#expressions)."""
        if isinstance(a, T.ErrT) or isinstance(b, T.ErrT):
            return T.ERR
        if T.ANY in (a, b):
            self.err(pos, "narrow this any value with 'is' first")
            raise Stop()
        nums = (T.INT, T.NUM)
        if a in nums and b in nums:
            if op == "/":
                return T.NUM
            return T.INT if a == b == T.INT else T.NUM
        if op == "+" and a == b == T.STR:
            return T.STR
        if op == "+" and isinstance(a, T.ListT) and isinstance(b, T.ListT):
            return T.ListT(T.join(a.elem, b.elem))
        self.err(pos, f"operator '{op}' cannot be applied to {T.show(a)} and {T.show(b)}")
        raise Stop()

    def binary(self: BodyLike, e: A.Binary, expected: T.Type | None) -> T.Type:
        """Check a binary operation."""
        op = e.op
        if op in ("and", "or"):
            a = self.ex(e.left, None)
            saved = dict(self.narrow)
            yes, no = self.narrowing(e.left)
            self.narrow.update(yes if op == "and" else no)
            b = self.ex(e.right, None)
            self.narrow = saved
            for t in (a, b):
                if not (t == T.BOOL or T.contains_none(t) or isinstance(t, T.ErrT)):
                    self.err(e.pos, f"operator '{op}' cannot be applied to {T.show(t)}")
                    raise Stop()
            return T.BOOL
        if op in ARITH:
            a = self.ex(e.left, None)
            b = self.ex(e.right, None)
            return self.arith(op, a, b, e.pos)
        if op == "..":
            a = self.ex(e.left, T.INT)
            b = self.ex(e.right, T.INT)
            if not (T.is_subtype(a, T.INT) and T.is_subtype(b, T.INT)):
                self.err(e.pos, f"operator '..' cannot be applied to {T.show(a)} and {T.show(b)}")
                raise Stop()
            return T.ListT(T.INT)
        if op == "&":
            a = self.ex(e.left, expected)
            b = self.ex(e.right, expected if expected is not None else a)
            ea, eb = T.enums_of(a), T.enums_of(b)
            if ea is None or eb is None:
                if isinstance(a, T.ErrT) or isinstance(b, T.ErrT):
                    return T.ERR
                self.err(e.pos, f"operator '&' cannot be applied to {T.show(a)} and {T.show(b)}")
                raise Stop()
            return T.MultiT(T.union([T.EnumT(n) for n in sorted(ea | eb)]))
        if op in ("==", "!="):
            a = self.ex(e.left, None)
            alts = e.right.alts if isinstance(e.right, A.Alt) else (e.right,)
            for x in alts:
                b = self.ex(x, a)
                if isinstance(x, A.Lit) and x.value is None:
                    continue
                if not T.overlap(a, b):
                    self.err(e.pos, f"cannot compare {T.show(a)} with {T.show(b)} (these "
                             "values are never equal)")  # fmt: skip
                    raise Stop()
            return T.BOOL
        if op in ORDER:
            a = self.ex(e.left, None)
            b = self.ex(e.right, a)
            ok = (a in (T.INT, T.NUM) and b in (T.INT, T.NUM)) or (a == b == T.STR) or (
                isinstance(a, T.EnumT) and a == b
            )
            if isinstance(a, T.ErrT) or isinstance(b, T.ErrT):
                ok = True
            if not ok:
                self.err(e.pos, f"cannot compare {T.show(a)} with {T.show(b)} using '{op}'")
                raise Stop()
            return T.BOOL
        if op == "in":
            b = self.ex(e.right, None)
            elem = T.element_type(b)
            a = self.ex(e.left, elem)
            if elem is None and not isinstance(b, T.ErrT):
                self.err(e.pos, f"operator 'in' cannot be applied to {T.show(a)} and "
                         f"{T.show(b)}")  # fmt: skip
                raise Stop()
            return T.BOOL
        raise AssertionError(op)
