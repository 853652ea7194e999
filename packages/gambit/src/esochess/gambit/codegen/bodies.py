"""Bodies that cannot pause -> one Python function each, with Python's own control flow.

A function, trait or procedure that can reach no `choose` or `commit` runs to completion
whenever it is called, so it needs no explicit frame: its statements become the lines of
`def f(m, L)`, loops become Python loops, `break`/`continue`/`return` Python's. Bodies that
can pause keep the interpreter's instruction form (their frames are what `fork()` copies);
their expressions are generated all the same.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from esochess.gambit import ast as A
from esochess.gambit import types as T
from esochess.gambit.analysis import LocalRef
from esochess.gambit.codegen.emit import Namespace
from esochess.gambit.codegen.expressions import ExprSource

if TYPE_CHECKING:
    from esochess.gambit.codegen.compiler import SourceCompiler


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
        value = x.src(s.value)
        get, put = self.place(s.target)
        if s.op == "=":
            out.append(f"{pad}{put}(m, L, {value})")
            return
        arith = self.ns.const(self.c.arith(s.op[0], s.pos), "arith")
        out.append(f"{pad}{put}(m, L, {arith}({get}(m, L), {value}))")

    def place(self, e: A.Expr) -> tuple[str, str]:
        """The interpreter's getter and setter of a place, as constants."""
        get, put = self.c.place(e)
        return self.ns.const(get, "get"), self.ns.const(put, "put")
