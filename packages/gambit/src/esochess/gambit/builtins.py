"""The built-in library (docs/reference/gambit.md#built-ins): one `Builtin` record per built-in,
registered once in `BUILTINS` and read by both the checker (signature, effects) and the compiler
(implementation). Place built-ins return (new list, result) so lists stay immutable.

Adding a built-in is one `_register(Builtin(...))` entry plus its test; the test
`test_every_builtin_is_complete` fails when a record lacks a part.
"""

from __future__ import annotations

import enum
import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from esochess.gambit import types as T
from esochess.gambit.values import EnumVal, Inst, display, multi_members, values_equal

if TYPE_CHECKING:
    from esochess.gambit.analysis import Value


class BuiltinError(Exception):
    """A run-time error inside a built-in (the caller adds the position)."""


class Host(Protocol):
    """What a built-in may use of the running program: its chance, output and players."""

    @property
    def rng(self) -> random.Random:
        """The chance generator of this execution."""
        ...

    instances: dict[str, tuple[Inst, ...]]

    def display(self, value: Any) -> str:
        """A value's display form, with entity names."""
        ...

    def output(self, text: str) -> None:
        """Write one line of program output."""
        ...

    def name_of(self, inst: Inst) -> str | None:
        """An instance's `name`, when its entity has one."""
        ...


class Effect(enum.Flag):
    """What a call may do besides computing its result."""

    NONE = 0
    PRINTS = enum.auto()
    CHANCE = enum.auto()
    MODIFIES = enum.auto()  # changes the list given as its first argument


@dataclass(frozen=True)
class Plain:
    """An implementation over argument values alone: `fn(*args)`."""

    fn: Callable[..., Value]


@dataclass(frozen=True)
class Hosted:
    """An implementation that needs the host (display, players, chance, output)."""

    fn: Callable[[Host, list[Value]], Value]


@dataclass(frozen=True)
class InPlace:
    """An implementation on the list in its first argument: returns (new list, result)."""

    fn: Callable[[Host, tuple[Value, ...], list[Value]], tuple[tuple[Value, ...], Value]]


Implementation = Plain | Hosted | InPlace


@dataclass(frozen=True)
class Args:
    """The static argument types of one call, for a signature."""

    name: str
    types: list[T.Type]

    @property
    def first(self) -> T.Type:
        """The first argument's type."""
        return self.types[0] if self.types else T.ERR

    @property
    def elem(self) -> T.Type | None:
        """The element type of the first argument."""
        return T.element_type(self.first)

    def need(self, cond: bool, what: str, t: T.Type | None = None) -> str | None:
        """None when `cond` holds, else "'name' expects WHAT, found T"."""
        shown = self.first if t is None else t
        if cond or isinstance(shown, T.ErrT):
            return None
        return f"'{self.name}' expects {what}, found {T.show(shown)}"


Signature = Callable[[Args], tuple[T.Type, str | None]]


@dataclass(frozen=True)
class Builtin:
    """One built-in: its name, signature, effects and implementation."""

    name: str
    arity: tuple[int, int]
    signature: Signature
    impl: Implementation
    effects: Effect = Effect.NONE
    summary: str = ""
    # The second argument has the element type of the list in the first (insert, count…).
    element_arg: bool = False
    # The trace event of a real execution, from the arguments and the shown result.
    trace: Callable[[list[Value], str], str] | None = None
    # A Python built-in that gives the same result for every argument the checker allows
    # and cannot fail: the compiled engine calls it in place of `impl`.
    direct: str | None = None

    @property
    def pure(self) -> bool:
        """True when a call only computes its result."""
        return self.effects == Effect.NONE


BUILTINS: dict[str, Builtin] = {}


def _register(b: Builtin) -> None:
    assert b.name not in BUILTINS, b.name
    BUILTINS[b.name] = b


def _ordered(t: T.Type) -> bool:
    return t in (T.INT, T.NUM, T.STR) or isinstance(t, T.EnumT) or isinstance(t, T.ErrT)


