"""Statements -> instructions: declarations, assignment, control flow, loops, returns."""

from __future__ import annotations

from typing import Any, assert_never

from esochess.gambit import ast as A
from esochess.gambit import types as T
from esochess.gambit.analysis import (
    LocalRef,
)
from esochess.gambit.compiler.context import CompilerLike
from esochess.gambit.compiler.horizon import loop_horizon
from esochess.gambit.compiler.legality import mark_loop, statement_spans
from esochess.gambit.compiler.quiet import quiet_statement
from esochess.gambit.compiler.runtime import (
    SayIllegal,
    end_game,
    iterable,
    truthy,
)
from esochess.gambit.machine import Machine
from esochess.gambit.program import (
    OP_COMMIT,
    OP_EXEC,
    OP_HORIZON,
    OP_ITER,
    OP_JF,
    OP_JUMP,
    OP_NEXT,
    OP_RET,
    OP_SET,
    Ev,
)
from esochess.gambit.results import (
    GameEnd,
    Result,
)


class StatementRules:
    """Statements -> instructions: declarations, assignment, control flow, loops, returns."""

    def emit(self: CompilerLike, *ins: Any) -> int:
        """Append an instruction and return its index."""
        assert self.code is not None
        self.code.instrs.append(tuple(ins))
        return len(self.code.instrs) - 1

    def here(self: CompilerLike) -> int:
        """The index of the next instruction."""
        assert self.code is not None
        return len(self.code.instrs)

    def patch(self: CompilerLike, at: int, target: int) -> None:
        """Set the jump target of an emitted instruction."""
        assert self.code is not None
        ins = list(self.code.instrs[at])
        ins[-1] = target
        self.code.instrs[at] = tuple(ins)

    def loop_body(
        self: CompilerLike, top: int, body: A.Block, exit_jump: int | None, horizon: int | None = None
    ) -> None:
        """Emit a loop body that jumps back to `top`, then point `exit_jump` (the loop's
        own exit test, if any) and every `break` past the loop, every `continue` at `top`.
        `horizon`: the index of the statement before which look-ahead stops (horizon.py)."""
        self.loop_stack.append(([], [], top))

        def before(i: int) -> None:
            if i == horizon:
                self.emit(OP_HORIZON, body.stmts[i].pos)

        spans = statement_spans(self, body.stmts, before)
        if horizon is not None:
            mark_loop(self, body.stmts, spans, horizon)
        self.emit(OP_JUMP, top)
        breaks, conts, _ = self.loop_stack.pop()
        end = self.here()
        for jump in ([exit_jump] if exit_jump is not None else []) + breaks:
            self.patch(jump, end)
        for jump in conts:
            self.patch(jump, top)

    def new_temp(self: CompilerLike) -> int:
        """A fresh local slot for a temporary."""
        assert self.code is not None
        self.code.nlocals += 1
        return self.code.nlocals - 1

    def block(self: CompilerLike, b: A.Block) -> None:
        """Compile the statements of a block."""
        for s in b.stmts:
            self.stmt(s)

    def ev(self: CompilerLike, e: A.Expr) -> Ev:
        """An expression in statement context: lowered when it may pause."""
        return self.lower(e) if self.in_proc else self.expr(e)

    def truth(self: CompilerLike, e: A.Expr) -> Ev:
        """A closure for the truth of a condition (lowered when it may pause)."""
        c = self.ev(e)
        return lambda m, L: truthy(c(m, L))

    def stmt(self: CompilerLike, s: A.Stmt) -> None:
        """Compile one statement."""
        if isinstance(s, A.ExprStmt):
            c = self.ev(s.expr)
            if not self.is_pausing_node(s.expr):
                # A lone choose or pausing call is already an instruction; anything
                # around it (a print of a choice, …) still has to run. A procedure that
                # only shows things is skipped where nothing is shown (compiler/quiet.py).
                proof = self.quiet.prove_call(s.expr)
                self.emit(OP_EXEC, quiet_statement(c, proof))
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
                jf = self.emit(OP_JF, self.truth(cond), -1)
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
            self.emit(OP_ITER, lambda m, L: iterable(src(m, L)), it_slot)
            top = self.here()
            nxt = self.emit(OP_NEXT, it_slot, var_slot, -1)
            self.loop_body(top, s.body, nxt)
            return
        if isinstance(s, A.While):
            top = self.here()
            jf = self.emit(OP_JF, self.truth(s.cond), -1)
            self.loop_body(top, s.body, jf)
            return
        if isinstance(s, A.Loop):
            self.loop_body(self.here(), s.body, None, loop_horizon(self, s) if self.in_proc else None)
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
        assert_never(s)

    def zero_of_decl(self: CompilerLike, s: A.DeclStmt) -> Ev:
        """The initial value of a declaration without an initialiser."""
        from esochess.gambit.resolver import resolve_type

        t = resolve_type(self.sym, s.type)
        if isinstance(t, T.StructT):
            return self.struct_zero(t.name)
        z = self.zero(t)
        return lambda m, L: z

    def simple(self: CompilerLike, s: A.Simple) -> None:
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
            self.emit(OP_EXEC, SayIllegal(pos))
        elif k == "draw":

            def draw(m: Machine, L: list[Any]) -> None:
                raise GameEnd(Result(m.seats, (), True, pos[0], pos[1]))

            self.emit(OP_EXEC, draw)

    def end(self: CompilerLike, s: A.EndStmt) -> Ev:
        """A closure for `wins`/`loses`."""
        who = self.ev(s.who)
        kind = s.kind
        pos = s.pos

        def end(m: Machine, L: list[Any]) -> None:
            end_game(m, who(m, L), kind, pos)

        return end

    def assign(self: CompilerLike, s: A.Assign) -> None:
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
