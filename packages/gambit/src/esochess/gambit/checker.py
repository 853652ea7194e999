"""The checker (§2–§9, §13.1): names, types, narrowing, selectors, overloads, purity and
notations, over the whole program before anything runs.

`check(program)` returns an `Analysis` (analysis.py): the symbol tables plus typed side
tables keyed by node that the compiler needs (what each name, member access and call
resolved to, local slots, implicit conversions, chosen notations, overload cells).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from esochess.fen import Note, SourceError
from esochess.gambit import ast as A
from esochess.gambit import builtins as B
from esochess.gambit import types as T
from esochess.gambit.analysis import (
    Analysis,
    BoolList,
    BuiltinCall,
    CellAnalysis,
    CompiledNotation,
    EntityCtor,
    EntityList,
    EnumList,
    EnumRef,
    FieldRef,
    ForSlots,
    FuncRef,
    LocalRef,
    NaryRef,
    NotationRef,
    PropRef,
    SelectionToEntity,
    StructCtor,
    ToNum,
    UserCall,
    ValueCall,
)
from esochess.gambit.notations import NotationRegexError, compile_notation
from esochess.gambit.resolver import (
    FuncInfo,
    NotationInfo,
    PropInfo,
    Symbols,
    collect,
    resolve_type,
)
from esochess.gambit.values import EnumVal, make_multi

MAX_ERRORS = 50


@dataclass
class Local:
    """A local variable or parameter: its slot, declared type and whether it is read-only."""

    slot: int
    type: T.Type
    readonly: bool
    pos: A.Pos


class _Stop(Exception):
    """Raised to abandon the rest of an expression after an error."""


@dataclass
class Ctx:
    """What kind of body is being checked, for purity and return rules."""

    kind: str  # fn, proc, trait, default, notation, main
    label: str
    name: str
    declared_ret: T.Type | None = None
    static: bool = False


class ProgramChecker:
    """Checks all bodies and overload sets of a program."""

    def __init__(self, program: A.Program) -> None:
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
        """The return type of an overload set (§7.1 rule 2)."""
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
            sel = _param_selector(p.type)
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
        """Check the declaration rules of §7.1 for one overload set."""
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
                ents = [_entity_of(f.params[i]) for f in group]
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
        """Cells and per-overload match sets for a set's entity positions (§7.5)."""
        key = (name, arity)
        if key in self.set_cache:
            return self.set_cache[key]
        group = [f for f in self.sym.funcs.get(name, []) if len(f.params) == arity]
        self.set_cache[key] = None
        positions = [i for i in range(arity) if all(_entity_of(f.params[i]) for f in group)]
        if not positions:
            return None
        axes: list[list[Any]] = []
        for i in positions:
            # Overloads may name different entities at one position (`fn g(A a)`, `fn g(B b)`):
            # each entity contributes its own atoms, tagged with its name.
            axis: list[Any] = []
            for ent in _position_entities(group, i):
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
        """One representative value per atom of a property's domain (§7.5 step 2)."""
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
            _collect_ints(e, found)
        return found

    def str_constants(self, p: PropInfo) -> set[str]:
        """Every string constant that parameter selectors compare property `p` with."""
        found: set[str] = set()
        for e in self.selector_entries(p):
            _collect_strs(e, found)
        return found

    def param_matches(self, f: FuncInfo, i: int, cell: Any) -> bool:
        """True when parameter `i` of overload `f` accepts every instance of a cell."""
        t = f.params[i]
        if cell is None:
            return T.contains_none(t)
        ent, vals = cell
        if _entity_of(t) != ent:
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
                if not _const_entry(self, e, p, v):
                    return False
            except NotConstant:
                # Already reported for parameters; a literal's dynamic entry constrains nothing.
                continue
        return True

    # ----------------------------------------------------------- notations
    def notations(self) -> None:
        """Compile every notation regex, check its arity, then check the bodies."""
        for d in self.program.decls:
            if not isinstance(d, A.NotationDecl):
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


class RecursiveInference(Exception):
    """Return-type inference reached a function already being inferred."""

    def __init__(self, f: FuncInfo) -> None:
        super().__init__(f.name)
        self.f = f


def _param_selector(t: A.TypeExpr) -> A.Selector | None:
    while isinstance(t, A.TSuffix):
        t = t.inner
    return t.selector if isinstance(t, A.TSel) else None


def _position_entities(group: list[FuncInfo], i: int) -> list[str]:
    """The distinct entities that the overloads of a group name at entity position `i`."""
    out: list[str] = []
    for f in group:
        ent = _entity_of(f.params[i])
        if ent is not None and ent not in out:
            out.append(ent)
    return out


def _entity_of(t: T.Type) -> str | None:
    if isinstance(t, T.EntityT):
        return t.name
    if isinstance(t, T.SelT):
        return t.entity
    ms = T.members(t)
    if len(ms) == 2 and T.NONE in ms:
        other = ms[0] if ms[1] == T.NONE else ms[1]
        return _entity_of(other)
    return None


def _collect_ints(node: Any, found: set[int]) -> None:
    if isinstance(node, A.Lit) and isinstance(node.value, int) and not isinstance(node.value, bool):
        found.add(node.value)
        return
    if isinstance(node, (list, tuple)):
        for x in node:
            _collect_ints(x, found)
        return
    if hasattr(node, "__dataclass_fields__"):
        for name in node.__dataclass_fields__:
            if name != "pos":
                _collect_ints(getattr(node, name), found)


def _collect_strs(node: Any, found: set[str]) -> None:
    if isinstance(node, A.Lit) and isinstance(node.value, str):
        found.add(node.value)
        return
    if isinstance(node, (list, tuple)):
        for x in node:
            _collect_strs(x, found)
        return
    if hasattr(node, "__dataclass_fields__"):
        for name in node.__dataclass_fields__:
            if name != "pos":
                _collect_strs(getattr(node, name), found)


class NotConstant(Exception):
    """A selector entry value that is not a constant."""


def const_value(pc: ProgramChecker, e: A.Expr, t: T.Type) -> Any:
    """The value of a constant entry expression (enum member, literal, `&` set)."""
    if isinstance(e, A.Lit):
        return e.value
    if isinstance(e, A.Name):
        cands = [info for info in pc.sym.members.get(e.name, [])]
        en = T.enums_of(T.strip_none(t)) or set()
        pick = [c for c in cands if c.name in en] or cands
        if len(pick) == 1:
            return pick[0].values[e.name]
        raise NotConstant()
    if isinstance(e, A.Member) and isinstance(e.obj, A.Name) and e.obj.name in pc.sym.enums:
        v = pc.sym.enums[e.obj.name].values.get(e.name)
        if v is None:
            raise NotConstant()
        return v
    if isinstance(e, A.Binary) and e.op == "&":
        a = const_value(pc, e.left, t)
        b = const_value(pc, e.right, t)
        from esochess.gambit.values import multi_members

        return make_multi(multi_members(a) + multi_members(b))
    raise NotConstant()


def _const_pattern(pc: ProgramChecker, pat: A.Pattern, t: T.Type, v: Any) -> bool:
    from esochess.gambit.values import is_superset, values_equal

    if isinstance(pat, A.PAlt):
        return any(_const_pattern(pc, a, t, v) for a in pat.alts)
    if isinstance(pat, A.PNot):
        return not _const_pattern(pc, pat.inner, t, v)
    if isinstance(pat, A.PNone):
        return v is None
    if isinstance(pat, A.PAny):
        return True
    if isinstance(pat, A.PRange):
        lo = const_value(pc, pat.lo, T.INT)
        hi = const_value(pc, pat.hi, T.INT)
        return isinstance(v, int) and lo <= v <= hi
    if isinstance(pat, A.PValue):
        c = const_value(pc, pat.value, t)
        if isinstance(v, str) and v == "\x00other":
            return False
        return bool(is_superset(v, c)) if v is not None else values_equal(v, c)
    raise NotConstant()


def _const_pattern_check(pc: ProgramChecker, pat: A.Pattern, t: T.Type) -> None:
    """Raise NotConstant unless every leaf of the pattern is a constant."""
    if isinstance(pat, A.PAlt):
        for a in pat.alts:
            _const_pattern_check(pc, a, t)
    elif isinstance(pat, A.PNot):
        _const_pattern_check(pc, pat.inner, t)
    elif isinstance(pat, A.PRange):
        const_value(pc, pat.lo, T.INT)
        const_value(pc, pat.hi, T.INT)
    elif isinstance(pat, A.PValue):
        const_value(pc, pat.value, t)
    elif isinstance(pat, A.PType):
        raise NotConstant()


