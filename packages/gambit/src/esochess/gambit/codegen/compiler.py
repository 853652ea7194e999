"""The compiled engine's compiler: the interpreter's compiler with every expression and
every body that cannot pause generated as Python source (docs/reference/gambit.md#engines).

It is the reference compiler (esochess.gambit.compiler) with two rules replaced:
`expr` returns a generated function instead of a tree of closures, and bodies that
cannot pause get a generated function as their `simple` form, which the machine calls
without a frame. Everything the machine, the game layer, records and hashes see --
values, the game store, frames of pausing procedures, errors -- is shared, so the two
engines differ only in speed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from esochess.gambit import ast as A
from esochess.gambit import declarations as D
from esochess.gambit import types as T
from esochess.gambit.analysis import Analysis, NaryRef, PropRef, UserCall
from esochess.gambit.codegen.bodies import BodySource
from esochess.gambit.codegen.calls import CallWrappers
from esochess.gambit.codegen.emit import Namespace
from esochess.gambit.codegen.expressions import ExprSource
from esochess.gambit.codegen.memo_policy import traits_read_once
from esochess.gambit.codegen.runs import fuse_runs
from esochess.gambit.codegen.selectors import SelectorSource
from esochess.gambit.codegen.steps import build_steps, drive
from esochess.gambit.compiler import Compiler
from esochess.gambit.compiler.horizon import nodes
from esochess.gambit.compiler.runtime import not_none
from esochess.gambit.machine import Machine
from esochess.gambit.program import OP_EXEC, Code, Ev, Program, Prop
from esochess.gambit.resolver import FuncInfo, PropInfo

Resolver = Callable[[Machine, list[Any]], tuple[Code, list[Any]]]

_COSTLY = (A.Call, A.SelectorExpr, A.FilterMap, A.For, A.While, A.Loop, A.MatchStmt, A.MatchExpr,
           A.Is)


def cheap(body: object) -> bool:
    """True for a body without calls, selectors, list walks or loops."""
    return not any(isinstance(n, _COSTLY) for n in nodes(body))


class SourceCompiler(Compiler):
    """Builds a `Program` whose expressions and non-pausing bodies are generated Python."""

    def __init__(self, tree: D.Program, checked: Analysis) -> None:
        super().__init__(tree, checked)
        self.ns = Namespace(checked.sym.path)
        self.sources = ExprSource(self, self.ns)
        self.bodies = BodySource(self, self.ns, self.sources)
        self.calls = CallWrappers(self.ns)
        self.selectors = SelectorSource(self, self.ns, self.sources)
        # The functions `build` will mark static (memoised), known before any call site.
        self.static_names = self.static_functions()
        # Traits whose memo would not hit (codegen/memo_policy.py): run without one.
        self.read_once = traits_read_once(tree, checked)

    def expr(self, e: A.Expr) -> Ev:
        """A generated function for an expression."""
        o = self.override.get(id(e))
        if o is not None:
            return o
        return self.sources.closure(e)

    def truth(self, e: A.Expr) -> Ev:
        """A generated function for the truth of a condition that cannot pause."""
        if self.in_proc and self.pauses(e):
            return super().truth(e)
        name = self.ns.fresh("cond")
        fn: Ev = self.ns.define(name, [f"def {name}(m, L):", f"    return {self.sources.cond(e)}"],
                                f"condition at line {e.pos[0]}")  # fmt: skip
        return fn

    def choose_spec(self, e: A.Choose) -> Ev:
        """A choose's player, K, prompt and options, evaluated in that order by one
        generated function (the interpreter's `choose_spec`, at every decision)."""
        x = self.sources
        outer, x.depth = x.depth, 0
        try:
            k = x.src(e.k) if e.k is not None else "None"
            prompt = x.src(e.prompt) if e.prompt is not None else "None"
            # (`_iter` of a list value is the value itself: no call for it.)
            parts = (f"{x.src(e.player)}, {k}, {prompt}, "
                     f"(_opts if type(_opts := {x.src(e.options)}) is tuple else _iter(_opts))")  # fmt: skip
        finally:
            x.depth = outer
        name = self.ns.fresh("spec")
        fn: Ev = self.ns.define(name, [f"def {name}(m, L):", f"    return ({parts})"],
                                f"choose at line {e.pos[0]}")  # fmt: skip
        return fn

    def call_resolver(self, e: A.Call) -> Resolver:
        """A pausing procedure's call with one overload: its arguments and the overload's
        tests in one generated function (the interpreter's `resolve_tested`, at every call)."""
        info = self.an.calls[e]
        if not isinstance(info, UserCall):
            return super().call_resolver(e)
        group = [o for o in self.overloads[info.name] if len(o.info.params) == len(e.args)]
        if len(group) != 1:
            return super().call_resolver(e)
        x = self.sources
        outer, x.depth = x.depth, 0
        try:
            args = ", ".join(x.src(a.value) for a in e.args)
        finally:
            x.depth = outer
        # An entity parameter's test that its argument is not none holds when the
        # argument's type has no none (as at generated call sites).
        tests = [(i, t) for i, t in group[0].tests
                 if t is not not_none or x.may_be_none(e.args[i].value)]  # fmt: skip
        code = self.ns.const(group[0].code)
        if all(t is not_none for _, t in tests):
            fails = " or ".join(f"_v[{i}] is None" for i, _ in tests)
        else:
            fails = f"not _passes(m, {self.ns.const(group, 'group')}, _v)"
        name = self.ns.fresh("resolve")
        lines = [f"def {name}(m, L):", f"    _v = [{args}]"]
        if tests:
            lines.append(f"    if {fails}:")
            lines.append(f"        return _dispatch(m, {info.name!r}, "
                         f"{self.ns.const(group, 'group')}, _v, {e.pos!r}, strict=False), _v")
        lines.append(f"    return {code}, _v")
        fn: Resolver = self.ns.define(name, lines, f"call at line {e.pos[0]}")
        return fn

    def assign(self, s: A.Assign) -> None:
        """An assignment; a state property write that cannot pause is generated."""
        if not (self.in_proc and (self.pauses(s.value) or self.pauses(s.target))):
            fn = self.bodies.statement(s)
            if fn is not None:
                self.emit(OP_EXEC, fn)
                return
        super().assign(s)

    def base_expr(self, e: A.Expr) -> Ev:
        """The interpreter's closure for an expression (its children generated)."""
        return Compiler.expr(self, e)

    def function(self, f: FuncInfo) -> None:
        """Compile a body; one that cannot pause also becomes one generated function."""
        super().function(f)
        code = self.codes[id(f.decl)]
        if cheap(f.decl.body):
            self.calls.cheap.add(id(code))
        if f.name in self.pausing:
            return
        if self.leaf(f.decl.body):
            self.calls.inline[id(code)] = self.bodies.lines(f.decl.body, 2)
        fn, lines = self.bodies.function(
            self.ns.fresh(f"fn_{f.name}_"), f.decl.body, f"fn {f.name}")  # fmt: skip
        if fn is not None:
            code.simple = fn
            self.calls.fused[id(code)] = ["    " + line for line in lines]

    def property(self, info: PropInfo, prop: Prop) -> None:
        """Compile a property; a trait with a block body becomes one generated function."""
        super().property(info, prop)
        body = info.decl.body
        if info.kind != "trait" or prop.code is None:
            return
        whole = body if body is not None else info.decl.default
        if cheap(whole):
            self.calls.cheap.add(id(prop.code))
        if whole is not None and self.leaf(whole):
            self.calls.inline[id(prop.code)] = self.bodies.lines(whole, 2)
        if body is None:
            return
        fn, lines = self.bodies.function(
            self.ns.fresh(f"trait_{info.name}_"), body, f"trait {info.name}")  # fmt: skip
        if fn is not None:
            prop.code.simple = fn
            self.calls.fused[id(prop.code)] = ["    " + line for line in lines]
            # (Read only by procedures, so after every trait's body is generated.)
            if info.name in self.read_once and not self.static_trait(info, self.static_names):
                self.calls.cheap.add(id(prop.code))

    def leaf(self, body: object) -> bool:
        """True for a cheap body that calls nothing, also not through a trait, a property
        default or a display: nothing in it reads the call depth."""
        if not cheap(body):
            return False
        for n in nodes(body):
            ref = self.an.resolved.get(n) if isinstance(n, (A.Name, A.Member)) else None
            if isinstance(ref, (PropRef, NaryRef)):
                prop = self.props[ref.prop.pid]
                default = ref.prop.decl.default
                if prop.kind == "trait" or isinstance(ref.prop.type, T.StructT):
                    return False
                if default is not None and any(
                    isinstance(d, (A.Name, A.Member, A.Call)) for d in nodes(default)
                ):
                    return False
        return True

    def build(self) -> Program:
        """Compile everything; the program keeps its generated source."""
        program = super().build()
        self.calls.define_all()
        for code in self.codes.values():
            # Bodies that run in frames get steps; a function value's call may push any
            # body's frame, which then runs in the instruction loop (codegen/steps.py).
            build_steps(code, self.ns, code.simple is None or code is program.main)
            if code.simple is None:
                fuse_runs(code, self.ns)
        for code in [*self.notation_codes.values(), *(p.code for p in program.props if p.code)]:
            build_steps(code, self.ns, False)
        program.engine = "compiled"
        program.drive = drive
        program.python = self.ns.source
        return program