def result_type(name: str, args: list[T.Type]) -> tuple[T.Type, str | None]:
    """The static result type of a built-in call, or an error message
    (docs/reference/gambit.md#built-ins)."""
    b = BUILTINS.get(name)
    if b is None:
        return T.ERR, f"unknown built-in '{name}'"
    lo, hi = b.arity
    if not lo <= len(args) <= hi:
        want = f"{lo}" if lo == hi else f"{lo} to {hi}"
        return T.ERR, f"'{name}' takes {want} argument{'s' if hi != 1 else ''}, found {len(args)}"
    return b.signature(Args(name, args))


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


# ---------------------------------------------------------------- host-side implementations


def _str(host: Host, args: list[Value]) -> Value:
    return host.display(args[0])


def _next_player(host: Host, args: list[Value]) -> Value:
    p = args[0]
    assert isinstance(p, Inst)
    players = host.instances["Player"]
    return players[p.index % len(players)]


def _print(host: Host, args: list[Value]) -> Value:
    host.output(" ".join(host.display(a) for a in args))
    return None


def _roll(host: Host, args: list[Value]) -> Value:
    n = args[0]
    assert isinstance(n, int)
    if n < 1:
        raise BuiltinError(f"roll({n}) needs n of at least 1")
    return 1 + host.rng.randrange(n)


def _random(host: Host, args: list[Value]) -> Value:
    xs = args[0]
    assert isinstance(xs, tuple)
    if not xs:
        raise BuiltinError("random of an empty list")
    return xs[host.rng.randrange(len(xs))]


def _insert(host: Host, xs: tuple[Value, ...], args: list[Value]) -> tuple[tuple[Value, ...], Value]:
    if len(args) == 1:
        return xs + (args[0],), None
    i = _index(args[1], len(xs) + 1)
    return xs[: i - 1] + (args[0],) + xs[i - 1 :], None


def _remove(host: Host, xs: tuple[Value, ...], args: list[Value]) -> tuple[tuple[Value, ...], Value]:
    for k, x in enumerate(xs):
        if values_equal(x, args[0]):
            return xs[:k] + xs[k + 1 :], None
    raise BuiltinError(f"remove: {display(args[0], host.name_of)} is not in the list")


def _pop(host: Host, xs: tuple[Value, ...], args: list[Value]) -> tuple[tuple[Value, ...], Value]:
    if not xs:
        raise BuiltinError("pop from an empty list")
    if not args:
        return xs[:-1], xs[-1]
    i = _index(args[0], len(xs))
    return xs[: i - 1] + xs[i:], xs[i - 1]


def _clear(host: Host, xs: tuple[Value, ...], args: list[Value]) -> tuple[tuple[Value, ...], Value]:
    return (), None


def _shuffle(host: Host, xs: tuple[Value, ...], args: list[Value]) -> tuple[tuple[Value, ...], Value]:
    lst = list(xs)
    for i in range(len(lst) - 1, 0, -1):
        j = host.rng.randrange(i + 1)
        lst[i], lst[j] = lst[j], lst[i]
    return tuple(lst), None


# ---------------------------------------------------------------- signatures


def _of_list(a: Args) -> bool:
    return isinstance(a.first, T.ListT)


def _min_max(a: Args) -> tuple[T.Type, str | None]:
    if len(a.types) == 2:
        j = T.join(a.types[0], a.types[1])
        return j, a.need(_ordered(j), "two ordered values", j)
    e = a.elem if _of_list(a) else None
    return (e or T.ERR), a.need(e is not None and _ordered(e), "a list of ordered values")


def _sum(a: Args) -> tuple[T.Type, str | None]:
    e = a.elem if _of_list(a) else None
    ok = e in (T.INT, T.NUM) or (_of_list(a) and isinstance(e, T.ErrT))
    return (T.NUM if e == T.NUM else T.INT), a.need(ok, "a list of numbers")


def _div(a: Args) -> tuple[T.Type, str | None]:
    ok = all(x == T.INT or isinstance(x, T.ErrT) for x in a.types)
    return T.INT, a.need(ok, "two ints", T.UnionT((a.types[0], a.types[1])) if not ok else None)


def _abs(a: Args) -> tuple[T.Type, str | None]:
    num = a.first in (T.INT, T.NUM)
    return (a.first if num else T.NUM), a.need(num, "a number")