def _const_entry(pc: ProgramChecker, e: A.Entry, p: PropInfo, v: Any) -> bool:
    from esochess.gambit.values import values_equal

    if e.op == "true":
        return v is True
    if e.op == "false":
        return v is False
    if e.op == "pat":
        assert e.pattern is not None
        return _const_pattern(pc, e.pattern, p.type, v)
    assert e.value is not None
    c = const_value(pc, e.value, p.type)
    if e.op == "==":
        return values_equal(v, c)
    if e.op == "!=":
        return not values_equal(v, c)
    if v is None or (isinstance(v, str) and v.startswith("\x00")):
        return False
    a = v.ordinal if isinstance(v, EnumVal) else v
    b = c.ordinal if isinstance(c, EnumVal) else c
    return bool(a <= b) if e.op == "<=" else bool(a >= b)


def check(program: A.Program) -> Analysis:
    """Check a parsed program; errors and warnings are in the result."""
    return ProgramChecker(program).run()


def static_function_names(sym: Symbols, an: Analysis, *, strict: bool) -> set[str]:
    """Function sets whose bodies (transitively) read no state and no traits.

    `strict` is the rule for property defaults (§2.6.5): no selectors, no instance lists and
    no notations either. Otherwise instance lists and static selectors are allowed: such a
    function depends only on its arguments and the set of instances.
    """
    reads: set[str] = set()
    calls: dict[str, set[str]] = {}
    for name, fs in sym.funcs.items():
        if not fs[0].pure:
            continue
        found: set[str] = set()
        if not all(static_node(f.decl, an, found, strict) for f in fs):
            reads.add(name)
        calls[name] = found
    static = {n for n in calls if n not in reads}
    changed = True
    while changed:
        changed = False
        for n in list(static):
            if not calls[n] <= static:
                static.discard(n)
                changed = True
    return static


def static_node(node: object, an: Analysis, called: set[str], strict: bool) -> bool:
    """False when `node` may read state or traits (or, if strict, dynamic data at all)."""
    if isinstance(node, (A.Name, A.Member)):
        info = an.resolved.get(node)
        if isinstance(info, (PropRef, NaryRef)) and info.prop.kind != "fixed":
            return False
        if strict and isinstance(info, EntityList):
            return False
    elif isinstance(node, A.Entry):
        prop = an.entry_props.get(node)
        if prop is None or prop.kind != "fixed":
            return False
    elif isinstance(node, A.SelectorExpr) and strict:
        return False
    elif isinstance(node, A.NotationLit):
        return False
    elif isinstance(node, A.Call):
        target = an.calls.get(node)
        if isinstance(target, ValueCall):
            return False
        if isinstance(target, UserCall):
            called.add(target.name)
    elif isinstance(node, A.PType):
        if isinstance(an.pattern_types.get(node), T.SelT):
            return False
    if isinstance(node, (list, tuple)):
        return all(static_node(x, an, called, strict) for x in node)
    if hasattr(node, "__dataclass_fields__"):
        return all(
            static_node(getattr(node, f), an, called, strict)
            for f in node.__dataclass_fields__
            if f != "pos"
        )
    return True


ARITH = {"+", "-", "*", "/", "%"}
ORDER = {"<", "<=", ">", ">="}
TERMINATING = ("return", "break", "continue", "wins", "loses", "draw", "illegal")


