"""Which `print` calls a silent random playout may skip: those whose arguments cannot fail.

A random playout (`gambit playout`) shows nothing, so evaluating a `print`'s arguments only
matters for the run-time errors it could raise: the playout must report them as
`gambit run --players random` would. This analysis proves, conservatively, that the
arguments of a `print` cannot fail, in one of two ways:

* **always**: no operation in them can fail whatever the game state (reading a property
  with a zero value, comparing, integer sums, joining strings, mapping over a selection);
* **keyed**: every operation that can fail (division, indexing, a selection that must be
  one instance, showing a number) works on values computed only from the caller's
  locals, the entity instances and their fixed properties -- never from state, and not
  under a condition on the state. Whether they fail is then a function of those locals
  and of the instance set, so once the arguments were evaluated without an error for
  some values of the locals, they cannot fail for the same values while the instance
  version (versions.py) is the same.

A call of a procedure without arguments whose body only prints (`show_board()`) is
proven the same way as a whole, keyed by the instance version alone.

Anything the rules below do not know (`while` loops, recursion, overloads chosen at run
time, calls through values, most built-ins) is *unproven* and always evaluated. Running
out of memory is not counted as failing (any allocation can). Calls nest at most `height`
deep, so the call depth limit is checked at run time.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from esochess.gambit import ast as A
from esochess.gambit import types as T
from esochess.gambit.analysis import (
    Analysis,
    BoolList,
    BuiltinCall,
    EntityList,
    EnumList,
    EnumRef,
    FieldRef,
    FuncRef,
    LocalRef,
    PropRef,
    SelectionToEntity,
    ToNum,
    UserCall,
)
from esochess.gambit.check.common import zero_missing
from esochess.gambit.limits import CALL_DEPTH_LIMIT
from esochess.gambit.machine import Machine
from esochess.gambit.program import Ev
from esochess.gambit.resolver import PropInfo, Symbols
from esochess.gambit.values import EnumVal, Inst

SAFE, KEYED, UNPROVEN = 0, 1, 2


@dataclass(frozen=True)
class Verdict:
    """How an expression can fail, whether its value depends on the state, and how deeply
    it nests calls."""

    level: int = SAFE
    tainted: bool = False
    height: int = 0

    def __or__(self, other: Verdict) -> Verdict:
        return Verdict(max(self.level, other.level), self.tainted or other.tainted,
                       max(self.height, other.height))  # fmt: skip


NO = Verdict(UNPROVEN, True, 0)


@dataclass(frozen=True)
class Proof:
    """A `print` (or a call of a procedure that only shows things) that cannot fail:
    always (`slots` empty and not `keyed`), or for given values of the locals in `slots`
    once it ran without an error."""

    keyed: bool
    slots: tuple[int, ...]
    height: int
    # Keys that ran without an error, shared by every call of one procedure.
    seen: set[Any] = field(default_factory=set, compare=False, repr=False)


# Displaying a value of these types cannot fail (no `name` trait, no huge number).
_SHOWN_SAFELY = (T.STR, T.BOOL, T.NONE)
# Operators that cannot fail on checked operands.
_SAFE_OPS = frozenset({"==", "!="})
_INT_OPS = frozenset({"+", "-", "*", "/", "%", "<", "<=", ">", ">="})
_ORDERING = frozenset({"<", "<=", ">", ">="})
_ENTRY_OPS = frozenset({"pat", "==", "!=", "<", "<=", ">", ">="})


@dataclass
class QuietAnalysis:
    """The proof of one program's `print` calls (see the module docstring)."""

    an: Analysis
    sym: Symbols
    _active: set[tuple[str, tuple[bool, ...]]] = field(default_factory=set)
    _calls: dict[str, Proof | None] = field(default_factory=dict)
    _reads: set[int] = field(default_factory=set)
    # How many enclosing conditions depend on the state: an operation that can fail runs
    # there or not depending on the state, so an earlier success proves nothing.
    _pc: int = 0

    def failing(self, v: Verdict) -> Verdict:
        """An operation that can fail, on operands of verdict `v`."""
        level = UNPROVEN if v.tainted or self._pc else KEYED
        return Verdict(max(v.level, level), v.tainted, v.height)

    def guarded(self, cond: Verdict, e: A.Expr, env: dict[int, bool] | None) -> Verdict:
        """The verdict of `e`, evaluated or not depending on a condition of verdict `cond`."""
        self._pc += cond.tainted
        try:
            v = self.expr(e, env)
        finally:
            self._pc -= cond.tainted
        return Verdict(v.level, v.tainted or cond.tainted, v.height)

    def prove_print(self, args: list[A.Expr]) -> Proof | None:
        """The proof for a `print` with these arguments, or None when it may fail."""
        self._reads, self._pc = set(), 0
        v = Verdict()
        for a in args:
            v = v | self.shown(self.an.types.get(a), self.expr(a, None))
        if v.level == UNPROVEN:
            return None
        keyed = v.level == KEYED
        return Proof(keyed, tuple(sorted(self._reads)) if keyed else (), v.height)

    def shown(self, t: T.Type | None, v: Verdict) -> Verdict:
        """Displaying a value of type `t` and verdict `v` (`print`, `str`)."""
        if t is None:
            return NO
        for mt in T.members(t):
            if mt in _SHOWN_SAFELY or isinstance(mt, T.EnumT):
                continue
            if mt in (T.INT, T.NUM):  # a number can be too long to show
                v = self.failing(v)
            elif not isinstance(mt, T.EntityT) or any(
                p.name == "name" and p.params == (mt.name,) for p in self.sym.props
            ):
                return NO  # a `name` property may fail; lists and structs are not looked into
        return v

    def prove_call(self, e: A.Expr) -> Proof | None:
        """The proof for a statement calling a procedure without arguments that only shows
        things (`show_board()`): it does nothing but print, and cannot fail."""
        if not isinstance(e, A.Call) or e.args or not isinstance(e.func, A.Name):
            return None
        target = self.an.calls.get(e)
        if not isinstance(target, UserCall):
            return None
        group = self.sym.funcs.get(target.name, [])
        if len(group) != 1 or group[0].params or not isinstance(group[0].decl.body, A.Block):
            return None
        if target.name not in self._calls:
            self._reads, self._pc = set(), 0
            v = self._body(("fn", target.name), None, group[0].decl.body, [])
            proof = None if v.level == UNPROVEN else Proof(v.level == KEYED, (), v.height)
            self._calls[target.name] = proof
        return self._calls[target.name]

    # ------------------------------------------------------------------ expressions
    def expr(self, e: A.Expr, env: dict[int, bool] | None) -> Verdict:
        """The verdict of `e`; `env` gives the taint of the callee's locals (None: the
        print's own frame, whose locals are keys and are recorded in `_reads`)."""
        v = self._expr(e, env)
        conv = self.an.conversions.get(e)
        if isinstance(conv, SelectionToEntity):
            return self.failing(v)
        if conv is not None and not isinstance(conv, ToNum):
            return NO
        return v

    def _expr(self, e: A.Expr, env: dict[int, bool] | None) -> Verdict:
        match e:
            case A.Lit():
                return Verdict()
            case A.Name():
                return self._name(e, env)
            case A.Member():
                return self._member(e, env)
            case A.Binary(op="and" | "or"):
                left = self.expr(e.left, env)
                return left | self.guarded(left, e.right, env)
            case A.Binary(op=op):
                v = self.expr(e.left, env) | self.expr(e.right, env)
                if op in _SAFE_OPS:
                    return v
                if op == "+" and self.an.types.get(e) in (T.STR,):
                    return v
                if op == ".." and self._ints(e.left, e.right):
                    return self.failing(v)  # a range can be too long
                if op in _INT_OPS and self._ints(e.left, e.right):
                    # Only `/` and `%` fail on ints (division by zero).
                    return self.failing(v) if op in ("/", "%") else v
                return NO
            case A.Unary(op="not"):
                return self.expr(e.operand, env)
            case A.Unary(op="-") if self._ints(e.operand):
                return self.expr(e.operand, env)
            case A.IfExpr():
                if e.arms[-1].cond is not None:
                    return NO
                # Each arm runs only when the conditions before it (and its own) say so.
                v = control = Verdict()
                for arm in e.arms:
                    if arm.cond is not None:
                        control = control | self.guarded(control, arm.cond, env)
                    v = v | control | self.guarded(control, arm.value, env)
                return v
            case A.ListLit():
                v = Verdict()
                for item in e.items:
                    v = v | self.expr(item, env)
                return v
            case A.FilterMap(kind="map" | "filter"):
                src = self.expr(e.source, env)
                slot = self.an.binders.get(e)
                if slot is None:
                    return NO
                inner = dict(env or {})
                inner[slot] = src.tainted
                # The body runs once per element: as often as the state says, when tainted.
                return src | self.guarded(src, e.body, inner)
            case A.Index() if self._ints(e.index) and isinstance(self.an.types.get(e.obj), T.ListT):
                return self.failing(self.expr(e.obj, env) | self.expr(e.index, env))
            case A.SelectorExpr():
                return self._selector(e.selector, env)
            case A.Call():
                return self._call(e, env)
            case _:
                return NO

    def _ints(self, *es: A.Expr) -> bool:
        return all(self.an.types.get(x) == T.INT for x in es)

    def _name(self, e: A.Name, env: dict[int, bool] | None) -> Verdict:
        match self.an.resolved.get(e):
            case LocalRef(slot):
                if env is None:
                    self._reads.add(slot)
                    return Verdict()
                return Verdict(SAFE, env.get(slot, True))
            case PropRef(prop) if not prop.params:
                return self._read(prop, Verdict())
            case EnumRef() | EntityList() | EnumList() | BoolList() | FuncRef():
                return Verdict()
            case _:
                return NO

    def _member(self, e: A.Member, env: dict[int, bool] | None) -> Verdict:
        obj_t = self.an.types.get(e.obj)
        if obj_t is None or T.contains_none(obj_t) or isinstance(e.obj, A.TupleExpr):
            return NO
        obj = self.expr(e.obj, env)
        match self.an.resolved.get(e):
            case PropRef(prop) if len(prop.params) == 1:
                return self._read(prop, obj)
            case FieldRef():
                return obj
            case _:
                return NO

    def _read(self, prop: PropInfo, of: Verdict) -> Verdict:
        """Reading property `prop` of an entity (or a nullary one) of verdict `of`."""
        if prop.pid == 0:
            return of
        match prop.kind:
            case "state":
                if zero_missing(self.sym, prop.type):
                    return NO
                return Verdict(of.level, True, of.height)
            case "fixed":
                # Fixed values come with the instance: a function of the instance set.
                if prop.decl.default is None and zero_missing(self.sym, prop.type):
                    return self.failing(of)
                if prop.decl.default is not None and not prop.params:
                    return of | self.expr(prop.decl.default, {})
                return of if prop.decl.default is None else NO
            case "trait":
                return self._body(("trait", prop.name), prop.decl.default, prop.decl.body,
                                  [of.tainted] * len(prop.params)) | of  # fmt: skip
            case _:
                return NO

    def _selector(self, sel: A.Selector, env: dict[int, bool] | None) -> Verdict:
        v = Verdict()
        base = self._pc
        try:
            for entry in sel.entries:
                v = v | self._entry(entry, env)
                # An instance's later entries are read only when its earlier ones matched.
                self._pc += v.tainted
        finally:
            self._pc = base
        return v

    def _entry(self, entry: A.Entry, env: dict[int, bool] | None) -> Verdict:
        """One selector entry: its property read (of every instance) and its value."""
        v = Verdict()
        prop = self.an.entry_props.get(entry)
        if prop is None or entry.op not in _ENTRY_OPS or prop.kind == "trait":
            return NO
        v = v | self._read(prop, Verdict())
        match entry.pattern:
            case None:
                if entry.value is None:
                    return NO
                v = v | self.expr(entry.value, env)
            case A.PValue(value=value):
                v = v | self.expr(value, env)
            case A.PNone():
                pass
            case _:
                return NO
        if entry.op in _ORDERING and prop.type != T.INT:
            return NO
        return v

    def _call(self, e: A.Call, env: dict[int, bool] | None) -> Verdict:
        if any(a.name is not None for a in e.args):
            return NO
        args = [self.expr(a.value, env) for a in e.args]
        v = Verdict()
        for a in args:
            v = v | a
        match self.an.calls.get(e):
            case BuiltinCall("join" | "reverse"):
                return v
            case BuiltinCall("str"):
                return self.shown(self.an.types.get(e.args[0].value), v)
            case BuiltinCall("print"):
                for arg, va in zip(e.args, args, strict=True):
                    v = v | self.shown(self.an.types.get(arg.value), va)
                return v
            case UserCall(name):
                group = self.sym.funcs.get(name, [])
                if len(group) != 1 or len(group[0].params) != len(e.args):
                    return NO
                decl = group[0].decl
                body = decl.body if isinstance(decl.body, A.Block) else None
                expr = decl.body if not isinstance(decl.body, A.Block) else None
                return v | self._body(("fn", name), expr, body, [a.tainted for a in args])
            case _:
                return NO

    # ------------------------------------------------------------------ bodies
    def _body(self, key: tuple[str, str], expr: A.Expr | None, block: A.Block | None,
              taints: list[bool]) -> Verdict:  # fmt: skip
        """The verdict of calling a body whose parameters (slots 0..n-1) have `taints`."""
        active = (key[0] + ":" + key[1], tuple(taints))
        if active in self._active:  # recursion: no bound on the depth or the work
            return NO
        self._active.add(active)
        try:
            env = dict(enumerate(taints))
            if expr is not None:
                v = self.expr(expr, env)
            elif block is not None:
                v = self._block(block, env)
            else:
                return NO
        finally:
            self._active.discard(active)
        return Verdict(v.level, v.tainted, v.height + 1)

    def _block(self, block: A.Block, env: dict[int, bool]) -> Verdict:
        v = Verdict()
        base = self._pc
        try:
            for s in block.stmts:
                sv = self._stmt(s, env)
                v = v | sv
                if v.level == UNPROVEN:
                    return NO
                # After an `if` on the state (it may have returned), the rest of the block
                # runs or not depending on the state.
                self._pc += isinstance(s, A.If) and sv.tainted
        finally:
            self._pc = base
        return v

    def _stmt(self, s: A.Stmt, env: dict[int, bool]) -> Verdict:
        match s:
            case A.Return(value=None):
                return Verdict()
            case A.Return(value=value) if value is not None:
                return self.expr(value, env)
            case A.ExprStmt(expr=e):
                return self.expr(e, env)
            case A.Assign(op="=", target=A.Name()) | A.DeclStmt():
                slot = self.an.declared.get(s)
                if slot is None and isinstance(s, A.Assign):
                    ref = self.an.resolved.get(s.target)
                    slot = ref.slot if isinstance(ref, LocalRef) else None
                if slot is None or s.value is None:
                    return NO
                v = self.expr(s.value, env)
                # Taints only grow, so branches need no merging; a value assigned under a
                # condition on the state depends on the state.
                env[slot] = env.get(slot, False) or v.tainted or self._pc > 0
                return Verdict(v.level, False, v.height)
            case A.For():
                return self._for(s, env)
            case A.If():
                v = control = Verdict()
                base = self._pc
                try:
                    for cond, body in s.branches:
                        control = control | self.expr(cond, env)
                        self._pc = base + control.tainted
                        v = v | control | self._block(body, env)
                    if s.orelse is not None:
                        v = v | self._block(s.orelse, env)
                finally:
                    self._pc = base
                return v
            case _:
                return NO

    def _for(self, s: A.For, env: dict[int, bool]) -> Verdict:
        """A `for` over a list: the body runs once per element (as often as the state says
        when the list depends on it); taints grow over passes until they settle."""
        items = self.expr(s.iterable, env)
        slots = self.an.for_slots.get(s)
        if slots is None:
            return NO
        v = items
        while True:
            before = dict(env)
            env[slots.variable] = env.get(slots.variable, False) or items.tainted
            self._pc += items.tainted
            try:
                v = v | self._block(s.body, env)
            finally:
                self._pc -= items.tainted
            if env == before or v.level == UNPROVEN:
                return v


