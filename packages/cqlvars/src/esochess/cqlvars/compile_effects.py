"""Compiling the filters with effects: sort, comment/message/str, max/min and
assignments (docs/reference/cql.md#filters)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import chess

from esochess.cqlvars import ast
from esochess.cqlvars.closures import Fn
from esochess.cqlvars.compile_base import CompilerBase, ctrunc
from esochess.cqlvars.model import Ctx, position_text
from esochess.cqlvars.qtypes import DICT, NUMERIC, PIECE, POSITION, SET
from esochess.cqlvars.variables import check_range, format_set, format_value

#: What each assignment operator makes of the old value and the new operand (None: the
#: assignment does not match, as for a division by zero).
UPDATES: dict[str, Callable[[Any, Any], Any]] = {
    "=": lambda a, b: b,
    "+=": lambda a, b: a + b,
    "-=": lambda a, b: a - b,
    "*=": lambda a, b: a * b,
    "/=": lambda a, b: None if b == 0 else ctrunc(a, b),
    "%=": lambda a, b: None if b == 0 else a - b * ctrunc(a, b),
}


class EffectFilters(CompilerBase):
    """Compiling the filters with effects: sort, comment/message/str, max/min and"""

    def c_Sort(self, node: ast.Sort) -> Fn:
        """`sort`: records the value for the game's sort key when the body matches."""
        body = self.value(node.body)
        index = self.sort_index[(node.span, node.doc)]

        def sort(ctx: Ctx) -> Any:
            v = body(ctx)
            if v is not None:
                ctx.sorts.append((index, v))
            return v

        return sort

    def c_Emit(self, node: ast.Emit) -> Fn:
        """`comment`, `message` and `str` (formatting per docs/reference/cql.md#comment)."""
        parts = [self._formatter(a) for a in node.args]
        kind = node.kind

        def text(ctx: Ctx) -> str | None:
            out = []
            for p in parts:
                s = p(ctx)
                if s is None:
                    return None
                out.append(s)
            return "".join(out)

        if kind == "str":
            return text
        if kind == "message":

            def message(ctx: Ctx) -> bool | None:
                s = text(ctx)
                if s is None:
                    return None
                ctx.messages.append(s)
                return True

            return message

        def comment(ctx: Ctx) -> bool | None:
            s = text(ctx)
            if s is None:
                return None
            ctx.comments.append((ctx.pos, s))
            return True

        return comment

    def _formatter(self, node: ast.Node) -> Callable[[Ctx], str | None]:
        t = self.type_of(node)
        if t == PIECE and isinstance(node, ast.Var) and node.name not in self.persistent:
            slot = self.slots.slot(node.name)
            self.uses_piece_ids = True

            def piece(ctx: Ctx) -> str | None:
                pid = ctx.slots[slot]
                if pid is None:
                    return None
                for sq, other in ctx.game.piece_ids(ctx.pos).items():
                    if other == pid:
                        symbol = ctx.board().piece_at(sq)
                        return f"{symbol.symbol() if symbol else '?'}{chess.square_name(sq)}"
                original = ctx.game.board(0).piece_at(pid)
                return f"{original.symbol() if original else '?'}(captured)"

            return piece
        f = self.value(node)
        if t in (SET, PIECE):
            return lambda ctx: None if (v := f(ctx)) is None else format_set(v)
        if t == POSITION:

            def position(ctx: Ctx) -> str | None:
                p = f(ctx)
                return None if p is None else position_text(ctx.game, p)

            return position
        return lambda ctx: None if (v := f(ctx)) is None else format_value(v, t)

    def c_MaxMin(self, node: ast.MaxMin) -> Fn:
        """`max(...)` / `min(...)` over the arguments that match."""
        args = [self.value(a) for a in node.args]
        pick = max if node.op == "max" else min

        def maxmin(ctx: Ctx) -> int | None:
            values = [v for v in (a(ctx) for a in args) if v is not None]
            return pick(values) if values else None

        return maxmin

    # assignments -------------------------------------------------------------------
    def c_Assign(self, node: ast.Assign) -> Fn:
        """Every assignment form of docs/reference/cql.md#variables."""
        target = node.target
        if isinstance(target, ast.Subscript):
            return self._assign_subscript(node, target)
        assert isinstance(target, ast.Var)
        name = target.name
        kind = self.type_of(target)
        value = self.value(node.value)
        span = node.span
        persistent = name in self.persistent
        slot = -1 if persistent else self.slots.slot(name)

        def store(ctx: Ctx, v: Any) -> None:
            if persistent:
                ctx.persistent.values[name] = v
            else:
                ctx.slots[slot] = v

        def load(ctx: Ctx) -> Any:
            return ctx.persistent.values[name] if persistent else ctx.slots[slot]

        op = node.op
        if node.piece:
            self.uses_piece_ids = True

            def piece_assign(ctx: Ctx) -> bool | None:
                mask = value(ctx)
                if not mask or chess.popcount(mask) != 1:
                    return None
                pid = ctx.game.piece_ids(ctx.pos).get(chess.lsb(mask))
                if pid is None:
                    return None
                store(ctx, pid)
                return True

            return piece_assign
        if op == "=?":

            def assign_nonempty(ctx: Ctx) -> bool | None:
                v = value(ctx)
                if not v:
                    return None
                store(ctx, v)
                return True

            return assign_nonempty
        if op == "=":
            line, col = target.span.line, target.span.column

            def assign(ctx: Ctx) -> bool | None:
                v = value(ctx)
                if v is None:
                    return None
                if kind == NUMERIC:
                    check_range(v, line, col)
                store(ctx, v)
                return True

            return assign
        fn = UPDATES[op]
        numeric = kind == NUMERIC

        def update(ctx: Ctx) -> bool | None:
            current = load(ctx)
            if current is None:
                return None
            v = value(ctx)
            if v is None:
                return None
            result = fn(current, v)
            if result is None:
                return None
            if numeric:
                check_range(result, span.line, span.column)
            store(ctx, result)
            return True

        return update

    def c_Unbind(self, node: ast.Unbind) -> Fn:
        """`unbind`: the variable has no value from here on; a dictionary entry is removed."""
        target = node.target
        if isinstance(target, ast.Subscript):
            assert isinstance(target.target, ast.Var) and target.start is not None
            table, key = self.value(target.target), self.value(target.start)

            def remove(ctx: Ctx) -> bool:
                entries, k = table(ctx), key(ctx)
                if entries is not None and k is not None:
                    entries.pop(k, None)
                return True

            return remove
        assert isinstance(target, ast.Var)
        slot = self.slots.slot(target.name)

        def unbind(ctx: Ctx) -> bool:
            ctx.slots[slot] = None
            return True

        return unbind

    def c_DictDecl(self, node: ast.DictDecl) -> Fn:
        """`dictionary D`: an empty dictionary for this game (persistent ones live in the
        run's store); with `D[K] = V` it also makes that assignment."""
        init = self.value(node.init) if node.init is not None else None
        if node.name in self.persistent:
            return init if init is not None else (lambda ctx: True)
        slot = self.slots.slot(node.name)

        def declare(ctx: Ctx) -> bool | None:
            if ctx.slots[slot] is None:
                ctx.slots[slot] = {}
            return True if init is None else init(ctx)

        return declare

    def _assign_entry(self, node: ast.Assign, target: ast.Subscript, name: str) -> Fn:
        """`D[K] OP V`: `=` sets the entry; the other operators need it to exist."""
        persistent = name in self.persistent
        slot = -1 if persistent else self.slots.slot(name)
        assert target.start is not None
        key, value, op, span = self.value(target.start), self.value(node.value), node.op, node.span
        update = UPDATES[op]
        numeric = self.type_of(node.value) == NUMERIC

        def assign(ctx: Ctx) -> bool | None:
            table: Any = ctx.persistent.values[name] if persistent else ctx.slots[slot]
            if table is None:
                table = ctx.slots[slot] = {}
            k, v = key(ctx), value(ctx)
            if k is None or v is None:
                return None
            old = table.get(k)
            if op != "=" and old is None:
                return None
            new = update(old, v)
            if new is None:
                return None
            table[k] = check_range(new, span.line, span.column) if numeric else new
            return True

        return assign

    def _assign_subscript(self, node: ast.Assign, target: ast.Subscript) -> Fn:
        assert isinstance(target.target, ast.Var)
        name = target.target.name
        if self.type_of(target.target) == DICT:
            return self._assign_entry(node, target, name)
        persistent = name in self.persistent
        slot = -1 if persistent else self.slots.slot(name)
        start = self.value(target.start) if target.start is not None else None
        stop = self.value(target.stop) if target.stop is not None else None
        value = self.value(node.value)
        is_slice = target.is_slice

        def assign(ctx: Ctx) -> bool | None:
            text: Any = ctx.persistent.values[name] if persistent else ctx.slots[slot]
            v = value(ctx)
            if text is None or v is None:
                return None
            i = start(ctx) if start is not None else None
            j = stop(ctx) if stop is not None else None
            if is_slice:
                chars = list(text)
                chars[i:j] = list(v)
                new = "".join(chars)
            else:
                if i is None or not -len(text) <= i < len(text):
                    return None
                k = i % len(text)
                new = text[:k] + v + text[k + 1 :]
            if persistent:
                ctx.persistent.values[name] = new
            else:
                ctx.slots[slot] = new
            return True

        return assign
