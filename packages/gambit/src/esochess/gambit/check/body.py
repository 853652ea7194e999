"""The body checker: one class composed of the rule modules (statements, expressions,
operators, patterns and selectors, calls) over a core of scopes, locals and coercions."""

from __future__ import annotations

from esochess.fen import Note
from esochess.gambit import ast as A
from esochess.gambit import types as T
from esochess.gambit.analysis import (
    SelectionToEntity,
    ToNum,
)
from esochess.gambit.check.calls import CallRules
from esochess.gambit.check.common import (
    entity_of,
    pos_of,
    sel_text,
    stmt_pos,
)
from esochess.gambit.check.context import (
    BodyLike,
    Ctx,
    Local,
    ProgramLike,
)
from esochess.gambit.check.expressions import ExpressionRules
from esochess.gambit.check.operators import OperatorRules
from esochess.gambit.check.patterns import PatternRules
from esochess.gambit.check.statements import StatementRules


class BodyCore:
    """The core of the body checker: scopes, locals, purity and coercions."""

    def __init__(self, pc: ProgramLike, ctx: Ctx) -> None:
        self.pc = pc
        self.sym = pc.sym
        self.an = pc.out
        self.ctx = ctx
        self.scopes: list[dict[str, Local]] = []
        self.nslots = 0
        self.narrow: dict[int, T.Type] = {}
        self.loops: list[list[bool]] = []
        self.returns: list[T.Type] = []
        self.pure_stack: list[str] = []
        self.value_slot = -1

    def err(self: BodyLike, pos: A.Pos, message: str, notes: tuple[Note, ...] = ()) -> None:
        """Record an error."""
        self.pc.err(pos, message, notes)

    def new_slot(self: BodyLike) -> int:
        """Allocate a local slot in the current body."""
        self.nslots += 1
        return self.nslots - 1

    def push(self: BodyLike) -> None:
        """Open a scope."""
        self.scopes.append({})

    def pop(self: BodyLike) -> None:
        """Close the innermost scope."""
        self.scopes.pop()

    def lookup(self: BodyLike, name: str) -> Local | None:
        """The visible local or parameter with this name."""
        for s in reversed(self.scopes):
            if name in s:
                return s[name]
        return None

    def declare_local(self: BodyLike, name: str, t: T.Type, pos: A.Pos, *, slot: int | None = None,
                      readonly: bool = False, allow_value: bool = False) -> int:  # fmt: skip
        """Declare a local (reporting shadowing, docs/reference/gambit.md#scopes) and return its
        slot."""
        if name in ("wins", "loses"):
            self.err(pos, f"'{name}' cannot name a local")
        elif self.lookup(name) is not None:
            self.err(pos, f"'{name}' is already declared")
        elif self.sym.nullary(name) is not None:
            self.err(pos, f"'{name}' is already declared as a property")
        elif name in self.sym.members and not allow_value:
            self.err(pos, f"'{name}' is already declared as an enum member")
        elif self.sym.is_type(name):
            self.err(pos, f"'{name}' is already declared as a type")
        if slot is None:
            slot = self.new_slot()
        self.scopes[-1][name] = Local(slot, t, readonly, pos)
        return slot

    def local_type(self: BodyLike, loc: Local) -> T.Type:
        """The static type of a local, narrowed where a test holds."""
        return self.narrow.get(loc.slot, loc.type)

    @property
    def pure(self: BodyLike) -> bool:
        """True inside a pure context (docs/reference/gambit.md#purity)."""
        return bool(self.pure_stack) or self.ctx.kind in ("fn", "trait", "default", "notation")

    def label(self: BodyLike) -> str:
        """How purity messages name the current context."""
        return "filter body" if self.pure_stack else self.ctx.label

    def impure(self: BodyLike, pos: A.Pos, what: str) -> None:
        """Report `what` when the current context is pure."""
        if self.pure:
            self.err(pos, f"{self.label()} cannot {what}")

    def coerce(self: BodyLike, e: A.Expr, t: T.Type, target: T.Type, pos: A.Pos | None = None) -> None:
        """Check that a value of type `t` can be stored where `target` is expected."""
        at = pos or pos_of(e)
        if isinstance(t, T.ErrT) or isinstance(target, T.ErrT):
            return
        if isinstance(e, A.SelectorExpr) or (
            isinstance(e, A.Name) and isinstance(t, T.ListT) and e.name in self.sym.entities
            and self.lookup(e.name) is None
        ):
            ent = e.selector.entity if isinstance(e, A.SelectorExpr) else e.name
            base = T.strip_none(target)
            if ent in {entity_of(m) for m in T.members(base)}:
                self.an.conversions[e] = SelectionToEntity(ent, T.contains_none(target), sel_text(self, e))
                return
        if t == T.NOVALUE:
            self.err(at, "this call returns no value")
            return
        if t == T.ANY and target != T.ANY:
            self.err(at, f"narrow this any value with 'is' first (expected {T.show(target)})")
            return
        if T.is_subtype(t, target):
            if t == T.INT and T.NUM in T.members(target) and T.INT not in T.members(target):
                self.an.conversions[e] = ToNum()
            elif isinstance(t, T.ListT) and isinstance(e, A.ListLit):
                self.widen_list(e, t, target)
            return
        if isinstance(t, T.ListT) and isinstance(target, T.ListT) and isinstance(e, A.ListLit):
            if all(T.is_subtype((self.an.types.get(x) or T.ERR), target.elem)
                   for x in e.items):  # fmt: skip
                return
        self.err(at, f"type mismatch: expected {T.show(target)}, found {T.show(t)}")

    def widen_list(self: BodyLike, e: A.ListLit, t: T.ListT, target: T.Type) -> None:
        """Record int-to-num conversions of the elements of a list literal."""
        if isinstance(target, T.ListT) and target.elem == T.NUM and t.elem == T.INT:
            for x in e.items:
                self.an.conversions[x] = ToNum()

    def body_block(self: BodyLike, b: A.Block, declared: T.Type | None, name: str,
                   notation: bool = False) -> T.Type:  # fmt: skip
        """Check a body block; return the declared or inferred return type."""
        term = self.block(b, new_scope=True)
        if notation:
            return declared or T.ERR
        if declared is not None:
            if not term and not T.contains_none(declared) and declared != T.NOVALUE:
                self.err(b.pos, f"missing return in '{name}'")
            return declared
        vals = [r for r in self.returns if r != T.NOVALUE]
        if not vals:
            return T.NOVALUE
        ret = vals[0]
        for r in vals[1:]:
            ret = T.join(ret, r)
        if not term:
            ret = T.join(ret, T.NONE)
        return ret

    def block(self: BodyLike, b: A.Block, new_scope: bool = True) -> bool:
        """Check a block; True when it always terminates."""
        if new_scope:
            self.push()
        saved = dict(self.narrow)
        term = False
        for s in b.stmts:
            if term:
                self.pc.warn(stmt_pos(s), "unreachable statement")
                term = False
            term = self.stmt(s) or term
        self.narrow = saved
        if new_scope:
            self.pop()
        return term


class BodyChecker(StatementRules, ExpressionRules, OperatorRules, PatternRules, CallRules, BodyCore):
    """Checks one body (function, procedure, trait, default or notation)."""
