"""Static functions (docs/reference/gambit.md#properties) and endless loops: whole-body walks over
the analysis."""

from __future__ import annotations

from typing import Any

from esochess.gambit import ast as A
from esochess.gambit import types as T
from esochess.gambit.analysis import (
    Analysis,
    EntityList,
    NaryRef,
    PropRef,
    UserCall,
    ValueCall,
)
from esochess.gambit.resolver import (
    Symbols,
)


def static_function_names(sym: Symbols, an: Analysis, *, strict: bool) -> set[str]:
    """Function sets whose bodies (transitively) read no state and no traits.

    `strict` is the rule for property defaults (docs/reference/gambit.md#properties): no selectors,
    no instance lists and no notations either. Otherwise instance lists and static selectors are
    allowed: such a function depends only on its arguments and the set of instances.
    """
    reads: set[str] = set()
    calls: dict[str, set[str]] = {}
    for name, fs in sym.funcs.items():
        if not fs[0].pure:
            continue
        found: set[str] = set()
        if not all(static_node(f.decl, an, found, strict) for f in fs):
            reads.add(name)
        calls[name] = found
    static = {n for n in calls if n not in reads}
    changed = True
    while changed:
        changed = False
        for n in list(static):
            if not calls[n] <= static:
                static.discard(n)
                changed = True
    return static


def static_node(node: object, an: Analysis, called: set[str], strict: bool) -> bool:
    """False when `node` may read state or traits (or, if strict, dynamic data at all)."""
    if isinstance(node, (A.Name, A.Member)):
        info = an.resolved.get(node)
        if isinstance(info, (PropRef, NaryRef)) and info.prop.kind != "fixed":
            return False
        if strict and isinstance(info, EntityList):
            return False
    elif isinstance(node, A.Entry):
        prop = an.entry_props.get(node)
        if prop is None or prop.kind != "fixed":
            return False
    elif isinstance(node, A.SelectorExpr) and strict:
        return False
    elif isinstance(node, A.NotationLit):
        return False
    elif isinstance(node, A.Call):
        target = an.calls.get(node)
        if isinstance(target, ValueCall):
            return False
        if isinstance(target, UserCall):
            called.add(target.name)
    elif isinstance(node, A.PType):
        if isinstance(an.pattern_types.get(node), T.SelT):
            return False
    if isinstance(node, (list, tuple)):
        return all(static_node(x, an, called, strict) for x in node)
    if hasattr(node, "__dataclass_fields__"):
        return all(
            static_node(getattr(node, f), an, called, strict)
            for f in node.__dataclass_fields__
            if f != "pos"
        )
    return True


def loop_exits(b: A.Block, an: Analysis, sym: Symbols) -> bool:
    """True when a loop body may leave the loop: break, return, a game end, or a call of
    a procedure (which might end the game; functions and built-ins cannot)."""
    found = False

    def walk(node: Any, in_nested_loop: bool) -> None:
        nonlocal found
        if found:
            return
        if isinstance(node, A.Simple) and node.kind in ("draw", "illegal"):
            found = True
        elif isinstance(node, A.Simple) and node.kind == "break" and not in_nested_loop:
            found = True
        elif isinstance(node, (A.Return, A.EndStmt)):
            found = True
        elif isinstance(node, A.Call):
            target = an.calls.get(node)
            if target is None or isinstance(target, ValueCall) or (
                isinstance(target, UserCall) and not sym.funcs[target.name][0].pure
            ):
                found = True
        if isinstance(node, (list, tuple)):
            for x in node:
                walk(x, in_nested_loop)
            return
        if hasattr(node, "__dataclass_fields__"):
            nested = in_nested_loop or isinstance(node, (A.Loop, A.While, A.For))
            for fname in node.__dataclass_fields__:
                if fname != "pos":
                    walk(getattr(node, fname), nested if node is not b else in_nested_loop)

    for s in b.stmts:
        walk(s, False)
    return found