# ---------------------------------------------------------------------- run time
# Locals whose values may key a proof: equal values of these types behave the same.
_KEY_TYPES = frozenset({int, str, bool, type(None), EnumVal, Inst})
_SEEN_LIMIT = 50_000


def quiet_print(hosted: Callable[[Machine, list[Any]], Any], args: list[Ev],
                proof: Proof | None) -> Ev:  # fmt: skip
    """A `print` whose arguments cannot change the state: look-ahead and AI search
    (`silent`) skip it; a random playout (`quiet`) skips it when `proof` says it cannot fail.

    A silent machine that skips an unproven `print` records it (`skipped_print`), so that
    its fork is not adopted by a machine that would have evaluated it (game.adopt).
    """
    if proof is None or not proof.keyed:
        # Proven always (a height) or not at all (None).
        height = None if proof is None else proof.height

        def quiet_call(m: Machine, L: list[Any]) -> Any:
            if m.silent or m.quiet:
                if height is not None and m.depth + len(m.frames) + height < CALL_DEPTH_LIMIT:
                    return None
                if m.silent:
                    m.skipped_print = True
                    return None
            return hosted(m, [a(m, L) for a in args])

        return quiet_call
    height = proof.height
    slots = proof.slots
    seen: set[tuple[Any, ...]] = set()

    def keyed_call(m: Machine, L: list[Any]) -> Any:
        if not (m.silent or m.quiet):
            return hosted(m, [a(m, L) for a in args])
        vals = [L[s] for s in slots]
        types = [type(v) for v in vals]
        key = (m.inst_version, *vals, *types) if _KEY_TYPES.issuperset(types) else None
        if key in seen and m.depth + len(m.frames) + height < CALL_DEPTH_LIMIT:
            return None
        if m.silent:
            m.skipped_print = True
            return None
        out = hosted(m, [a(m, L) for a in args])
        if key is not None:
            if len(seen) >= _SEEN_LIMIT:
                seen.clear()
            seen.add(key)
        return out

    return keyed_call


