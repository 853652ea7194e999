"""The interpreter's compiler: checked AST -> `Program` of `Code`s run by machine.py.

Every expression becomes a Python closure `f(machine, locals)`; statements become the
flat instruction list of machine.py. Only `choose` and calls of procedures that may reach
a `choose` are instructions that can pause (they are lowered out of expressions into
temporaries), so pure code and ordinary procedure calls run as plain closures while a
pause always happens in an explicit, copyable frame (Appendix C design (b)).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, assert_never

from esochess.fen import SourceError
from esochess.gambit import ast as A
from esochess.gambit import builtins as B
from esochess.gambit import types as T
from esochess.gambit.analysis import (
    Analysis,
    BoolList,
    BuiltinCall,
    CellAnalysis,
    EntityCtor,
    EntityList,
    EnumList,
    EnumRef,
    FieldRef,
    FuncRef,
    LocalRef,
    NaryRef,
    NotationRef,
    PropRef,
    StructCtor,
    ToNum,
    UserCall,
    ValueCall,
)
from esochess.gambit.check import check, signature, static_function_names, static_node
from esochess.gambit.machine import (
    CALL_DEPTH_LIMIT,
    OP_CALL,
    OP_CHOOSE,
    OP_COMMIT,
    OP_EXEC,
    OP_ITER,
    OP_JF,
    OP_JUMP,
    OP_NEXT,
    OP_RET,
    OP_SET,
    Code,
    GameEnd,
    IllegalSignal,
    Machine,
    Result,
    RunError,
)
from esochess.gambit.parser import parse
from esochess.gambit.resolver import FuncInfo, PropInfo, Symbols
from esochess.gambit.spans import first_pos
from esochess.gambit.values import (
    UNSET,
    EnumVal,
    FuncVal,
    Inst,
    StructVal,
    display,
    is_superset,
    make_multi,
    multi_members,
    values_equal,
)

Ev = Callable[[Machine, list[Any]], Any]
# Off by default: §10.4 (a decision of the spec) reports a run-time error met during
# look-ahead, including one inside a `print` argument. When True, forks skip `print` calls
# whose arguments are effect-free (their output is dropped anyway), making look-ahead and
# playouts 1.5-2x faster at the cost of finding such errors only when the path really runs.
SKIP_QUIET = False


@dataclass
class Prop:
    """A property at run time."""

    pid: int
    name: str
    kind: str
    params: tuple[str, ...]
    zero: Any
    default: Ev | None = None
    default_locals: int = 0
    code: Code | None = None


@dataclass
class Overload:
    """One overload at run time: its code, entity-position tests and specificity rank."""

    info: FuncInfo
    code: Code
    tests: list[tuple[int, Callable[[Machine, Any], bool]]]
    rank: int
    label: str
    # The cells (§7.5) this overload matches; None when its set has no entity positions.
    cells: frozenset[int] | None = None
    # Run-time type tests of every parameter, for calls through Function values.
    types: list[Callable[[Any], bool]] = field(default_factory=list)


@dataclass
class Program:
    """A compiled program, ready for `Machine`."""

    path: str
    source: str
    main: Code
    entity_order: list[str]
    props: list[Prop]
    players_range: tuple[int, int]
    has_illegal: bool
    name_props: dict[str, Prop] = field(default_factory=dict)
    overloads: dict[str, list[Overload]] = field(default_factory=dict)
    warnings: list[SourceError] = field(default_factory=list)
    # Results of pure calls by (code, arguments, state version); see Machine.call.
    memo: dict[Any, Any] = field(default_factory=dict)

    def find_prop(self, name: str, params: tuple[str, ...]) -> Prop | None:
        """The property with this name and entity tuple."""
        for p in self.props:
            if p.name == name and p.params == params:
                return p
        return None


def compile_source(source: str, path: str) -> tuple[Program | None, list[SourceError]]:
    """Parse, check and compile; returns (program or None, diagnostics sorted by position)."""
    try:
        tree = parse(source, path)
    except SourceError as err:
        return None, [err]
    checked = check(tree)
    diags = sorted(checked.errors, key=lambda e: (e.line, e.column))[:50]
    diags = _dedupe(diags) + sorted(checked.warnings, key=lambda e: (e.line, e.column))
    diags.sort(key=lambda e: (e.line, e.column, e.severity == "warning"))
    if checked.errors:
        return None, diags
    program = Compiler(tree, checked).build()
    program.warnings = [d for d in diags if d.severity == "warning"]
    return program, diags


def _dedupe(errs: list[SourceError]) -> list[SourceError]:
    out: list[SourceError] = []
    seen: set[tuple[int, int, str]] = set()
    for e in errs:
        key = (e.line, e.column, e.message)
        if key not in seen:
            seen.add(key)
            out.append(e)
    return out


def truthy(v: Any) -> bool:
    """A condition's truth: bool, or an optional that is not none (§5.5)."""
    return v is not None and v is not False


def _ord(v: Any) -> Any:
    return v.ordinal if isinstance(v, EnumVal) else v


def _finite(x: Any, pos: A.Pos) -> Any:
    if isinstance(x, float) and not math.isfinite(x):
        raise RunError(pos, "number out of range")
    return x


