"""Calls -> closures: built-ins from the library table, constructors, notation literals
and user overload sets through the one call fast path."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, assert_never

from esochess.gambit import ast as A
from esochess.gambit import builtins as B
from esochess.gambit import types as T
from esochess.gambit import versions
from esochess.gambit.analysis import (
    BuiltinCall,
    EntityCtor,
    NotationRef,
    StructCtor,
    UserCall,
    ValueCall,
)
from esochess.gambit.compiler.common import (
    children,
)
from esochess.gambit.compiler.context import CompilerLike
from esochess.gambit.compiler.quiet import quiet_print
from esochess.gambit.compiler.runtime import (
    call_hosted,
    call_known,
    const,
    dispatch,
    memo_call,
    plain,
)
from esochess.gambit.machine import Machine
from esochess.gambit.notations import fullmatch_groups
from esochess.gambit.program import (
    Code,
    Ev,
)
from esochess.gambit.results import (
    RunError,
)
from esochess.gambit.values import (
    UNSET,
    Inst,
    StructVal,
)

REPEAT_LIMIT = 100_000


def exact(t: T.Type | None) -> bool:
    """True when two values of static type `t` that are `==` in Python are the same value
    (no 1 == 1.0 == True): ints, strings, none, enum members and instances."""
    return t is not None and all(
        m in (T.INT, T.STR, T.NONE) or isinstance(m, (T.EnumT, T.EntityT)) for m in T.members(t)
    )


class CallRules:
    """Call rules: built-ins, constructors, notation literals and user overload sets."""

    def call(self: CompilerLike, e: A.Call) -> Ev:
        """Compile a call that cannot pause."""
        info = self.an.calls[e]
        pos = e.pos
        if isinstance(info, BuiltinCall):
            return self.builtin(e, info.name)
        if isinstance(info, StructCtor):
            return self.struct_ctor(e, info.name)
        if isinstance(info, EntityCtor):
            return self.entity_ctor(e, info.name)
        if isinstance(info, UserCall):
            group = [o for o in self.overloads[info.name] if len(o.info.params) == len(e.args)]
            if len(group) == 1 and not group[0].tests:
                # One overload, nothing to dispatch on: call it directly.
                code = group[0].code
                args = [self.expr(a.value) for a in e.args]
                return memo_call(code, args, pos)
            if len(group) == 1:
                # One overload whose entity parameters are tested (e.g. not none): run
                # the tests here and leave only their failure (an error) to dispatch.
                name = info.name
                code = group[0].code
                tests = group[0].tests
                args = [self.expr(a.value) for a in e.args]

                def tested(m: Machine, L: list[Any]) -> Any:
                    vals = [a(m, L) for a in args]
                    for i, t in tests:
                        if not t(m, vals[i]):
                            dispatch(m, name, group, vals, pos, strict=False)
                    return call_known(m, code, vals, pos)

                return tested
        resolve = self.call_resolver(e)

        def sync(m: Machine, L: list[Any]) -> Any:
            code, args = resolve(m, L)
            return call_known(m, code, args, pos)

        return sync

    def call_resolver(self: CompilerLike, e: A.Call) -> Callable[[Machine, list[Any]], tuple[Code, list[Any]]]:
        """A closure choosing the callee and evaluating the arguments."""
        info = self.an.calls[e]
        pos = e.pos
        args = [self.expr(a.value) for a in e.args]
        if isinstance(info, ValueCall):
            fn = self.expr(e.func) if not isinstance(e.func, A.Name) else self.name(e.func)
            overloads = self.overloads

            def resolve_value(m: Machine, L: list[Any]) -> tuple[Code, list[Any]]:
                fv = fn(m, L)
                vals = [a(m, L) for a in args]
                group = [o for o in overloads.get(fv.name, []) if len(o.info.params) == len(vals)]
                return dispatch(m, fv.name, group, vals, pos, strict=True), vals

            return resolve_value
        assert isinstance(info, UserCall), info
        name = info.name
        group = [o for o in self.overloads[name] if len(o.info.params) == len(args)]
        if len(group) == 1 and not group[0].tests:
            code = group[0].code

            def resolve_one(m: Machine, L: list[Any]) -> tuple[Code, list[Any]]:
                return code, [a(m, L) for a in args]

            return resolve_one
        multi = len(group) > 1
        if not multi and group:
            one = group[0].code
            tests = group[0].tests

            def resolve_tested(m: Machine, L: list[Any]) -> tuple[Code, list[Any]]:
                vals = [a(m, L) for a in args]
                for i, t in tests:
                    if not t(m, vals[i]):
                        return dispatch(m, name, group, vals, pos, strict=False), vals
                return one, vals

            return resolve_tested

        def resolve(m: Machine, L: list[Any]) -> tuple[Code, list[Any]]:
            vals = [a(m, L) for a in args]
            code = dispatch(m, name, group, vals, pos, strict=False, trace=multi)
            return code, vals

        return resolve

    def builtin(self: CompilerLike, e: A.Call, name: str) -> Ev:
        """Compile a built-in call from its table entry."""
        b = B.BUILTINS[name]
        pos = e.pos
        trace = b.trace
        match b.impl:
            case B.InPlace(place_fn):
                get, put = self.place(e.args[0].value)
                rest = [self.expr(a.value) for a in e.args[1:]]

                def place_call(m: Machine, L: list[Any]) -> Any:
                    xs = get(m, L)
                    vals = [r(m, L) for r in rest]
                    try:
                        new, result = place_fn(m, xs, vals)
                    except B.BuiltinError as exc:
                        raise RunError(pos, str(exc)) from None
                    if trace is not None:
                        m.trace(pos, trace([xs], ""))
                    put(m, L, new)
                    return result

                return place_call
            case B.Plain(impl):
                args = [self.expr(a.value) for a in e.args]

                def plain_call(m: Machine, L: list[Any]) -> Any:
                    return plain(impl, pos, *[a(m, L) for a in args])

                return plain_call
            case B.Hosted(hosted):
                args = [self.expr(a.value) for a in e.args]
                if b.effects == B.Effect.PRINTS and all(
                    self.effect_free(a.value) for a in e.args
                ):
                    # Look-ahead and AI search drop their output, and so do random
                    # playouts where the arguments cannot fail (compiler/quiet.py).
                    proof = self.quiet.prove_print([a.value for a in e.args])
                    return quiet_print(hosted, args, proof)

                def hosted_call(m: Machine, L: list[Any]) -> Any:
                    vals = [a(m, L) for a in args]
                    out = call_hosted(hosted, m, pos, vals)
                    if trace is not None and m.tracing:
                        m.trace(pos, trace(vals, m.display(out)))
                    return out

                return hosted_call
            case _:
                assert_never(b.impl)

    def effect_free(self: CompilerLike, e: Any) -> bool:
        """True when evaluating `e` cannot change the state, print, draw chance or pause."""
        if isinstance(e, A.Choose):
            return False
        if isinstance(e, A.Call):
            match self.an.calls.get(e):
                case None | ValueCall() | EntityCtor():
                    return False
                case BuiltinCall(name) if not B.BUILTINS[name].pure:
                    return False
                case UserCall(name) if not self.sym.funcs[name][0].pure:
                    return False
        return all(self.effect_free(c) for c in children(e))

    def struct_ctor(self: CompilerLike, e: A.Call, name: str) -> Ev:
        """Compile a struct constructor call."""
        info = self.sym.structs[name]
        given = {a.name: self.expr(a.value) for a in e.args if a.name is not None}
        order = [a.name for a in e.args if a.name is not None]
        names = tuple(m[0] for m in info.members)
        makers: list[Ev] = []
        for mname, mt, default, _ in info.members:
            if mname in given:
                makers.append(given[mname])
            elif default is not None:
                makers.append(self.default_expr(default, mt))
            elif isinstance(mt, T.StructT):
                makers.append(self.struct_zero(mt.name))
            else:
                makers.append(const(self.zero(mt)))
        gidx = [names.index(n) for n in order]

        def make(m: Machine, L: list[Any]) -> Any:
            vals: list[Any] = [None] * len(names)
            for k in gidx:  # named arguments first, left to right
                vals[k] = makers[k](m, L)
            for k in range(len(names)):
                if k not in gidx:
                    vals[k] = makers[k](m, L)
            return StructVal(name, names, tuple(vals))

        return make

    def entity_ctor(self: CompilerLike, e: A.Call, name: str) -> Ev:
        """Compile an entity constructor call (docs/reference/gambit.md#the-game)."""
        given = [(a.name, self.expr(a.value)) for a in e.args if a.name is not None]
        unary = [p for p in self.props if p.params == (name,) and p.kind in ("fixed", "state")]
        pos = e.pos
        by_name = {p.name: p for p in unary}
        # A creation with the same arguments in the same instance version writes the same
        # values and reaches the same instance version (versions.py): games that set up the
        # same board repeat it from this table. Only where `==` on the arguments is
        # sameness (see `exact`) and no default expression runs (it may read the state).
        repeats: dict[tuple[Any, ...], tuple[int, Inst, tuple[tuple[int, Any], ...]]] = {}
        repeatable = all(exact(self.an.types.get(a.value)) and a.value not in self.an.conversions
                         for a in e.args if a.name is not None)  # fmt: skip

        def create(m: Machine, L: list[Any]) -> Any:
            vals = [(n, f(m, L)) for n, f in given]
            if repeatable and not m.tracing:
                key = (m.inst_version, *[v for _, v in vals])
                hit = repeats.get(key)
                if hit is not None:
                    after, inst, done = hit
                    m.instances[name] += (inst,)
                    for pid, v in done:
                        m.store[pid][inst] = v
                    m.version = versions.fresh()
                    m.inst_version = after
                    return inst
            before = m.inst_version
            inst = m.create(name)
            gv = dict(vals)
            written: list[tuple[int, Any]] = []
            ran_default = False
            for p in unary:
                if p.name in gv:
                    v = gv[p.name]
                elif p.default is not None:
                    v = p.default(m, [inst] + [None] * p.default_locals)
                    ran_default = True
                else:
                    v = p.zero
                if v is not UNSET:
                    m.store[p.pid][inst] = v
                    written.append((p.pid, v))
            if written:
                m.touch(inst, written)
            if m.tracing:
                shown = ", ".join(f"{n}: {m.display(v)}" for n, v in vals if n in by_name)
                m.trace(pos, f"create {inst.ident}" + (f" ({shown})" if shown else ""))
            elif repeatable and not ran_default and versions.interned_writes(written):
                if len(repeats) >= REPEAT_LIMIT:
                    repeats.clear()
                repeats[(before, *[v for _, v in vals])] = (m.inst_version, inst, tuple(written))
            return inst

        return create

    def notation_lit(self: CompilerLike, e: A.NotationLit) -> Ev:
        """Compile a notation literal: run its body each time
        (docs/reference/gambit.md#notations)."""
        ref = self.an.resolved[e]
        assert isinstance(ref, NotationRef), ref
        info = ref.info
        code = self.notation_codes[id(info.decl)]
        matched = fullmatch_groups(info.regex, e.text)
        assert matched is not None
        groups = [e.text, *matched]
        text = e.text
        pos = e.pos
        init: Ev
        if isinstance(info.type, T.StructT):
            init = self.struct_zero(info.type.name)
        else:
            init = lambda m, L: None  # noqa: E731

        def run(m: Machine, L: list[Any]) -> Any:
            try:
                v = m.call(code, [init(m, L), *groups], pos)
            except RunError as err:
                # Reported at the literal, with a note into the notation body
                # (docs/reference/gambit.md#notations).
                moved = RunError(pos, err.message)
                moved.notes = [(err.pos, f"in the notation for {info.type_name}"), *err.notes]
                raise moved from None
            if v is None:
                raise RunError(pos, f"notation '{text}' produced no value")
            return v

        return run
