"""Pattern and selector rules (docs/reference/gambit.md#selectors), including constant entries."""

from __future__ import annotations

from esochess.gambit import ast as A
from esochess.gambit import types as T
from esochess.gambit.check.constants import (
    NotConstant,
    const_pattern_check,
    const_value,
)
from esochess.gambit.check.context import (
    BodyLike,
    Stop,
)
from esochess.gambit.resolver import (
    PropInfo,
    resolve_type,
)


class PatternRules:
    """Pattern and selector rules (docs/reference/gambit.md#selectors), including constant
    entries."""

    def pattern(self: BodyLike, p: A.Pattern, subject: T.Type) -> T.Type | None:
        """Check a pattern against a subject type; return the narrowed type if any."""
        if isinstance(p, A.PAlt):
            ts = [self.pattern(a, subject) for a in p.alts]
            if all(t is not None for t in ts):
                return T.union([t for t in ts if t is not None])
            return None
        if isinstance(p, A.PNot):
            self.pattern(p.inner, subject)
            return None
        if isinstance(p, A.PNone):
            if not T.contains_none(subject):
                self.err(p.pos, f"pattern can never match a value of type {T.show(subject)}")
            return T.NONE
        if isinstance(p, A.PAny):
            return None
        if isinstance(p, A.PRange):
            for x in (p.lo, p.hi):
                xt = self.ex(x, T.INT)
                self.coerce(x, xt, T.INT)
            if not T.overlap(subject, T.INT):
                self.err(p.pos, f"pattern can never match a value of type {T.show(subject)}")
            return None
        if isinstance(p, A.PType):
            t = resolve_type(self.sym, p.type, allow_selector=True)
            self.an.pattern_types[p] = t
            if isinstance(p.type, A.TSel):
                self.selector(p.type.selector, pattern=True)
            if not T.overlap(subject, t):
                self.err(p.pos, f"pattern can never match a value of type {T.show(subject)}")
            if isinstance(t, T.SelT):
                return T.EntityT(t.entity)
            return t
        vt = self.ex(p.value, subject)
        if isinstance(vt, T.ListT) and not isinstance(subject, T.ListT):
            self.err(p.pos, "a list is not a pattern; compare with '=='")
            raise Stop()
        if not T.overlap(subject, vt):
            self.err(p.pos, f"pattern can never match a value of type {T.show(subject)}")
            raise Stop()
        return None

    def selector(self: BodyLike, s: A.Selector, *, pattern: bool, param: bool = False) -> None:
        """Check a selector's entries (docs/reference/gambit.md#selectors and
        docs/reference/gambit.md#selector-parameters for parameters)."""
        if self.ctx.static and not pattern:
            self.err(s.pos, f"{self.label()} must be static: it evaluates a selector")
        for en in s.entries:
            p = self.sym.prop(en.prop, (s.entity,))
            if p is None:
                others = [q for q in self.sym.props_named(en.prop) if s.entity in q.params]
                if others and len(others[0].params) > 1:
                    rel = " and ".join(others[0].params)
                    self.err(en.pos, f"selector entries must be unary properties of {s.entity}; "
                             f"'{en.prop}' relates {rel}")  # fmt: skip
                else:
                    self.err(en.pos, f"{s.entity} has no property '{en.prop}'")
                continue
            self.an.entry_props[en] = p
            if param and p.kind != "fixed":
                self.err(en.pos, f"selector parameters must be static; '{en.prop}' is a "
                         f"{p.kind} property")  # fmt: skip
                continue
            if param and not self.constant_entry(en, p):
                self.err(en.pos, f"selector parameters must be static; the entry '{en.prop}' "
                         "must compare with a constant")  # fmt: skip
                continue
            try:
                if en.op in ("true", "false"):
                    if p.type not in (T.BOOL, T.optional(T.BOOL)):
                        self.err(en.pos, f"'{en.prop}' is not a bool property; write "
                                 f"'{en.prop}: value'")  # fmt: skip
                elif en.op == "pat":
                    assert en.pattern is not None
                    self.pattern(en.pattern, p.type)
                else:
                    assert en.value is not None
                    vt = self.ex(en.value, p.type)
                    if en.op in ("==", "!="):
                        if not T.overlap(p.type, vt):
                            self.err(en.pos, f"cannot compare {T.show(p.type)} with "
                                     f"{T.show(vt)}")  # fmt: skip
                    else:
                        base = T.strip_none(p.type)
                        ok = base in (T.INT, T.NUM, T.STR) or isinstance(base, T.EnumT)
                        if not ok:
                            self.err(en.pos, f"'{en.op}' needs an ordered property; "
                                     f"'{en.prop}' is {T.show(p.type)}")  # fmt: skip
            except Stop:
                continue

    def constant_entry(self: BodyLike, en: A.Entry, p: PropInfo) -> bool:
        """True when a parameter selector entry compares with constants only."""
        base = T.strip_none(p.type)
        only_none = en.op == "pat" and isinstance(en.pattern, (A.PNone,)) or (
            en.op == "pat" and isinstance(en.pattern, A.PNot)
            and isinstance(en.pattern.inner, A.PNone)
        )
        if not only_none and (base == T.NUM or isinstance(base, (T.EntityT, T.ListT, T.StructT))):
            return False
        try:
            if en.op == "pat" and en.pattern is not None:
                const_pattern_check(self.pc, en.pattern, p.type)
            elif en.value is not None:
                const_value(self.pc, en.value, p.type)
        except NotConstant:
            return False
        return True
