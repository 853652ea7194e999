"""Patterns and selectors -> run-time tests and memoised selections."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from esochess.gambit import ast as A
from esochess.gambit import types as T
from esochess.gambit.compiler.common import (
    selector_of,
)
from esochess.gambit.compiler.context import CompilerLike
from esochess.gambit.compiler.runtime import (
    COMPARE,
    type_test,
)
from esochess.gambit.machine import Machine
from esochess.gambit.program import (
    Ev,
    Prop,
)
from esochess.gambit.values import (
    UNSET,
    Inst,
    is_superset,
)


class PatternRules:
    """Patterns and selectors -> run-time tests and memoised selections."""

    def pattern(self: CompilerLike, p: A.Pattern) -> Callable[[Machine, list[Any], Any], bool]:
        """A matcher `f(m, locals, value) -> bool` (values evaluated at each test)."""
        leaves, test = self.pattern_parts(p)

        def match(m: Machine, L: list[Any], v: Any) -> bool:
            return test(m, v, [f(m, L) for f in leaves])

        return match

    def pattern_parts(
        self: CompilerLike, p: A.Pattern, base: int = 0
    ) -> tuple[list[Ev], Callable[[Machine, Any, Sequence[Any]], bool]]:
        """Leaf value closures and a tester over the evaluated leaves (offsets from base)."""
        if isinstance(p, A.PAlt):
            leaves: list[Ev] = []
            tests = []
            for alt in p.alts:
                lv, t = self.pattern_parts(alt, base + len(leaves))
                leaves += lv
                tests.append(t)
            return leaves, lambda m, v, vals: any(t(m, v, vals) for t in tests)
        if isinstance(p, A.PNot):
            lv, t = self.pattern_parts(p.inner, base)
            return lv, lambda m, v, vals: not t(m, v, vals)
        if isinstance(p, A.PNone):
            return [], lambda m, v, vals: v is None
        if isinstance(p, A.PAny):
            return [], lambda m, v, vals: True
        if isinstance(p, A.PRange):
            k = base

            def in_range(m: Machine, v: Any, vals: Sequence[Any]) -> bool:
                return isinstance(v, int) and not isinstance(v, bool) and (
                    vals[k] <= v <= vals[k + 1]
                )

            return [self.expr(p.lo), self.expr(p.hi)], in_range
        if isinstance(p, A.PType):
            ptype = self.an.pattern_types[p]
            if isinstance(p.type, A.TSel) or (
                isinstance(p.type, A.TSuffix) and isinstance(selector_of(p.type), A.Selector)
            ):
                sel = selector_of(p.type)
                assert sel is not None
                tester = self.sel_tester(sel, T.contains_none(ptype))
                return [], lambda m, v, vals: (
                    isinstance(v, Inst) and v.type_name == sel.entity and tester(m, v)
                ) or (v is None and T.contains_none(ptype))
            check = type_test(ptype)
            return [], lambda m, v, vals: check(v)
        k = base
        return [self.expr(p.value)], lambda m, v, vals: is_superset(v, vals[k]) if v is not None \
            else vals[k] is None  # fmt: skip

    def selector_entries(
        self: CompilerLike, sel: A.Selector, only: bool | None = None
    ) -> tuple[list[Ev], Callable[[Machine, Any, Sequence[Any]], bool]]:
        """Value closures (of every entry, in order) and the instance test of the entries
        on fixed properties (`only=True`), on other properties (False), or of all (None)."""
        leaves: list[Ev] = []
        tests: list[Callable[[Machine, Any, Sequence[Any]], bool]] = []
        for en in sel.entries:
            prop = self.props[self.an.entry_props[en].pid]
            pos = en.pos

            def read(m: Machine, inst: Any, prop: Prop = prop, pos: A.Pos = pos) -> Any:
                if prop.pid == 0:
                    return inst.index
                v = m.store[prop.pid].get(inst, UNSET)
                return v if v is not UNSET else m.read_prop(prop, (inst,), pos)

            t = self.entry_test(en, read, leaves)
            if only is None or only == (prop.kind == "fixed"):
                tests.append(t)

        def test(m: Machine, x: Any, vals: Sequence[Any]) -> bool:
            for t in tests:
                if not t(m, x, vals):
                    return False
            return True

        return leaves, test

    def entry_test(
        self: CompilerLike, en: A.Entry, read: Callable[[Machine, Any], Any], leaves: list[Ev]
    ) -> Callable[[Machine, Any, Sequence[Any]], bool]:
        """The test of one selector entry; appends its value closures to `leaves`."""
        if en.op == "true":
            return lambda m, x, vals: read(m, x) is True
        if en.op == "false":
            return lambda m, x, vals: read(m, x) is False
        if en.op == "pat":
            assert en.pattern is not None
            lv, t = self.pattern_parts(en.pattern, len(leaves))
            leaves += lv
            return lambda m, x, vals: t(m, read(m, x), vals)
        assert en.value is not None
        k = len(leaves)
        leaves.append(self.expr(en.value))
        cmp = COMPARE[en.op]
        return lambda m, x, vals: cmp(read(m, x), vals[k])

    def selector(self: CompilerLike, sel: A.Selector) -> Ev:
        """Compile a selector expression: the matching instances in creation order.

        The entries on fixed properties select a subset that changes only when instances
        are created: it is cached per (selector, their values, instance-set version), and
        the other entries are tested on that subset only.
        """
        leaves, fixed_test = self.selector_entries(sel, only=True)
        _, dynamic_test = self.selector_entries(sel, only=False)
        ent = sel.entity
        kinds = [self.props[self.an.entry_props[en].pid].kind == "fixed" for en in sel.entries]
        has_fixed, has_dynamic = any(kinds), not all(kinds)
        fixed_leaves = self.fixed_leaf_indices(sel)
        key_id = id(sel)
        memo = self.memo

        def select(m: Machine, L: list[Any]) -> Any:
            vals = [f(m, L) for f in leaves]
            if has_fixed:
                key = (key_id, m.inst_version, *[vals[i] for i in fixed_leaves])
                base = memo.get(key)
                if base is None:
                    base = tuple(x for x in m.instances[ent] if fixed_test(m, x, vals))
                    memo[key] = base
            else:
                base = m.instances[ent]
            if has_dynamic:
                return tuple(x for x in base if dynamic_test(m, x, vals))
            return base

        return select

    def fixed_leaf_indices(self: CompilerLike, sel: A.Selector) -> list[int]:
        """Positions, among a selector's entry values, of those of fixed-property entries."""
        out: list[int] = []
        count = 0
        for en in sel.entries:
            if en.op == "pat" and en.pattern is not None:
                n = len(self.pattern_parts(en.pattern, 0)[0])
            elif en.op in ("true", "false"):
                n = 0
            else:
                n = 1
            if self.props[self.an.entry_props[en].pid].kind == "fixed":
                out.extend(range(count, count + n))
            count += n
        return out
