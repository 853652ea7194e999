"""The helpers generated code calls: the same run-time rules as the interpreter's closures
(esochess.gambit.compiler.runtime), in the shape a generated call site wants."""

from __future__ import annotations

from itertools import filterfalse
from typing import Any

from esochess.gambit import versions
from esochess.gambit.compiler.runtime import (
    call_hosted,
    call_known,
    check_index,
    dispatch,
    end_game,
    iterable,
    ordinal_key,
    plain,
    truthy,
)
from esochess.gambit.limits import OUT_OF_MEMORY
from esochess.gambit.machine import MEMO_LIMIT, Machine
from esochess.gambit.program import Code, Overload
from esochess.gambit.results import GameEnd, IllegalSignal, Result, RunError
from esochess.gambit.values import UNSET, NumberTooLong, is_superset, values_equal


def tested(
    m: Machine, name: str, group: list[Overload], vals: list[Any], pos: tuple[int, int]
) -> Code:
    """The code of a one-overload call whose entity parameters are tested: the overload
    when every test passes, else dispatch's error."""
    one = group[0]
    for i, t in one.tests:
        if not t(m, vals[i]):
            dispatch(m, name, group, vals, pos, strict=False)
    return one.code


def passes(m: Machine, group: list[Overload], vals: list[Any]) -> bool:
    """True when the one overload's parameter tests all pass."""
    for i, t in group[0].tests:
        if not t(m, vals[i]):
            return False
    return True


def memo_miss(
    m: Machine, code: Code, vals: list[Any], pos: tuple[int, int], table: dict[Any, Any],
    key: tuple[Any, ...],
) -> Any:  # fmt: skip
    """A memoised body's result computed by `Machine.call`, which records it with the call
    depth it needed; that entry is copied into the body's own table."""
    args = tuple(vals)
    value = m.call(code, vals, pos)
    entry = m.program.memo.get((code, args, key[-1]))
    if entry is not None:
        if len(table) >= MEMO_LIMIT:
            table.clear()
        table[key] = entry
    return value


def index(xs: Any, i: Any, pos: tuple[int, int]) -> Any:
    """`xs[i]`, 1-based, with the interpreter's range error."""
    return xs[check_index(i, len(xs), pos) - 1]


def to_num(v: Any) -> Any:
    """The implicit int -> num conversion."""
    return float(v) if isinstance(v, int) and not isinstance(v, bool) else v


def draw(m: Machine, pos: tuple[int, int]) -> None:
    """`draw`: end the game without a winner."""
    raise GameEnd(Result(m.seats, (), True, pos[0], pos[1]))


def illegal(pos: tuple[int, int]) -> None:
    """`illegal`."""
    raise IllegalSignal(pos)


def superset(v: Any, pattern_value: Any) -> bool:
    """A value pattern's test (`is` rule; `none` matches only none)."""
    return is_superset(v, pattern_value) if v is not None else pattern_value is None


def one(
    xs: tuple[Any, ...], optional: bool, pos: tuple[int, int], text: str, entity: str
) -> Any:
    """A selection stored where one instance is expected, when it did not match exactly
    one: none for an optional target that matched nothing, else the interpreter's error."""
    if not xs and optional:
        return None
    raise RunError(pos, f"selector {text} matched {len(xs)} instances; exactly one "
                   f"{entity} was expected")  # fmt: skip


def span(lo: int, hi: int, pos: tuple[int, int]) -> tuple[int, ...]:
    """`lo..hi` of two ints."""
    try:
        return tuple(range(lo, hi + 1))
    except MemoryError:
        raise RunError(pos, OUT_OF_MEMORY) from None


def peak(m: Machine, level: int) -> bool:
    """Record `level` as the deepest call level reached (an inlined leaf call); True."""
    m.peak = level
    return True


def up(wrapper: Any, m: Machine, pos: tuple[int, int], *args: Any) -> Any:
    """A wrapper's call from a body that runs without moving the depth count: the count
    one deeper for the call, as the body's own level is. `args` is the argument list, or
    the arguments themselves for a positional wrapper (codegen/calls.py)."""
    m.depth += 1
    try:
        return wrapper(m, pos, *args)
    finally:
        m.depth -= 1


def table(
    m: Machine, tab: dict[Any, Any], key: Any, fill: Any, L: list[Any], xs: Any, level: int,
) -> tuple[Any, int] | None:  # fmt: skip
    """A map's table of static calls for `key` (codegen/tables.py), made by `fill` at
    call level `level` and stored with the depth it needed; None when a call failed
    (the map then runs as before, and fails where it would have)."""
    outer = m.peak
    m.peak = level
    try:
        rows = fill(m, L, xs)
    except (RunError, RecursionError, MemoryError, NumberTooLong):
        return None
    finally:
        used = m.peak - level
        if outer > m.peak:
            m.peak = outer
    if len(tab) >= MEMO_LIMIT:
        tab.clear()
    entry = (rows, used)
    tab[key] = entry
    return entry


HELPERS: dict[str, Any] = {
    "_table": table,
    "_up": up,
    "_span": span,
    "_filterfalse": filterfalse,
    "_peak": peak,
    "_one": one,
    "_call": call_known,
    "_tr": truthy,
    "_eq": values_equal,
    "_ord": ordinal_key,
    "_iter": iterable,
    "_plain": plain,
    "_tested": tested,
    "_passes": passes,
    "_dispatch": dispatch,
    "_hosted": call_hosted,
    "_memo_miss": memo_miss,
    "_index": index,
    "_superset": superset,
    "_num": to_num,
    "_end": end_game,
    "_draw": draw,
    "_illegal": illegal,
    "UNSET": UNSET,
    "RunError": RunError,
    "_fresh": versions.fresh,
}
