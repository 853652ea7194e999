"""Helpers the compiled closures call at run time: truth, ordering, dispatch, calls."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from esochess.gambit import ast as A
from esochess.gambit import builtins as B
from esochess.gambit import types as T
from esochess.gambit.limits import CALL_DEPTH_LIMIT
from esochess.gambit.machine import Machine
from esochess.gambit.program import (
    RETURNS,
    Code,
    Ev,
    Overload,
)
from esochess.gambit.results import (
    GameEnd,
    IllegalSignal,
    Result,
    RunError,
)
from esochess.gambit.values import (
    EnumVal,
    FuncVal,
    Inst,
    StructVal,
    display,
    multi_members,
    values_equal,
)


def call_hosted(fn: Any, m: Machine, pos: tuple[int, int], vals: list[Any]) -> Any:
    """A built-in that needs the host, called with its argument values: its errors
    become run-time errors at `pos` (both engines call built-ins through this)."""
    try:
        return fn(m, vals)
    except B.BuiltinError as exc:
        raise RunError(pos, str(exc)) from None
    except (OverflowError, ValueError) as exc:
        raise RunError(pos, f"number out of range ({exc})") from None


def truthy(v: Any) -> bool:
    """A condition's truth: bool, or an optional that is not none
    (docs/reference/gambit.md#statements)."""
    return v is not None and v is not False


def ordinal_key(v: Any) -> Any:
    return v.ordinal if isinstance(v, EnumVal) else v


def finite(x: Any, pos: A.Pos) -> Any:
    if isinstance(x, float) and not math.isfinite(x):
        raise RunError(pos, "number out of range")
    return x


COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "==": values_equal,
    "!=": lambda a, b: not values_equal(a, b),
    "<=": lambda a, b: a is not None and b is not None and ordinal_key(a) <= ordinal_key(b),
    ">=": lambda a, b: a is not None and b is not None and ordinal_key(a) >= ordinal_key(b),
}


def type_test(t: T.Type) -> Callable[[Any], bool]:
    """A run-time membership test for a static type (type patterns)."""
    if t == T.ANY:
        return lambda v: True
    if isinstance(t, T.UnionT):
        tests = [type_test(m) for m in t.members]
        return lambda v: any(f(v) for f in tests)
    if t == T.NONE:
        return lambda v: v is None
    if t == T.INT:
        return lambda v: isinstance(v, int) and not isinstance(v, bool)
    if t == T.NUM:
        return lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)
    if t == T.BOOL:
        return lambda v: isinstance(v, bool)
    if t == T.STR:
        return lambda v: isinstance(v, str)
    if isinstance(t, T.EnumT):
        return lambda v: isinstance(v, EnumVal) and v.enum == t.name
    if isinstance(t, T.MultiT):
        enums = T.enums_of(t.inner) or set()
        return lambda v: (isinstance(v, EnumVal) and v.enum in enums) or (
            isinstance(v, frozenset) and all(x.enum in enums for x in v)
        )
    if isinstance(t, T.EntityT):
        return lambda v: isinstance(v, Inst) and v.type_name == t.name
    if isinstance(t, T.StructT):
        return lambda v: isinstance(v, StructVal) and v.type_name == t.name
    if isinstance(t, T.ListT):
        inner = type_test(t.elem)
        return lambda v: isinstance(v, tuple) and all(inner(x) for x in v)
    if t in (T.FUNCTION, T.PROCEDURE):
        return lambda v: isinstance(v, FuncVal)
    return lambda v: False


def not_none(m: Machine, v: Any) -> bool:
    return v is not None


def of_entity(
    ent: str, optional: bool, inner: Callable[[Machine, Any], bool] | None
) -> Callable[[Machine, Any], bool]:
    """A parameter test that first requires an instance of `ent` (or none when optional)."""

    def test(m: Machine, v: Any) -> bool:
        if v is None:
            return optional
        if not isinstance(v, Inst) or v.type_name != ent:
            return False
        return inner is None or inner(m, v)

    return test


