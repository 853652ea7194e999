"""Compiling the filters that visit other positions or loop: find, echo, line, square
and piece (docs/reference/cql.md#filters)."""

from __future__ import annotations

from typing import Any

import chess

from esochess.cqlvars import ast, fusion, rays
from esochess.cqlvars.closures import Fn, Test
from esochess.cqlvars.compile_base import CompilerBase
from esochess.cqlvars.model import Ctx
from esochess.cqlvars.qtypes import NUMERIC

#: The automatic comments of `find` (at each position found) and `echo` (at each target
#: where its filter matched); `quiet` turns them off.
FOUND = "found"
ECHO_TARGET = "echo target"


class SearchFilters(CompilerBase):
    """Compiling the filters that visit other positions or loop: find, echo, line, square"""

    # navigation --------------------------------------------------------------------
    def c_Find(self, node: ast.Find) -> Fn:
        """`find`: first matching position forward (or backward), or a count."""
        body = self.test(node.body)
        backward, all_, low, high = node.backward, node.all, node.low, node.high
        span, quiet = node.span, node.quiet

        def candidates(ctx: Ctx) -> range | list[int]:
            if backward:
                out = []
                p = ctx.pos
                while p >= 0:
                    out.append(p)
                    p = ctx.game.parents[p]
                return out
            return range(ctx.pos, ctx.game.subtree_end[ctx.pos])

        def find(ctx: Ctx) -> int | None:
            saved = ctx.pos
            n = 0
            places = candidates(ctx)
            ctx.spend(len(places), span)
            try:
                for q in places:
                    ctx.pos = q
                    if body(ctx):
                        if not quiet:
                            ctx.comments.append((q, FOUND))
                        if not all_ and low is None:
                            return q
                        n += 1
            finally:
                ctx.pos = saved
            if all_:
                return n if n >= 1 else None
            if low is not None:
                return n if low <= n <= (high if high is not None else n) else None
            return None

        return find

    def c_Echo(self, node: ast.Echo) -> Fn:
        """`echo (s t)`: the body at every other position t, s bound to here."""
        src, tgt = self.slots.slot(node.source), self.slots.slot(node.target)
        numeric = self.type_of(node.body) == NUMERIC and self.type_of(node) == NUMERIC
        body = self.value(node.body) if numeric else self.test(node.body)
        in_all, quiet = node.in_all, node.quiet
        span = node.span

        def echo(ctx: Ctx) -> Any:
            saved = ctx.pos
            best: int | None = None
            hit = False
            ctx.spend(len(ctx.game), span)
            try:
                for t in range(len(ctx.game)):
                    if t == saved and not in_all:
                        continue
                    ctx.slots[src], ctx.slots[tgt] = saved, t
                    ctx.pos = t
                    v = body(ctx)
                    if numeric:
                        if v is not None:
                            best = v if best is None else max(best, v)
                    elif v:
                        hit = True
                    if not quiet and (v if not numeric else v is not None):
                        ctx.comments.append((t, ECHO_TARGET))
            finally:
                ctx.pos = saved
                ctx.slots[src] = ctx.slots[tgt] = None
            if numeric:
                return best
            return True if hit else None

        return echo

    def c_Line(self, node: ast.Line) -> Fn:
        """`line`: constituents matched along paths of consecutive positions (memoised)."""
        compiled = [self._line_item(i) for i in node.items]
        backward, params = node.backward, node.params
        plain = not params and node.low is None
        if plain and all(item[2] is None and item[3] == item[4] == 1 for item in compiled):
            return self._plain_line([item[1] for item in compiled], backward)
        first_only, need_off = "primary" in params, "secondary" in params
        double, nestban = "singlecolor" in params, "nestban" in params
        lastposition, firstmatch = "lastposition" in params, "firstmatch" in params
        low, high = node.low, node.high
        ban_key = id(node)
        # A state: (next position or None, positions consumed, last consumed, left the
        # main continuation).
        State = tuple[int | None, int, int, bool]

        def line(ctx: Ctx) -> int | None:
            saved = ctx.pos
            if nestban and saved in ctx.line_bans.get(ban_key, ()):
                return None
            memo: dict[tuple[int, int], bool] = {}
            game = ctx.game

            def step(p: int) -> list[tuple[int | None, bool]]:
                if backward:
                    parent = game.parents[p]
                    if parent < 0:
                        return [(None, False)]
                    main = game.children[parent][0] == p
                    return [(None, False)] if first_only and not main else [(parent, not main)]
                kids = game.children[p][:1] if first_only else game.children[p]
                return [(q, i > 0) for i, q in enumerate(kids)] or [(None, False)]

            def nexts(p: int) -> list[tuple[int | None, bool]]:
                if not double:
                    return step(p)
                # singlecolor: the next position with the same side to move.
                out: list[tuple[int | None, bool]] = []
                for q, off in step(p):
                    out.extend([(None, off)] if q is None else
                               [(r, off or off2) for r, off2 in step(q)])
                return out

            def single(key: int, t: Test, p: int) -> bool:
                k = (key, p)
                if k not in memo:
                    ctx.pos = p
                    memo[k] = t(ctx)
                return memo[k]

            def seq_ends(items: list[Any], states: set[State]) -> set[State]:
                for item in items:
                    states = item_ends(item, states)
                    if not states:
                        break
                return states

            def once(item: Any, states: set[State]) -> set[State]:
                out: set[State] = set()
                key, t, group = item[0], item[1], item[2]
                for p, n, last, off in states:
                    if p is None:
                        continue
                    if group is not None:
                        for q, m, end, off2 in seq_ends(group, {(p, 0, last, off)}):
                            if m > 0:
                                out.add((q, n + m, end, off2))
                    elif single(key, t, p):
                        for q, o in nexts(p):
                            out.add((q, n + 1, p, off or o))
                return out

            def item_ends(item: Any, states: set[State]) -> set[State]:
                low_rep, high_rep = item[3], item[4]
                results: set[State] = set()
                frontier = states
                k = 0
                # Unbounded: a state met again with as many repetitions (counted up to
                # the lower bound) adds nothing, which ends zero-width repetitions. (A
                # state met at another count may still complete a later constituent.)
                seen: set[tuple[int, State]] = set()
                while frontier:
                    if k >= low_rep:
                        results |= frontier
                    if high_rep is not None and k >= high_rep:
                        break
                    frontier = once(item, frontier)
                    k += 1
                    if high_rep is None:
                        tag = min(k, low_rep)
                        frontier = {s for s in frontier if (tag, s) not in seen}
                        seen.update((tag, s) for s in frontier)
                return results

            try:
                ends = seq_ends(compiled, {(saved, 0, -1, False)})
            finally:
                ctx.pos = saved
            matches = [
                (n, last) for _, n, last, off in ends
                if n >= 1 and (off or not need_off)
                and (low is None or n >= low) and (high is None or n <= high)
            ]  # fmt: skip
            if not matches:
                return None
            # The longest match (firstmatch: the shortest), earliest last position first.
            n, last = min(matches, key=lambda m: (m[0] if firstmatch else -m[0], m[1]))
            if nestban:
                bans = ctx.line_bans.setdefault(ban_key, set())
                p = last
                while p != saved and p >= 0:  # the path between the ends is unique
                    bans.add(p)
                    p = game.parents[p] if not backward else _child_towards(game, p, saved)
            return last if lastposition else n

        return line

    @staticmethod
    def _plain_line(tests: list[Test], backward: bool) -> Fn:
        """`line` whose constituents are all single filters without repetition.

        Every match then consumes exactly len(tests) positions, and in a tree each
        (constituent, position) pair lies on one path only, so a depth-first walk (children
        in PGN order, as docs/reference/cql.md#line explores) evaluates each at most once with no
        memo.
        """
        last = len(tests) - 1

        def line(ctx: Ctx) -> int | None:
            saved = ctx.pos
            game = ctx.game
            found = False
            stack = [(saved, 0)]
            try:
                while stack:
                    p, i = stack.pop()
                    ctx.pos = p
                    if not tests[i](ctx):
                        continue
                    if i == last:
                        found = True
                    elif backward:
                        if game.parents[p] >= 0:
                            stack.append((game.parents[p], i + 1))
                    else:
                        stack.extend((q, i + 1) for q in reversed(game.children[p]))
            finally:
                ctx.pos = saved
            return last + 1 if found else None

        return line

    def _line_item(self, item: ast.LineItem) -> tuple[Any, ...]:
        if item.group is not None:
            return (id(item), None, [self._line_item(i) for i in item.group], item.low, item.high)
        assert item.filter is not None
        return (id(item), self.test(item.filter), None, item.low, item.high)

    def c_Iterate(self, node: ast.Iterate) -> Fn:
        """`square`/`piece` iteration over a set, binding a scoped variable."""
        fused = fusion.plan(node)
        if fused is not None:
            return self._fused(fused, node.span)
        domain = self.value(node.domain)
        slot = self.slots.slot(node.var)
        body = self.test(node.body)
        is_piece, all_ = node.kind == "piece", node.all
        span = node.span
        if is_piece:
            self.uses_piece_ids = True

        def iterate(ctx: Ctx) -> Any:
            mask = domain(ctx)
            if mask is None:
                return None
            result = 0
            try:
                if is_piece:
                    ids = ctx.game.piece_ids(ctx.pos)
                    items = [(sq, ids[sq]) for sq in chess.scan_forward(mask) if sq in ids]
                else:
                    items = [(sq, chess.BB_SQUARES[sq]) for sq in chess.scan_forward(mask)]
                ctx.spend(len(items), span)
                for sq, binding in items:
                    ctx.slots[slot] = binding
                    if body(ctx):
                        result |= chess.BB_SQUARES[sq]
                    elif all_:
                        return None
            finally:
                ctx.slots[slot] = None
            return True if all_ else result

        return iterate

    def _fused(self, plan: fusion.RayPlan, span: ast.Span) -> Fn:
        """Loops over ray arguments as one `rays.ray_members` call (fusion.py)."""
        loops = {loop.index: loop for loop in plan.loops}
        args: list[tuple[Fn, bool]] = []
        for i, arg in enumerate(plan.ray.args):
            loop = loops.get(i)
            if loop is None:
                args.append((self.value(arg), False))
            else:
                args.append((self.value(loop.domain), loop.piece))
        outer = plan.loops[-1].index
        directions, result = plan.ray.directions, plan.result

        def fused(ctx: Ctx) -> int | None:
            if args[outer][0](ctx) is None:
                return None  # the outermost loop has no domain
            occupied = ctx.board().occupied
            masks: list[int] = []
            for f, piece in args:
                mask = f(ctx)
                if mask is None:
                    return 0  # an inner loop without a domain matches nowhere
                masks.append(mask & occupied if piece else mask)
            ctx.spend(chess.popcount(masks[outer]), span)
            return rays.ray_members(occupied, directions, masks, result)

        return fused


def _child_towards(game: Any, p: int, descendant: int) -> int:
    """The child of p on the way down to `descendant` (pre-order ids: the child whose
    subtree holds it)."""
    for child in game.children[p]:
        if child <= descendant < game.subtree_end[child]:
            return int(child)
    return descendant