def _sort(a: Args) -> tuple[T.Type, str | None]:
    e = a.elem
    return a.first, a.need(_of_list(a) and e is not None and _ordered(e), "a list of ordered values")


def _element(a: Args) -> tuple[T.Type, str | None]:
    return (a.elem or T.ERR), a.need(_of_list(a), "a list")


def _takes(result: T.Type, ok: Callable[[T.Type, T.Type | None], bool], what: str) -> Signature:
    """A signature with a fixed result type and one test of the first argument."""
    return lambda a: (result, a.need(ok(a.first, a.elem), what))


def _same(ok: Callable[[T.Type, T.Type | None], bool], what: str) -> Signature:
    """A signature whose result has the first argument's type."""
    return lambda a: (a.first, a.need(ok(a.first, a.elem), what))


def _is_list(t: T.Type, e: T.Type | None) -> bool:
    return isinstance(t, T.ListT)


def _is_str(t: T.Type, e: T.Type | None) -> bool:
    return t == T.STR


def _list_or_str(t: T.Type, e: T.Type | None) -> bool:
    return isinstance(t, T.ListT) or t == T.STR


def _anything(t: T.Type, e: T.Type | None) -> bool:
    return True


ONE = (1, 1)
_PLAYER = T.EntityT("Player")

for _b in [
    Builtin("print", (0, 10**9), lambda a: (T.NOVALUE, None), Hosted(_print), Effect.PRINTS,
            "print the values, separated by spaces"),
    Builtin("len", ONE, _takes(T.INT, lambda t, e: isinstance(t, (T.ListT, T.MultiT)) or t == T.STR,
                               "a list, a string or a multi-value"), Plain(_length),
            summary="the length of a list or string, the size of a multi-value"),
    Builtin("str", ONE, _takes(T.STR, _anything, ""), Hosted(_str),
            summary="the display form of a value"),
    Builtin("as_integer", ONE, _takes(T.INT, _is_str, "str"), Plain(_as_integer),
            summary="parse a decimal integer"),
    Builtin("as_number", ONE, _takes(T.NUM, _is_str, "str"), Plain(_as_number),
            summary="parse a decimal number"),
    Builtin("abs", ONE, _abs, Plain(abs), summary="the absolute value"),
    Builtin("min", (1, 2), _min_max, Plain(lambda *a: _extreme(list(a), False, "min")),
            summary="the smaller of two values, or the least element of a list"),
    Builtin("max", (1, 2), _min_max, Plain(lambda *a: _extreme(list(a), True, "max")),
            summary="the larger of two values, or the greatest element of a list"),
    Builtin("sum", ONE, _sum, Plain(lambda xs: sum(xs) if xs else 0),
            summary="the sum of a list of numbers"),
    Builtin("floor", ONE, _takes(T.INT, lambda t, e: T.is_subtype(t, T.NUM), "a number"),
            Plain(_finite_int(math.floor)), summary="round down to an int"),
    Builtin("ceil", ONE, _takes(T.INT, lambda t, e: T.is_subtype(t, T.NUM), "a number"),
            Plain(_finite_int(math.ceil)), summary="round up to an int"),
    Builtin("round", ONE, _takes(T.INT, lambda t, e: T.is_subtype(t, T.NUM), "a number"),
            Plain(_round), summary="round half away from zero"),
    Builtin("div", (2, 2), _div, Plain(_floor_div), summary="integer division, rounding down"),
    Builtin("ord", ONE, _takes(T.INT, lambda t, e: isinstance(t, T.EnumT), "an enum member"),
            Plain(lambda e: e.ordinal), summary="an enum member's position, from 1"),
    Builtin("first", ONE, _element, Plain(lambda xs: _nonempty(xs, "first")[0]),
            summary="the first element of a list"),
    Builtin("last", ONE, _element, Plain(lambda xs: _nonempty(xs, "last")[-1]),
            summary="the last element of a list"),
    Builtin("reverse", ONE, _same(_is_list, "a list"), Plain(lambda xs: tuple(reversed(xs))),
            summary="a list in reverse order"),
    Builtin("sort", ONE, _sort, Plain(lambda xs: tuple(sorted(xs, key=_key))),
            summary="a list in ascending order"),
    Builtin("slice", (3, 3), _same(_list_or_str, "a list or a string"), Plain(_slice),
            summary="elements (or characters) i..j"),
    Builtin("index_of", (2, 2), _takes(T.optional(T.INT), _list_or_str, "a list or a string"),
            Plain(_index_of), element_arg=True,
            summary="the position of a value (or substring), or none"),
    Builtin("count", (2, 2), _takes(T.INT, _is_list, "a list"),
            Plain(lambda xs, v: sum(1 for x in xs if values_equal(x, v))), element_arg=True,
            summary="how often a value occurs in a list"),
    Builtin("all", ONE, _takes(T.BOOL, lambda t, e: isinstance(t, T.ListT) and e == T.BOOL,
                               "a list of bools"), Plain(lambda xs: all(xs)),
            summary="true when every element is true", direct="all"),
    Builtin("some", ONE, _takes(T.BOOL, lambda t, e: isinstance(t, T.ListT) and e == T.BOOL,
                                "a list of bools"), Plain(lambda xs: any(xs)),
            summary="true when some element is true", direct="any"),
    Builtin("join", (2, 2), _takes(T.STR, lambda t, e: isinstance(t, T.ListT) and e == T.STR,
                                   "a list of strings"), Plain(lambda xs, sep: sep.join(xs)),
            summary="join strings with a separator"),
    Builtin("split", (2, 2), _takes(T.ListT(T.STR), _is_str, "str"), Plain(_split),
            summary="split a string at a separator"),
    Builtin("chars", ONE, _takes(T.ListT(T.STR), _is_str, "str"), Plain(lambda s: tuple(s)),
            summary="the characters of a string"),
    Builtin("upper", ONE, _takes(T.STR, _is_str, "str"), Plain(lambda s: s.upper()),
            summary="a string in upper case"),
    Builtin("lower", ONE, _takes(T.STR, _is_str, "str"), Plain(lambda s: s.lower()),
            summary="a string in lower case"),
    Builtin("next_player", ONE, _takes(_PLAYER, lambda t, e: t == _PLAYER, "a Player"),
            Hosted(_next_player), summary="the player after this one, in seat order"),
    Builtin("insert", (2, 3), _takes(T.NOVALUE, _is_list, "a list"), InPlace(_insert),
            Effect.MODIFIES, "insert a value at the end or at a position", element_arg=True),
    Builtin("remove", (2, 2), _takes(T.NOVALUE, _is_list, "a list"), InPlace(_remove),
            Effect.MODIFIES, "remove the first occurrence of a value", element_arg=True),
    Builtin("pop", (1, 2), _element, InPlace(_pop), Effect.MODIFIES,
            "remove and return the last element, or the one at a position"),
    Builtin("clear", ONE, _takes(T.NOVALUE, _is_list, "a list"), InPlace(_clear),
            Effect.MODIFIES, "empty a list"),
    Builtin("shuffle", ONE, _takes(T.NOVALUE, _is_list, "a list"), InPlace(_shuffle),
            Effect.MODIFIES | Effect.CHANCE, "shuffle a list in place",
            trace=lambda args, shown: f"shuffle {len(args[0])} elements"),  # type: ignore[arg-type]
    Builtin("roll", ONE, _takes(T.INT, lambda t, e: t == T.INT, "an int"), Hosted(_roll),
            Effect.CHANCE, "a random int from 1 to n",
            trace=lambda args, shown: f"roll({args[0]}) -> {shown}"),
    Builtin("random", ONE, _element, Hosted(_random), Effect.CHANCE,
            "a random element of a list", trace=lambda args, shown: f"random -> {shown}"),
]:  # fmt: skip
    _register(_b)

# The name sets the rest of the package asks about, derived from the table.
NAMES = frozenset(BUILTINS)
PLACE = frozenset(n for n, b in BUILTINS.items() if isinstance(b.impl, InPlace))
CHANCE = frozenset(n for n, b in BUILTINS.items() if Effect.CHANCE in b.effects)
EFFECT = frozenset(n for n, b in BUILTINS.items() if b.effects & (Effect.PRINTS | Effect.CHANCE))
PURE_IMPL: dict[str, Callable[..., Any]] = {
    n: b.impl.fn for n, b in BUILTINS.items() if isinstance(b.impl, Plain)
}
