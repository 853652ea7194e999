"""Call rules: values, built-ins, constructors and overload sets with their cells
(docs/reference/gambit.md#overloads)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from esochess.gambit import ast as A
from esochess.gambit import builtins as B
from esochess.gambit import types as T
from esochess.gambit.analysis import (
    BuiltinCall,
    EntityCtor,
    LocalRef,
    StructCtor,
    UserCall,
    ValueCall,
)
from esochess.gambit.check.common import (
    entity_of,
    find_selector,
    param_expect,
    pos_of,
    position_entities,
    signature,
    zero_missing,
)
from esochess.gambit.check.constants import (
    NotConstant,
    constant_entries,
)
from esochess.gambit.check.context import (
    BodyLike,
    RecursiveInference,
    Stop,
)
from esochess.gambit.resolver import (
    FuncInfo,
)


def named_arguments(
    body: BodyLike, e: A.Call, name: str, seen: set[str]
) -> Iterator[tuple[A.Arg, str]]:
    """A constructor call's arguments with their names; an unnamed one is reported and
    skipped, a repeated one reported (and still checked); `seen` collects the names."""
    for a in e.args:
        if a.name is None:
            body.err(a.pos, f"arguments of {name}(…) must be named")
            continue
        if a.name in seen:
            body.err(a.pos, f"'{a.name}' is given twice")
        seen.add(a.name)
        yield a, a.name


class CallRules:
    """Call rules: values, built-ins, constructors and overload sets with their cells
    (docs/reference/gambit.md#overloads)."""

    def call(self: BodyLike, e: A.Call, expected: T.Type | None, statement: bool) -> T.Type:
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
                raise Stop()
            self.err(f.pos, f"'{f.name}' is not defined")
            raise Stop()
        ft = self.ex(f, None)
        return self.value_call(e, ft, None)

    def args_untyped(self: BodyLike, e: A.Call) -> list[T.Type]:
        """Check arguments that have no parameter types (calls of values)."""
        out = []
        for a in e.args:
            if a.name is not None:
                self.err(a.pos, "named arguments are only for constructors")
            out.append(self.ex(a.value, None))
        return out

    def value_call(self: BodyLike, e: A.Call, ft: T.Type, f: A.Name | None) -> T.Type:
        """Check a call of a Function or Procedure value
        (docs/reference/gambit.md#functions-and-procedures)."""
        if f is not None:
            self.ex(f, None)
        if ft not in (T.FUNCTION, T.PROCEDURE) and not isinstance(ft, T.ErrT):
            self.err(e.pos, f"a value of type {T.show(ft)} cannot be called")
            raise Stop()
        if ft == T.PROCEDURE:
            self.impure(e.pos, "call a Procedure value")
            self.pc.out.uses_value_calls.add(self.ctx.name)
        self.an.calls[e] = ValueCall()
        self.args_untyped(e)
        return T.ANY

    def builtin_call(self: BodyLike, e: A.Call, name: str) -> T.Type:
        """Check a built-in call (docs/reference/gambit.md#built-ins)."""
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
            raise Stop()
        self.an.calls[e] = BuiltinCall(name)
        return rt

    def place_arg(self: BodyLike, x: A.Expr, name: str) -> T.Type:
        """Check the place argument of a place built-in."""
        try:
            t = self.place_quiet(x)
        except Stop:
            raise
        root = self.place_root_is_state(x)
        if root is not None and self.pure and B.Effect.CHANCE not in B.BUILTINS[name].effects:
            self.err(pos_of(x), f"{self.label()} cannot modify state property '{root.name}'")
        return t

    def place_quiet(self: BodyLike, x: A.Expr) -> T.Type:
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

    def ctor(self: BodyLike, e: A.Call, name: str) -> T.Type:
        """Check an entity or struct constructor call (docs/reference/gambit.md#expressions)."""
        if name == "Player":
            self.err(e.pos, "players are created by the runtime")
            raise Stop()
        seen: set[str] = set()
        if name in self.sym.structs:
            members = {m[0]: m for m in self.sym.structs[name].members}
            for a, arg_name in named_arguments(self, e, name, seen):
                m = members.get(arg_name)
                if m is None:
                    self.err(a.pos, f"{name} has no member '{arg_name}'")
                    self.ex(a.value, None)
                    continue
                t = self.ex(a.value, m[1])
                self.coerce(a.value, t, m[1])
            for mname, mt, default, _ in self.sym.structs[name].members:
                if mname not in seen and default is None and zero_missing(self.sym, mt):
                    self.err(e.pos, f"missing value for member '{mname}' of {name}")
            self.an.calls[e] = StructCtor(name)
            return T.StructT(name)
        self.impure(e.pos, "create entities")
        if self.ctx.static:
            self.err(e.pos, f"{self.label()} must be static: it creates an entity")
        for a, arg_name in named_arguments(self, e, name, seen):
            p = self.sym.prop(arg_name, (name,))
            if p is None or p.kind == "trait":
                self.err(a.pos, f"{name} has no fixed or state property '{arg_name}'")
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

    def overload_call(self: BodyLike, e: A.Call, name: str) -> T.Type:
        """Check a call of an overload set, including its cells
        (docs/reference/gambit.md#overloads)."""
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
            raise Stop()
        if self.pure and not fs[0].pure:
            self.err(e.pos, f"{self.label()} cannot call procedure '{name}'")
        if self.ctx.static and not fs[0].pure:
            self.err(e.pos, f"{self.label()} must be static: it calls procedure '{name}'")
        elif self.ctx.static:
            self.pc.static_calls.append((e.pos, name, self.label()))
        self.pc.out.call_graph.setdefault(self.ctx.name, set()).add(name)
        arg_types: list[T.Type] = []
        for i, a in enumerate(e.args):
            exp = T.union([param_expect(f.params[i]) for f in group])
            t = self.ex(a.value, exp)
            arg_types.append(t)
            ent = [entity_of(f.params[i]) for f in group]
            if all(x is not None for x in ent):
                ents = position_entities(group, i)
                optional_ok = any(T.contains_none(f.params[i]) for f in group)
                target: T.Type = T.union([T.EntityT(x) for x in ents])
                if optional_ok:
                    target = T.optional(target)
                if isinstance(t, T.SelT) and t.entity in ents:
                    continue
                if T.contains_none(t) and not optional_ok and not isinstance(t, T.ErrT) \
                        and T.is_subtype(T.strip_none(t), target):  # fmt: skip
                    self.err(pos_of(a.value), f"no overload of '{name}' accepts none")
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

    def static_arg_cells(self: BodyLike, a: A.Expr, t: T.Type, ent: str, cells: list[Any]) -> list[int]:
        """Indices of the cells of one position that the static argument may reach."""
        sel: A.Selector | None = None
        if isinstance(a, A.SelectorExpr):
            sel = a.selector
        elif isinstance(t, T.SelT):
            sel = find_selector(self.sym, t)
        narrowed: T.SelT | None = None
        if isinstance(a, A.Name):
            loc = self.lookup(a.name)
            lt = self.local_type(loc) if loc is not None else None
            if isinstance(lt, T.SelT):
                narrowed = lt
        if narrowed is not None and sel is None:
            sel = find_selector(self.sym, narrowed)
        allow_none = T.contains_none(t)
        reach = {x for x in map(entity_of, T.members(T.strip_none(t))) if x is not None}
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
                    if not self.pc.sel_matches_cell(constant_entries(self, sel), vals):
                        continue
                except NotConstant:
                    pass
            out.append(k)
        return out

    def cell_check(self: BodyLike, e: A.Call, name: str, group: list[FuncInfo]) -> None:
        """Report the first cell a call reaches with no or no least overload."""
        info = self.pc.overload_set(name, len(group[0].params))
        if info is None:
            # No entity positions: overloads of one arity are identical
            # (docs/reference/gambit.md#overloads rule 3).
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
            ent = entity_of(group[0].params[i]) or ""
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
                sa, sb = signature(self.sym, fa), signature(self.sym, fb)
                self.err(e.pos, f"ambiguous call to '{name}': {desc} matches {sa} and {sb}, "
                         "and neither is more specific",
                         (self.sym.note(fa.decl.pos, f"candidate {sa}"),
                          self.sym.note(fb.decl.pos, f"candidate {sb}")))  # fmt: skip
                return

    def describe_cell(self: BodyLike, group: list[FuncInfo], positions: list[int], cell: Any) -> str:
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
