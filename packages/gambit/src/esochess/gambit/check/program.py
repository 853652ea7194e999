"""The program checker (docs/reference/gambit.md#declarations and
docs/reference/gambit.md#notations): properties, functions, overload sets and notations."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

from esochess.fen import Note, SourceError
from esochess.gambit import ast as A
from esochess.gambit import declarations as D
from esochess.gambit import types as T
from esochess.gambit.analysis import (
    Analysis,
    CellAnalysis,
    CompiledNotation,
)
from esochess.gambit.check.body import BodyChecker
from esochess.gambit.check.common import (
    entity_of,
    literal_values,
    position_entities,
    type_selector,
)
from esochess.gambit.check.constants import (
    NotConstant,
    const_entry,
)
from esochess.gambit.check.context import (
    Ctx,
    Local,
    RecursiveInference,
)
from esochess.gambit.check.purity import (
    static_function_names,
)
from esochess.gambit.notations import NotationRegexError, compile_notation
from esochess.gambit.resolver import (
    FuncInfo,
    NotationInfo,
    PropInfo,
    collect,
)
from esochess.gambit.values import EnumVal, make_multi


class ProgramChecker:
    """Checks all bodies and overload sets of a program."""

    def __init__(self, program: D.Program) -> None:
        self.program = program
        self.sym = collect(program)
        self.out = Analysis(self.sym)
        self.out.errors = self.sym.errors
        self.ret_state: dict[int, str] = {}
        self.set_cache: dict[tuple[str, int], CellAnalysis | None] = {}
        self.notation_cache: dict[str, list[NotationInfo]] = {}
        # Calls of user functions from static contexts: (position, name, context label).
        self.static_calls: list[tuple[A.Pos, str, str]] = []

    # ----------------------------------------------------------- diagnostics
    def err(self, pos: A.Pos, message: str, notes: tuple[Note, ...] = ()) -> None:
        """Record an error."""
        self.sym.err(pos, message, notes)

    def warn(self, pos: A.Pos, message: str) -> None:
        """Record a warning."""
        self.out.warnings.append(
            SourceError(self.sym.path, pos[0], pos[1], message, severity="warning")
        )

    # ----------------------------------------------------------- driver
    def run(self) -> Analysis:
        """Check everything."""
        self.notations()
        for p in self.sym.props:
            if p.decl.pos != (0, 0):
                self.property(p)
        for s in self.sym.structs.values():
            for name, mtype, default, _ in s.members:
                if default is not None:
                    bc = BodyChecker(self, Ctx("default", f"default of '{name}'", name, static=True))
                    bc.coerce(default, bc.ex(default, mtype), mtype)
                    self.out.nlocals[default] = bc.nslots
        for name, fs in self.sym.funcs.items():
            for f in fs:
                self.func_ret(f)
            self.overload_rules(name, fs)
        for name, fs in self.sym.funcs.items():
            for arity in {len(f.params) for f in fs}:
                if sum(len(f.params) == arity for f in fs) > 1:
                    cells = self.overload_set(name, arity)
                    if cells is not None:
                        self.out.overload_sets[(name, arity)] = cells
        if self.static_calls:
            static = static_function_names(self.sym, self.out, strict=True)
            for pos, name, label in self.static_calls:
                if name not in static:
                    self.err(pos, f"{label} must be static: it calls '{name}', which reads the "
                             "game state, selectors or instance lists")  # fmt: skip
        return self.out

    # ----------------------------------------------------------- properties
    def property(self, p: PropInfo) -> None:
        """Check a property declaration: its default or trait body, with binders in scope."""
        d = p.decl
        label = f"trait '{p.name}'" if p.kind == "trait" else f"default of '{p.name}'"
        ctx = Ctx("trait" if p.kind == "trait" else "default", label, p.name,
                  static=p.kind != "trait")  # fmt: skip
        bc = BodyChecker(self, ctx)
        bc.push()
        for ent, binder in zip(p.params, p.binders, strict=True):
            slot = bc.new_slot()
            if binder is not None:
                bc.scopes[-1][binder] = Local(slot, T.EntityT(ent), True, d.pos)
        if d.body is not None:
            ctx.declared_ret = p.type
            bc.body_block(d.body, p.type, f"trait '{p.name}'")
        elif d.default is not None:
            t = bc.ex(d.default, p.type)
            bc.coerce(d.default, t, p.type)
        self.out.nlocals[d] = bc.nslots

    # ----------------------------------------------------------- functions
    def func_ret(self, f: FuncInfo) -> T.Type:
        """The return type of one overload, checking its body on first demand."""
        state = self.ret_state.get(id(f.decl))
        if state == "done":
            return f.ret if f.ret is not None else T.ERR
        if state == "busy":
            if f.declared_ret is not None:
                return f.declared_ret
            raise RecursiveInference(f)
        self.ret_state[id(f.decl)] = "busy"
        try:
            f.ret = self.check_function(f)
        except RecursiveInference as ri:
            if ri.f is not f:
                self.ret_state[id(f.decl)] = "done"
                f.ret = T.ERR
                raise
            self.err(f.decl.pos, f"cannot infer the return type of recursive '{f.name}'; "
                     "add '-> Type'")  # fmt: skip
            f.ret = T.ERR
        self.ret_state[id(f.decl)] = "done"
        return f.ret

    def set_ret(self, name: str, fs: list[FuncInfo]) -> T.Type:
        """The return type of an overload set (docs/reference/gambit.md#overloads rule 2)."""
        for f in fs:
            if f.declared_ret is not None:
                return f.declared_ret
        return self.func_ret(fs[0])

    def check_function(self, f: FuncInfo) -> T.Type:
        """Check one overload body and return its (declared or inferred) return type."""
        d = f.decl
        kind = "fn" if d.pure else ("main" if d.name == "main" else "proc")
        label = f"function '{d.name}'" if d.pure else f"procedure '{d.name}'"
        ctx = Ctx(kind, label, d.name, f.declared_ret)
        bc = BodyChecker(self, ctx)
        bc.push()
        for p, t, name in zip(d.params, f.params, f.param_names, strict=True):
            sel = type_selector(p.type)
            if sel is not None:
                bc.selector(sel, pattern=True, param=True)
            slot = bc.new_slot()
            if name is not None:
                bc.declare_local(name, t, p.pos, slot=slot)
        if isinstance(d.body, A.Block):
            ret = bc.body_block(d.body, f.declared_ret, d.name)
        else:
            t = bc.ex(d.body, f.declared_ret)
            if f.declared_ret is not None:
                bc.coerce(d.body, t, f.declared_ret)
                ret = f.declared_ret
            else:
                ret = t
        self.out.nlocals[d] = bc.nslots
        return ret

    # ----------------------------------------------------------- overload sets
    def overload_rules(self, name: str, fs: list[FuncInfo]) -> None:
        """Check the declaration rules of docs/reference/gambit.md#overloads for one overload
        set."""
        if len(fs) < 2:
            return
        first = fs[0]
        for f in fs[1:]:
            if f.pure != first.pure:
                self.err(f.decl.pos, f"overloads of '{name}' must all be functions or all be "
                         "procedures", (self.sym.note(first.decl.pos, "other overload"),))
                return
        declared = [f for f in fs if f.declared_ret is not None]
        if declared:
            for f in declared[1:]:
                if f.declared_ret != declared[0].declared_ret:
                    self.err(f.decl.pos, f"overloads of '{name}' must have the same return type")
                    return
        else:
            r0 = first.ret or T.ERR
            for f in fs[1:]:
                r = f.ret or T.ERR
                if r != r0 and not isinstance(r, T.ErrT) and not isinstance(r0, T.ErrT):
                    self.err(f.decl.pos, f"overloads of '{name}' must have the same return type: "
                             f"{T.show(r0)} (line {first.decl.pos[0]}) vs {T.show(r)} "
                             f"(line {f.decl.pos[0]})")  # fmt: skip
                    return
        by_arity: dict[int, list[FuncInfo]] = {}
        for f in fs:
            by_arity.setdefault(len(f.params), []).append(f)
        for arity, group in by_arity.items():
            if len(group) < 2:
                continue
            for i in range(arity):
                ents = [entity_of(f.params[i]) for f in group]
                if all(e is not None for e in ents):
                    continue
                if any(f.params[i] != group[0].params[i] for f in group):
                    self.err(group[1].decl.pos, f"overloads of '{name}' differ at parameter "
                             f"{i + 1}, which is not an entity parameter")  # fmt: skip
                    return
            info = self.overload_set(name, arity)
            if info is None:
                for fa, fb in itertools.combinations(group, 2):
                    if fa.params == fb.params:
                        self.err(fb.decl.pos, f"duplicate overload of '{name}': same parameters "
                                 f"as line {fa.decl.pos[0]}",
                                 (self.sym.note(fa.decl.pos, "first here"),))  # fmt: skip
                        return
                continue
            matches = info.matches
            for a, b in itertools.combinations(range(len(group)), 2):
                if matches[a] == matches[b]:
                    fa, fb = group[a], group[b]
                    self.err(fb.decl.pos, f"duplicate overload of '{name}': same parameters as "
                             f"line {fa.decl.pos[0]}", (self.sym.note(fa.decl.pos, "first here"),))
                    return

    def overload_set(self, name: str, arity: int) -> CellAnalysis | None:
        """Cells and per-overload match sets for a set's entity positions
        (docs/reference/gambit.md#overloads)."""
        key = (name, arity)
        if key in self.set_cache:
            return self.set_cache[key]
        group = [f for f in self.sym.funcs.get(name, []) if len(f.params) == arity]
        self.set_cache[key] = None
        positions = [i for i in range(arity) if all(entity_of(f.params[i]) for f in group)]
        if not positions:
            return None
        axes: list[list[Any]] = []
        for i in positions:
            # Overloads may name different entities at one position (`fn g(A a)`, `fn g(B b)`):
            # each entity contributes its own atoms, tagged with its name.
            axis: list[Any] = []
            for ent in position_entities(group, i):
                props = self.sel_props(ent, [self.param_selector(f, i) for f in group])
                axis.extend((ent, vals) for vals in self.atoms(ent, props))
            axis.append(None)  # the `none` cell of optional patterns
            axes.append(axis)
        cells = list(itertools.product(*axes))
        if len(cells) > 20000:
            return None
        matches = []
        for f in group:
            ok = set()
            for ci, cell in enumerate(cells):
                if all(self.param_matches(f, i, cell[k]) for k, i in enumerate(positions)):
                    ok.add(ci)
            matches.append(frozenset(ok))
        result = CellAnalysis(cells, matches, positions, group)
        self.set_cache[key] = result
        return result

    def param_selector(self, f: FuncInfo, i: int) -> A.Selector | None:
        """The selector of parameter `i` of an overload, if it has one."""
        t = f.decl.params[i].type
        while isinstance(t, A.TSuffix):
            t = t.inner
        return t.selector if isinstance(t, A.TSel) else None

    def sel_props(self, ent: str, sels: list[A.Selector | None]) -> list[PropInfo]:
        """The fixed unary properties of `ent` mentioned by any of these selectors."""
        out: list[PropInfo] = []
        for s in sels:
            if s is None:
                continue
            for e in s.entries:
                p = self.sym.prop(e.prop, (ent,))
                if p is not None and p.kind == "fixed" and p not in out:
                    out.append(p)
        out.sort(key=lambda p: p.pid)
        return out

    def atoms(self, ent: str, props: list[PropInfo]) -> list[Any]:
        """All cells of one entity at a position: dicts prop -> representative."""
        per: list[list[Any]] = []
        for p in props:
            per.append(self.prop_atoms(p))
        return [dict(zip([p.pid for p in props], combo, strict=True))
                for combo in itertools.product(*per)]  # fmt: skip

    def prop_atoms(self, p: PropInfo) -> list[Any]:
        """One representative value per atom of a property's domain
        (docs/reference/gambit.md#overloads step 2)."""
        t = p.type
        out: list[Any] = []
        if T.contains_none(t):
            out.append(None)
        base = T.strip_none(t)
        if isinstance(base, T.EnumT):
            out += list(self.sym.enums[base.name].values.values())
        elif base == T.BOOL:
            out += [False, True]
        elif isinstance(base, T.MultiT):
            mem: list[EnumVal] = []
            for e in sorted(T.enums_of(base.inner) or ()):
                mem += list(self.sym.enums[e].values.values())
            for r in range(1, len(mem) + 1):
                for combo in itertools.combinations(mem, r):
                    out.append(make_multi(combo))
        elif base == T.INT:
            consts = sorted(self.int_constants(p))
            points = sorted({c for k in consts for c in (k, k + 1)})
            out += [points[0] - 1] + points if points else [0]
        elif base == T.STR:
            out += sorted(self.str_constants(p)) + ["\x00other"]
        else:
            out.append("\x00any")
        return out

    def selector_entries(self, p: PropInfo) -> Iterator[A.Entry]:
        """Every entry of a parameter selector, over all overloads, that tests property `p`."""
        for fs in self.sym.funcs.values():
            for f in fs:
                for i in range(len(f.params)):
                    s = self.param_selector(f, i)
                    if s is not None:
                        yield from (e for e in s.entries if e.prop == p.name)

    def int_constants(self, p: PropInfo) -> set[int]:
        """Every int constant that parameter selectors compare property `p` with."""
        found: set[int] = set()
        for e in self.selector_entries(p):
            found.update(v for v in literal_values(e) if type(v) is int)
        return found

    def str_constants(self, p: PropInfo) -> set[str]:
        """Every string constant that parameter selectors compare property `p` with."""
        found: set[str] = set()
        for e in self.selector_entries(p):
            found.update(v for v in literal_values(e) if isinstance(v, str))
        return found

    def param_matches(self, f: FuncInfo, i: int, cell: Any) -> bool:
        """True when parameter `i` of overload `f` accepts every instance of a cell."""
        t = f.params[i]
        if cell is None:
            return T.contains_none(t)
        ent, vals = cell
        if entity_of(t) != ent:
            return False
        sel = self.param_selector(f, i)
        if sel is None:
            return True
        return self.sel_matches_cell(sel, vals)

    def sel_matches_cell(self, sel: A.Selector, cell: dict[int, Any]) -> bool:
        """True when every constant entry of the selector holds in the cell."""
        for e in sel.entries:
            p = self.sym.prop(e.prop, (sel.entity,))
            if p is None or p.pid not in cell:
                continue
            v = cell[p.pid]
            try:
                if not const_entry(self, e, p, v):
                    return False
            except NotConstant:
                # Already reported for parameters; a literal's dynamic entry constrains nothing.
                continue
        return True

    # ----------------------------------------------------------- notations
    def notations(self) -> None:
        """Compile every notation regex, check its arity, then check the bodies."""
        for d in self.program.decls:
            if not isinstance(d, D.NotationDecl):
                continue
            t: T.Type
            if d.type_name in self.sym.structs:
                t = T.StructT(d.type_name)
            elif d.type_name in self.sym.entities:
                t = T.EntityT(d.type_name)
            elif d.type_name in self.sym.enums:
                t = T.EnumT(d.type_name)
            else:
                self.err(d.type_pos, f"'{d.type_name}' is not a struct, entity or enum type")
                continue
            try:
                rx = compile_notation(d.regex)
            except NotationRegexError as exc:
                msg = str(exc)
                if msg.startswith("unknown notation class"):
                    self.err(d.regex_pos, msg)
                else:
                    self.err(d.regex_pos, f"invalid regular expression in notation for "
                             f"{d.type_name}: {msg}")  # fmt: skip
                continue
            need = rx.groups + 1
            if len(d.names) != need:
                self.err(d.regex_pos, f"notation for {d.type_name} has {rx.groups} capture "
                         f"group{'s' if rx.groups != 1 else ''}, so it needs {need} names (the "
                         f"whole match, then one per group); found {len(d.names)}")  # fmt: skip
                continue
            info = NotationInfo(t, d.type_name, rx.pattern, [n for n, _ in d.names], d, rx.groups)
            self.sym.notations.append(info)
            self.out.notations[d] = CompiledNotation(info, rx)
        for info in self.sym.notations:
            d = info.decl
            ctx = Ctx("notation", f"notation for {info.type_name}", f"notation {info.type_name}")
            bc = BodyChecker(self, ctx)
            bc.push()
            vt = info.type if isinstance(info.type, T.StructT) else T.optional(info.type)
            bc.value_slot = bc.declare_local("value", vt, d.pos, allow_value=True)
            for n, pos in d.names:
                slot = bc.new_slot()
                if n is not None:
                    bc.declare_local(n, T.STR, pos, slot=slot)
            ctx.declared_ret = T.optional(info.type) if not isinstance(info.type, T.StructT) \
                else info.type
            bc.body_block(d.body, ctx.declared_ret, "notation", notation=True)
            self.out.nlocals[d] = bc.nslots