# The statements `quiet_statement` made, with their skip test's (height, keyed, seen): the
# compiled engine's steps (codegen/steps.py) test it in place and call the statement
# only when it does not skip.
SKIPPABLE: weakref.WeakKeyDictionary[Callable[..., Any], tuple[int, bool, set[Any]]] = (
    weakref.WeakKeyDictionary()
)


def quiet_statement(c: Ev, proof: Proof | None) -> Ev:
    """A statement calling a procedure that only shows things (see `prove_call`): skipped
    by silent and quiet machines, once it ran without an error when the proof is keyed."""
    if proof is None:
        return c
    height, keyed, seen = proof.height, proof.keyed, proof.seen

    def quiet_stmt(m: Machine, L: list[Any]) -> Any:
        if (
            (m.silent or m.quiet)
            and m.depth + len(m.frames) + height < CALL_DEPTH_LIMIT
            and (not keyed or m.inst_version in seen)
        ):
            return None
        out = c(m, L)
        # A silent run skipped unproven prints: it proves nothing.
        if keyed and not m.silent:
            if len(seen) >= _SEEN_LIMIT:
                seen.clear()
            seen.add(m.inst_version)
        return out

    SKIPPABLE[quiet_stmt] = (height, keyed, seen)
    return quiet_stmt
