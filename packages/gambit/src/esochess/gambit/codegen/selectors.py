"""Generated selectors: `Cell<col: c, owner: none>` as one function with the property
reads and comparisons inline.

The rules are the interpreter's (compiler/patterns.py): every entry value is evaluated
first, in order; entries on fixed properties pick a subset cached per (selector, their
values, instance-set version) in the selector's own table; the other entries are tested on
that subset. A selector with a pattern entry keeps the interpreter's closure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from esochess.gambit import ast as A
from esochess.gambit import types as T
from esochess.gambit.codegen.emit import Namespace
from esochess.gambit.codegen.expressions import ExprSource, plain_eq
from esochess.gambit.compiler.runtime import COMPARE
from esochess.gambit.machine import MEMO_LIMIT

if TYPE_CHECKING:
    from esochess.gambit.codegen.compiler import SourceCompiler


class SelectorSource:
    """Generates selector functions."""

    def __init__(self, compiler: SourceCompiler, ns: Namespace, exprs: ExprSource) -> None:
        self.c = compiler
        self.an = compiler.an
        self.ns = ns
        self.x = exprs
        self.tables: dict[int, str] = {}

    def selector(self, sel: A.Selector) -> str | None:
        """Source calling a generated selector function, or None (closure kept)."""
        if any(en.op == "pat" and not isinstance(en.pattern, (A.PNone, A.PAny, A.PValue))
               for en in sel.entries):
            return None
        name = self.ns.fresh("sel")
        lines = [f"def {name}(m, L):"]
        fixed: list[str] = []
        dynamic: list[str] = []
        keys: list[str] = []
        # The dict of each entry that only tests for none a property whose other values
        # are instances or enum members (never false): `filterfalse(s.get, base)` keeps
        # exactly the instances `s.get(x, None) is None` keeps, with no Python call.
        unset: list[str] = []
        for k, en in enumerate(sel.entries):
            info = self.an.entry_props[en]
            prop = self.c.props[info.pid]
            if prop.pid == 0:
                read = "x.index"
            elif (zero := self.x.unset_value(prop)) is not None and prop.kind != "fixed":
                # The property's dict, looked up once for the instances tested on every
                # call (reads never replace it).
                lines.append(f"    s{prop.pid} = m.store[{prop.pid}]")
                read = f"s{prop.pid}.get(x, {zero})"
            elif zero is not None:
                read = f"m.store[{prop.pid}].get(x, {zero})"
            else:
                t = self.x.temp()
                read = (f"({t} if ({t} := m.store[{prop.pid}].get(x, UNSET)) is not UNSET "
                        f"else m.read_prop({self.ns.const(prop, 'prop')}, (x,), {en.pos!r}))")  # fmt: skip
            if en.op == "true":
                test = f"{read} is True"
            elif en.op == "false":
                test = f"{read} is False"
            elif isinstance(en.pattern, A.PNone):
                test = f"{read} is None"
                if read == f"s{prop.pid}.get(x, {zero})" and prop.zero is None and all(
                        isinstance(t, (T.EntityT, T.EnumT)) or t == T.NONE
                        for t in T.members(info.type)):  # fmt: skip
                    unset.append(f"s{prop.pid}")
            elif isinstance(en.pattern, A.PAny):
                test = "True"
            elif isinstance(en.pattern, A.PValue):
                v = f"v{k}"
                value = en.pattern.value
                lines.append(f"    {v} = {self.x.src(value)}")
                if prop.kind == "fixed":
                    keys.append(v)
                if plain_eq(info.type) and plain_eq(self.an.types.get(value)) \
                        and value not in self.an.conversions:  # fmt: skip
                    test = f"{read} == {v}"
                else:
                    test = f"_superset({read}, {v})"
            else:
                assert en.value is not None
                v = f"v{k}"
                lines.append(f"    {v} = {self.x.src(en.value)}")
                if prop.kind == "fixed":
                    keys.append(v)
                if en.op in ("==", "!=") and plain_eq(info.type) \
                        and plain_eq(self.an.types.get(en.value)) and en.value not in self.an.conversions:  # fmt: skip
                    test = f"{read} {en.op} {v}"
                else:
                    test = f"{self.ns.const(COMPARE[en.op], 'cmp')}({read}, {v})"
            (fixed if prop.kind == "fixed" else dynamic).append(test)
        ent = repr(sel.entity)
        if fixed:
            # The selector's own table (shared by every function generated for it), keyed
            # by the instance version and the values.
            memo = self.tables.get(id(sel))
            if memo is None:
                memo = self.tables[id(sel)] = self.ns.const({}, "selmemo")
            key = ", ".join(["m.inst_version", *keys])
            lines += [
                f"    key = ({key})",
                f"    base = {memo}.get(key)",
                "    if base is None:",
                f"        if len({memo}) >= {MEMO_LIMIT}:",
                f"            {memo}.clear()",
                f"        base = tuple([x for x in m.instances[{ent}] if {' and '.join(fixed)}])",
                f"        {memo}[key] = base",
            ]
        else:
            lines.append(f"    base = m.instances[{ent}]")
        if dynamic and len(unset) == len(dynamic) == 1:
            lines.append(f"    return tuple(_filterfalse({unset[0]}.get, base))")
        elif dynamic:
            lines.append(f"    return tuple([x for x in base if {' and '.join(dynamic)}])")
        else:
            lines.append("    return base")
        self.ns.define(name, lines, f"selector at line {sel.pos[0]}")
        return f"{name}(m, L)"
