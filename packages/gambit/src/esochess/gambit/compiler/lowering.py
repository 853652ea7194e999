"""Places (assignable getters and setters) and lowering: choices and pausing calls
become instructions with temporaries, so a pause always happens in an explicit frame."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from esochess.gambit import ast as A
from esochess.gambit.analysis import (
    LocalRef,
    NaryRef,
    PropRef,
    UserCall,
    ValueCall,
)
from esochess.gambit.compiler.common import (
    children,
)
from esochess.gambit.compiler.context import CompilerLike
from esochess.gambit.compiler.runtime import (
    check_index,
    iterable,
    read_slot,
    truthy,
)
from esochess.gambit.machine import Machine
from esochess.gambit.program import (
    OP_CALL,
    OP_CHOOSE,
    OP_EXEC,
    OP_JF,
    OP_JUMP,
    OP_SET,
    Ev,
)
from esochess.gambit.results import (
    RunError,
)
from esochess.gambit.spans import first_pos


class LoweringRules:
    """Places (getters and setters) and the lowering of choices and pausing calls."""

    def place(self: CompilerLike, e: A.Expr) -> tuple[Ev, Callable[[Machine, list[Any], Any], None]]:
        """Getter and setter closures for an assignable place."""
        info = self.an.resolved.get(e)
        if isinstance(e, A.Name):
            if isinstance(info, LocalRef):
                slot = info.slot

                def lset(m: Machine, L: list[Any], v: Any) -> None:
                    L[slot] = v

                return (lambda m, L: L[slot]), lset
            assert isinstance(info, PropRef), info
            prop = self.props[info.prop.pid]
            pos = e.pos

            def nget(m: Machine, L: list[Any]) -> Any:
                return m.read_prop(prop, (), pos)

            def nset(m: Machine, L: list[Any], v: Any) -> None:
                m.write_prop(prop, (), v, pos)

            return nget, nset
        if isinstance(e, A.Member):
            pos = e.pos
            if isinstance(info, (PropRef, NaryRef)):
                prop = self.props[info.prop.pid]
                if isinstance(e.obj, A.TupleExpr):
                    parts = [self.expr(x) for x in e.obj.items]

                    def args_of(m: Machine, L: list[Any]) -> tuple[Any, ...]:
                        return tuple(p(m, L) for p in parts)
                else:
                    obj = self.expr(e.obj)

                    def args_of(m: Machine, L: list[Any]) -> tuple[Any, ...]:
                        return (obj(m, L),)

                def pget(m: Machine, L: list[Any]) -> Any:
                    return m.read_prop(prop, args_of(m, L), pos)

                def pset(m: Machine, L: list[Any], v: Any) -> None:
                    m.write_prop(prop, args_of(m, L), v, pos)

                return pget, pset
            name = e.name
            sget, sset = self.place(e.obj)

            def fget(m: Machine, L: list[Any]) -> Any:
                return sget(m, L).get(name)

            def fset(m: Machine, L: list[Any], v: Any) -> None:
                sset(m, L, sget(m, L).replace(name, v))

            return fget, fset
        if isinstance(e, A.Index):
            lget, lset2 = self.place(e.obj)
            idx = self.expr(e.index)
            pos = e.pos

            def iget(m: Machine, L: list[Any]) -> Any:
                xs = lget(m, L)
                i = check_index(idx(m, L), len(xs), pos)
                return xs[i - 1]

            def iset(m: Machine, L: list[Any], v: Any) -> None:
                xs = lget(m, L)
                i = check_index(idx(m, L), len(xs), pos)
                lset2(m, L, xs[: i - 1] + (v,) + xs[i:])

            return iget, iset
        raise AssertionError(type(e))

    def pauses(self: CompilerLike, e: Any) -> bool:
        """True when evaluating `e` may pause (a choose or a pausing procedure call)."""
        if not self.in_proc:
            return False
        if isinstance(e, A.Choose):
            return True
        if isinstance(e, A.Call):
            if self.pausing_call(e):
                return True
        if isinstance(e, (A.FilterMap,)):
            return self.pauses(e.source)
        for child in children(e):
            if self.pauses(child):
                return True
        return False

    def pausing_call(self: CompilerLike, e: A.Call) -> bool:
        """True for a call through a value or of a procedure that may pause."""
        target = self.an.calls.get(e)
        return isinstance(target, ValueCall) or (
            isinstance(target, UserCall) and target.name in self.pausing
        )

    def is_pausing_node(self: CompilerLike, e: A.Expr) -> bool:
        """True when `e` itself (not a sub-expression) is a pausing instruction."""
        if not self.in_proc:
            return False
        if isinstance(e, A.Choose):
            return True
        if isinstance(e, A.Call):
            return self.pausing_call(e)
        return False

    def lower(self: CompilerLike, e: A.Expr) -> Ev:
        """An expression whose choices and pausing calls become instructions."""
        if not self.pauses(e):
            return self.expr(e)
        conditional = self.lower_conditional(e)
        if conditional is not None:
            return conditional
        kids = children(e)
        last = max((k for k, c in enumerate(kids) if self.pauses(c)), default=-1)
        for k, c in enumerate(kids):
            if k > last:
                break
            reader = self.lower(c) if self.pauses(c) else self.expr(c)
            if not self.pauses(c):
                tmp = self.new_temp()
                self.emit(OP_SET, tmp, reader)
                reader = read_slot(tmp)
            self.override[id(c)] = reader
        if isinstance(e, A.Choose):
            tmp = self.new_temp()
            spec = self.choose_spec(e)
            # Look-ahead asks only who decides (is the turn over?) when that costs nothing
            # else: an effect-free player expression can be evaluated twice.
            who = self.expr(e.player) if self.effect_free(e.player) else None
            self.emit(OP_CHOOSE, spec, tmp, e.pos, e.secret, who)
            return self.wrap_conv(e, read_slot(tmp))
        if isinstance(e, A.Call):
            if self.pausing_call(e):
                tmp = self.new_temp()
                self.emit(OP_CALL, self.call_resolver(e), tmp, e.pos)
                return self.wrap_conv(e, read_slot(tmp))
        return self.expr(e)

    def lower_conditional(self: CompilerLike, e: A.Expr) -> Ev | None:
        """Lower `and`/`or`, if- and match-expressions whose later parts may pause, with
        jumps, so that a part that is not reached does not run (or ask anything)."""
        if isinstance(e, A.Binary) and e.op in ("and", "or") and self.pauses(e.right):
            left = self.lower(e.left)
            tmp = self.new_temp()
            self.emit(OP_SET, tmp, lambda m, L: truthy(left(m, L)))
            if e.op == "and":
                skip = self.emit(OP_JF, lambda m, L: L[tmp], -1)
            else:
                skip = self.emit(OP_JF, lambda m, L: not L[tmp], -1)
            right = self.lower(e.right)
            self.emit(OP_SET, tmp, lambda m, L: truthy(right(m, L)))
            self.patch(skip, self.here())
            return self.wrap_conv(e, read_slot(tmp))
        if isinstance(e, A.IfExpr) and any(
            self.pauses(x) for x in children(e)[1:]
        ):
            tmp = self.new_temp()
            ends = []
            has_else = False
            for arm in e.arms:
                jf: int | None = None
                if arm.cond is not None:
                    c = self.lower(arm.cond)
                    jf = self.emit(OP_JF, lambda m, L, c=c: truthy(c(m, L)), -1)
                else:
                    has_else = True
                self.emit(OP_SET, tmp, self.lower(arm.value))
                ends.append(self.emit(OP_JUMP, -1))
                if jf is not None:
                    self.patch(jf, self.here())
                if has_else:
                    break
            if not has_else:
                self.emit(OP_SET, tmp, lambda m, L: None)
            for j in ends:
                self.patch(j, self.here())
            return self.wrap_conv(e, read_slot(tmp))
        if isinstance(e, A.MatchExpr) and any(self.pauses(a.value) for a in e.arms):
            subj = self.new_temp()
            tmp = self.new_temp()
            self.emit(OP_SET, subj, self.lower(e.subject))
            ends = []
            for marm in e.arms:
                jm: int | None = None
                if marm.pattern is not None:
                    match = self.pattern(marm.pattern)
                    jm = self.emit(
                        OP_JF, lambda m, L, match=match: match(m, L, L[subj]), -1
                    )
                self.emit(OP_SET, tmp, self.lower(marm.value))
                ends.append(self.emit(OP_JUMP, -1))
                if jm is not None:
                    self.patch(jm, self.here())
            pos = first_pos(e.subject)

            def no_arm(m: Machine, L: list[Any]) -> None:
                raise RunError(pos, f"no match arm matched value {m.display(L[subj])}")

            self.emit(OP_EXEC, no_arm)
            for j in ends:
                self.patch(j, self.here())
            return self.wrap_conv(e, read_slot(tmp))
        return None

    def choose_spec(self: CompilerLike, e: A.Choose) -> Ev:
        """A closure evaluating a choose's player, K, prompt and options."""
        player = self.expr(e.player)
        k = self.expr(e.k) if e.k is not None else None
        prompt = self.expr(e.prompt) if e.prompt is not None else None
        options = self.expr(e.options)

        def spec(m: Machine, L: list[Any]) -> tuple[Any, Any, Any, tuple[Any, ...]]:
            p = player(m, L)
            kv = k(m, L) if k is not None else None
            pr = prompt(m, L) if prompt is not None else None
            return p, kv, pr, iterable(options(m, L))

        return spec
