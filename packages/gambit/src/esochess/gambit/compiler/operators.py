"""Operators -> closures: unary, arithmetic, comparison and logical operators."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from esochess.gambit import ast as A
from esochess.gambit import builtins as B
from esochess.gambit.compiler.context import CompilerLike
from esochess.gambit.compiler.runtime import (
    finite,
    ordinal_key,
    truthy,
)
from esochess.gambit.limits import OUT_OF_MEMORY
from esochess.gambit.machine import Machine
from esochess.gambit.program import (
    Ev,
)
from esochess.gambit.results import (
    RunError,
)
from esochess.gambit.values import (
    make_multi,
    multi_members,
    values_equal,
)


class OperatorRules:
    """Operators -> closures: unary, arithmetic, comparison and logical operators."""

    def arith(self: CompilerLike, op: str, pos: A.Pos) -> Callable[[Any, Any], Any]:
        """The run-time arithmetic of an operator, with its errors."""
        if op == "+":

            def add(a: Any, b: Any) -> Any:
                try:
                    return finite(a + b, pos)
                except MemoryError:  # joining strings or lists that doubled too often
                    raise RunError(pos, OUT_OF_MEMORY) from None

            return add
        if op == "-":
            return lambda a, b: finite(a - b, pos)
        if op == "*":

            def mul(a: Any, b: Any) -> Any:
                try:
                    return finite(a * b, pos)
                except MemoryError:
                    raise RunError(pos, OUT_OF_MEMORY) from None

            return mul
        if op == "/":

            def div(a: Any, b: Any) -> Any:
                if b == 0:
                    raise RunError(pos, "division by zero")
                try:
                    return finite(a / b, pos)
                except OverflowError:
                    raise RunError(pos, "number out of range") from None

            return div

        def mod(a: Any, b: Any) -> Any:
            if b == 0:
                raise RunError(pos, "division by zero")
            return finite(a % b, pos)

        return mod

    def unary(self: CompilerLike, e: A.Unary) -> Ev:
        """Compile a prefix operation."""
        f = self.expr(e.operand)
        if e.op == "not":
            return lambda m, L: not truthy(f(m, L))
        if e.op == "-":
            return lambda m, L: -f(m, L)
        if e.op == "+":
            return f
        length = B.PURE_IMPL["len"]

        def count(m: Machine, L: list[Any]) -> Any:
            v = f(m, L)  # once: the operand may have effects
            return length(v) if v is not None else 0

        return count

    def binary(self: CompilerLike, e: A.Binary) -> Ev:
        """Compile a binary operation."""
        op = e.op
        a = self.expr(e.left)
        if op in ("==", "!="):
            alts = e.right.alts if isinstance(e.right, A.Alt) else (e.right,)
            bs = [self.expr(x) for x in alts]
            neg = op == "!="
            if len(bs) == 1:
                b0 = bs[0]

                def eq_one(m: Machine, L: list[Any]) -> bool:
                    x = a(m, L)
                    y = b0(m, L)
                    # values_equal's own first answers: the same object, or `none`
                    # (equal to nothing else), decided without the call.
                    if x is y:
                        return not neg
                    if x is None or y is None:
                        return neg
                    return values_equal(x, y) != neg

                return eq_one

            def eq_any(m: Machine, L: list[Any]) -> bool:
                v = a(m, L)
                return any(values_equal(v, b(m, L)) for b in bs) != neg

            return eq_any
        b = self.expr(e.right)
        if op == "and":
            return lambda m, L: truthy(a(m, L)) and truthy(b(m, L))
        if op == "or":
            return lambda m, L: truthy(a(m, L)) or truthy(b(m, L))
        if op in ("+", "-", "*", "/", "%"):
            f = self.arith(op, e.pos)
            return lambda m, L: f(a(m, L), b(m, L))
        if op == "<":
            return lambda m, L: ordinal_key(a(m, L)) < ordinal_key(b(m, L))
        if op == "<=":
            return lambda m, L: ordinal_key(a(m, L)) <= ordinal_key(b(m, L))
        if op == ">":
            return lambda m, L: ordinal_key(a(m, L)) > ordinal_key(b(m, L))
        if op == ">=":
            return lambda m, L: ordinal_key(a(m, L)) >= ordinal_key(b(m, L))
        if op == "..":
            pos = e.pos

            def span(m: Machine, L: list[Any]) -> Any:
                try:
                    return tuple(range(a(m, L), b(m, L) + 1))
                except MemoryError:
                    raise RunError(pos, OUT_OF_MEMORY) from None

            return span
        if op == "&":
            return lambda m, L: make_multi(multi_members(a(m, L)) + multi_members(b(m, L)))
        if op == "in":

            def contains(m: Machine, L: list[Any]) -> bool:
                x, ys = a(m, L), b(m, L)
                if isinstance(ys, str):
                    return x in ys
                if isinstance(ys, tuple):
                    return any(values_equal(x, y) for y in ys)
                return x in multi_members(ys)

            return contains
        raise AssertionError(op)