class BodyChecker:
    """Checks one body (function, procedure, trait, default or notation)."""

    def __init__(self, pc: ProgramChecker, ctx: Ctx) -> None:
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

    # ------------------------------------------------------------ helpers
    def err(self, pos: A.Pos, message: str, notes: tuple[Note, ...] = ()) -> None:
        """Record an error."""
        self.pc.err(pos, message, notes)

    def new_slot(self) -> int:
        """Allocate a local slot in the current body."""
        self.nslots += 1
        return self.nslots - 1

    def push(self) -> None:
        """Open a scope."""
        self.scopes.append({})

    def pop(self) -> None:
        """Close the innermost scope."""
        self.scopes.pop()

    def lookup(self, name: str) -> Local | None:
        """The visible local or parameter with this name."""
        for s in reversed(self.scopes):
            if name in s:
                return s[name]
        return None

    def declare_local(self, name: str, t: T.Type, pos: A.Pos, *, slot: int | None = None,
                      readonly: bool = False, allow_value: bool = False) -> int:  # fmt: skip
        """Declare a local (reporting shadowing, §2.9) and return its slot."""
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

    def local_type(self, loc: Local) -> T.Type:
        """The static type of a local, narrowed where a test holds."""
        return self.narrow.get(loc.slot, loc.type)

    @property
    def pure(self) -> bool:
        """True inside a pure context (§8.1)."""
        return bool(self.pure_stack) or self.ctx.kind in ("fn", "trait", "default", "notation")

    def label(self) -> str:
        """How purity messages name the current context."""
        return "filter body" if self.pure_stack else self.ctx.label

    def impure(self, pos: A.Pos, what: str) -> None:
        """Report `what` when the current context is pure."""
        if self.pure:
            self.err(pos, f"{self.label()} cannot {what}")

    def coerce(self, e: A.Expr, t: T.Type, target: T.Type, pos: A.Pos | None = None) -> None:
        """Check that a value of type `t` can be stored where `target` is expected."""
        at = pos or _pos_of(e)
        if isinstance(t, T.ErrT) or isinstance(target, T.ErrT):
            return
        if isinstance(e, A.SelectorExpr) or (
            isinstance(e, A.Name) and isinstance(t, T.ListT) and e.name in self.sym.entities
            and self.lookup(e.name) is None
        ):
            ent = e.selector.entity if isinstance(e, A.SelectorExpr) else e.name
            base = T.strip_none(target)
            if ent in {_entity_of(m) for m in T.members(base)}:
                self.an.conversions[e] = SelectionToEntity(ent, T.contains_none(target), _sel_text(self, e))
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

    def widen_list(self, e: A.ListLit, t: T.ListT, target: T.Type) -> None:
        """Record int-to-num conversions of the elements of a list literal."""
        if isinstance(target, T.ListT) and target.elem == T.NUM and t.elem == T.INT:
            for x in e.items:
                self.an.conversions[x] = ToNum()

    # ------------------------------------------------------------ bodies
    def body_block(self, b: A.Block, declared: T.Type | None, name: str,
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

    def block(self, b: A.Block, new_scope: bool = True) -> bool:
        """Check a block; True when it always terminates."""
        if new_scope:
            self.push()
        saved = dict(self.narrow)
        term = False
        for s in b.stmts:
            if term:
                self.pc.warn(_stmt_pos(s), "unreachable statement")
                term = False
            term = self.stmt(s) or term
        self.narrow = saved
        if new_scope:
            self.pop()
        return term

    # ------------------------------------------------------------ statements
    def stmt(self, s: A.Stmt) -> bool:
        """Check a statement; True when it always terminates (§5.11)."""
        try:
            return self._stmt(s)
        except _Stop:
            return False

    def _stmt(self, s: A.Stmt) -> bool:
        if isinstance(s, A.ExprStmt):
            self.ex(s.expr, None, statement=True)
            return False
        if isinstance(s, A.DeclStmt):
            t = resolve_type(self.sym, s.type)
            if s.value is not None:
                vt = self.ex(s.value, t)
                self.coerce(s.value, vt, t)
            elif not isinstance(t, T.ErrT) and _zero_missing(self.sym, t):
                self.err(s.pos, f"variable '{s.name}' of type {T.show(t)} needs an initial value")
            self.an.declared[s] = self.declare_local(s.name, t, s.name_pos)
            return False
        if isinstance(s, A.Assign):
            self.assign(s)
            return False
        if isinstance(s, A.IncDec):
            t = self.place(s.target)
            if not (T.is_subtype(t, T.NUM) or isinstance(t, T.ErrT)):
                self.err(s.pos, f"operator '{s.op}' cannot be applied to {T.show(t)}")
            return False
        if isinstance(s, A.Swap):
            ta = self.place(s.a)
            tb = self.place(s.b)
            if ta != tb and not isinstance(ta, T.ErrT) and not isinstance(tb, T.ErrT):
                self.err(s.pos, f"swap needs two places of the same type, found {T.show(ta)} "
                         f"and {T.show(tb)}")  # fmt: skip
            return False
        if isinstance(s, A.EndStmt):
            self.impure(s.pos, f"use '{s.kind}'")
            t = self.ex(s.who, None)
            ok = T.is_subtype(t, T.EntityT("Player")) or T.is_subtype(
                t, T.ListT(T.EntityT("Player"))
            )
            if not ok:
                self.err(_pos_of(s.who), f"'{s.kind}' needs a Player or a list of players, "
                         f"found {T.show(t)}")  # fmt: skip
            return True
        if isinstance(s, A.Simple):
            k = s.kind
            if k in ("break", "continue"):
                if not self.loops:
                    self.err(s.pos, f"'{k}' outside a loop")
                elif k == "break":
                    self.loops[-1][0] = True
                return True
            self.impure(s.pos, f"use '{k}'")
            if k == "illegal":
                self.sym.has_illegal = True
            return k in ("draw", "illegal")
        if isinstance(s, A.Return):
            return self.ret(s)
        if isinstance(s, A.If):
            return self.if_stmt(s)
        if isinstance(s, A.For):
            it = self.ex(s.iterable, None)
            elem = T.element_type(it)
            if elem is None:
                self.err(_pos_of(s.iterable), f"cannot iterate over {T.show(it)}")
                elem = T.ERR
            self.push()
            it_slot = self.new_slot()
            var_slot = self.declare_local(s.var, elem, s.var_pos, readonly=True)
            self.an.for_slots[s] = ForSlots(it_slot, var_slot)
            self.loops.append([False])
            self.block(s.body)
            self.loops.pop()
            self.pop()
            return False
        if isinstance(s, A.While):
            then_n, _ = self.cond(s.cond)
            saved = dict(self.narrow)
            self.narrow.update(then_n)
            self.loops.append([False])
            self.block(s.body)
            self.loops.pop()
            self.narrow = saved
            return False
        if isinstance(s, A.Loop):
            self.loops.append([False])
            self.block(s.body)
            broke = self.loops.pop()[0]
            if not broke and not _loop_exits(s.body, self.an, self.sym):
                self.pc.warn(s.pos, "this loop never ends")
            return not broke
        if isinstance(s, A.MatchStmt):
            st = self.ex(s.subject, None)
            loc = self.subject_local(s.subject)
            all_term = True
            has_else = False
            for arm in s.arms:
                saved = dict(self.narrow)
                if has_else:
                    self.err(arm.pos, "unreachable match arm: an earlier arm matches everything")
                if arm.pattern is None or isinstance(arm.pattern, A.PAny):
                    has_else = True
                if arm.pattern is not None:
                    nt = self.pattern(arm.pattern, st)
                    if loc is not None and nt is not None:
                        self.narrow[loc.slot] = nt
                term = self.block(arm.body)
                all_term = all_term and term
                self.narrow = saved
            return has_else and all_term
        raise AssertionError(type(s))

    def subject_local(self, e: A.Expr) -> Local | None:
        """The local a match subject names, for narrowing in its arms."""
        if isinstance(e, A.Name):
            return self.lookup(e.name)
        return None

    def ret(self, s: A.Return) -> bool:
        """Check a return statement (§5.9)."""
        declared = self.ctx.declared_ret
        if self.ctx.kind == "notation":
            if s.value is not None:
                t = self.ex(s.value, declared)
                if declared is not None:
                    self.coerce(s.value, t, declared)
            return True
        if s.value is None:
            if declared is not None and declared != T.NOVALUE and not T.contains_none(declared):
                self.err(s.pos, f"'return' needs a value of type {T.show(declared)}")
            self.returns.append(T.NOVALUE)
            return True
        if self.ctx.kind == "main":
            self.err(s.pos, "'main' returns no value")
        t = self.ex(s.value, declared)
        if declared is not None:
            self.coerce(s.value, t, declared)
        elif t == T.NOVALUE:
            self.err(_pos_of(s.value), "this call returns no value")
        if isinstance(s.value, A.SelectorExpr) and declared is None:
            t = T.ListT(T.EntityT(s.value.selector.entity))
        self.returns.append(t)
        return True

    def if_stmt(self, s: A.If) -> bool:
        """Check an if statement with its narrowing (§3.14); True when it terminates."""
        saved = dict(self.narrow)
        all_term = True
        else_narrow: dict[int, T.Type] = {}
        for cond, block in s.branches:
            self.narrow = dict(saved)
            self.narrow.update(else_narrow)
            then_n, else_n = self.cond(cond)
            self.narrow.update(then_n)
            term = self.block(block)
            all_term = all_term and term
            else_narrow.update(else_n)
        self.narrow = dict(saved)
        self.narrow.update(else_narrow)
        if s.orelse is not None:
            term = self.block(s.orelse)
            all_term = all_term and term
            self.narrow = saved
            return all_term
        if all_term:
            # `if c == none: return` narrows the rest of the block (§3.14).
            self.narrow = dict(saved)
            self.narrow.update(else_narrow)
            return False
        self.narrow = saved
        return False

    def cond(self, e: A.Expr) -> tuple[dict[int, T.Type], dict[int, T.Type]]:
        """Check a condition; return the narrowings for its true and false regions."""
        t = self.ex(e, None)
        if not (t == T.BOOL or T.contains_none(t) or isinstance(t, T.ErrT)):
            self.err(_pos_of(e), f"condition must be bool or optional, found {T.show(t)}")
        return self.narrowing(e)

    def narrowing(self, e: A.Expr) -> tuple[dict[int, T.Type], dict[int, T.Type]]:
        """The (then, else) narrowings of a condition, by local slot."""
        if isinstance(e, A.Unary) and e.op == "not":
            a, b = self.narrowing(e.operand)
            return b, a
        if isinstance(e, A.Binary) and e.op == "and":
            a1, _ = self.narrowing(e.left)
            a2, _ = self.narrowing(e.right)
            return {**a1, **a2}, {}
        if isinstance(e, A.Binary) and e.op == "or":
            _, b1 = self.narrowing(e.left)
            _, b2 = self.narrowing(e.right)
            return {}, {**b1, **b2}
        if isinstance(e, A.Name):
            loc = self.lookup(e.name)
            if loc is not None:
                t = self.local_type(loc)
                if T.contains_none(t) and t != T.ANY:
                    return {loc.slot: T.strip_none(t)}, {loc.slot: T.NONE}
        if isinstance(e, A.Binary) and e.op in ("==", "!=") and isinstance(e.left, A.Name):
            loc = self.lookup(e.left.name)
            if loc is not None and isinstance(e.right, A.Lit) and e.right.value is None:
                t = self.local_type(loc)
                yes: dict[int, T.Type] = {loc.slot: T.NONE}
                no: dict[int, T.Type] = {loc.slot: T.strip_none(t)}
                return (yes, no) if e.op == "==" else (no, yes)
        if isinstance(e, A.Is) and isinstance(e.value, A.Name):
            loc = self.lookup(e.value.name)
            nt = self.an.narrowed.get(e) if isinstance(e, A.Is) else None
            if loc is not None and nt is not None:
                t = self.local_type(loc)
                rest = [m for m in T.members(t) if not T.is_subtype(m, nt)]
                else_t = T.union(rest) if rest and len(rest) < len(T.members(t)) else t
                return {loc.slot: nt}, {loc.slot: else_t}
        return {}, {}

    def assign(self, s: A.Assign) -> None:
        """Check an assignment, which may declare a local (§5.2)."""
        tgt = s.target
        if isinstance(tgt, A.Name) and s.op == "=":
            loc = self.lookup(tgt.name)
            if loc is None and self.sym.nullary(tgt.name) is None:
                if tgt.name in ("wins", "loses"):
                    self.err(tgt.pos, f"'{tgt.name}' cannot name a local")
                t = self.ex(s.value, None)
                if isinstance(s.value, A.Lit) and s.value.value is None:
                    self.err(tgt.pos, f"cannot infer the type of '{tgt.name}' from none; write "
                             f"e.g. 'Card? {tgt.name} = none'")  # fmt: skip
                    t = T.ERR
                elif isinstance(s.value, A.ListLit) and not s.value.items:
                    self.err(tgt.pos, "cannot infer the element type of an empty list; write "
                             f"e.g. '[Card] {tgt.name} = []'")  # fmt: skip
                    t = T.ERR
                elif t == T.NOVALUE:
                    self.err(_pos_of(s.value), "this call returns no value")
                    t = T.ERR
                self.an.declared[s] = self.declare_local(tgt.name, t, tgt.pos)
                return
        pt = self.place(tgt)
        if s.op == "=":
            vt = self.ex(s.value, pt)
            self.coerce(s.value, vt, pt)
            if isinstance(tgt, A.Name):
                loc = self.lookup(tgt.name)
                if loc is not None:
                    self.narrow.pop(loc.slot, None)
            return
        vt = self.ex(s.value, None)
        op = s.op[0]
        rt = self.arith(op, pt, vt, s.pos)
        if not isinstance(rt, T.ErrT) and not T.is_subtype(rt, pt):
            self.err(s.pos, f"type mismatch: '{s.op}' gives {T.show(rt)}, but the place holds "
                     f"{T.show(pt)}")  # fmt: skip

    def place(self, e: A.Expr) -> T.Type:
        """Check an assignable place and return its type."""
        if isinstance(e, A.Name):
            loc = self.lookup(e.name)
            if loc is not None:
                if loc.readonly:
                    self.err(e.pos, f"cannot assign to loop variable '{e.name}'")
                self.an.resolved[e] = LocalRef(loc.slot)
                return loc.type
            p = self.sym.nullary(e.name)
            if p is not None:
                self.an.resolved[e] = PropRef(p)
                return self.prop_place(p, e.pos)
            self.err(e.pos, f"'{e.name}' is not defined")
            raise _Stop()
        if isinstance(e, A.Member):
            if isinstance(e.obj, A.TupleExpr):
                ts = [self.ex(x, None) for x in e.obj.items]
                p = self.nary_prop(e, ts)
                return self.prop_place(p, e.pos)
            ot = self.ex(e.obj, None, as_place_root=True)
            base = ot
            if isinstance(base, T.SelT):
                base = T.EntityT(base.entity)
            if isinstance(base, T.EntityT):
                p = self.unary_prop(e, base)
                return self.prop_place(p, e.pos)
            if isinstance(base, T.StructT):
                self.place(e.obj)
                return self.struct_member(e, base)
            self.member_error(e, ot)
        if isinstance(e, A.Index):
            lt = self.place(e.obj)
            it = self.ex(e.index, T.INT)
            self.coerce(e.index, it, T.INT)
            if isinstance(lt, T.ListT):
                return lt.elem
            if isinstance(lt, T.ErrT):
                return T.ERR
            self.err(e.pos, f"cannot assign to an element of {T.show(lt)}")
            raise _Stop()
        self.err(_pos_of(e), "this expression cannot be assigned to")
        raise _Stop()

    def prop_place(self, p: PropInfo, pos: A.Pos) -> T.Type:
        """Check that a property may be assigned here and return its type."""
        if p.kind == "fixed":
            self.err(pos, f"cannot assign to fixed property '{p.name}'")
        elif p.kind == "trait":
            self.err(pos, f"cannot assign to trait '{p.name}'")
        elif self.pure:
            self.err(pos, f"{self.label()} cannot assign to state property '{p.name}'")
        return p.type

    def place_root_is_state(self, e: A.Expr) -> PropInfo | None:
        """The state property a place is rooted in, if any."""
        while isinstance(e, (A.Member, A.Index)):
            info = self.an.resolved.get(e)
            if isinstance(e, A.Member) and isinstance(info, (PropRef, NaryRef)):
                return info.prop
            e = e.obj
        if isinstance(e, A.Name):
            info = self.an.resolved.get(e)
            if isinstance(info, PropRef):
                return info.prop
        return None

    # ------------------------------------------------------------ expressions
    def ex(self, e: A.Expr, expected: T.Type | None, *, statement: bool = False,
           as_place_root: bool = False) -> T.Type:  # fmt: skip
        """Check an expression against an optional expected type and return its type."""
        try:
            t = self._ex(e, expected, statement)
        except _Stop:
            # The error is reported; the expression's type is unknown from here on.
            t = T.ERR
        self.an.types[e] = t
        return t

    def _ex(self, e: A.Expr, expected: T.Type | None, statement: bool) -> T.Type:
        if isinstance(e, A.Lit):
            v = e.value
            if v is None:
                return T.NONE
            if isinstance(v, bool):
                return T.BOOL
            if isinstance(v, int):
                return T.INT
            if isinstance(v, float):
                return T.NUM
            return T.STR
        if isinstance(e, A.Name):
            return self.name(e, expected)
        if isinstance(e, A.NotationLit):
            return self.notation_lit(e, expected)
        if isinstance(e, A.Member):
            return self.member(e)
        if isinstance(e, A.TupleExpr):
            self.err(e.pos, "tuples can only be used to access an n-ary property")
            raise _Stop()
        if isinstance(e, A.Index):
            ot = self.ex(e.obj, None)
            it = self.ex(e.index, T.INT)
            self.coerce(e.index, it, T.INT)
            if isinstance(ot, T.ListT):
                return ot.elem
            if ot == T.STR:
                return T.STR
            if isinstance(ot, T.ErrT):
                return T.ERR
            self.err(e.pos, f"cannot index a value of type {T.show(ot)}")
            raise _Stop()
        if isinstance(e, A.Call):
            return self.call(e, expected, statement)
        if isinstance(e, A.FilterMap):
            st = self.ex(e.source, None)
            elem = T.element_type(st)
            if elem is None:
                self.err(_pos_of(e.source), f"cannot iterate over {T.show(st)}")
                elem = T.ERR
            self.push()
            slot = self.declare_local(e.var, elem, e.var_pos, readonly=True)
            self.an.binders[e] = slot
            self.pure_stack.append("filter")
            try:
                bt = self.ex(e.body, T.BOOL if e.kind == "filter" else None)
            finally:
                self.pure_stack.pop()
                self.pop()
            if e.kind == "filter":
                if not (bt == T.BOOL or T.contains_none(bt) or isinstance(bt, T.ErrT)):
                    self.err(_pos_of(e.body), f"condition must be bool or optional, found "
                             f"{T.show(bt)}")  # fmt: skip
                return T.ListT(elem) if not isinstance(st, T.ListT) else st
            if bt == T.NOVALUE:
                self.err(_pos_of(e.body), "this call returns no value")
                bt = T.ERR
            return T.ListT(bt)
        if isinstance(e, A.Unary):
            return self.unary(e)
        if isinstance(e, A.Binary):
            return self.binary(e, expected)
        if isinstance(e, A.Alt):
            self.err(e.pos, "'|' builds alternatives; use it in a pattern, a selector, or on "
                     "the right of == / != / is")  # fmt: skip
            raise _Stop()
        if isinstance(e, A.Is):
            vt = self.ex(e.value, None)
            nt = self.pattern(e.pattern, vt)
            if nt is not None:
                self.an.narrowed[e] = nt
            return T.BOOL
        if isinstance(e, A.SelectorExpr):
            self.selector(e.selector, pattern=False)
            return T.ListT(T.EntityT(e.selector.entity))
        if isinstance(e, A.ListLit):
            return self.list_lit(e, expected)
        if isinstance(e, A.IfExpr):
            result: T.Type | None = None
            has_else = False
            saved = dict(self.narrow)
            for arm in e.arms:
                if arm.cond is None:
                    has_else = True
                else:
                    then_n, _ = self.cond(arm.cond)
                    self.narrow.update(then_n)
                vt = self.ex(arm.value, expected)
                self.narrow = dict(saved)
                result = vt if result is None else T.join(result, vt)
            assert result is not None
            return result if has_else else T.join(result, T.NONE)
        if isinstance(e, A.MatchExpr):
            st = self.ex(e.subject, None)
            loc = self.subject_local(e.subject)
            result = None
            seen_else = False
            for marm in e.arms:
                if seen_else:
                    self.err(marm.pos, "unreachable match arm: an earlier arm matches everything")
                if marm.pattern is None or isinstance(marm.pattern, A.PAny):
                    seen_else = True
                saved = dict(self.narrow)
                if marm.pattern is not None:
                    nt = self.pattern(marm.pattern, st)
                    if loc is not None and nt is not None:
                        self.narrow[loc.slot] = nt
                vt = self.ex(marm.value, expected)
                self.narrow = saved
                result = vt if result is None else T.join(result, vt)
            assert result is not None
            return result
        if isinstance(e, A.Choose):
            return self.choose(e)
        raise AssertionError(type(e))

    def choose(self, e: A.Choose) -> T.Type:
        """Check a choose expression (§10.2)."""
        self.impure(e.pos, "use 'choose'")
        self.pc.out.choosers.add(self.ctx.name)
        pt = self.ex(e.player, T.EntityT("Player"))
        self.coerce(e.player, pt, T.EntityT("Player"))
        if e.k is not None:
            kt = self.ex(e.k, T.INT)
            self.coerce(e.k, kt, T.INT)
        if e.prompt is not None:
            prt = self.ex(e.prompt, T.STR)
            self.coerce(e.prompt, prt, T.STR)
        ot = self.ex(e.options, None)
        if isinstance(ot, T.ListT):
            elem = ot.elem
        elif isinstance(ot, T.MultiT) or (T.contains_none(ot) and isinstance(T.strip_none(ot),
                                                                           T.MultiT)):
            elem = T.element_type(ot) or T.ERR
        elif isinstance(ot, T.ErrT):
            elem = T.ERR
        else:
            self.err(_pos_of(e.options), f"choose needs options: a list, found {T.show(ot)}")
            elem = T.ERR
        return T.ListT(elem) if e.k is not None else elem

    def list_lit(self, e: A.ListLit, expected: T.Type | None) -> T.Type:
        """Check a list literal with the expected element type."""
        exp_elem = None
        if expected is not None:
            for m in T.members(expected):
                if isinstance(m, T.ListT):
                    exp_elem = m.elem
                    break
        if not e.items:
            if exp_elem is None:
                if expected is None:
                    return T.ListT(T.ERR)
                return T.ListT(T.ERR)
            return T.ListT(exp_elem)
        elem: T.Type | None = None
        for x in e.items:
            xt = self.ex(x, exp_elem)
            if xt == T.NOVALUE:
                self.err(_pos_of(x), "this call returns no value")
                xt = T.ERR
            if exp_elem is not None and T.is_subtype(xt, exp_elem):
                if xt == T.INT and exp_elem == T.NUM:
                    self.an.conversions[x] = ToNum()
                xt = exp_elem
            elem = xt if elem is None else T.join(elem, xt)
        assert elem is not None
        return T.ListT(elem)

    def name(self, e: A.Name, expected: T.Type | None) -> T.Type:
        """Resolve and type a bare name (§2.9)."""
        loc = self.lookup(e.name)
        if loc is not None:
            self.an.resolved[e] = LocalRef(loc.slot)
            return self.local_type(loc)
        p = self.sym.nullary(e.name)
        if p is not None:
            self.static_read(p, e.pos)
            self.an.resolved[e] = PropRef(p)
            return p.type
        if e.name in self.sym.funcs:
            fs = self.sym.funcs[e.name]
            # A function value is a constant name: allowed in static defaults.
            self.an.resolved[e] = FuncRef(e.name)
            return T.FUNCTION if fs[0].pure else T.PROCEDURE
        if e.name in self.sym.members:
            v = self.enum_member(e.name, expected, e.pos)
            self.an.resolved[e] = EnumRef(v)
            return T.EnumT(v.enum)
        if e.name in self.sym.entities:
            if self.ctx.static:
                self.err(e.pos, f"{self.label()} must be static: it uses the instance list "
                         f"'{e.name}'")  # fmt: skip
            self.an.resolved[e] = EntityList(e.name)
            return T.ListT(T.EntityT(e.name))
        if e.name in self.sym.enums:
            self.an.resolved[e] = EnumList(e.name)
            return T.ListT(T.EnumT(e.name))
        if e.name in ("bool", "Boolean"):
            self.an.resolved[e] = BoolList()
            return T.ListT(T.BOOL)
        if self.sym.is_type(e.name):
            self.err(e.pos, f"the type '{e.name}' cannot be used as a value")
            raise _Stop()
        if self.sym.props_named(e.name):
            self.err(e.pos, f"'{e.name}' is a property of an entity; write x.{e.name}")
            raise _Stop()
        self.err(e.pos, f"'{e.name}' is not defined")
        raise _Stop()

    def enum_member(self, name: str, expected: T.Type | None, pos: A.Pos) -> EnumVal:
        """Resolve a bare enum member by the expected type (§3.2)."""
        cands = self.sym.members[name]
        if expected is not None:
            want = T.enums_of(T.strip_none(expected)) if expected != T.ANY else None
            if want is None:
                want = {m.name for m in T.members(expected) if isinstance(m, T.EnumT)}
                for m in T.members(expected):
                    if isinstance(m, T.MultiT):
                        want |= T.enums_of(m.inner) or set()
            pick = [c for c in cands if c.name in want]
            if len(pick) == 1:
                return pick[0].values[name]
            if want and not pick and len(cands) >= 1 and len(want) == 1:
                self.err(pos, f"'{name}' is not a member of {next(iter(want))}")
                raise _Stop()
        if len(cands) == 1:
            return cands[0].values[name]
        options = " or ".join(f"{c.name}.{name} (line {c.decl.pos[0]})" for c in cands)
        self.err(pos, f"ambiguous enum member '{name}': could be {options}; write "
                 f"{cands[0].name}.{name}")  # fmt: skip
        raise _Stop()

    def static_read(self, p: PropInfo, pos: A.Pos) -> None:
        """Report a read that a static default may not make (§2.6.5)."""
        if self.ctx.static and p.kind != "fixed":
            self.err(pos, f"{self.label()} must be static: it reads {p.kind} property "
                     f"'{p.name}'")  # fmt: skip

    def member(self, e: A.Member) -> T.Type:
        """Check `x.name`: property, struct member or qualified enum member."""
        if isinstance(e.obj, A.Name) and e.obj.name in self.sym.enums \
                and self.lookup(e.obj.name) is None:  # fmt: skip
            info = self.sym.enums[e.obj.name]
            v = info.values.get(e.name)
            if v is None:
                self.err(e.pos, f"'{e.name}' is not a member of {info.name}")
                raise _Stop()
            self.an.resolved[e] = EnumRef(v)
            return T.EnumT(info.name)
        if isinstance(e.obj, A.TupleExpr):
            ts = [self.ex(x, None) for x in e.obj.items]
            p = self.nary_prop(e, ts)
            return p.type
        ot = self.ex(e.obj, None)
        base = T.EntityT(ot.entity) if isinstance(ot, T.SelT) else ot
        if isinstance(base, T.EntityT):
            return self.unary_prop(e, base).type
        if isinstance(base, T.StructT):
            return self.struct_member(e, base)
        self.member_error(e, ot)
        raise _Stop()

    def member_error(self, e: A.Member, ot: T.Type) -> None:
        """Report why `x.name` cannot be read from a value of type `ot`."""
        if isinstance(ot, T.ErrT):
            raise _Stop()
        if ot == T.ANY:
            self.err(e.pos, "narrow this any value with 'is' first")
            raise _Stop()
        if T.contains_none(ot) and ot != T.NONE:
            self.err(e.pos, f"cannot read '{e.name}' of a {T.show(ot)} value; check it is not "
                     "none first")  # fmt: skip
            raise _Stop()
        if isinstance(ot, T.UnionT):
            self.err(e.pos, f"cannot read '{e.name}' of a {T.show(ot)} value; narrow it first")
            raise _Stop()
        self.err(e.pos, f"{T.show(ot)} has no property '{e.name}'")
        raise _Stop()

    def unary_prop(self, e: A.Member, t: T.EntityT) -> PropInfo:
        """The unary property `name` of an entity type."""
        p = self.sym.prop(e.name, (t.name,))
        if p is None:
            self.err(e.pos, f"{t.name} has no property '{e.name}'")
            raise _Stop()
        self.static_read(p, e.pos)
        self.an.resolved[e] = PropRef(p)
        return p

    def nary_prop(self, e: A.Member, ts: list[T.Type]) -> PropInfo:
        """The n-ary property read by `(a, b).name`."""
        names: list[str] = []
        for t, x in zip(ts, e.obj.items if isinstance(e.obj, A.TupleExpr) else (), strict=False):
            base = T.EntityT(t.entity) if isinstance(t, T.SelT) else t
            if not isinstance(base, T.EntityT):
                if not isinstance(t, T.ErrT):
                    self.err(_pos_of(x), f"cannot read '{e.name}' of a {T.show(t)} value; "
                             "narrow it first")  # fmt: skip
                raise _Stop()
            names.append(base.name)
        p = self.sym.prop(e.name, tuple(names))
        if p is None:
            self.err(e.pos, f"({', '.join(names)}) has no property '{e.name}'")
            raise _Stop()
        self.static_read(p, e.pos)
        self.an.resolved[e] = NaryRef(p)
        return p

    def struct_member(self, e: A.Member, t: T.StructT) -> T.Type:
        """The type of a struct member."""
        for name, mt, _, _ in self.sym.structs[t.name].members:
            if name == e.name:
                self.an.resolved[e] = FieldRef(name)
                return mt
        self.err(e.pos, f"{t.name} has no member '{e.name}'")
        raise _Stop()

    def notation_lit(self, e: A.NotationLit, expected: T.Type | None) -> T.Type:
        """Choose the notation of a literal from its candidates and context (§9.6)."""
        import re

        cands = [n for n in self.sym.notations if re.fullmatch(n.regex, e.text)]
        if not cands:
            self.err(e.pos, f"no notation matches '{e.text}'")
            raise _Stop()
        if self.ctx.static:
            self.err(e.pos, f"{self.label()} must be static: it uses a notation")
        pick = cands
        if expected is not None and expected != T.ANY:
            pick = [n for n in cands if T.is_subtype(n.type, expected)]
            if not pick:
                self.err(e.pos, f"no notation for type {T.show(expected)} matches '{e.text}'")
                raise _Stop()
        types = {n.type_name for n in pick}
        if len(pick) > 1:
            if len(types) < len(pick):
                dup = [n for n in pick]
                self.err(e.pos, f"ambiguous notation '{e.text}': two notations for "
                         f"{dup[0].type_name} match it")  # fmt: skip
                raise _Stop()
            desc = " and ".join(f"{n.type_name} (line {n.decl.pos[0]})" for n in pick)
            self.err(e.pos, f"ambiguous notation '{e.text}': it matches {desc}; give it a type, "
                     f"e.g. {pick[0].type_name} c = '{e.text}'")  # fmt: skip
            raise _Stop()
        self.an.resolved[e] = NotationRef(pick[0])
        return pick[0].type

    # ------------------------------------------------------------ operators
    def unary(self, e: A.Unary) -> T.Type:
        """Check a prefix operation."""
        t = self.ex(e.operand, None)
        if isinstance(t, T.ErrT):
            return T.ERR if e.op != "not" else T.BOOL
        if t == T.ANY:
            self.err(e.pos, "narrow this any value with 'is' first")
            raise _Stop()
        if e.op == "not":
            if not (t == T.BOOL or T.contains_none(t)):
                self.err(e.pos, f"operator 'not' cannot be applied to {T.show(t)}")
            return T.BOOL
        if e.op == "#":
            if isinstance(t, (T.ListT, T.MultiT)) or t == T.STR:
                return T.INT
            if T.contains_none(t) and isinstance(T.strip_none(t), T.MultiT):
                return T.INT
            self.err(e.pos, f"operator '#' cannot be applied to {T.show(t)}")
            raise _Stop()
        if t in (T.INT, T.NUM):
            return t
        self.err(e.pos, f"operator '{e.op}' cannot be applied to {T.show(t)}")
        raise _Stop()

    def arith(self, op: str, a: T.Type, b: T.Type, pos: A.Pos) -> T.Type:
        """The result type of an arithmetic operation (§4.3)."""
        if isinstance(a, T.ErrT) or isinstance(b, T.ErrT):
            return T.ERR
        if T.ANY in (a, b):
            self.err(pos, "narrow this any value with 'is' first")
            raise _Stop()
        nums = (T.INT, T.NUM)
        if a in nums and b in nums:
            if op == "/":
                return T.NUM
            return T.INT if a == b == T.INT else T.NUM
        if op == "+" and a == b == T.STR:
            return T.STR
        if op == "+" and isinstance(a, T.ListT) and isinstance(b, T.ListT):
            return T.ListT(T.join(a.elem, b.elem))
        self.err(pos, f"operator '{op}' cannot be applied to {T.show(a)} and {T.show(b)}")
        raise _Stop()

    def binary(self, e: A.Binary, expected: T.Type | None) -> T.Type:
        """Check a binary operation."""
        op = e.op
        if op in ("and", "or"):
            a = self.ex(e.left, None)
            saved = dict(self.narrow)
            yes, no = self.narrowing(e.left)
            self.narrow.update(yes if op == "and" else no)
            b = self.ex(e.right, None)
            self.narrow = saved
            for t in (a, b):
                if not (t == T.BOOL or T.contains_none(t) or isinstance(t, T.ErrT)):
                    self.err(e.pos, f"operator '{op}' cannot be applied to {T.show(t)}")
                    raise _Stop()
            return T.BOOL
        if op in ARITH:
            a = self.ex(e.left, None)
            b = self.ex(e.right, None)
            return self.arith(op, a, b, e.pos)
        if op == "..":
            a = self.ex(e.left, T.INT)
            b = self.ex(e.right, T.INT)
            if not (T.is_subtype(a, T.INT) and T.is_subtype(b, T.INT)):
                self.err(e.pos, f"operator '..' cannot be applied to {T.show(a)} and {T.show(b)}")
                raise _Stop()
            return T.ListT(T.INT)
        if op == "&":
            a = self.ex(e.left, expected)
            b = self.ex(e.right, expected if expected is not None else a)
            ea, eb = T.enums_of(a), T.enums_of(b)
            if ea is None or eb is None:
                if isinstance(a, T.ErrT) or isinstance(b, T.ErrT):
                    return T.ERR
                self.err(e.pos, f"operator '&' cannot be applied to {T.show(a)} and {T.show(b)}")
                raise _Stop()
            return T.MultiT(T.union([T.EnumT(n) for n in sorted(ea | eb)]))
        if op in ("==", "!="):
            a = self.ex(e.left, None)
            alts = e.right.alts if isinstance(e.right, A.Alt) else (e.right,)
            for x in alts:
                b = self.ex(x, a)
                if isinstance(x, A.Lit) and x.value is None:
                    continue
                if not T.overlap(a, b):
                    self.err(e.pos, f"cannot compare {T.show(a)} with {T.show(b)} (these "
                             "values are never equal)")  # fmt: skip
                    raise _Stop()
            return T.BOOL
        if op in ORDER:
            a = self.ex(e.left, None)
            b = self.ex(e.right, a)
            ok = (a in (T.INT, T.NUM) and b in (T.INT, T.NUM)) or (a == b == T.STR) or (
                isinstance(a, T.EnumT) and a == b
            )
            if isinstance(a, T.ErrT) or isinstance(b, T.ErrT):
                ok = True
            if not ok:
                self.err(e.pos, f"cannot compare {T.show(a)} with {T.show(b)} using '{op}'")
                raise _Stop()
            return T.BOOL
        if op == "in":
            b = self.ex(e.right, None)
            elem = T.element_type(b)
            a = self.ex(e.left, elem)
            if elem is None and not isinstance(b, T.ErrT):
                self.err(e.pos, f"operator 'in' cannot be applied to {T.show(a)} and "
                         f"{T.show(b)}")  # fmt: skip
                raise _Stop()
            return T.BOOL
        raise AssertionError(op)

    # ------------------------------------------------------------ patterns and selectors
    def pattern(self, p: A.Pattern, subject: T.Type) -> T.Type | None:
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
            raise _Stop()
        if not T.overlap(subject, vt):
            self.err(p.pos, f"pattern can never match a value of type {T.show(subject)}")
            raise _Stop()
        return None

    def selector(self, s: A.Selector, *, pattern: bool, param: bool = False) -> None:
        """Check a selector's entries (§6.2, §6.7 for parameters)."""
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
            except _Stop:
                continue

    def constant_entry(self, en: A.Entry, p: PropInfo) -> bool:
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
                _const_pattern_check(self.pc, en.pattern, p.type)
            elif en.value is not None:
                const_value(self.pc, en.value, p.type)
        except NotConstant:
            return False
        return True

    # ------------------------------------------------------------ calls
    def call(self, e: A.Call, expected: T.Type | None, statement: bool) -> T.Type:
        """Check a call: local value, overload set, built-in, or constructor."""
        f = e.func
        if isinstance(f, A.Name):
            loc = self.lookup(f.name)
            if loc is not None:
                return self.value_call(e, self.local_type(loc), f)
            if f.name in self.sym.funcs:
                return self.overload_call(e, f.name)
            if f.name in B.BUILTINS:
                return self.builtin_call(e, f.name)
            if f.name in self.sym.entities or f.name in self.sym.structs:
                return self.ctor(e, f.name)
            p = self.sym.nullary(f.name)
            if p is not None:
                return self.value_call(e, p.type, f)
            if self.sym.is_type(f.name):
                self.err(f.pos, f"'{f.name}' cannot be called")
                raise _Stop()
            self.err(f.pos, f"'{f.name}' is not defined")
            raise _Stop()
        ft = self.ex(f, None)
        return self.value_call(e, ft, None)

    def args_untyped(self, e: A.Call) -> list[T.Type]:
        """Check arguments that have no parameter types (calls of values)."""
        out = []
        for a in e.args:
            if a.name is not None:
                self.err(a.pos, "named arguments are only for constructors")
            out.append(self.ex(a.value, None))
        return out

    def value_call(self, e: A.Call, ft: T.Type, f: A.Name | None) -> T.Type:
        """Check a call of a Function or Procedure value (§7.9)."""
        if f is not None:
            self.ex(f, None)
        if ft not in (T.FUNCTION, T.PROCEDURE) and not isinstance(ft, T.ErrT):
            self.err(e.pos, f"a value of type {T.show(ft)} cannot be called")
            raise _Stop()
        if ft == T.PROCEDURE:
            self.impure(e.pos, "call a Procedure value")
            self.pc.out.uses_value_calls.add(self.ctx.name)
        self.an.calls[e] = ValueCall()
        self.args_untyped(e)
        return T.ANY

    def builtin_call(self, e: A.Call, name: str) -> T.Type:
        """Check a built-in call (§12)."""
        b = B.BUILTINS[name]
        if B.Effect.PRINTS in b.effects:
            self.impure(e.pos, "print")
        elif B.Effect.CHANCE in b.effects:
            self.impure(e.pos, f"use randomness ('{name}')")
        ts: list[T.Type] = []
        for k, a in enumerate(e.args):
            if a.name is not None:
                self.err(a.pos, "named arguments are only for constructors")
            if k == 0 and B.Effect.MODIFIES in b.effects:
                ts.append(self.place_arg(a.value, name))
                continue
            exp = None
            if k == 1 and ts and isinstance(ts[0], T.ListT) and b.element_arg:
                exp = ts[0].elem
            t = self.ex(a.value, exp)
            if exp is not None:
                self.coerce(a.value, t, exp)
            ts.append(t)
        rt, msg = B.result_type(name, ts)
        if msg is not None:
            self.err(e.pos, msg)
            raise _Stop()
        self.an.calls[e] = BuiltinCall(name)
        return rt

    def place_arg(self, x: A.Expr, name: str) -> T.Type:
        """Check the place argument of a place built-in."""
        try:
            t = self.place_quiet(x)
        except _Stop:
            raise
        root = self.place_root_is_state(x)
        if root is not None and self.pure and B.Effect.CHANCE not in B.BUILTINS[name].effects:
            self.err(_pos_of(x), f"{self.label()} cannot modify state property '{root.name}'")
        return t

    def place_quiet(self, x: A.Expr) -> T.Type:
        """A place for a place built-in: purity is reported by the caller."""
        if isinstance(x, A.Name):
            loc = self.lookup(x.name)
            if loc is not None:
                self.an.resolved[x] = LocalRef(loc.slot)
                if loc.readonly:
                    self.err(x.pos, f"cannot modify loop variable '{x.name}'")
                return loc.type
        saved = self.pure_stack, self.ctx.kind
        # Reuse `place` without its purity complaint: place built-ins word it differently.
        self.pure_stack = []
        kind = self.ctx.kind
        self.ctx.kind = "proc"
        try:
            return self.place(x)
        finally:
            self.pure_stack, self.ctx.kind = saved[0], kind

    def ctor(self, e: A.Call, name: str) -> T.Type:
        """Check an entity or struct constructor call (§4.11)."""
        if name == "Player":
            self.err(e.pos, "players are created by the runtime")
            raise _Stop()
        seen: set[str] = set()
        if name in self.sym.structs:
            members = {m[0]: m for m in self.sym.structs[name].members}
            for a in e.args:
                if a.name is None:
                    self.err(a.pos, f"arguments of {name}(…) must be named")
                    continue
                if a.name in seen:
                    self.err(a.pos, f"'{a.name}' is given twice")
                seen.add(a.name)
                m = members.get(a.name)
                if m is None:
                    self.err(a.pos, f"{name} has no member '{a.name}'")
                    self.ex(a.value, None)
                    continue
                t = self.ex(a.value, m[1])
                self.coerce(a.value, t, m[1])
            for mname, mt, default, _ in self.sym.structs[name].members:
                if mname not in seen and default is None and _zero_missing(self.sym, mt):
                    self.err(e.pos, f"missing value for member '{mname}' of {name}")
            self.an.calls[e] = StructCtor(name)
            return T.StructT(name)
        self.impure(e.pos, "create entities")
        if self.ctx.static:
            self.err(e.pos, f"{self.label()} must be static: it creates an entity")
        for a in e.args:
            if a.name is None:
                self.err(a.pos, f"arguments of {name}(…) must be named")
                continue
            if a.name in seen:
                self.err(a.pos, f"'{a.name}' is given twice")
            seen.add(a.name)
            p = self.sym.prop(a.name, (name,))
            if p is None or p.kind == "trait":
                self.err(a.pos, f"{name} has no fixed or state property '{a.name}'")
                self.ex(a.value, None)
                continue
            t = self.ex(a.value, p.type)
            self.coerce(a.value, t, p.type)
        for p in self.sym.props:
            if p.params == (name,) and p.kind == "fixed" and p.decl.default is None:
                if p.name not in seen:
                    self.err(e.pos, f"missing value for fixed property '{p.name}'")
        self.an.calls[e] = EntityCtor(name)
        return T.EntityT(name)

    def overload_call(self, e: A.Call, name: str) -> T.Type:
        """Check a call of an overload set, including its cells (§7.5)."""
        fs = self.sym.funcs[name]
        n = len(e.args)
        group = [f for f in fs if len(f.params) == n]
        for a in e.args:
            if a.name is not None:
                self.err(a.pos, "named arguments are only for constructors")
        if not group:
            arities = sorted({len(f.params) for f in fs})
            self.err(e.pos, f"'{name}' takes {' or '.join(map(str, arities))} argument"
                     f"{'s' if arities != [1] else ''}, found {n}")  # fmt: skip
            for a in e.args:
                self.ex(a.value, None)
            raise _Stop()
        if self.pure and not fs[0].pure:
            self.err(e.pos, f"{self.label()} cannot call procedure '{name}'")
        if self.ctx.static and not fs[0].pure:
            self.err(e.pos, f"{self.label()} must be static: it calls procedure '{name}'")
        elif self.ctx.static:
            self.pc.static_calls.append((e.pos, name, self.label()))
        self.pc.out.call_graph.setdefault(self.ctx.name, set()).add(name)
        arg_types: list[T.Type] = []
        for i, a in enumerate(e.args):
            exp = T.union([_param_expect(f.params[i]) for f in group])
            t = self.ex(a.value, exp)
            arg_types.append(t)
            ent = [_entity_of(f.params[i]) for f in group]
            if all(x is not None for x in ent):
                ents = _position_entities(group, i)
                optional_ok = any(T.contains_none(f.params[i]) for f in group)
                target: T.Type = T.union([T.EntityT(x) for x in ents])
                if optional_ok:
                    target = T.optional(target)
                if isinstance(t, T.SelT) and t.entity in ents:
                    continue
                if T.contains_none(t) and not optional_ok and not isinstance(t, T.ErrT) \
                        and T.is_subtype(T.strip_none(t), target):  # fmt: skip
                    self.err(_pos_of(a.value), f"no overload of '{name}' accepts none")
                    continue
                self.coerce(a.value, t, target)
            else:
                self.coerce(a.value, t, group[0].params[i])
        self.an.calls[e] = UserCall(name)
        self.cell_check(e, name, group)
        try:
            rt = self.pc.set_ret(name, fs)
        except RecursiveInference:
            if self.ctx.declared_ret is None and self.ctx.name == name:
                raise
            raise
        return rt

    def static_arg_cells(self, a: A.Expr, t: T.Type, ent: str, cells: list[Any]) -> list[int]:
        """Indices of the cells of one position that the static argument may reach."""
        sel: A.Selector | None = None
        if isinstance(a, A.SelectorExpr):
            sel = a.selector
        elif isinstance(t, T.SelT):
            sel = _find_selector(self.sym, t)
        narrowed: T.SelT | None = None
        if isinstance(a, A.Name):
            loc = self.lookup(a.name)
            lt = self.local_type(loc) if loc is not None else None
            if isinstance(lt, T.SelT):
                narrowed = lt
        if narrowed is not None and sel is None:
            sel = _find_selector(self.sym, narrowed)
        allow_none = T.contains_none(t)
        reach = {x for x in map(_entity_of, T.members(T.strip_none(t))) if x is not None}
        out = []
        for k, cell in enumerate(cells):
            if cell is None:
                if allow_none:
                    out.append(k)
                continue
            cell_ent, vals = cell
            if reach and cell_ent not in reach:
                continue
            if sel is not None and sel.entity == cell_ent:
                try:
                    if not self.pc.sel_matches_cell(_constant_entries(self, sel), vals):
                        continue
                except NotConstant:
                    pass
            out.append(k)
        return out

    def cell_check(self, e: A.Call, name: str, group: list[FuncInfo]) -> None:
        """Report the first cell a call reaches with no or no least overload."""
        info = self.pc.overload_set(name, len(group[0].params))
        if info is None:
            # No entity positions: overloads of one arity are identical (§7.1 rule 3).
            return
        cells, matches, positions, members = info.cells, info.matches, info.positions, info.group
        if members != group:
            return
        # Per-position cell lists, from the product structure.
        axes: list[list[Any]] = []
        for k in range(len(positions)):
            axis: list[Any] = []
            for c in cells:
                if c[k] not in axis:
                    axis.append(c[k])
            axes.append(axis)
        allowed: list[set[int]] = []
        for k, i in enumerate(positions):
            a = e.args[i].value
            t = self.an.types.get(a) or T.ERR
            ent = _entity_of(group[0].params[i]) or ""
            allowed.append(set(self.static_arg_cells(a, t, ent, axes[k])))
        for ci, cell in enumerate(cells):
            idx = [axes[k].index(cell[k]) for k in range(len(positions))]
            if not all(idx[k] in allowed[k] for k in range(len(positions))):
                continue
            app = [j for j in range(len(group)) if ci in matches[j]]
            desc = self.describe_cell(group, positions, cell)
            if not app:
                if any(c is None for c in cell):
                    self.err(e.pos, f"no overload of '{name}' accepts none")
                else:
                    self.err(e.pos, f"no overload of '{name}' accepts {desc}")
                return
            least = [j for j in app if all(matches[j] <= matches[o] for o in app)]
            if not least:
                minimal = [j for j in app
                           if not any(matches[o] < matches[j] for o in app if o != j)]  # fmt: skip
                a_, b_ = minimal[0], minimal[1] if len(minimal) > 1 else app[1]
                fa, fb = group[a_], group[b_]
                sa, sb = _signature(self.sym, fa), _signature(self.sym, fb)
                self.err(e.pos, f"ambiguous call to '{name}': {desc} matches {sa} and {sb}, "
                         "and neither is more specific",
                         (self.sym.note(fa.decl.pos, f"candidate {sa}"),
                          self.sym.note(fb.decl.pos, f"candidate {sb}")))  # fmt: skip
                return

    def describe_cell(self, group: list[FuncInfo], positions: list[int], cell: Any) -> str:
        """Describe a cell for messages: "a Card with suit SPADES and rank ACE"."""
        parts = []
        for k in range(len(positions)):
            c = cell[k]
            if c is None:
                parts.append("none")
                continue
            ent, vals = c
            props = [(pid, v) for pid, v in vals.items()]
            props.sort()
            bits = []
            for pid, v in props:
                p = self.sym.props[pid]
                if isinstance(v, str) and v.startswith("\x00"):
                    continue
                from esochess.gambit.values import display

                bits.append(f"{p.name} {display(v, None, True) if isinstance(v, str) else display(v)}")
            art = "an" if ent[:1] in "AEIOU" else "a"
            parts.append(f"{art} {ent}" + (" with " + " and ".join(bits) if bits else ""))
        return ", ".join(parts)


def _constant_entries(bc: BodyChecker, sel: A.Selector) -> A.Selector:
    """Keep only entries on fixed properties with constant values (§7.5)."""
    keep = []
    for en in sel.entries:
        p = bc.sym.prop(en.prop, (sel.entity,))
        if p is None or p.kind != "fixed":
            continue
        try:
            if en.op == "pat" and en.pattern is not None:
                _const_pattern_check(bc.pc, en.pattern, p.type)
            elif en.value is not None:
                const_value(bc.pc, en.value, p.type)
        except NotConstant:
            continue
        keep.append(en)
    return A.Selector(sel.pos, sel.entity, tuple(keep))


def _find_selector(sym: Symbols, t: T.SelT) -> A.Selector | None:
    for fs in sym.funcs.values():
        for f in fs:
            for prm in f.decl.params:
                x = prm.type
                while isinstance(x, A.TSuffix):
                    x = x.inner
                if isinstance(x, A.TSel) and id(x.selector) == t.key:
                    return x.selector
    return None


def _signature(sym: Symbols, f: FuncInfo) -> str:
    lines = sym.source.splitlines()
    line = lines[f.decl.pos[0] - 1] if f.decl.pos[0] <= len(lines) else ""
    start = line.find(f.name + "(")
    if start < 0:
        return f.name + "(…)"
    depth = 0
    for i in range(start, len(line)):
        if line[i] == "(":
            depth += 1
        elif line[i] == ")":
            depth -= 1
            if depth == 0:
                return line[start : i + 1]
    return f.name + "(…)"


def _param_expect(t: T.Type) -> T.Type:
    if isinstance(t, T.SelT):
        return T.EntityT(t.entity)
    return T.union([T.EntityT(m.entity) if isinstance(m, T.SelT) else m for m in T.members(t)])


def _sel_text(bc: BodyChecker, e: A.Expr) -> str:
    if isinstance(e, A.SelectorExpr):
        from esochess.gambit.resolver import _selector_text

        return _selector_text(bc.sym, e.selector)
    return f"{e.name}<>" if isinstance(e, A.Name) else "selector"


def _zero_missing(sym: Symbols, t: T.Type) -> bool:
    """True when a type has no zero value (§3.12)."""
    if t in (T.INT, T.NUM, T.BOOL, T.STR, T.ANY) or T.contains_none(t):
        return False
    if isinstance(t, T.ListT):
        return False
    if isinstance(t, T.StructT):
        return any(d is None and _zero_missing(sym, mt) for _, mt, d, _ in sym.structs[t.name].members)
    return True


def _pos_of(e: Any) -> A.Pos:
    from esochess.gambit.parser import first_pos

    if isinstance(e, (A.Binary, A.Unary, A.Member, A.Index, A.Call, A.Is)):
        pos: A.Pos = e.pos
        return pos
    return first_pos(e)


def _stmt_pos(s: Any) -> A.Pos:
    from esochess.gambit.parser import first_pos

    if isinstance(s, A.ExprStmt):
        return first_pos(s.expr)
    if isinstance(s, (A.Assign, A.IncDec)):
        return first_pos(s.target)
    if isinstance(s, A.EndStmt):
        return first_pos(s.who)
    pos: A.Pos = s.pos
    return pos


def _loop_exits(b: A.Block, an: Analysis, sym: Symbols) -> bool:
    """True when a loop body may leave the loop: break, return, a game end, or a call of
    a procedure (which might end the game; functions and built-ins cannot)."""
    found = False

    def walk(node: Any, in_nested_loop: bool) -> None:
        nonlocal found
        if found:
            return
        if isinstance(node, A.Simple) and node.kind in ("draw", "illegal"):
            found = True
        elif isinstance(node, A.Simple) and node.kind == "break" and not in_nested_loop:
            found = True
        elif isinstance(node, (A.Return, A.EndStmt)):
            found = True
        elif isinstance(node, A.Call):
            target = an.calls.get(node)
            if target is None or isinstance(target, ValueCall) or (
                isinstance(target, UserCall) and not sym.funcs[target.name][0].pure
            ):
                found = True
        if isinstance(node, (list, tuple)):
            for x in node:
                walk(x, in_nested_loop)
            return
        if hasattr(node, "__dataclass_fields__"):
            nested = in_nested_loop or isinstance(node, (A.Loop, A.While, A.For))
            for fname in node.__dataclass_fields__:
                if fname != "pos":
                    walk(getattr(node, fname), nested if node is not b else in_nested_loop)

    for s in b.stmts:
        walk(s, False)
    return found