class Compiler:
    """Builds the run-time `Program` from a checked AST."""

    def __init__(self, tree: A.Program, checked: Analysis) -> None:
        self.tree = tree
        self.ck = checked
        self.sym: Symbols = checked.sym
        self.an = checked
        self.props: list[Prop] = []
        self.codes: dict[int, Code] = {}
        self.override: dict[int, Ev] = {}
        self.code: Code | None = None
        self.loop_stack: list[tuple[list[int], list[int], int]] = []
        self.pausing = self.pausing_procs()
        self.in_proc = False
        self.notation_codes: dict[int, Code] = {}
        self.overloads: dict[str, list[Overload]] = {}
        # Shared with the Program: memoised pure results and static selections.
        self.memo: dict[Any, Any] = {}

    # ------------------------------------------------------------ program
    def build(self) -> Program:
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

    def static_trait(self, info: PropInfo, static_fns: set[str]) -> bool:
        """True when a trait's body reads only fixed data and calls static functions."""
        called: set[str] = set()
        body = info.decl.body if info.decl.body is not None else info.decl.default
        return static_node(body, self.an, called, False) and called <= static_fns

    def committers(self) -> set[str]:
        """Procedures whose bodies contain a `commit` statement."""
        out = set()
        for name, fs in self.sym.funcs.items():
            if any(not f.pure and _contains_commit(f.decl.body) for f in fs):
                out.add(name)
        return out

    def static_functions(self) -> set[str]:
        """Function sets that read only fixed data and instance lists (memoisable)."""
        return static_function_names(self.sym, self.an, strict=False)

    def pausing_procs(self) -> set[str]:
        """Procedures that may reach a `choose` or a `commit` (directly, by call, or via
        values): they run in explicit frames so that a fork can pause there."""
        out = set(self.ck.choosers) | set(self.ck.uses_value_calls) | self.committers()
        changed = True
        while changed:
            changed = False
            for caller, callees in self.ck.call_graph.items():
                if caller not in out and callees & out:
                    out.add(caller)
                    changed = True
        return out

    def zero(self, t: T.Type) -> Any:
        """The zero value of a type (§3.12), or UNSET."""
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

    def struct_zero(self, name: str) -> Ev:
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
                parts.append(_const(self.zero(mt)))

        def make(m: Machine, L: list[Any]) -> Any:
            return StructVal(name, names, tuple(p(m, L) for p in parts))

        return make

    def default_expr(self, e: A.Expr, t: T.Type) -> Ev:
        """A closure for a default expression, with its own locals."""
        n = self.ck.nlocals.get(e) or 0
        f = self.expr(e)

        def run(m: Machine, L: list[Any]) -> Any:
            return f(m, [None] * n)

        return run

    def property(self, info: PropInfo, prop: Prop) -> None:
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

    def overload_set(self, name: str, fs: list[FuncInfo]) -> list[Overload]:
        """The run-time overloads of a set, most specific first."""
        out = []
        cache: dict[int, CellAnalysis | None] = {}
        for f in fs:
            tests = []
            mixed = _mixed_entity_positions(f, fs)
            for i, (t, prm) in enumerate(zip(f.params, f.decl.params, strict=True)):
                sel = _selector_of(prm.type)
                test: Callable[[Machine, Any], bool] | None = None
                if sel is not None:
                    test = self.sel_tester(sel, T.contains_none(t))
                elif isinstance(T.strip_none(t), T.EntityT) and not T.contains_none(t):
                    test = _not_none
                if i in mixed:
                    test = _of_entity(mixed[i], T.contains_none(t), test)
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
            out.append(Overload(f, self.codes[id(f.decl)], tests, rank, _sig(self.sym, f),
                                cells, type_tests))  # fmt: skip
        out.sort(key=lambda o: (o.rank, o.info.index))
        return out

    def ck_set(self, name: str, arity: int) -> CellAnalysis | None:
        """The checker's cell analysis of one overload set (None without entity positions)."""
        return self.ck.overload_sets.get((name, arity))

    def sel_tester(self, sel: A.Selector, optional: bool) -> Callable[[Machine, Any], bool]:
        """A run-time test of an instance against a parameter selector."""
        leaves, test = self.selector_entries(sel)
        empty: list[Any] = []

        def t(m: Machine, v: Any) -> bool:
            if v is None:
                return optional
            vals = [f(m, empty) for f in leaves]
            return test(m, v, vals)

        return t

    def function(self, f: FuncInfo) -> None:
        """Compile a function or procedure body."""
        code = self.codes[id(f.decl)]
        self.code = code
        self.in_proc = not f.pure
        body = f.decl.body
        if isinstance(body, A.Block):
            self.block(body)
            code.instrs.append((OP_RET, None))
        else:
            c = self.lower(body) if self.in_proc else self.expr(body)
            code.instrs.append((OP_RET, c))
            if len(code.instrs) == 1:
                code.simple = c

    def notation(self, n: Any) -> None:
        """Compile a notation body."""
        code = self.notation_codes[id(n.decl)]
        self.code = code
        self.in_proc = False
        self.block(n.decl.body)
        code.instrs.append((OP_RET, lambda m, L: L[0]))

    # ------------------------------------------------------------ statements
    def emit(self, *ins: Any) -> int:
        """Append an instruction and return its index."""
        assert self.code is not None
        self.code.instrs.append(tuple(ins))
        return len(self.code.instrs) - 1

    def here(self) -> int:
        """The index of the next instruction."""
        assert self.code is not None
        return len(self.code.instrs)

    def patch(self, at: int, target: int) -> None:
        """Set the jump target of an emitted instruction."""
        assert self.code is not None
        ins = list(self.code.instrs[at])
        ins[-1] = target
        self.code.instrs[at] = tuple(ins)

    def loop_body(self, top: int, body: A.Block, exit_jump: int | None) -> None:
        """Emit a loop body that jumps back to `top`, then point `exit_jump` (the loop's
        own exit test, if any) and every `break` past the loop, every `continue` at `top`."""
        self.loop_stack.append(([], [], top))
        self.block(body)
        self.emit(OP_JUMP, top)
        breaks, conts, _ = self.loop_stack.pop()
        end = self.here()
        for jump in ([exit_jump] if exit_jump is not None else []) + breaks:
            self.patch(jump, end)
        for jump in conts:
            self.patch(jump, top)

    def new_temp(self) -> int:
        """A fresh local slot for a temporary."""
        assert self.code is not None
        self.code.nlocals += 1
        return self.code.nlocals - 1

    def block(self, b: A.Block) -> None:
        """Compile the statements of a block."""
        for s in b.stmts:
            self.stmt(s)

    def ev(self, e: A.Expr) -> Ev:
        """An expression in statement context: lowered when it may pause."""
        return self.lower(e) if self.in_proc else self.expr(e)

    def stmt(self, s: A.Stmt) -> None:
        """Compile one statement."""
        if isinstance(s, A.ExprStmt):
            c = self.ev(s.expr)
            if not self.is_pausing_node(s.expr):
                # A lone choose or pausing call is already an instruction; anything
                # around it (a print of a choice, …) still has to run.
                self.emit(OP_EXEC, c)
            return
        if isinstance(s, A.DeclStmt):
            slot = self.an.declared[s]
            if s.value is not None:
                self.emit(OP_SET, slot, self.ev(s.value))
            else:
                self.emit(OP_SET, slot, self.zero_of_decl(s))
            return
        if isinstance(s, A.Assign):
            self.assign(s)
            return
        if isinstance(s, A.IncDec):
            get, put = self.place(s.target)
            delta = 1 if s.op == "++" else -1

            def incdec(m: Machine, L: list[Any]) -> None:
                put(m, L, get(m, L) + delta)

            self.emit(OP_EXEC, incdec)
            return
        if isinstance(s, A.Swap):
            ga, pa = self.place(s.a)
            gb, pb = self.place(s.b)

            def swap(m: Machine, L: list[Any]) -> None:
                a, b = ga(m, L), gb(m, L)
                pa(m, L, b)
                pb(m, L, a)

            self.emit(OP_EXEC, swap)
            return
        if isinstance(s, A.EndStmt):
            self.emit(OP_EXEC, self.end(s))
            return
        if isinstance(s, A.Simple):
            self.simple(s)
            return
        if isinstance(s, A.Return):
            if s.value is None:
                if self.code is not None and self.code.kind == "notation":
                    self.emit(OP_RET, lambda m, L: L[0])
                else:
                    self.emit(OP_RET, None)
            else:
                self.emit(OP_RET, self.ev(s.value))
            return
        if isinstance(s, A.If):
            ends = []
            for cond, block in s.branches:
                c = self.ev(cond)
                jf = self.emit(OP_JF, lambda m, L, c=c: truthy(c(m, L)), -1)
                self.block(block)
                ends.append(self.emit(OP_JUMP, -1))
                self.patch(jf, self.here())
            if s.orelse is not None:
                self.block(s.orelse)
            for j in ends:
                self.patch(j, self.here())
            return
        if isinstance(s, A.For):
            slots = self.an.for_slots[s]
            it_slot, var_slot = slots.iterator, slots.variable
            src = self.ev(s.iterable)
            self.emit(OP_ITER, lambda m, L: _iterable(src(m, L)), it_slot)
            top = self.here()
            nxt = self.emit(OP_NEXT, it_slot, var_slot, -1)
            self.loop_body(top, s.body, nxt)
            return
        if isinstance(s, A.While):
            top = self.here()
            c = self.ev(s.cond)
            jf = self.emit(OP_JF, lambda m, L: truthy(c(m, L)), -1)
            self.loop_body(top, s.body, jf)
            return
        if isinstance(s, A.Loop):
            self.loop_body(self.here(), s.body, None)
            return
        if isinstance(s, A.MatchStmt):
            tmp = self.new_temp()
            self.emit(OP_SET, tmp, self.ev(s.subject))
            ends = []
            for arm in s.arms:
                if arm.pattern is None:
                    self.block(arm.body)
                    ends.append(self.emit(OP_JUMP, -1))
                    continue
                match = self.pattern(arm.pattern)
                jf = self.emit(OP_JF, lambda m, L, match=match, tmp=tmp: match(m, L, L[tmp]), -1)
                self.block(arm.body)
                ends.append(self.emit(OP_JUMP, -1))
                self.patch(jf, self.here())
            for j in ends:
                self.patch(j, self.here())
            return
        raise AssertionError(type(s))

    def zero_of_decl(self, s: A.DeclStmt) -> Ev:
        """The initial value of a declaration without an initialiser."""
        from esochess.gambit.resolver import resolve_type

        t = resolve_type(self.sym, s.type)
        if isinstance(t, T.StructT):
            return self.struct_zero(t.name)
        z = self.zero(t)
        return lambda m, L: z

    def simple(self, s: A.Simple) -> None:
        """Compile draw, illegal, commit, break or continue."""
        k = s.kind
        pos = s.pos
        if k == "break":
            self.loop_stack[-1][0].append(self.emit(OP_JUMP, -1))
        elif k == "continue":
            self.loop_stack[-1][1].append(self.emit(OP_JUMP, -1))
        elif k == "commit":
            if self.in_proc:
                self.emit(OP_COMMIT, pos)
            else:
                self.emit(OP_EXEC, lambda m, L: m.end_turn())
        elif k == "illegal":

            def illegal(m: Machine, L: list[Any]) -> None:
                raise IllegalSignal(pos)

            self.emit(OP_EXEC, illegal)
        elif k == "draw":

            def draw(m: Machine, L: list[Any]) -> None:
                raise GameEnd(Result(m.seats, (), True, pos[0], pos[1]))

            self.emit(OP_EXEC, draw)

    def end(self, s: A.EndStmt) -> Ev:
        """A closure for `wins`/`loses`."""
        who = self.ev(s.who)
        kind = s.kind
        pos = s.pos

        def end(m: Machine, L: list[Any]) -> None:
            v = who(m, L)
            players = list(v) if isinstance(v, tuple) else [v]
            if not players:
                raise RunError(pos, f"'{kind}' with an empty list of players")
            seats = {p.index for p in players}
            if kind == "wins":
                winners = tuple(sorted(seats))
            else:
                winners = tuple(k for k in range(1, m.seats + 1) if k not in seats)
            raise GameEnd(Result(m.seats, winners, False, pos[0], pos[1]))

        return end

    def assign(self, s: A.Assign) -> None:
        """Compile an assignment."""
        declared = self.an.declared.get(s)
        if declared is not None:
            self.emit(OP_SET, declared, self.ev(s.value))
            return
        tgt = s.target
        if isinstance(tgt, A.Name) and s.op == "=":
            tinfo = self.an.resolved.get(tgt)
            if isinstance(tinfo, LocalRef):
                self.emit(OP_SET, tinfo.slot, self.ev(s.value))
                return
        value = self.ev(s.value)
        get, put = self.place(tgt)
        if s.op == "=":
            self.emit(OP_EXEC, lambda m, L: put(m, L, value(m, L)))
            return
        op = self.arith(s.op[0], s.pos)

        def compound(m: Machine, L: list[Any]) -> None:
            put(m, L, op(get(m, L), value(m, L)))

        self.emit(OP_EXEC, compound)

    # ------------------------------------------------------------ places
    def place(self, e: A.Expr) -> tuple[Ev, Callable[[Machine, list[Any], Any], None]]:
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
                i = _check_index(idx(m, L), len(xs), pos)
                return xs[i - 1]

            def iset(m: Machine, L: list[Any], v: Any) -> None:
                xs = lget(m, L)
                i = _check_index(idx(m, L), len(xs), pos)
                lset2(m, L, xs[: i - 1] + (v,) + xs[i:])

            return iget, iset
        raise AssertionError(type(e))

    # ------------------------------------------------------------ lowering
    def pauses(self, e: Any) -> bool:
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
        for child in _children(e):
            if self.pauses(child):
                return True
        return False

    def pausing_call(self, e: A.Call) -> bool:
        """True for a call through a value or of a procedure that may pause."""
        target = self.an.calls.get(e)
        return isinstance(target, ValueCall) or (
            isinstance(target, UserCall) and target.name in self.pausing
        )

    def is_pausing_node(self, e: A.Expr) -> bool:
        """True when `e` itself (not a sub-expression) is a pausing instruction."""
        if not self.in_proc:
            return False
        if isinstance(e, A.Choose):
            return True
        if isinstance(e, A.Call):
            return self.pausing_call(e)
        return False

    def lower(self, e: A.Expr) -> Ev:
        """An expression whose choices and pausing calls become instructions."""
        if not self.pauses(e):
            return self.expr(e)
        conditional = self.lower_conditional(e)
        if conditional is not None:
            return conditional
        kids = _children(e)
        last = max((k for k, c in enumerate(kids) if self.pauses(c)), default=-1)
        for k, c in enumerate(kids):
            if k > last:
                break
            reader = self.lower(c) if self.pauses(c) else self.expr(c)
            if not self.pauses(c):
                tmp = self.new_temp()
                self.emit(OP_SET, tmp, reader)
                reader = _reader(tmp)
            self.override[id(c)] = reader
        if isinstance(e, A.Choose):
            tmp = self.new_temp()
            spec = self.choose_spec(e)
            self.emit(OP_CHOOSE, spec, tmp, e.pos, e.secret)
            return self.wrap_conv(e, _reader(tmp))
        if isinstance(e, A.Call):
            if self.pausing_call(e):
                tmp = self.new_temp()
                self.emit(OP_CALL, self.call_resolver(e), tmp, e.pos)
                return self.wrap_conv(e, _reader(tmp))
        return self.expr(e)

    def lower_conditional(self, e: A.Expr) -> Ev | None:
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
            return self.wrap_conv(e, _reader(tmp))
        if isinstance(e, A.IfExpr) and any(
            self.pauses(x) for x in _children(e)[1:]
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
            return self.wrap_conv(e, _reader(tmp))
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
            return self.wrap_conv(e, _reader(tmp))
        return None

    def choose_spec(self, e: A.Choose) -> Ev:
        """A closure evaluating a choose's player, K, prompt and options."""
        player = self.expr(e.player)
        k = self.expr(e.k) if e.k is not None else None
        prompt = self.expr(e.prompt) if e.prompt is not None else None
        options = self.expr(e.options)

        def spec(m: Machine, L: list[Any]) -> tuple[Any, Any, Any, tuple[Any, ...]]:
            p = player(m, L)
            kv = k(m, L) if k is not None else None
            pr = prompt(m, L) if prompt is not None else None
            return p, kv, pr, _iterable(options(m, L))

        return spec

    # ------------------------------------------------------------ expressions
    def wrap_conv(self, e: Any, f: Ev) -> Ev:
        """Apply the checker's implicit conversion of an expression, if any."""
        c = self.an.conversions.get(e)
        if c is None:
            return f
        if isinstance(c, ToNum):

            def num(m: Machine, L: list[Any]) -> Any:
                v = f(m, L)
                return float(v) if isinstance(v, int) and not isinstance(v, bool) else v

            return num
        ent, optional, text = c.entity, c.optional, c.text
        pos = first_pos(e)

        def coerce(m: Machine, L: list[Any]) -> Any:
            xs = f(m, L)
            if len(xs) == 1:
                return xs[0]
            if not xs and optional:
                return None
            raise RunError(pos, f"selector {text} matched {len(xs)} instances; exactly one "
                           f"{ent} was expected")  # fmt: skip

        return coerce

    def expr(self, e: A.Expr) -> Ev:
        """Compile an expression into a closure."""
        o = self.override.get(id(e))
        if o is not None:
            return o
        return self.wrap_conv(e, self._expr(e))

    def _expr(self, e: A.Expr) -> Ev:
        if isinstance(e, A.Lit):
            v = e.value
            return lambda m, L: v
        if isinstance(e, A.Name):
            return self.name(e)
        if isinstance(e, A.Member):
            return self.member(e)
        if isinstance(e, A.Index):
            obj = self.expr(e.obj)
            idx = self.expr(e.index)
            pos = e.pos

            def index(m: Machine, L: list[Any]) -> Any:
                xs = obj(m, L)
                i = _check_index(idx(m, L), len(xs), pos)
                return xs[i - 1]

            return index
        if isinstance(e, A.Call):
            return self.call(e)
        if isinstance(e, A.FilterMap):
            src = self.expr(e.source)
            body = self.expr(e.body)
            slot = self.an.binders[e]
            if e.kind == "filter":

                def filt(m: Machine, L: list[Any]) -> Any:
                    out = []
                    for x in _iterable(src(m, L)):
                        L[slot] = x
                        if truthy(body(m, L)):
                            out.append(x)
                    return tuple(out)

                return filt

            def mapper(m: Machine, L: list[Any]) -> Any:
                out = []
                for x in _iterable(src(m, L)):
                    L[slot] = x
                    out.append(body(m, L))
                return tuple(out)

            return mapper
        if isinstance(e, A.Unary):
            return self.unary(e)
        if isinstance(e, A.Binary):
            return self.binary(e)
        if isinstance(e, A.Is):
            val = self.expr(e.value)
            match = self.pattern(e.pattern)
            return lambda m, L: match(m, L, val(m, L))
        if isinstance(e, A.SelectorExpr):
            return self.selector(e.selector)
        if isinstance(e, A.ListLit):
            items = [self.expr(x) for x in e.items]
            return lambda m, L: tuple(f(m, L) for f in items)
        if isinstance(e, A.IfExpr):
            arms = [(self.expr(a.cond) if a.cond is not None else None, self.expr(a.value))
                    for a in e.arms]  # fmt: skip

            def ifx(m: Machine, L: list[Any]) -> Any:
                for c, v in arms:
                    if c is None or truthy(c(m, L)):
                        return v(m, L)
                return None

            return ifx
        if isinstance(e, A.MatchExpr):
            subj = self.expr(e.subject)
            marms = [(self.pattern(a.pattern) if a.pattern is not None else None,
                      self.expr(a.value)) for a in e.arms]  # fmt: skip
            pos = first_pos(e.subject)

            def matchx(m: Machine, L: list[Any]) -> Any:
                v = subj(m, L)
                for p, val in marms:
                    if p is None or p(m, L, v):
                        return val(m, L)
                raise RunError(pos, f"no match arm matched value {m.display(v)}")

            return matchx
        if isinstance(e, A.NotationLit):
            return self.notation_lit(e)
        if isinstance(e, A.Choose):
            raise AssertionError("choose outside a procedure statement")
        raise AssertionError(type(e))

    def name(self, e: A.Name) -> Ev:
        """Compile a bare name."""
        info = self.an.resolved[e]
        match info:
            case LocalRef(slot):
                return lambda m, L: L[slot]
            case PropRef(p):
                prop = self.props[p.pid]
                pos = e.pos
                return lambda m, L: m.read_prop(prop, (), pos)
            case FuncRef(fname):
                fv = FuncVal(fname)
                return lambda m, L: fv
            case EnumRef(v):
                return lambda m, L: v
            case EntityList(name):
                return lambda m, L: m.instances[name]
            case EnumList(enum):
                vals = tuple(self.sym.enums[enum].values.values())
                return lambda m, L: vals
            case BoolList():
                return lambda m, L: (False, True)
            case NaryRef() | FieldRef() | NotationRef():
                raise AssertionError(f"a name resolved to {info}")
            case _:
                assert_never(info)

    def member(self, e: A.Member) -> Ev:
        """Compile `x.name`."""
        info = self.an.resolved[e]
        pos = e.pos
        if isinstance(info, EnumRef):
            v = info.value
            return lambda m, L: v
        if isinstance(info, FieldRef):
            obj = self.expr(e.obj)
            name = info.name
            return lambda m, L: obj(m, L).get(name)
        assert isinstance(info, (PropRef, NaryRef)), info
        prop = self.props[info.prop.pid]
        if isinstance(info, NaryRef):
            assert isinstance(e.obj, A.TupleExpr)
            parts = [self.expr(x) for x in e.obj.items]
            return lambda m, L: m.read_prop(prop, tuple(p(m, L) for p in parts), pos)
        obj = self.expr(e.obj)
        if prop.kind == "fixed" and prop.pid == 0:
            return lambda m, L: obj(m, L).index
        if prop.kind == "fixed":
            key_pid = prop.pid

            def fixed(m: Machine, L: list[Any]) -> Any:
                inst = obj(m, L)
                v = m.store.get((key_pid, (inst,)), UNSET)
                if v is UNSET:
                    return m.read_prop(prop, (inst,), pos)
                return v

            return fixed
        if prop.kind == "trait":
            assert prop.code is not None
            return _memo_call(prop.code, [obj], pos)
        state_pid = prop.pid

        def state(m: Machine, L: list[Any]) -> Any:
            # read_prop's store lookup, inlined; defaults, zeros and errors stay there.
            inst = obj(m, L)
            v = m.store.get((state_pid, (inst,)), UNSET)
            if v is UNSET:
                return m.read_prop(prop, (inst,), pos)
            return v

        return state

    # ------------------------------------------------------------ calls
    def call(self, e: A.Call) -> Ev:
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
                return _memo_call(code, args, pos)
            if len(group) == 1:
                # One overload whose entity parameters are tested (e.g. not none): run
                # the tests here and leave only their failure (an error) to _dispatch.
                name = info.name
                code = group[0].code
                tests = group[0].tests
                args = [self.expr(a.value) for a in e.args]

                def tested(m: Machine, L: list[Any]) -> Any:
                    vals = [a(m, L) for a in args]
                    for i, t in tests:
                        if not t(m, vals[i]):
                            _dispatch(m, name, group, vals, pos, strict=False)
                    return m.call(code, vals, pos)

                return tested
        resolve = self.call_resolver(e)

        def sync(m: Machine, L: list[Any]) -> Any:
            code, args = resolve(m, L)
            return m.call(code, args, pos)

        return sync

    def call_resolver(self, e: A.Call) -> Callable[[Machine, list[Any]], tuple[Code, list[Any]]]:
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
                return _dispatch(m, fv.name, group, vals, pos, strict=True), vals

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
                        return _dispatch(m, name, group, vals, pos, strict=False), vals
                return one, vals

            return resolve_tested

        def resolve(m: Machine, L: list[Any]) -> tuple[Code, list[Any]]:
            vals = [a(m, L) for a in args]
            code = _dispatch(m, name, group, vals, pos, strict=False, trace=multi)
            return code, vals

        return resolve

    def builtin(self, e: A.Call, name: str) -> Ev:
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
                    vals = [a(m, L) for a in args]
                    try:
                        return impl(*vals)
                    except B.BuiltinError as exc:
                        raise RunError(pos, str(exc)) from None
                    except (OverflowError, ValueError) as exc:
                        raise RunError(pos, f"number out of range ({exc})") from None

                return plain_call
            case B.Hosted(hosted):
                args = [self.expr(a.value) for a in e.args]
                if b.effects == B.Effect.PRINTS and all(
                    self.effect_free(a.value) for a in e.args
                ):
                    # A fork's output is dropped, and evaluating effect-free arguments there
                    # only costs time. (A run-time error in such an argument then surfaces
                    # only in an execution that prints.)
                    def quiet_call(m: Machine, L: list[Any]) -> Any:
                        if m.io is None and m.forked and SKIP_QUIET:
                            return None
                        return hosted(m, [a(m, L) for a in args])

                    return quiet_call

                def hosted_call(m: Machine, L: list[Any]) -> Any:
                    vals = [a(m, L) for a in args]
                    try:
                        out = hosted(m, vals)
                    except B.BuiltinError as exc:
                        raise RunError(pos, str(exc)) from None
                    except (OverflowError, ValueError) as exc:
                        raise RunError(pos, f"number out of range ({exc})") from None
                    if trace is not None and m.tracing:
                        m.trace(pos, trace(vals, m.display(out)))
                    return out

                return hosted_call
            case _:
                assert_never(b.impl)

    def effect_free(self, e: Any) -> bool:
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
        return all(self.effect_free(c) for c in _children(e))

    def struct_ctor(self, e: A.Call, name: str) -> Ev:
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
                makers.append(_const(self.zero(mt)))
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

    def entity_ctor(self, e: A.Call, name: str) -> Ev:
        """Compile an entity constructor call (§10.1)."""
        given = [(a.name, self.expr(a.value)) for a in e.args if a.name is not None]
        unary = [p for p in self.props if p.params == (name,) and p.kind in ("fixed", "state")]
        pos = e.pos
        by_name = {p.name: p for p in unary}

        def create(m: Machine, L: list[Any]) -> Any:
            vals = [(n, f(m, L)) for n, f in given]
            inst = m.create(name)
            gv = dict(vals)
            for p in unary:
                if p.name in gv:
                    v = gv[p.name]
                elif p.default is not None:
                    v = p.default(m, [inst] + [None] * p.default_locals)
                else:
                    v = p.zero
                if v is not UNSET:
                    m.store[(p.pid, (inst,))] = v
                    m.touch()
            if m.tracing:
                shown = ", ".join(f"{n}: {m.display(v)}" for n, v in vals if n in by_name)
                m.trace(pos, f"create {inst.ident}" + (f" ({shown})" if shown else ""))
            return inst

        return create

    def notation_lit(self, e: A.NotationLit) -> Ev:
        """Compile a notation literal: run its body each time (§9.7)."""
        import re

        ref = self.an.resolved[e]
        assert isinstance(ref, NotationRef), ref
        info = ref.info
        code = self.notation_codes[id(info.decl)]
        rx = re.compile(info.regex)
        mt = rx.fullmatch(e.text)
        assert mt is not None
        groups = [e.text] + [g if g is not None else "" for g in mt.groups()]
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
                # Reported at the literal, with a note into the notation body (§9.7).
                moved = RunError(pos, err.message)
                moved.notes = [(err.pos, f"in the notation for {info.type_name}"), *err.notes]
                raise moved from None
            if v is None:
                raise RunError(pos, f"notation '{text}' produced no value")
            return v

        return run

    # ------------------------------------------------------------ operators
    def arith(self, op: str, pos: A.Pos) -> Callable[[Any, Any], Any]:
        """The run-time arithmetic of an operator, with its errors."""
        if op == "+":

            def add(a: Any, b: Any) -> Any:
                return _finite(a + b, pos)

            return add
        if op == "-":
            return lambda a, b: _finite(a - b, pos)
        if op == "*":
            return lambda a, b: _finite(a * b, pos)
        if op == "/":

            def div(a: Any, b: Any) -> Any:
                if b == 0:
                    raise RunError(pos, "division by zero")
                try:
                    return _finite(a / b, pos)
                except OverflowError:
                    raise RunError(pos, "number out of range") from None

            return div

        def mod(a: Any, b: Any) -> Any:
            if b == 0:
                raise RunError(pos, "division by zero")
            return _finite(a % b, pos)

        return mod

    def unary(self, e: A.Unary) -> Ev:
        """Compile a prefix operation."""
        f = self.expr(e.operand)
        if e.op == "not":
            return lambda m, L: not truthy(f(m, L))
        if e.op == "-":
            return lambda m, L: -f(m, L)
        if e.op == "+":
            return f
        return lambda m, L: B.PURE_IMPL["len"](f(m, L)) if f(m, L) is not None else 0

    def binary(self, e: A.Binary) -> Ev:
        """Compile a binary operation."""
        op = e.op
        a = self.expr(e.left)
        if op in ("==", "!="):
            alts = e.right.alts if isinstance(e.right, A.Alt) else (e.right,)
            bs = [self.expr(x) for x in alts]
            neg = op == "!="
            if len(bs) == 1:
                b0 = bs[0]

                def eq_one(m: Machine, L: list[Any]) -> bool:
                    x = a(m, L)
                    y = b0(m, L)
                    # values_equal's own first answers: the same object, or `none`
                    # (equal to nothing else), decided without the call.
                    if x is y:
                        return not neg
                    if x is None or y is None:
                        return neg
                    return values_equal(x, y) != neg

                return eq_one

            def eq_any(m: Machine, L: list[Any]) -> bool:
                v = a(m, L)
                return any(values_equal(v, b(m, L)) for b in bs) != neg

            return eq_any
        b = self.expr(e.right)
        if op == "and":
            return lambda m, L: truthy(a(m, L)) and truthy(b(m, L))
        if op == "or":
            return lambda m, L: truthy(a(m, L)) or truthy(b(m, L))
        if op in ("+", "-", "*", "/", "%"):
            f = self.arith(op, e.pos)
            return lambda m, L: f(a(m, L), b(m, L))
        if op == "<":
            return lambda m, L: _ord(a(m, L)) < _ord(b(m, L))
        if op == "<=":
            return lambda m, L: _ord(a(m, L)) <= _ord(b(m, L))
        if op == ">":
            return lambda m, L: _ord(a(m, L)) > _ord(b(m, L))
        if op == ">=":
            return lambda m, L: _ord(a(m, L)) >= _ord(b(m, L))
        if op == "..":
            return lambda m, L: tuple(range(a(m, L), b(m, L) + 1))
        if op == "&":
            return lambda m, L: make_multi(multi_members(a(m, L)) + multi_members(b(m, L)))
        if op == "in":

            def contains(m: Machine, L: list[Any]) -> bool:
                x, ys = a(m, L), b(m, L)
                if isinstance(ys, str):
                    return x in ys
                if isinstance(ys, tuple):
                    return any(values_equal(x, y) for y in ys)
                return x in multi_members(ys)

            return contains
        raise AssertionError(op)

    # ------------------------------------------------------------ patterns and selectors
    def pattern(self, p: A.Pattern) -> Callable[[Machine, list[Any], Any], bool]:
        """A matcher `f(m, locals, value) -> bool` (values evaluated at each test)."""
        leaves, test = self.pattern_parts(p)

        def match(m: Machine, L: list[Any], v: Any) -> bool:
            return test(m, v, [f(m, L) for f in leaves])

        return match

    def pattern_parts(
        self, p: A.Pattern, base: int = 0
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
                isinstance(p.type, A.TSuffix) and isinstance(_selector_of(p.type), A.Selector)
            ):
                sel = _selector_of(p.type)
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
        self, sel: A.Selector, only: bool | None = None
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
                v = m.store.get((prop.pid, (inst,)), UNSET)
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
        self, en: A.Entry, read: Callable[[Machine, Any], Any], leaves: list[Ev]
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
        cmp = _COMPARE[en.op]
        return lambda m, x, vals: cmp(read(m, x), vals[k])

    def selector(self, sel: A.Selector) -> Ev:
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

    def fixed_leaf_indices(self, sel: A.Selector) -> list[int]:
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


_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "==": values_equal,
    "!=": lambda a, b: not values_equal(a, b),
    "<=": lambda a, b: a is not None and b is not None and _ord(a) <= _ord(b),
    ">=": lambda a, b: a is not None and b is not None and _ord(a) >= _ord(b),
}


