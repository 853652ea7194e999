"""Expressions -> Python source over `m` (the machine) and `L` (the locals list).

The source follows the interpreter's closures rule for rule (esochess.gambit.compiler), so
both engines compute the same values and raise the same errors. Static types from the
checker pick the short forms: `a == b` on ints, entities and enum members is Python's `==`,
`a + b` on ints is Python's `+`, a bool condition needs no truth test. A node with no
source form here (selectors, patterns, most built-ins…) is the interpreter's closure for
that node, bound as a constant and called as `_kN(m, L)`; its children are generated.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from esochess.gambit import ast as A
from esochess.gambit import builtins as B
from esochess.gambit import types as T
from esochess.gambit.analysis import (
    BoolList,
    BuiltinCall,
    EntityList,
    EnumList,
    EnumRef,
    FieldRef,
    FuncRef,
    LocalRef,
    NaryRef,
    PropRef,
    SelectionToEntity,
    ToNum,
    UserCall,
)
from esochess.gambit.codegen.emit import Namespace
from esochess.gambit.codegen.hoist import TRACING, invariants, loop_lookups
from esochess.gambit.codegen.inline import (
    body_expression,
    inline_call,
    memo_call,
    outside_literals,
)
from esochess.gambit.codegen.tables import ROW_READ, MapTables
from esochess.gambit.compiler.horizon import nodes
from esochess.gambit.compiler.runtime import not_none
from esochess.gambit.program import Code, Ev, Prop
from esochess.gambit.spans import first_pos
from esochess.gambit.values import UNSET, FuncVal

if TYPE_CHECKING:
    from esochess.gambit.codegen.compiler import SourceCompiler

# Types whose `==` is Python's `==` on the run-time values (values_equal's special cases,
# bools and lists, cannot occur).
_PLAIN_EQ = (T.INT, T.NUM, T.STR, T.NONE)
_ARITH = {"+", "-", "*"}
NEST_LIMIT = 24
_ORDER = {"<", "<=", ">", ">="}
# `a..b` of constants with fewer elements than this is a constant tuple.
_SPAN_CONSTANT = 1000




def plain_eq(t: T.Type | None) -> bool:
    """True when every value of `t` compares with Python's `==` as Gambit's `==`."""
    if t is None:
        return False
    return all(m in _PLAIN_EQ or isinstance(m, (T.EnumT, T.EntityT)) for m in T.members(t))


def identity_eq(t: T.Type | None) -> bool:
    """True when `==` on values of `t` is identity: entity instances (a running game makes
    one object per instance, shared by its forks), enum members and none."""
    if t is None:
        return False
    return all(m == T.NONE or isinstance(m, (T.EnumT, T.EntityT)) for m in T.members(t))


def is_int(t: T.Type | None) -> bool:
    """True for the static type int."""
    return t == T.INT


def is_number(t: T.Type | None) -> bool:
    """True for int or num (ordered by Python's comparisons)."""
    return t in (T.INT, T.NUM)


def literal(e: A.Expr | None) -> tuple[Any] | None:
    """(value,) of a literal, a negated number or a list of those; None for anything else."""
    match e:
        case A.Lit(value=v) if type(v) in (int, float, str, bool) or v is None:
            return (v,)
        case A.Unary(op="-", operand=A.Lit(value=v)) if type(v) in (int, float):
            return (-v,)  # type: ignore[operator]
        case A.ListLit(items=items):
            parts = [literal(x) for x in items]
            if all(p is not None for p in parts):
                return (tuple(p[0] for p in parts if p is not None),)
    return None


class ExprSource:
    """Generates the source of expressions for one program."""

    def __init__(self, compiler: SourceCompiler, ns: Namespace) -> None:
        self.c = compiler
        self.an = compiler.an
        self.ns = ns
        # How deeply the expression being generated nests; past NEST_LIMIT a subtree gets
        # a function of its own (Python's parser refuses about 200 nested parentheses).
        self.depth = 0
        # Loop-invariant sub-expressions of the map being generated (codegen/hoist.py):
        # node id -> the source that computes it once per map.
        self.kept: dict[int, str] = {}
        self.tables = MapTables(self)

    # ------------------------------------------------------------------ entry points

    def closure(self, e: A.Expr) -> Ev:
        """The expression as a generated function `f(m, L)`."""
        name = self.ns.fresh("e")
        outer, self.depth = self.depth, 0
        try:
            body = self.src(e)
        finally:
            self.depth = outer
        if ROW_READ.search(body):
            self.tables.escaped = True
        fn: Ev = self.ns.define(name, [f"def {name}(m, L):", f"    return {body}"],
                                f"line {e.pos[0]}")  # fmt: skip
        return fn

    def src(self, e: A.Expr) -> str:
        """Source evaluating `e` (with its implicit conversion)."""
        kept = self.kept.get(id(e))
        if kept is not None:
            return kept
        o = self.c.override.get(id(e))
        if o is not None:
            return f"{self.ns.const(o)}(m, L)"
        if self.depth >= NEST_LIMIT:
            return f"{self.ns.const(self.closure(e))}(m, L)"
        self.depth += 1
        try:
            return self.converted_src(e)
        finally:
            self.depth -= 1

    def converted_src(self, e: A.Expr) -> str:
        """`src` at one level deeper."""
        conv = self.an.conversions.get(e)
        g = self.gen(e)
        if g is None:
            return self.fallback(e)
        if isinstance(conv, SelectionToEntity):
            t = self.temp()
            rest = f"{conv.optional!r}, {first_pos(e)!r}, {conv.text!r}, {conv.entity!r}"
            return f"({t}[0] if len({t} := {g}) == 1 else _one({t}, {rest}))"
        if isinstance(conv, ToNum):
            return f"_num({g})"
        return g

    def fallback(self, e: A.Expr) -> str:
        """The interpreter's closure for `e` (its children generated)."""
        return f"{self.ns.const(self.c.base_expr(e))}(m, L)"

    def iterated(self, e: A.Expr) -> str:
        """Source of what a loop over `e` walks: a list is its tuple, anything else
        (a string, a multi-value, none) goes through `_iter`."""
        if isinstance(self.an.types.get(e), T.ListT) and e not in self.an.conversions:
            return self.src(e)
        return f"_iter({self.src(e)})"

    def cond(self, e: A.Expr) -> str:
        """Source of the truth of a condition."""
        s = self.src(e)
        if self.an.types.get(e) == T.BOOL and e not in self.an.conversions:
            return s
        return f"_tr({s})"

    def temp(self) -> str:
        """A fresh local name for a value used twice."""
        return self.ns.fresh("t")

    # ------------------------------------------------------------------ the rules

    def gen(self, e: A.Expr) -> str | None:
        """Source of `e` without its conversion, or None where the closure is kept."""
        match e:
            case A.Lit(value=v):
                return self.ns.const(v)
            case A.Name():
                return self.name(e)
            case A.Member():
                return self.member(e)
            case A.Index(obj=obj, index=A.Lit(value=k), pos=pos) if type(k) is int and k > 0 \
                    and isinstance(self.an.types.get(obj), T.ListT) and obj not in self.an.conversions:
                # `d[1]`: a list and a positive constant, so only the length is tested.
                xs = self.temp()
                return f"({xs}[{k - 1}] if len({xs} := {self.src(obj)}) >= {k} else _index({xs}, {k}, {pos!r}))"
            case A.Index(obj=obj, index=idx, pos=pos):
                xs, i = self.temp(), self.temp()
                return (f"({xs}[{i} - 1] if (({xs} := {self.src(obj)}), ({i} := {self.src(idx)})) "
                        f"and type({i}) is int and 0 < {i} <= len({xs}) "
                        f"else _index({xs}, {i}, {pos!r}))")  # fmt: skip
            case A.Call():
                return self.call(e)
            case A.FilterMap():
                return self.filter_map(e)
            case A.Unary():
                return self.unary(e)
            case A.Binary():
                return self.binary(e)
            case A.ListLit(items=items):
                if not items:
                    return "()"
                return "(" + "".join(f"{self.src(x)}, " for x in items) + ")"
            case A.SelectorExpr(selector=sel):
                return self.c.selectors.selector(sel)
            case A.IfExpr(arms=arms):
                out = "None"
                for arm in reversed(arms):
                    if arm.cond is None:
                        out = self.src(arm.value)
                    else:
                        out = f"({self.src(arm.value)} if {self.cond(arm.cond)} else {out})"
                return out
        return None

    def name(self, e: A.Name) -> str | None:
        match self.an.resolved[e]:
            case LocalRef(slot):
                return f"L[{slot}]"
            case EnumRef(v):
                return self.ns.const(v, "enum")
            case FuncRef(fname):
                return self.ns.const(FuncVal(fname), "fn")
            case EntityList(name):
                return f"m.instances[{name!r}]"
            case EnumList(enum):
                return self.ns.const(tuple(self.c.sym.enums[enum].values.values()), "enums")
            case BoolList():
                return "(False, True)"
            case PropRef(p):
                prop = self.c.props[p.pid]
                if prop.kind == "trait":
                    assert prop.code is not None
                    return self.call_site(prop.code, e.pos, [])
                default = p.decl.default
                folded = literal(default) if prop.kind == "fixed" and not any(
                    n in self.an.conversions for n in nodes(default)) else None  # fmt: skip
                if folded is not None:
                    # A fixed constant (`fixed int [ROWS] = 6`) is its value.
                    return self.ns.const(folded[0], "fixed")
                t = self.temp()
                return (f"({t} if ({t} := m.store[{prop.pid}].get((), UNSET)) is not UNSET "
                        f"else m.read_prop({self.ns.const(prop, 'prop')}, (), {e.pos!r}))")  # fmt: skip
        return None

    def member(self, e: A.Member) -> str | None:
        info = self.an.resolved[e]
        if isinstance(info, EnumRef):
            return self.ns.const(info.value, "enum")
        if isinstance(info, FieldRef):
            return f"{self.src(e.obj)}.get({info.name!r})"
        if not isinstance(info, (PropRef, NaryRef)):
            return None
        prop = self.c.props[info.prop.pid]
        pconst = self.ns.const(prop, "prop")
        if isinstance(info, NaryRef):
            if not isinstance(e.obj, A.TupleExpr):
                return None
            parts = "".join(f"{self.src(x)}, " for x in e.obj.items)
            return f"m.read_prop({pconst}, ({parts}), {e.pos!r})"
        obj = self.src(e.obj)
        if prop.pid == 0:
            return f"{obj}.index"
        if prop.kind == "trait":
            assert prop.code is not None
            return self.call_site(prop.code, e.pos, [obj])
        zero = self.unset_value(prop)
        if zero is not None:
            return f"m.store[{prop.pid}].get({obj}, {zero})"
        v, o = self.temp(), self.temp()
        return (f"({v} if ({v} := m.store[{prop.pid}].get(({o} := {obj}), UNSET)) "
                f"is not UNSET else m.read_prop({pconst}, ({o},), {e.pos!r}))")  # fmt: skip

    def unset_value(self, prop: Prop) -> str | None:
        """Source of what reading a state or fixed property that was never set gives, when
        that is its type's zero (no default expression, no error): the whole of
        `Machine.read_prop` for an unset key, so a read is one `store.get`."""
        if prop.kind == "trait" or prop.pid == 0 or prop.zero is UNSET:
            return None
        info = self.c.sym.props[prop.pid]
        if info.decl.default is not None or isinstance(info.type, T.StructT):
            return None  # (mirrors Compiler.property: these get a default)
        return self.ns.const(prop.zero, "zero")

    def call_site(self, code: Code, pos: tuple[int, int], args: list[str]) -> str:
        """A call of `code` without parameter tests: a memo lookup in place when the
        body may be memoised (a trait or a static function, compiled already, not
        cheap), else its wrapper."""
        wrapper = self.c.calls.name(code)
        may_memo = code.kind != "fn" or code.where in self.c.static_names
        if may_memo and code.instrs and id(code) not in self.c.calls.cheap:
            memo = self.c.calls.memo_names(code)
            return memo_call(wrapper, pos, args, memo, self.temp)
        return self.positional(code, pos, args) or f"{wrapper}(m, {pos!r}, [{', '.join(args)}])"

    def positional(self, code: Code, pos: tuple[int, int], args: list[str]) -> str | None:
        """A call passing `args` as Python parameters, where the callee allows it (see
        `CallWrappers.positional_call`; a static function is memoised: it does not)."""
        if code.where in self.c.static_names:
            return None
        return self.c.calls.positional_call(code, pos, args)

    def call(self, e: A.Call) -> str | None:
        info = self.an.calls[e]
        if isinstance(info, BuiltinCall) and len(e.args) == 1 \
                and isinstance(mapped := e.args[0].value, A.FilterMap) and mapped.kind == "map" \
                and mapped not in self.an.conversions \
                and B.BUILTINS[info.name].direct in ("all", "any"):  # fmt: skip
            return self.filter_map(mapped, B.BUILTINS[info.name].direct)
        parts = [self.src(a.value) for a in e.args]
        args = ", ".join(parts)
        if isinstance(info, UserCall):
            group = [o for o in self.c.overloads[info.name] if len(o.info.params) == len(e.args)]
            if len(group) != 1:
                return None
            code = group[0].code
            # An entity parameter's test that its argument is not none holds when the
            # argument's type has no none.
            tests = [(i, t) for i, t in group[0].tests
                     if t is not not_none or self.may_be_none(e.args[i].value)]  # fmt: skip
            g = self.ns.const(group, "group")
            leaf = self.c.calls.inline.get(id(code))
            body = body_expression(leaf, len(parts), self.temp) if leaf is not None and all(
                t is not_none for _, t in tests) else None  # fmt: skip
            if body is not None:
                pos, name = e.pos, info.name
                inlined = inline_call(
                    self.c.calls.name(code), pos, parts, body, self.temp, [i for i, _ in tests],
                    lambda v: f"_call(m, _tested(m, {name!r}, {g}, {v}, {pos!r}), {v}, {pos!r})",
                )  # fmt: skip
                if inlined is not None:
                    return inlined
            wrapper = self.c.calls.name(group[0].code)
            if not group[0].tests:
                return self.call_site(code, e.pos, parts)
            if not tests:
                # The frame's other locals start as none: the wrapper need not add them.
                rest = ", None" * (code.nlocals - len(parts))
                return self.positional(code, e.pos, parts) or \
                    f"{wrapper}(m, {e.pos!r}, [{args}{rest}])"  # fmt: skip
            v = self.temp()
            test = f"_passes(m, {g}, ({v} := [{args}]))"
            if all(t is not_none for _, t in tests):
                # The usual test, an entity parameter that must not be none, inline.
                test = f"({v} := [{args}])" + "".join(
                    f" and {v}[{i}] is not None" for i, _ in tests)
            return (f"({wrapper}(m, {e.pos!r}, {v}) if {test} "
                    f"else _call(m, _tested(m, {info.name!r}, {g}, {v}, {e.pos!r}), {v}, "
                    f"{e.pos!r}))")  # fmt: skip
        if isinstance(info, BuiltinCall):
            b = B.BUILTINS[info.name]
            impl = b.impl
            if b.direct is not None and not any(a.value in self.an.conversions for a in e.args):
                return f"{b.direct}({args})"
            if isinstance(impl, B.Plain):
                return f"_plain({self.ns.const(impl.fn, 'builtin')}, {e.pos!r}, {args})"
            if isinstance(impl, B.Hosted) and b.trace is None and not b.effects & B.Effect.PRINTS:
                return f"_hosted({self.ns.const(impl.fn, 'builtin')}, m, {e.pos!r}, [{args}])"
        return None

    def may_be_none(self, e: A.Expr) -> bool:
        """False when the value of `e` cannot be none (its type has no none, and no
        conversion applies)."""
        t = self.an.types.get(e)
        return t is None or T.contains_none(t) or t == T.ANY or e in self.an.conversions

    def filter_map(self, e: A.FilterMap, reduce: str | None = None) -> str:
        """Source of a map or filter; with `reduce` (`all`, `any`), of that builtin of
        the mapped list (codegen/tables.py: a table hit may stop early)."""
        slot = self.an.binders[e]
        name = self.ns.fresh("fm")
        # Sub-expressions the same for every element, computed where first needed.
        outer, self.kept = self.kept, {}
        keep_lines: list[str] = []
        kept: list[str] = []
        try:
            if self.c.effect_free(e.body):
                for n in invariants(self.an, e):
                    plain, h = self.src(n), self.temp()
                    keep_lines.append(f"    {h} = UNSET")
                    kept.append(h)
                    self.kept[id(n)] = (f"(({h} if {h} is not UNSET else ({h} := {plain}))"
                                        f" if not _tracing else {plain})")  # fmt: skip
            keep = self.element(e)
            source = self.iterated(e.source)
            table = self.tables.table(e, slot, reduce, keep_lines, kept)
        finally:
            self.kept = outer
        keep, lookups = loop_lookups(keep, self.c.effect_free(e.body))
        if keep_lines or "    _tracing = m.tracing" in lookups:
            keep_lines.append("    _tracing = m.tracing")
            lookups = [line for line in lookups if line != "    _tracing = m.tracing"]
        if table:
            # The list first: evaluating it may change what the lookups find.
            table = [f"    xs = {source}", *table]
            keep_lines += lookups
            source = "xs"
        elif lookups:
            keep_lines += [f"    xs = {source}", *lookups]
            source = "xs"
        lines = [
            f"def {name}(m, L):",
            *table,
            "    out = []",
            *keep_lines,
            f"    for x in {source}:",
            f"        L[{slot}] = x",
            f"        {keep}",
            f"    return {reduce}(out)" if table and reduce else "    return tuple(out)",
        ]
        if "    _tracing = m.tracing" in keep_lines:
            # Tracing is on or off for the whole map: a machine that does not trace runs
            # a copy with `_tracing` False, whose tests Python drops when it compiles it.
            traced = self.ns.fresh("fm")
            self.ns.define(traced, [f"def {traced}(m, L):", *lines[1:]],
                           f"{e.kind} at line {e.pos[0]}, traced")  # fmt: skip
            untraced = [outside_literals(line, lambda code: TRACING.sub("False", code))
                        for line in lines[1:] if line != "    _tracing = m.tracing"]  # fmt: skip
            lines = [lines[0], "    if m.tracing:", f"        return {traced}(m, L)", *untraced]
        self.ns.define(name, lines, f"{e.kind} at line {e.pos[0]}")
        if reduce is not None and not table:
            return f"{reduce}({name}(m, L))"
        return f"{name}(m, L)"

    def element(self, e: A.FilterMap) -> str:
        """The statement a map or filter runs for each element (at indentation 2)."""
        if e.kind == "filter":
            return f"if {self.cond(e.body)}:\n            out.append(x)"
        return f"out.append({self.src(e.body)})"

    def unary(self, e: A.Unary) -> str | None:
        if e.op == "not":
            return f"(not {self.cond(e.operand)})"
        if e.op == "-":
            return f"(-{self.src(e.operand)})"
        if e.op == "+":
            return self.src(e.operand)
        t = self.temp()
        if e.operand not in self.an.conversions and (
            isinstance(ot := self.an.types.get(e.operand), (T.ListT, T.SelT)) or ot == T.STR
        ):
            return f"len({self.src(e.operand)})"  # a tuple or a string: never none
        length = self.ns.const(B.PURE_IMPL["len"], "builtin")
        return f"({length}({t}) if ({t} := {self.src(e.operand)}) is not None else 0)"

    def binary(self, e: A.Binary) -> str | None:
        op = e.op
        lt, rt = self.an.types.get(e.left), self.an.types.get(e.right)
        if op in ("==", "!=") and not isinstance(e.right, A.Alt):
            a, b = self.src(e.left), self.src(e.right)
            if identity_eq(lt) and identity_eq(rt) and e.left not in self.an.conversions \
                    and e.right not in self.an.conversions:  # fmt: skip
                return f"({a} {'is' if op == '==' else 'is not'} {b})"
            if plain_eq(lt) and plain_eq(rt) and e.left not in self.an.conversions \
                    and e.right not in self.an.conversions:  # fmt: skip
                return f"({a} {op} {b})"
            return f"_eq({a}, {b})" if op == "==" else f"(not _eq({a}, {b}))"
        if op in ("and", "or"):
            return f"({self.cond(e.left)} {op} {self.cond(e.right)})"
        if op in _ARITH and is_int(lt) and is_int(rt) and not self.converted(e):
            return f"({self.src(e.left)} {op} {self.src(e.right)})"
        if op in ("+", "-", "*", "/", "%"):
            f: Callable[[Any, Any], Any] = self.c.arith(op, e.pos)
            return self.arith(op, self.ns.const(f, "arith"), self.src(e.left), self.src(e.right))
        if op in _ORDER:
            a, b = self.src(e.left), self.src(e.right)
            if is_number(lt) and is_number(rt):
                return f"({a} {op} {b})"
            return f"(_ord({a}) {op} _ord({b}))"
        if op == ".." and is_int(lt) and is_int(rt) and not self.converted(e):
            lo, hi = self.int_constant(e.left), self.int_constant(e.right)
            if lo is not None and hi is not None and hi - lo < _SPAN_CONSTANT:
                return self.ns.const(tuple(range(lo, hi + 1)), "span")  # `1..COLS`
            return f"_span({self.src(e.left)}, {self.src(e.right)}, {e.pos!r})"
        return None

    def int_constant(self, e: A.Expr) -> int | None:
        """The value of an int literal or of a fixed constant folded to one."""
        value = literal(e)
        if isinstance(e, A.Name) and isinstance(ref := self.an.resolved.get(e), PropRef):
            prop = self.c.props[ref.prop.pid]
            default = ref.prop.decl.default
            if prop.kind != "fixed" or any(n in self.an.conversions for n in nodes(default)):
                return None
            value = literal(default)
        return value[0] if value is not None and type(value[0]) is int else None

    def arith(self, op: str, checked: str, a: str, b: str) -> str:
        """`a op b` through the interpreter's checked arithmetic `checked`, with Python's
        operator inline when both values turn out to be ints (their sum, difference and
        product need no check)."""
        if op not in _ARITH:
            return f"{checked}({a}, {b})"
        x, y = self.temp(), self.temp()
        return (f"(({x} {op} {y}) if (({x} := {a}), ({y} := {b})) and type({x}) is int "
                f"and type({y}) is int else {checked}({x}, {y}))")  # fmt: skip

    def converted(self, e: A.Binary) -> bool:
        """True when an operand has an implicit conversion (int -> num)."""
        return e.left in self.an.conversions or e.right in self.an.conversions
