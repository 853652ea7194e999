"""Building blocks of compiled filters: the closure types, lifting, per-position caches.

Every filter compiles to a closure `f(ctx) -> value` where None means "no value" (does
not match). These helpers are shared by the evaluator and the filter table.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from esochess.cqlvars.model import Ctx

Fn = Callable[[Ctx], Any]
Test = Callable[[Ctx], bool]


def lift(f: Fn, g: Callable[[Any], Any]) -> Fn:
    """g applied to f's value; no value stays no value."""

    def lifted(ctx: Ctx) -> Any:
        v = f(ctx)
        return None if v is None else g(v)

    return lifted


def both(left: Fn, right: Fn, g: Callable[[Any, Any], Any]) -> Fn:
    """g of two values; either without a value gives no value (right is not evaluated
    when left has none)."""

    def combined(ctx: Ctx) -> Any:
        a = left(ctx)
        if a is None:
            return None
        b = right(ctx)
        if b is None:
            return None
        return g(a, b)

    return combined


def all_of(args: tuple[Fn, ...], g: Callable[..., Any]) -> Fn:
    """g of every argument's value, or no value when any has none."""

    def combined(ctx: Ctx) -> Any:
        values = []
        for a in args:
            v = a(ctx)
            if v is None:
                return None
            values.append(v)
        return g(ctx, *values)

    return combined


def cached(ctx: Ctx, key: str, compute: Callable[[], Any]) -> Any:
    """A per-position memo: `compute()` runs once per position and key."""
    cache = ctx.game.cache[ctx.pos]
    if key not in cache:
        cache[key] = compute()
    return cache[key]


def has_legal_move(ctx: Ctx) -> bool:
    """Whether the side to move has a legal move (cached per position)."""
    return bool(cached(ctx, "any_legal", lambda: any(True for _ in ctx.board().legal_moves)))


def in_check(ctx: Ctx) -> bool:
    """Whether the side to move is in check (cached per position)."""
    return bool(cached(ctx, "check", ctx.board().is_check))


def is_mate(ctx: Ctx) -> bool:
    return in_check(ctx) and not has_legal_move(ctx)


def is_stalemate(ctx: Ctx) -> bool:
    return not in_check(ctx) and not has_legal_move(ctx)