def type_test(t: T.Type) -> Callable[[Any], bool]:
    """A run-time membership test for a static type (type patterns)."""
    if t == T.ANY:
        return lambda v: True
    if isinstance(t, T.UnionT):
        tests = [type_test(m) for m in t.members]
        return lambda v: any(f(v) for f in tests)
    if t == T.NONE:
        return lambda v: v is None
    if t == T.INT:
        return lambda v: isinstance(v, int) and not isinstance(v, bool)
    if t == T.NUM:
        return lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)
    if t == T.BOOL:
        return lambda v: isinstance(v, bool)
    if t == T.STR:
        return lambda v: isinstance(v, str)
    if isinstance(t, T.EnumT):
        return lambda v: isinstance(v, EnumVal) and v.enum == t.name
    if isinstance(t, T.MultiT):
        enums = T.enums_of(t.inner) or set()
        return lambda v: (isinstance(v, EnumVal) and v.enum in enums) or (
            isinstance(v, frozenset) and all(x.enum in enums for x in v)
        )
    if isinstance(t, T.EntityT):
        return lambda v: isinstance(v, Inst) and v.type_name == t.name
    if isinstance(t, T.StructT):
        return lambda v: isinstance(v, StructVal) and v.type_name == t.name
    if isinstance(t, T.ListT):
        inner = type_test(t.elem)
        return lambda v: isinstance(v, tuple) and all(inner(x) for x in v)
    if t in (T.FUNCTION, T.PROCEDURE):
        return lambda v: isinstance(v, FuncVal)
    return lambda v: False


