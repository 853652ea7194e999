"""The compiler: checked AST and `Analysis` -> `Program`. One class composed of the rule
modules over a core that builds codes, properties, overload sets and notations."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from esochess.gambit import ast as A
from esochess.gambit import declarations as D
from esochess.gambit import types as T
from esochess.gambit.analysis import (
    Analysis,
    CellAnalysis,
)
from esochess.gambit.check import static_function_names, static_node
from esochess.gambit.compiler.calls import CallRules
from esochess.gambit.compiler.common import (
    contains_commit,
    mixed_entity_positions,
    selector_of,
    sig,
    with_callers,
)
from esochess.gambit.compiler.context import CompilerLike
from esochess.gambit.compiler.expressions import ExpressionRules
from esochess.gambit.compiler.legality import mark_procedure, statement_spans
from esochess.gambit.compiler.lowering import LoweringRules
from esochess.gambit.compiler.operators import OperatorRules
from esochess.gambit.compiler.patterns import PatternRules
from esochess.gambit.compiler.quiet import QuietAnalysis
from esochess.gambit.compiler.runtime import (
    const,
    not_none,
    of_entity,
    type_test,
)
from esochess.gambit.compiler.statements import StatementRules
from esochess.gambit.machine import Machine
from esochess.gambit.program import (
    OP_RET,
    Code,
    Ev,
    Overload,
    Program,
    Prop,
)
from esochess.gambit.resolver import FuncInfo, PropInfo, Symbols
from esochess.gambit.values import (
    UNSET,
    StructVal,
)


class CompilerCore:
    """The core of the compiler: codes, properties, overload sets, notations and the build."""

    def __init__(self, tree: D.Program, checked: Analysis) -> None:
        self.tree = tree
        self.ck = checked
        self.sym: Symbols = checked.sym
        self.an = checked
        self.quiet = QuietAnalysis(checked, checked.sym)
        self.props: list[Prop] = []
        self.codes: dict[int, Code] = {}
        self.override: dict[int, Ev] = {}
        self.code: Code | None = None
        self.loop_stack: list[tuple[list[int], list[int], int]] = []
        self.pausing: set[str] = set()
        self.in_proc = False
        self.notation_codes: dict[int, Code] = {}
        self.overloads: dict[str, list[Overload]] = {}
        # Shared with the Program: memoised pure results and static selections.
        self.memo: dict[Any, Any] = {}

    def build(self: CompilerLike) -> Program:
        """Compile everything into a Program."""
        for p in self.sym.props:
            self.props.append(Prop(p.pid, p.name, p.kind, p.params, self.zero(p.type)))
        for fs in self.sym.funcs.values():
            for f in fs:
                kind = "fn" if f.pure else "proc"
                self.codes[id(f.decl)] = Code(f.name, kind, self.ck.nlocals.get(f.decl) or 0)
        for n in self.sym.notations:
            self.notation_codes[id(n.decl)] = Code(
                f"notation {n.type_name}", "notation", self.ck.nlocals.get(n.decl) or 0
            )
        overloads = {name: self.overload_set(name, fs) for name, fs in self.sym.funcs.items()}
        self.overloads = overloads
        for info, prop in zip(self.sym.props, self.props, strict=True):
            self.property(info, prop)
        for fs in self.sym.funcs.values():
            for f in fs:
                self.function(f)
        static = self.static_functions()
        for name in static:
            for f in self.sym.funcs[name]:
                self.codes[id(f.decl)].static = True
        for info, prop in zip(self.sym.props, self.props, strict=True):
            # A trait that reads only fixed data (like a player's symbol) keeps its value
            # across state changes: memoise it per instance set, like static functions.
            if prop.code is not None and self.static_trait(info, static):
                prop.code.static = True
                prop.code.pure = False
        for n in self.sym.notations:
            self.notation(n)
        name_props: dict[str, Prop] = {}
        for rp in self.props:
            if rp.name == "name" and len(rp.params) == 1:
                if self.sym.props[rp.pid].type == T.STR:
                    name_props[rp.params[0]] = rp
        main = self.codes[id(self.sym.funcs["main"][0].decl)]
        main.where = "main"
        return Program(
            self.sym.path, self.sym.source, main, list(self.sym.entities), self.props,
            self.sym.players, self.sym.has_illegal, name_props, overloads, memo=self.memo,
        )  # fmt: skip

    def static_trait(self: CompilerLike, info: PropInfo, static_fns: set[str]) -> bool:
        """True when a trait's body reads only fixed data and calls static functions."""
        called: set[str] = set()
        body = info.decl.body if info.decl.body is not None else info.decl.default
        return static_node(body, self.an, called, False) and called <= static_fns

    def committers(self: CompilerLike) -> set[str]:
        """Procedures whose bodies contain a `commit` statement."""
        out = set()
        for name, fs in self.sym.funcs.items():
            if any(not f.pure and contains_commit(f.decl.body) for f in fs):
                out.add(name)
        return out

    def static_functions(self: CompilerLike) -> set[str]:
        """Function sets that read only fixed data and instance lists (memoisable)."""
        return static_function_names(self.sym, self.an, strict=False)

    def pausing_procs(self: CompilerLike) -> set[str]:
        """Procedures that may reach a `choose` or a `commit` (directly, by call, or via
        values): they run in explicit frames so that a fork can pause there."""
        seed = set(self.ck.choosers) | set(self.ck.uses_value_calls) | self.committers()
        return with_callers(seed, self.ck.call_graph)

    def zero(self: CompilerLike, t: T.Type) -> Any:
        """The zero value of a type (docs/reference/gambit.md#zero-values), or UNSET."""
        if t == T.INT:
            return 0
        if t == T.NUM:
            return 0.0
        if t == T.BOOL:
            return False
        if t == T.STR:
            return ""
        if T.contains_none(t):
            return None
        if isinstance(t, T.ListT):
            return ()
        return UNSET

    def struct_zero(self: CompilerLike, name: str) -> Ev:
        """A closure building a struct with all its defaults."""
        info = self.sym.structs[name]
        names = tuple(m[0] for m in info.members)
        parts: list[Ev] = []
        for _, mt, default, _ in info.members:
            if default is not None:
                parts.append(self.default_expr(default, mt))
            elif isinstance(mt, T.StructT):
                parts.append(self.struct_zero(mt.name))
            else:
                parts.append(const(self.zero(mt)))

        def make(m: Machine, L: list[Any]) -> Any:
            return StructVal(name, names, tuple(p(m, L) for p in parts))

        return make

    def default_expr(self: CompilerLike, e: A.Expr, t: T.Type) -> Ev:
        """A closure for a default expression, with its own locals."""
        n = self.ck.nlocals.get(e) or 0
        f = self.expr(e)

        def run(m: Machine, L: list[Any]) -> Any:
            return f(m, [None] * n)

        return run

    def property(self: CompilerLike, info: PropInfo, prop: Prop) -> None:
        """Compile a trait body or a default expression."""
        d = info.decl
        if info.pid == 0 and info.name == "number":
            return
        nl = self.ck.nlocals.get(d)
        nl = len(info.params) if nl is None else nl
        if info.kind == "trait":
            code = Code(info.name, "trait", nl)
            code.where = f"trait {info.name}"
            self.code = code
            self.in_proc = False
            if d.body is not None:
                self.block(d.body)
                code.instrs.append((OP_RET, None))
            elif d.default is not None:
                code.simple = self.expr(d.default)
                code.instrs.append((OP_RET, code.simple))
            prop.code = code
            return
        if d.default is not None:
            prop.default = self.expr(d.default)
            prop.default_locals = max(nl - len(info.params), 0)
        elif isinstance(info.type, T.StructT):
            prop.default = self.struct_zero(info.type.name)

    def overload_set(self: CompilerLike, name: str, fs: list[FuncInfo]) -> list[Overload]:
        """The run-time overloads of a set, most specific first."""
        out = []
        cache: dict[int, CellAnalysis | None] = {}
        for f in fs:
            tests = []
            mixed = mixed_entity_positions(f, fs)
            for i, (t, prm) in enumerate(zip(f.params, f.decl.params, strict=True)):
                sel = selector_of(prm.type)
                test: Callable[[Machine, Any], bool] | None = None
                if sel is not None:
                    test = self.sel_tester(sel, T.contains_none(t))
                elif isinstance(T.strip_none(t), T.EntityT) and not T.contains_none(t):
                    test = not_none
                if i in mixed:
                    test = of_entity(mixed[i], T.contains_none(t), test)
                if test is not None:
                    tests.append((i, test))
            arity = len(f.params)
            if arity not in cache:
                cache[arity] = self.ck_set(name, arity)
            rank = 0
            cells = None
            info = cache[arity]
            if info is not None and f in info.group:
                cells = info.matches[info.group.index(f)]
                rank = len(cells)
            type_tests = [
                type_test(T.EntityT(t.entity) if isinstance(t, T.SelT) else t)
                if not isinstance(t, T.UnionT) or not any(isinstance(m, T.SelT) for m in t.members)
                else type_test(T.union([T.EntityT(m.entity) if isinstance(m, T.SelT) else m
                                        for m in t.members]))
                for t in f.params
            ]  # fmt: skip
            out.append(Overload(f, self.codes[id(f.decl)], tests, rank, sig(self.sym, f),
                                cells, type_tests))  # fmt: skip
        out.sort(key=lambda o: (o.rank, o.info.index))
        return out

    def ck_set(self: CompilerLike, name: str, arity: int) -> CellAnalysis | None:
        """The checker's cell analysis of one overload set (None without entity positions)."""
        return self.ck.overload_sets.get((name, arity))

    def sel_tester(self: CompilerLike, sel: A.Selector, optional: bool) -> Callable[[Machine, Any], bool]:
        """A run-time test of an instance against a parameter selector."""
        leaves, test = self.selector_entries(sel)
        empty: list[Any] = []

        def t(m: Machine, v: Any) -> bool:
            if v is None:
                return optional
            vals = [f(m, empty) for f in leaves]
            return test(m, v, vals)

        return t

    def function(self: CompilerLike, f: FuncInfo) -> None:
        """Compile a function or procedure body."""
        code = self.codes[id(f.decl)]
        self.code = code
        self.in_proc = not f.pure
        body = f.decl.body
        if isinstance(body, A.Block):
            spans = statement_spans(self, body.stmts)
            if f.name in self.pausing:
                mark_procedure(self, body.stmts, spans)
            code.instrs.append((OP_RET, None))
        else:
            c = self.lower(body) if self.in_proc else self.expr(body)
            code.instrs.append((OP_RET, c))
            if len(code.instrs) == 1:
                code.simple = c

    def notation(self: CompilerLike, n: Any) -> None:
        """Compile a notation body."""
        code = self.notation_codes[id(n.decl)]
        self.code = code
        self.in_proc = False
        self.block(n.decl.body)
        code.instrs.append((OP_RET, lambda m, L: L[0]))


class Compiler(StatementRules, LoweringRules, ExpressionRules, CallRules, OperatorRules, PatternRules, CompilerCore):
    """Builds the run-time `Program` from a checked AST."""

    def __init__(self, tree: D.Program, checked: Analysis) -> None:
        super().__init__(tree, checked)
        self.pausing = self.pausing_procs()
