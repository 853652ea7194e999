"""The built-in library (§12): static signatures for the checker, implementations for
the interpreter. Place built-ins return (new list, result) so lists stay immutable."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from esochess.gambit import types as T
from esochess.gambit.values import EnumVal, display, multi_members, values_equal

if TYPE_CHECKING:
    from esochess.gambit.machine import Machine

PURE = {
    "len", "str", "as_integer", "as_number", "abs", "min", "max", "sum", "floor", "ceil",
    "round", "div", "ord", "first", "last", "reverse", "sort", "slice", "index_of", "count",
    "all", "some", "join", "split", "chars", "upper", "lower", "next_player",
}  # fmt: skip
PLACE = {"insert", "remove", "pop", "clear", "shuffle"}
EFFECT = {"print", "shuffle", "roll", "random"}
CHANCE = {"shuffle", "roll", "random"}
NAMES = PURE | PLACE | EFFECT

ARITY: dict[str, tuple[int, int]] = {
    "print": (0, 10**9), "len": (1, 1), "str": (1, 1), "as_integer": (1, 1),
    "as_number": (1, 1), "abs": (1, 1), "min": (1, 2), "max": (1, 2), "sum": (1, 1),
    "floor": (1, 1), "ceil": (1, 1), "round": (1, 1), "div": (2, 2), "ord": (1, 1),
    "first": (1, 1), "last": (1, 1), "reverse": (1, 1), "sort": (1, 1), "slice": (3, 3),
    "index_of": (2, 2), "count": (2, 2), "all": (1, 1), "some": (1, 1), "join": (2, 2),
    "split": (2, 2), "chars": (1, 1), "upper": (1, 1), "lower": (1, 1),
    "next_player": (1, 1), "insert": (2, 3), "remove": (2, 2), "pop": (1, 2),
    "clear": (1, 1), "shuffle": (1, 1), "roll": (1, 1), "random": (1, 1),
}  # fmt: skip


class BuiltinError(Exception):
    """A run-time error inside a built-in (the caller adds the position)."""


def _ordered(t: T.Type) -> bool:
    return t in (T.INT, T.NUM, T.STR) or isinstance(t, T.EnumT) or isinstance(t, T.ErrT)


def result_type(name: str, args: list[T.Type]) -> tuple[T.Type, str | None]:
    """The static result type of a built-in call, or an error message (§12)."""
    lo, hi = ARITY[name]
    if not lo <= len(args) <= hi:
        want = f"{lo}" if lo == hi else f"{lo} to {hi}"
        return T.ERR, f"'{name}' takes {want} argument{'s' if hi != 1 else ''}, found {len(args)}"
    a = args[0] if args else T.ERR
    elem = T.element_type(a)

    def need(cond: bool, what: str, t: T.Type = a) -> str | None:
        if cond or isinstance(t, T.ErrT):
            return None
        return f"'{name}' expects {what}, found {T.show(t)}"

    if name == "print":
        return T.NOVALUE, None
    if name == "len":
        ok = isinstance(a, (T.ListT, T.MultiT)) or a == T.STR
        return T.INT, need(ok, "a list, a string or a multi-value")
    if name == "str":
        return T.STR, None
    if name == "as_integer":
        return T.INT, need(a == T.STR, "str")
    if name == "as_number":
        return T.NUM, need(a == T.STR, "str")
    if name == "abs":
        return (a if a in (T.INT, T.NUM) else T.NUM), need(a in (T.INT, T.NUM), "a number")
    if name in ("min", "max"):
        if len(args) == 2:
            j = T.join(args[0], args[1])
            return j, need(_ordered(j), "two ordered values", j)
        e = elem if isinstance(a, T.ListT) else None
        return (e or T.ERR), need(e is not None and _ordered(e), "a list of ordered values")
    if name == "sum":
        e = elem if isinstance(a, T.ListT) else None
        ok = e in (T.INT, T.NUM) or (isinstance(a, T.ListT) and isinstance(e, T.ErrT))
        return (T.NUM if e == T.NUM else T.INT), need(ok, "a list of numbers")
    if name in ("floor", "ceil", "round"):
        return T.INT, need(T.is_subtype(a, T.NUM), "a number")
    if name == "div":
        ok = all(x == T.INT or isinstance(x, T.ErrT) for x in args)
        return T.INT, need(ok, "two ints", T.UnionT((args[0], args[1])) if not ok else a)
    if name == "ord":
        return T.INT, need(isinstance(a, T.EnumT), "an enum member")
    if name in ("first", "last"):
        return (elem or T.ERR), need(isinstance(a, T.ListT), "a list")
    if name == "reverse":
        return a, need(isinstance(a, T.ListT), "a list")
    if name == "sort":
        return a, need(isinstance(a, T.ListT) and elem is not None and _ordered(elem),
                       "a list of ordered values")  # fmt: skip
    if name == "slice":
        return a, need(isinstance(a, T.ListT) or a == T.STR, "a list or a string")
    if name == "index_of":
        return T.optional(T.INT), need(isinstance(a, T.ListT) or a == T.STR, "a list or a string")
    if name == "count":
        return T.INT, need(isinstance(a, T.ListT), "a list")
    if name in ("all", "some"):
        return T.BOOL, need(isinstance(a, T.ListT) and elem == T.BOOL, "a list of bools")
    if name == "join":
        return T.STR, need(isinstance(a, T.ListT) and elem == T.STR, "a list of strings")
    if name == "split":
        return T.ListT(T.STR), need(a == T.STR, "str")
    if name == "chars":
        return T.ListT(T.STR), need(a == T.STR, "str")
    if name in ("upper", "lower"):
        return T.STR, need(a == T.STR, "str")
    if name == "next_player":
        return T.EntityT("Player"), need(a == T.EntityT("Player"), "a Player")
    if name in ("insert", "remove", "clear", "shuffle"):
        return T.NOVALUE, need(isinstance(a, T.ListT), "a list")
    if name == "pop":
        return (elem or T.ERR), need(isinstance(a, T.ListT), "a list")
    if name == "roll":
        return T.INT, need(a == T.INT, "an int")
    if name == "random":
        return (elem or T.ERR), need(isinstance(a, T.ListT), "a list")
    return T.ERR, f"unknown built-in '{name}'"


# ---------------------------------------------------------------- implementations


def _key(v: Any) -> Any:
    return v.ordinal if isinstance(v, EnumVal) else v


def _index(i: Any, n: int, lo: int = 1) -> int:
    if not isinstance(i, int) or not lo <= i <= n:
        raise BuiltinError(f"list index {i} out of range {lo}..{n}")
    return i


def _as_integer(s: str) -> int:
    t = s.strip()
    if t == "":
        return 0
    try:
        return int(t, 10)
    except ValueError:
        raise BuiltinError(f"'{s}' is not an integer") from None


def _as_number(s: str) -> float:
    t = s.strip()
    if t == "":
        return 0.0
    try:
        x = float(t)
    except ValueError:
        raise BuiltinError(f"'{s}' is not a number") from None
    if not math.isfinite(x) or "e" in t.lower() or "n" in t.lower():
        raise BuiltinError(f"'{s}' is not a number")
    return x


def _round(x: float) -> int:
    if not math.isfinite(x):
        raise BuiltinError("number out of range")
    return int(math.floor(abs(x) + 0.5)) * (1 if x >= 0 else -1)


def _nonempty(xs: Any, name: str) -> Any:
    if not xs:
        raise BuiltinError(f"'{name}' of an empty list")
    return xs


def _extreme(args: list[Any], pick_max: bool, name: str) -> Any:
    xs = args if len(args) == 2 else list(_nonempty(args[0], name))
    best = xs[0]
    for x in xs[1:]:
        if (_key(x) > _key(best)) if pick_max else (_key(x) < _key(best)):
            best = x
    return best


def _slice(xs: Any, i: int, j: int) -> Any:
    n = len(xs)
    if not (1 <= i <= j + 1 <= n + 1):
        raise BuiltinError(f"slice {i}..{j} out of range for length {n}")
    return xs[i - 1 : j]


def _index_of(xs: Any, v: Any) -> int | None:
    if isinstance(xs, str):
        k = xs.find(v) if isinstance(v, str) else -1
        return k + 1 if k >= 0 else None
    for k, x in enumerate(xs):
        if values_equal(x, v):
            return k + 1
    return None


def _split(s: str, sep: str) -> tuple[str, ...]:
    if sep == "":
        raise BuiltinError("split needs a non-empty separator")
    return tuple(s.split(sep))


def _length(x: Any) -> int:
    if isinstance(x, (tuple, str)):
        return len(x)
    return len(multi_members(x))


def _floor_div(a: int, b: int) -> int:
    if b == 0:
        raise BuiltinError("division by zero")
    return a // b


def _finite_int(f: Callable[[float], int]) -> Callable[[float], int]:
    def g(x: float) -> int:
        if not math.isfinite(x):
            raise BuiltinError("number out of range")
        return f(x)

    return g


PURE_IMPL: dict[str, Callable[..., Any]] = {
    "len": _length,
    "as_integer": _as_integer,
    "as_number": _as_number,
    "abs": abs,
    "min": lambda *a: _extreme(list(a), False, "min"),
    "max": lambda *a: _extreme(list(a), True, "max"),
    "sum": lambda xs: sum(xs) if xs else 0,
    "floor": _finite_int(math.floor),
    "ceil": _finite_int(math.ceil),
    "round": _round,
    "div": _floor_div,
    "ord": lambda e: e.ordinal,
    "first": lambda xs: _nonempty(xs, "first")[0],
    "last": lambda xs: _nonempty(xs, "last")[-1],
    "reverse": lambda xs: tuple(reversed(xs)),
    "sort": lambda xs: tuple(sorted(xs, key=_key)),
    "slice": _slice,
    "index_of": _index_of,
    "count": lambda xs, v: sum(1 for x in xs if values_equal(x, v)),
    "all": lambda xs: all(xs),
    "some": lambda xs: any(xs),
    "join": lambda xs, sep: sep.join(xs),
    "split": _split,
    "chars": lambda s: tuple(s),
    "upper": lambda s: s.upper(),
    "lower": lambda s: s.lower(),
}


def call_pure(name: str, m: Machine, args: list[Any]) -> Any:
    """Run a pure or effect built-in (not the place ones)."""
    if name == "str":
        return m.display(args[0])
    if name == "next_player":
        p = args[0]
        players = m.instances["Player"]
        return players[p.index % len(players)]
    if name == "print":
        m.output(" ".join(m.display(a) for a in args))
        return None
    if name == "roll":
        n = args[0]
        if n < 1:
            raise BuiltinError(f"roll({n}) needs n of at least 1")
        return 1 + m.rng.randrange(n)
    if name == "random":
        xs = args[0]
        if not xs:
            raise BuiltinError("random of an empty list")
        return xs[m.rng.randrange(len(xs))]
    return PURE_IMPL[name](*args)


def call_place(name: str, m: Machine, xs: tuple[Any, ...], args: list[Any]) -> tuple[Any, Any]:
    """Run a place built-in on list `xs`: returns (new list, result)."""
    if name == "insert":
        if len(args) == 1:
            return xs + (args[0],), None
        i = _index(args[1], len(xs) + 1)
        return xs[: i - 1] + (args[0],) + xs[i - 1 :], None
    if name == "remove":
        for k, x in enumerate(xs):
            if values_equal(x, args[0]):
                return xs[:k] + xs[k + 1 :], None
        raise BuiltinError(f"remove: {display(args[0], m._name_of)} is not in the list")
    if name == "pop":
        if not xs:
            raise BuiltinError("pop from an empty list")
        if not args:
            return xs[:-1], xs[-1]
        i = _index(args[0], len(xs))
        return xs[: i - 1] + xs[i:], xs[i - 1]
    if name == "clear":
        return (), None
    if name == "shuffle":
        lst = list(xs)
        for i in range(len(lst) - 1, 0, -1):
            j = m.rng.randrange(i + 1)
            lst[i], lst[j] = lst[j], lst[i]
        return tuple(lst), None
    raise BuiltinError(f"unknown place built-in '{name}'")