def _not_none(m: Machine, v: Any) -> bool:
    return v is not None


def _mixed_entity_positions(f: FuncInfo, fs: list[FuncInfo]) -> dict[int, str]:
    """Positions where overloads of `f`'s arity name different entities: position -> f's."""
    out: dict[int, str] = {}
    group = [g for g in fs if len(g.params) == len(f.params)]
    for i, t in enumerate(f.params):
        ent = _entity_name(t)
        if ent is not None and any(_entity_name(g.params[i]) not in (ent, None) for g in group):
            out[i] = ent
    return out


def _entity_name(t: T.Type) -> str | None:
    base = T.strip_none(t)
    if isinstance(base, T.EntityT):
        return base.name
    return base.entity if isinstance(base, T.SelT) else None


def _of_entity(
    ent: str, optional: bool, inner: Callable[[Machine, Any], bool] | None
) -> Callable[[Machine, Any], bool]:
    """A parameter test that first requires an instance of `ent` (or none when optional)."""

    def test(m: Machine, v: Any) -> bool:
        if v is None:
            return optional
        if not isinstance(v, Inst) or v.type_name != ent:
            return False
        return inner is None or inner(m, v)

    return test


def _dispatch(
    m: Machine, name: str, group: list[Overload], vals: list[Any], pos: A.Pos, *,
    strict: bool, trace: bool = False,
) -> Code:  # fmt: skip
    """§7.4: the least applicable overload (group is sorted most specific first).

    `strict` is for calls through Function/Procedure values, which the checker cannot see:
    argument types are tested and an ambiguity is a run-time error.
    """
    if strict:
        group = [o for o in group if all(t(v) for t, v in zip(o.types, vals, strict=True))]
    applicable = [o for o in group if all(t(m, vals[i]) for i, t in o.tests)]
    if not applicable:
        shown = ", ".join(display(v, m.name_of, True) for v in vals)
        raise RunError(pos, f"no overload of '{name}' accepts ({shown})")
    best = applicable[0]
    if strict and best.cells is not None:
        for other in applicable[1:]:
            if other.cells is not None and not best.cells <= other.cells:
                raise RunError(pos, f"ambiguous call to '{name}': {best.label} and "
                               f"{other.label} both apply, and neither is more specific")
    if trace and m.tracing:
        m.trace(pos, f"call {name} -> line {best.info.decl.pos[0]} {best.label}")
    return best.code