def dispatch(
    m: Machine, name: str, group: list[Overload], vals: list[Any], pos: A.Pos, *,
    strict: bool, trace: bool = False,
) -> Code:  # fmt: skip
    """docs/reference/gambit.md#overloads: the least applicable overload (group is sorted most
    specific first).

    `strict` is for calls through Function/Procedure values, which the checker cannot see:
    argument types are tested and an ambiguity is a run-time error.
    """
    if strict:
        group = [o for o in group if all(t(v) for t, v in zip(o.types, vals, strict=True))]
    applicable = [o for o in group if all(t(m, vals[i]) for i, t in o.tests)]
    if not applicable:
        shown = ", ".join(display(v, m.name_of, True) for v in vals)
        raise RunError(pos, f"no overload of '{name}' accepts ({shown})")
    best = applicable[0]
    if strict and best.cells is not None:
        for other in applicable[1:]:
            if other.cells is not None and not best.cells <= other.cells:
                raise RunError(pos, f"ambiguous call to '{name}': {best.label} and "
                               f"{other.label} both apply, and neither is more specific")
    if trace and m.tracing:
        m.trace(pos, f"call {name} -> line {best.info.decl.pos[0]} {best.label}")
    return best.code


def check_index(i: Any, n: int, pos: A.Pos) -> int:
    if not isinstance(i, int) or not 1 <= i <= n:
        raise RunError(pos, f"list index {i} out of range 1..{n}")
    return i


def iterable(v: Any) -> tuple[Any, ...]:
    if isinstance(v, tuple):
        return v
    if isinstance(v, str):
        return tuple(v)
    if v is None:
        return ()
    return tuple(multi_members(v))


def call_known(m: Machine, code: Code, vals: list[Any], pos: A.Pos) -> Any:
    """The one call fast path: `Machine.call` with its memo lookup and arrow-body path
    done here, without a Python call into the machine when they apply.

    The memo test is exactly the one of `Machine.call` (same key, same depth rule, same
    `peak`); everything else (frames, the depth error, memo stores) is left to it.
    """
    if (code.pure or code.static) and not m.tracing:
        hit = m.program.memo.get((code, tuple(vals), m.inst_version if code.static else m.version))
        if hit is not None:
            level = m.depth + len(m.frames) + hit[1]
            if level < CALL_DEPTH_LIMIT:
                if level > m.peak:
                    m.peak = level
                return hit[0]
        return m.call(code, vals, pos)
    simple = code.simple
    level = m.depth + len(m.frames)
    if simple is None or level >= CALL_DEPTH_LIMIT or m.tracing:
        return m.call(code, vals, pos)
    # Machine.call's arrow-body path, inlined (same depth, peak and trail).
    if level > m.peak:
        m.peak = level
    if code.nlocals > len(vals):
        vals += [None] * (code.nlocals - len(vals))
    m.depth += 1
    try:
        return simple(m, vals)
    except RunError as err:
        err.trail.append((code.where, pos))
        raise
    finally:
        m.depth -= 1


def memo_call(code: Code, argfs: list[Ev], pos: A.Pos) -> Ev:
    """A closure calling one known body through `call_known`."""
    if len(argfs) == 1:
        a0 = argfs[0]
        return lambda m, L: call_known(m, code, [a0(m, L)], pos)
    return lambda m, L: call_known(m, code, [a(m, L) for a in argfs], pos)


def plain(impl: Callable[..., Any], pos: A.Pos, *vals: Any) -> Any:
    """A built-in over argument values, its errors made run-time errors at `pos`."""
    try:
        return impl(*vals)
    except B.BuiltinError as exc:
        raise RunError(pos, str(exc)) from None
    except (OverflowError, ValueError) as exc:
        raise RunError(pos, f"number out of range ({exc})") from None


def end_game(m: Machine, who: Any, kind: str, pos: A.Pos) -> None:
    """`wins` / `loses` of a player or a list of players: end the game."""
    players = list(who) if isinstance(who, tuple) else [who]
    if not players:
        raise RunError(pos, f"'{kind}' with an empty list of players")
    seats = {p.index for p in players}
    if kind == "wins":
        winners = tuple(sorted(seats))
    else:
        winners = tuple(k for k in range(1, m.seats + 1) if k not in seats)
    raise GameEnd(Result(m.seats, winners, False, pos[0], pos[1]))


def const(v: Any) -> Ev:
    return lambda m, L: v


def read_slot(slot: int) -> Ev:
    read: Ev = lambda m, L: L[slot]  # noqa: E731
    RETURNS[read] = ("", f"L[{slot}]", {})  # (predicate.py pastes it)
    return read


class SayIllegal:
    """The instruction of an `illegal` statement; a legality predicate (predicate.py)
    recognises it and answers "not legal" without raising."""

    __slots__ = ("pos",)

    def __init__(self, pos: A.Pos) -> None:
        self.pos = pos

    def __call__(self, m: Machine, L: list[Any]) -> None:
        raise IllegalSignal(self.pos)
