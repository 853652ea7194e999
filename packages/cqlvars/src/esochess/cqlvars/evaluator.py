"""The compiled evaluator (docs/reference/cql.md#filters): checked AST -> Python closures.

`Compiler` is the whole compiler: the shared core (compile_base.py), the table filters
(filters.py), the operators and structure filters below, and the parts in
compile_board.py, compile_search.py and compile_effects.py.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import chess

from esochess.cqlvars import ast, regexes
from esochess.cqlvars.closures import Fn, both, lift
from esochess.cqlvars.compile_base import LETTER_TYPES, ctrunc, piece_mask
from esochess.cqlvars.compile_board import BoardFilters
from esochess.cqlvars.compile_effects import EffectFilters
from esochess.cqlvars.compile_search import SearchFilters
from esochess.cqlvars.filters import FILTERS, Site, int_of
from esochess.cqlvars.model import Ctx, GameModel
from esochess.cqlvars.paths import PathFilters
from esochess.cqlvars.qtypes import DICT, LOGICAL, PIECE, POSITION, SET, STRING
from esochess.cqlvars.variables import CqlRuntimeError, check_range


def _elo(headers: Mapping[str, str], tag: str) -> int | None:
    text = headers.get(tag)
    if text is None:
        return None
    return int_of(text.strip())


class Compiler(BoardFilters, SearchFilters, EffectFilters, PathFilters):
    """Compiles a checked (and transform-expanded) body into closures."""

    def c_Designator(self, node: ast.Designator) -> Fn:
        """A designator: a constant mask, or piece bitboards intersected with squares."""
        squares = chess.BB_ALL if node.squares is None else node.squares
        pieces = node.pieces
        if pieces is None:
            return lambda ctx: squares
        if pieces == "":
            return lambda ctx: 0
        if len(pieces) == 1 and pieces.lower() in LETTER_TYPES:
            # The common case, one piece type of one colour: a single bitboard lookup.
            ptype = LETTER_TYPES[pieces.lower()]
            color = pieces.isupper()
            return lambda ctx: ctx.game.board(ctx.pos).pieces_mask(ptype, color) & squares
        if squares == chess.BB_ALL:
            return lambda ctx: piece_mask(ctx.board(), pieces)
        return lambda ctx: piece_mask(ctx.board(), pieces) & squares

    def c_IntLit(self, node: ast.IntLit) -> Fn:
        """A numeric literal."""
        value = node.value
        return lambda ctx: value

    def c_StrLit(self, node: ast.StrLit) -> Fn:
        """A string literal."""
        value = node.value
        return lambda ctx: value

    def c_CaptureRef(self, node: ast.CaptureRef) -> Fn:
        """A capture reference: a group of the last successful `~~` in this game."""
        index = node.group - 1

        def capture(ctx: Ctx) -> str | None:
            return ctx.captures[index] if index < len(ctx.captures) else None

        return capture

    def c_Var(self, node: ast.Var) -> Fn:
        """A variable read; a piece variable yields the square of its piece, or 0."""
        name = node.name
        if name in self.persistent:
            return lambda ctx: ctx.persistent.values[name]
        slot = self.slots.slot(name)
        if self.type_of(node) == PIECE:
            self.uses_piece_ids = True

            def piece_square(ctx: Ctx) -> int | None:
                pid = ctx.slots[slot]
                if pid is None:
                    return None
                return ctx.game.piece_squares(ctx.pos).get(pid, 0)

            return piece_square
        return lambda ctx: ctx.slots[slot]

    def c_Filter(self, node: ast.Filter) -> Fn:
        """A filter of the table (filters.py): its entry compiles it."""
        spec = FILTERS[node.name]
        if spec.piece_ids:
            self.uses_piece_ids = True
        args = tuple(self.value(a) for a in node.args)
        types = tuple(self.type_of(a) for a in node.args)
        return spec.compile(Site(args, types, node.span))

    def c_GameInfo(self, node: ast.GameInfo) -> Fn:
        """Tag filters (player, event, site, date, eco, elo, result, tag)."""
        fld, color, literal = node.field, node.color, node.literal
        if fld == "elo":
            if color is not None:
                tag = "WhiteElo" if color == "white" else "BlackElo"
                return lambda ctx: _elo(ctx.game.headers, tag)

            def elo(ctx: Ctx) -> int | None:
                values = [
                    v for v in (_elo(ctx.game.headers, t) for t in ("WhiteElo", "BlackElo"))
                    if v is not None
                ]
                return max(values) if values else None

            return elo
        if fld == "result":
            return lambda ctx: True if ctx.game.headers.get("Result") == literal else None
        if fld == "tag":
            assert literal is not None  # the grammar requires the tag's name
            name = literal
            return lambda ctx: ctx.game.headers.get(name)
        if fld == "player" and color is None:
            assert literal is not None
            lit = literal
            return lambda ctx: True if any(
                lit in ctx.game.headers.get(t, "\x00") for t in ("White", "Black")
                if t in ctx.game.headers
            ) else None
        tag = {"player": "White" if color == "white" else "Black", "event": "Event",
               "site": "Site", "date": "Date", "eco": "ECO"}[fld]  # fmt: skip
        if literal is None:
            return lambda ctx: ctx.game.headers.get(tag)
        lit2 = literal
        return lambda ctx: True if lit2 in ctx.game.headers.get(tag, "") and (
            tag in ctx.game.headers
        ) else None

    def c_TransformName(self, node: ast.TransformName) -> Fn:
        """`currenttransform` inside a transform: the names of its variant."""
        text = "<" + " ".join(node.names) + ">"
        return lambda ctx: text

    def c_OriginalComment(self, node: ast.OriginalComment) -> Fn:
        """The PGN comment of the current position, or a substring test on it."""
        literal = node.literal

        def original(ctx: Ctx) -> Any:
            text = ctx.game.comments[ctx.pos].strip()
            if not text:
                return None
            if literal is None:
                return text
            return True if literal in text else None

        return original

    def c_IsBound(self, node: ast.IsBound) -> Fn:
        """`isbound` / `isunbound`: persistent variables are always bound."""
        negate = node.negate
        if node.name in self.persistent:
            return lambda ctx: None if negate else True
        slot = self.slots.slot(node.name)
        return lambda ctx: True if (ctx.slots[slot] is not None) != negate else None

    # operators ---------------------------------------------------------------------
    def c_Unary(self, node: ast.Unary) -> Fn:
        """Prefix operators: not, -, ~, #."""
        op = node.op
        if op == "not":
            t = self.test(node.operand)

            keep = self.always_comment

            def negate(ctx: Ctx) -> bool | None:
                mark, smark = len(ctx.comments), len(ctx.sorts)
                ok = t(ctx)
                if not keep:
                    del ctx.comments[mark:]
                del ctx.sorts[smark:]
                return None if ok else True

            return negate
        f = self.value(node.operand)
        span = node.span
        if op == "-":
            return lift(f, lambda v: check_range(-v, span.line, span.column))
        if op == "~":
            return lift(f, lambda v: ~v & chess.BB_ALL)
        # '#': the size of a set, the length of a string, the entries of a dictionary.
        if self.type_of(node.operand) in (STRING, DICT):
            return lift(f, len)
        return lift(f, chess.popcount)

    def c_Binary(self, node: ast.Binary) -> Fn:
        """Binary operators: logic, set algebra, arithmetic, comparisons, attacks, ~~."""
        op = node.op
        if op in ("and", "or"):
            lt, rt = self.test(node.left), self.test(node.right)
            if op == "and":
                return lambda ctx: True if lt(ctx) and rt(ctx) else None
            return lambda ctx: True if lt(ctx) or rt(ctx) else None
        left, right = self.value(node.left), self.value(node.right)
        ltype, rtype = self.type_of(node.left), self.type_of(node.right)
        lset, rset = ltype in (SET, PIECE), rtype in (SET, PIECE)
        span = node.span
        if op == "in":
            if lset:
                return both(left, right, lambda a, b: True if a & ~b == 0 else None)
            return both(left, right, lambda a, b: True if a in b else None)
        if op in ("<", "<=", ">", ">=", "==", "!="):
            return self.comparison(op, left, right, lset, rset, ltype, rtype)
        if op == "+" and ltype == STRING:
            return both(left, right, lambda a, b: a + b)
        if op in ("+", "-", "*"):
            fn: Callable[[int, int], int] = {
                "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b
            }[op]
            return both(left, right, lambda a, b: check_range(fn(a, b), span.line, span.column))
        if op == "/":
            return both(left, right, lambda a, b: None if b == 0 else ctrunc(a, b))
        if op == "%":
            return both(left, right, lambda a, b: None if b == 0 else a - b * ctrunc(a, b))
        if op == "|":
            return both(left, right, lambda a, b: a | b)
        if op == "&" and ltype == POSITION:

            def same(ctx: Ctx) -> int | None:
                a, b = left(ctx), right(ctx)
                if a is None or b is None:
                    return None
                return _same_squares(ctx.game.board(a), ctx.game.board(b))

            return same
        if op == "&":
            return both(left, right, lambda a, b: a & b)
        if op == "attacks":

            def attacks(ctx: Ctx) -> int | None:
                xs, ys = left(ctx), right(ctx)
                if xs is None or ys is None:
                    return None
                board = ctx.board()
                out = 0
                for sq in chess.scan_forward(xs & board.occupied):
                    if board.attacks_mask(sq) & ys:
                        out |= chess.BB_SQUARES[sq]
                return out

            return attacks
        if op == "attackedby":

            def attackedby(ctx: Ctx) -> int | None:
                xs, ys = left(ctx), right(ctx)
                if xs is None or ys is None:
                    return None
                board = ctx.board()
                hit = 0
                for sq in chess.scan_forward(ys & board.occupied):
                    hit |= board.attacks_mask(sq)
                return int(xs & hit)

            return attackedby
        if op == "~~":
            return self.regex(node, left, right)
        raise self.error(span, f"operator '{op}' is not supported")  # pragma: no cover

    def comparison(
        self, op: str, left: Fn, right: Fn, lset: bool, rset: bool, ltype: str, rtype: str
    ) -> Fn:
        """A comparison (docs/reference/cql.md#comparisons): numeric ones yield the left operand's
        value."""
        rel: Callable[[Any, Any], bool] = {
            "<": lambda a, b: a < b,
            "<=": lambda a, b: a <= b,
            ">": lambda a, b: a > b,
            ">=": lambda a, b: a >= b,
            "==": lambda a, b: a == b,
            "!=": lambda a, b: a != b,
        }[op]
        if lset and rset:
            # Both operands must match (docs/reference/cql.md#comparisons), and an empty set does
            # not match.
            return both(left, right, lambda a, b: True if a and b and rel(a, b) else None)
        if ltype in (STRING, POSITION):
            return both(left, right, lambda a, b: True if rel(a, b) else None)
        lconv = chess.popcount if lset else None
        rconv = chess.popcount if rset else None

        def compare(a: Any, b: Any) -> int | None:
            if lconv is not None:
                a = lconv(a)
            if rconv is not None:
                b = rconv(b)
            return a if rel(a, b) else None

        return both(left, right, compare)

    def regex(self, node: ast.Binary, left: Fn, right: Fn) -> Fn:
        """`S ~~ re`: an RE2 search (regexes.py); its groups become the capture references.

        A literal pattern RE2 cannot compile is a compile error; a computed one (a tag
        value, say) that it cannot compile matches nothing.
        """
        if isinstance(node.right, ast.StrLit):
            try:
                regexes.compile_regex(node.right.value)
            except regexes.RegexError as exc:
                raise self.error(node.right.span, f"invalid regular expression: {exc}") from None

        def search(ctx: Ctx) -> str | None:
            text, pattern = left(ctx), right(ctx)
            if text is None or pattern is None:
                return None
            try:
                found = regexes.search(pattern, text)
            except regexes.RegexError:
                return None
            if found is None:
                return None
            ctx.captures = found[1]
            return found[0]

        return search

    def c_Subscript(self, node: ast.Subscript) -> Fn:
        """`S[i]` and `S[i:j]` with Python semantics; an index out of range fails.
        `D[key]` on a dictionary: the value, or none for a key never assigned."""
        target = self.value(node.target)
        if self.type_of(node.target) == DICT:
            assert node.start is not None
            return both(target, self.value(node.start), lambda d, k: d.get(k))
        start = self.value(node.start) if node.start is not None else None
        stop = self.value(node.stop) if node.stop is not None else None
        is_slice = node.is_slice

        def subscript(ctx: Ctx) -> str | None:
            text = target(ctx)
            if text is None:
                return None
            i = start(ctx) if start is not None else None
            j = stop(ctx) if stop is not None else None
            if (start is not None and i is None) or (stop is not None and j is None):
                return None
            if is_slice:
                result: str = text[i:j]
                return result
            assert i is not None
            if -len(text) <= i < len(text):
                ch: str = text[i]
                return ch
            return None

        return subscript

    def c_AtPosition(self, node: ast.AtPosition) -> Fn:
        """`P : F`: F evaluated at position P."""
        position, body = self.value(node.position), self.value(node.body)

        def at(ctx: Ctx) -> Any:
            p = position(ctx)
            if p is None:
                return None
            saved = ctx.pos
            ctx.pos = p
            try:
                return body(ctx)
            finally:
                ctx.pos = saved

        return at

    def c_Compound(self, node: ast.Compound) -> Fn:
        """`{ F1 ... Fn }`: all must match; the value is Fn's."""
        if not node.elements:
            return lambda ctx: True
        firsts = [self.test(e) for e in node.elements[:-1]]
        last = self.value(node.elements[-1])
        if self.type_of(node.elements[-1]) in (SET, PIECE) and self.type_of(node) == LOGICAL:
            last_test = self.test(node.elements[-1])
            last = lambda ctx: True if last_test(ctx) else None  # noqa: E731

        def compound(ctx: Ctx) -> Any:
            for t in firsts:
                if not t(ctx):
                    return None
            return last(ctx)

        return compound

    def c_If(self, node: ast.If) -> Fn:
        """`if C then A else B`."""
        cond = self.test(node.cond)
        own = self.type_of(node)
        then = self._branch(node.then, own)
        other = self._branch(node.else_, own) if node.else_ is not None else None

        def if_(ctx: Ctx) -> Any:
            if cond(ctx):
                return then(ctx)
            return other(ctx) if other is not None else True

        return if_

    def _branch(self, node: ast.Node, own: str) -> Fn:
        if own == LOGICAL:
            t = self.test(node)
            return lambda ctx: True if t(ctx) else None
        return self.value(node)

    def c_Variants(self, node: ast.Variants) -> Fn:
        """An expanded transform: first matching variant, or the count of them."""
        tests = [self.test(v) for v in node.variants]
        if node.count:
            return lambda ctx: sum(1 for t in tests if t(ctx))

        def first(ctx: Ctx) -> bool | None:
            for t in tests:
                if t(ctx):
                    return True
            return None

        return first


def _same_squares(a: chess.Board, b: chess.Board) -> int:
    same = ~a.occupied & ~b.occupied & chess.BB_ALL
    for color in chess.COLORS:
        for ptype in chess.PIECE_TYPES:
            same |= a.pieces_mask(ptype, color) & b.pieces_mask(ptype, color)
    return same


__all__ = ["CqlRuntimeError", "Compiler", "Ctx", "GameModel", "piece_mask"]