def _check_index(i: Any, n: int, pos: A.Pos) -> int:
    if not isinstance(i, int) or not 1 <= i <= n:
        raise RunError(pos, f"list index {i} out of range 1..{n}")
    return i


def _iterable(v: Any) -> tuple[Any, ...]:
    if isinstance(v, tuple):
        return v
    if isinstance(v, str):
        return tuple(v)
    if v is None:
        return ()
    return tuple(multi_members(v))


def _contains_commit(node: Any) -> bool:
    if isinstance(node, A.Simple):
        return node.kind == "commit"
    if isinstance(node, (list, tuple)):
        return any(_contains_commit(x) for x in node)
    if hasattr(node, "__dataclass_fields__"):
        return any(_contains_commit(getattr(node, f)) for f in node.__dataclass_fields__)
    return False


def _memo_call(code: Code, argfs: list[Ev], pos: A.Pos) -> Ev:
    """A call of one known body: `Machine.call`, with its memo lookup done here first.

    A memoised result is found without the cost of a Python call into the machine; the
    test is exactly the one of `Machine.call` (same key, same depth rule, same `peak`).
    """
    if len(argfs) == 1:
        a0 = argfs[0]

        def call1(m: Machine, L: list[Any]) -> Any:
            v = a0(m, L)
            if (code.pure or code.static) and not m.tracing:
                hit = m.program.memo.get(
                    (code, (v,), m.inst_version if code.static else m.version)
                )
                if hit is not None:
                    level = m.depth + len(m.frames) + hit[1]
                    if level < CALL_DEPTH_LIMIT:
                        if level > m.peak:
                            m.peak = level
                        return hit[0]
                return m.call(code, [v], pos)
            simple = code.simple
            level = m.depth + len(m.frames)
            if simple is None or level >= CALL_DEPTH_LIMIT or m.tracing:
                return m.call(code, [v], pos)
            # Machine.call's arrow-body path, inlined (same depth, peak and trail).
            if level > m.peak:
                m.peak = level
            local = [v]
            if code.nlocals > len(local):
                local += [None] * (code.nlocals - len(local))
            m.depth += 1
            try:
                return simple(m, local)
            except RunError as err:
                err.trail.append((code.where, pos))
                raise
            finally:
                m.depth -= 1

        return call1

    def call(m: Machine, L: list[Any]) -> Any:
        vals = [a(m, L) for a in argfs]
        if (code.pure or code.static) and not m.tracing:
            hit = m.program.memo.get(
                (code, tuple(vals), m.inst_version if code.static else m.version)
            )
            if hit is not None:
                level = m.depth + len(m.frames) + hit[1]
                if level < CALL_DEPTH_LIMIT:
                    if level > m.peak:
                        m.peak = level
                    return hit[0]
            return m.call(code, vals, pos)
        simple = code.simple
        level = m.depth + len(m.frames)
        if simple is None or level >= CALL_DEPTH_LIMIT or m.tracing:
            return m.call(code, vals, pos)
        # Machine.call's arrow-body path, inlined (same depth, peak and trail).
        if level > m.peak:
            m.peak = level
        local = vals
        if code.nlocals > len(local):
            local += [None] * (code.nlocals - len(local))
        m.depth += 1
        try:
            return simple(m, local)
        except RunError as err:
            err.trail.append((code.where, pos))
            raise
        finally:
            m.depth -= 1

    return call


