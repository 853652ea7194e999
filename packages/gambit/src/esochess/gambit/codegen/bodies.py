"""Bodies that cannot pause -> one Python function each, with Python's own control flow.

A function, trait or procedure that can reach no `choose` or `commit` runs to completion
whenever it is called, so it needs no explicit frame: its statements become the lines of
`def f(m, L)`, loops become Python loops, `break`/`continue`/`return` Python's. Bodies that
can pause keep the interpreter's instruction form (their frames are what `fork()` copies);
their expressions are generated all the same.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from esochess.gambit import ast as A
from esochess.gambit import types as T
from esochess.gambit.analysis import LocalRef, PropRef
from esochess.gambit.codegen.emit import Namespace
from esochess.gambit.codegen.expressions import ExprSource

if TYPE_CHECKING:
    from esochess.gambit.codegen.compiler import SourceCompiler

# The property writes `BodySource.statement` made, with their lines (indented once, no
# `return`): the compiled engine's steps (codegen/steps.py) paste them in place.
STATEMENTS: weakref.WeakKeyDictionary[Callable[..., Any], list[str]] = weakref.WeakKeyDictionary()


class BodySource:
    """Generates whole bodies from their statements."""

    def __init__(self, compiler: SourceCompiler, ns: Namespace, exprs: ExprSource) -> None:
        self.c = compiler
        self.an = compiler.an
        self.ns = ns
        self.x = exprs

    def function(self, name: str, body: A.Block | A.Expr, where: str) -> tuple[Any, list[str]]:
        """`def name(m, L)` for a body, and the body's lines (indentation 1); the function
        is None when Python cannot compile it (too deeply nested blocks), so the
        instruction form is kept."""
        lines = self.lines(body, 1)
        try:
            return self.ns.define(name, [f"def {name}(m, L):", *lines], where), lines
        except (SyntaxError, RecursionError, MemoryError):
            return None, lines

    def lines(self, body: A.Block | A.Expr, depth: int) -> list[str]:
        """The statements of a body at indentation `depth`, ending in a `return`."""
        out: list[str] = []
        if isinstance(body, A.Block):
            self.block(body, out, depth)
            out.append("    " * depth + "return None")
        else:
            out.append("    " * depth + f"return {self.x.src(body)}")
        return out

    def block(self, b: A.Block, out: list[str], depth: int) -> None:
        """Append the lines of a block at indentation `depth`."""
        before = len(out)
        for s in b.stmts:
            self.stmt(s, out, depth)
        if len(out) == before:
            out.append("    " * depth + "pass")

    def stmt(self, s: A.Stmt, out: list[str], depth: int) -> None:
        """Append the lines of one statement."""
        pad = "    " * depth
        x = self.x
        match s:
            case A.ExprStmt(expr=e):
                out.append(pad + x.src(e))
            case A.DeclStmt(value=value):
                slot = self.an.declared[s]
                init = x.src(value) if value is not None else \
                    f"{self.ns.const(self.c.zero_of_decl(s))}(m, L)"  # fmt: skip
                out.append(f"{pad}L[{slot}] = {init}")
            case A.Assign():
                self.assign(s, out, pad)
            case A.IncDec(target=target, op=op):
                delta = 1 if op == "++" else -1
                info = self.an.resolved.get(target)
                if isinstance(target, A.Name) and isinstance(info, LocalRef):
                    out.append(f"{pad}L[{info.slot}] = L[{info.slot}] + {delta}")
                    return
                get, put = self.place(target)
                out.append(f"{pad}{put}(m, L, {get}(m, L) + {delta})")
            case A.Swap(a=a, b=b):
                ga, pa = self.place(a)
                gb, pb = self.place(b)
                t, u = x.temp(), x.temp()
                out.append(f"{pad}{t}, {u} = {ga}(m, L), {gb}(m, L)")
                out.append(f"{pad}{pa}(m, L, {u})")
                out.append(f"{pad}{pb}(m, L, {t})")
            case A.EndStmt(who=who, kind=kind, pos=pos):
                out.append(f"{pad}_end(m, {x.src(who)}, {kind!r}, {pos!r})")
            case A.Simple(kind=kind, pos=pos):
                out.append(pad + {
                    "break": "break",
                    "continue": "continue",
                    "commit": "m.end_turn()",
                    "illegal": f"_illegal({pos!r})",
                    "draw": f"_draw(m, {pos!r})",
                }[kind])  # fmt: skip
            case A.Return(value=value):
                out.append(pad + ("return None" if value is None else f"return {x.src(value)}"))
            case A.If(branches=branches, orelse=orelse):
                for i, (cond, blk) in enumerate(branches):
                    out.append(f"{pad}{'if' if i == 0 else 'elif'} {x.cond(cond)}:")
                    self.block(blk, out, depth + 1)
                if orelse is not None:
                    out.append(f"{pad}else:")
                    self.block(orelse, out, depth + 1)
            case A.For(iterable=it, body=body):
                var = self.an.for_slots[s].variable
                out.append(f"{pad}for L[{var}] in {x.iterated(it)}:")
                self.block(body, out, depth + 1)
            case A.While(cond=cond, body=body):
                out.append(f"{pad}while {x.cond(cond)}:")
                self.block(body, out, depth + 1)
            case A.Loop(body=body):
                out.append(f"{pad}while True:")
                self.block(body, out, depth + 1)
            case A.MatchStmt(subject=subject, arms=arms):
                v = x.temp()
                out.append(f"{pad}{v} = {x.src(subject)}")
                first = True
                for arm in arms:
                    if arm.pattern is None:
                        if first:
                            self.block(arm.body, out, depth)
                        else:
                            out.append(f"{pad}else:")
                            self.block(arm.body, out, depth + 1)
                        break
                    test = self.ns.const(self.c.pattern(arm.pattern), "pattern")
                    out.append(f"{pad}{'if' if first else 'elif'} {test}(m, L, {v}):")
                    self.block(arm.body, out, depth + 1)
                    first = False

    def assign(self, s: A.Assign, out: list[str], pad: str) -> None:
        """Append an assignment: to a local slot directly, to other places through the
        interpreter's setter."""
        x = self.x
        declared = self.an.declared.get(s)
        if declared is not None:
            out.append(f"{pad}L[{declared}] = {x.src(s.value)}")
            return
        info = self.an.resolved.get(s.target)
        local = isinstance(s.target, A.Name) and isinstance(info, LocalRef)
        if local and s.op == "=":
            assert isinstance(info, LocalRef)
            out.append(f"{pad}L[{info.slot}] = {x.src(s.value)}")
            return
        if local and s.op in ("+=", "-=", "*=", "/=", "%="):
            assert isinstance(info, LocalRef)
            if s.op in ("+=", "-=", "*=") and self.an.types.get(s.target) == T.INT \
                    and self.an.types.get(s.value) == T.INT and s.value not in self.an.conversions:  # fmt: skip
                # ints on both sides: Python's operator is Gambit's (no check needed).
                out.append(f"{pad}L[{info.slot}] = (L[{info.slot}] {s.op[0]} {x.src(s.value)})")
                return
            arith = self.ns.const(self.c.arith(s.op[0], s.pos), "arith")
            value = x.arith(s.op[0], arith, f"L[{info.slot}]", x.src(s.value))
            out.append(f"{pad}L[{info.slot}] = {value}")
            return
        write = self.property_write(s, pad)
        if write is not None:
            out += write
            return
        value = x.src(s.value)
        get, put = self.place(s.target)
        if s.op == "=":
            out.append(f"{pad}{put}(m, L, {value})")
            return
        arith = self.ns.const(self.c.arith(s.op[0], s.pos), "arith")
        out.append(f"{pad}{put}(m, L, {arith}({get}(m, L), {value}))")

    def property_write(self, s: A.Assign, pad: str) -> list[str] | None:
        """An assignment to a state property of one entity (`x = v`) or of none (also
        `+=` and the like) as lines: the interpreter's setter (compiler/lowering.py) in
        place -- the value first, then the entity; `Machine.write_prop` when tracing,
        else the store and a new state version. None for any other assignment."""
        x, tgt = self.x, s.target
        info = self.an.resolved.get(tgt)
        if not isinstance(info, PropRef) or self.c.props[info.prop.pid].kind != "state":
            return None
        prop = self.c.props[info.prop.pid]
        out: list[str] = []
        v = x.temp()
        if isinstance(tgt, A.Name):
            if s.op == "=":
                out.append(f"{pad}{v} = {x.src(s.value)}")
            else:
                # The getter reads the property, then the value is computed.
                old, new = x.temp(), x.temp()
                out.append(f"{pad}{old} = {x.src(tgt)}")
                out.append(f"{pad}{new} = {x.src(s.value)}")
                if s.op in ("+=", "-=", "*=") and self.an.types.get(tgt) == T.INT \
                        and self.an.types.get(s.value) == T.INT and s.value not in self.an.conversions:  # fmt: skip
                    out.append(f"{pad}{v} = {old} {s.op[0]} {new}")
                else:
                    arith = self.ns.const(self.c.arith(s.op[0], s.pos), "arith")
                    out.append(f"{pad}{v} = {arith}({old}, {new})")
            args, key = "()", "()"
        elif isinstance(tgt, A.Member) and not isinstance(tgt.obj, A.TupleExpr) and s.op == "=":
            o = x.temp()
            out += [f"{pad}{v} = {x.src(s.value)}", f"{pad}{o} = {x.src(tgt.obj)}"]
            args, key = f"({o},)", o
        else:
            return None
        return [*out, f"{pad}if m.tracing:",
                f"{pad}    m.write_prop({self.ns.const(prop, 'prop')}, {args}, {v}, {tgt.pos!r})",
                f"{pad}else:", f"{pad}    m.store[{prop.pid}][{key}] = {v}",
                f"{pad}    m.version = _fresh()"]  # fmt: skip

    def statement(self, s: A.Assign) -> Any:
        """A property write as a generated function `f(m, L)` (an instruction of a body
        that can pause), or None (see `property_write`)."""
        lines = self.property_write(s, "    ")
        if lines is None:
            return None
        name = self.ns.fresh("w")
        fn = self.ns.define(name, [f"def {name}(m, L):", *lines], f"line {s.pos[0]}")
        STATEMENTS[fn] = lines
        return fn

    def place(self, e: A.Expr) -> tuple[str, str]:
        """The interpreter's getter and setter of a place, as constants."""
        get, put = self.c.place(e)
        return self.ns.const(get, "get"), self.ns.const(put, "put")