def _const(v: Any) -> Ev:
    return lambda m, L: v


def _reader(slot: int) -> Ev:
    return lambda m, L: L[slot]


def _selector_of(t: A.TypeExpr) -> A.Selector | None:
    while isinstance(t, A.TSuffix):
        t = t.inner
    return t.selector if isinstance(t, A.TSel) else None


def _sig(sym: Symbols, f: FuncInfo) -> str:
    return signature(sym, f)


def _children(e: Any) -> list[Any]:
    """Direct sub-expressions in evaluation order (for lowering)."""
    if isinstance(e, A.Call):
        kids = [] if isinstance(e.func, A.Name) else [e.func]
        return kids + [a.value for a in e.args]
    if isinstance(e, A.Choose):
        return [x for x in (e.player, e.k, e.prompt, e.options) if x is not None]
    if isinstance(e, (A.Binary,)):
        return [e.left, e.right]
    if isinstance(e, A.Unary):
        return [e.operand]
    if isinstance(e, A.Member):
        return list(e.obj.items) if isinstance(e.obj, A.TupleExpr) else [e.obj]
    if isinstance(e, A.Index):
        return [e.obj, e.index]
    if isinstance(e, A.ListLit):
        return list(e.items)
    if isinstance(e, A.Is):
        return [e.value]
    if isinstance(e, A.FilterMap):
        return [e.source]
    if isinstance(e, A.IfExpr):
        return [x for a in e.arms for x in ((a.cond, a.value) if a.cond is not None else (a.value,))]
    if isinstance(e, A.MatchExpr):
        return [e.subject] + [a.value for a in e.arms]
    if isinstance(e, A.Alt):
        return list(e.alts)
    return []
