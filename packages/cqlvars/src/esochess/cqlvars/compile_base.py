"""The shared core of the compiler (docs/reference/cql.md#filters): checked AST -> closures.

Every node compiles to a closure `f(ctx) -> value`, where None means "does not match"
(no value). Logical filters return True, numeric ones an int, sets a 64-bit mask (a set
matches when non-empty; 0 is still a value), positions a position id, strings a str.
The closures read the game through `model.Ctx` (model.py). `evaluator.Compiler` puts
the parts together: board filters (compile_board.py), searches over positions
(compile_search.py), output and assignments (compile_effects.py).
"""

from __future__ import annotations

from typing import Any

import chess

from esochess.cqlvars import ast
from esochess.cqlvars.checker import CheckedQuery
from esochess.cqlvars.closures import Fn, Test
from esochess.cqlvars.model import Ctx
from esochess.cqlvars.parser import query_error
from esochess.cqlvars.qtypes import LOGICAL, PIECE, SET
from esochess.cqlvars.variables import Slots
from esochess.fen import SourceError

LETTER_TYPES = {"k": chess.KING, "q": chess.QUEEN, "r": chess.ROOK, "b": chess.BISHOP,
                "n": chess.KNIGHT, "p": chess.PAWN}  # fmt: skip


def ctrunc(a: int, b: int) -> int:
    """Integer division truncating toward zero (as in C)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def piece_mask(board: chess.Board, pieces: str) -> int:
    """The union of the squares holding any of the designator's piece characters."""
    mask = 0
    for ch in pieces:
        if ch == "A":
            mask |= board.occupied_co[chess.WHITE]
        elif ch == "a":
            mask |= board.occupied_co[chess.BLACK]
        elif ch == "_":
            mask |= ~board.occupied & chess.BB_ALL
        else:
            color = chess.WHITE if ch.isupper() else chess.BLACK
            mask |= board.pieces_mask(LETTER_TYPES[ch.lower()], color)
    return mask


class CompilerBase:
    """The state and entry points every part of the compiler shares; `value` dispatches
    to the `c_<Node>` method of the node's class (defined by the subclasses)."""

    def __init__(self, checked: CheckedQuery, path: str, source: str,
                 always_comment: bool = False):
        self.checked = checked
        #: `--alwayscomment`: comments survive the failure of the filter that made them.
        self.always_comment = always_comment
        self.path = path
        self.source = source
        self.slots = Slots()
        self.persistent = checked.persistent
        # Keyed by source position: rewrites may copy the node, never its span.
        self.sort_index = {(s.span, s.doc): i for i, s in enumerate(checked.sorts)}
        self.uses_piece_ids = False

    def type_of(self, node: ast.Node) -> str:
        """The checker's static type of a node (logical when unknown)."""
        return self.checked.types.get(id(node), LOGICAL)

    def error(self, span: ast.Span, message: str) -> SourceError:
        """A query error at span (compile-time problems found while compiling)."""
        return query_error(self.path, self.source, span, message)

    # entry points ------------------------------------------------------------------
    def body(self, elements: tuple[ast.Node, ...]) -> Test:
        """The query body: every element must match, left to right
        (docs/reference/cql.md#query-structure)."""
        tests = [self.test(e) for e in elements]
        if not tests:
            return lambda ctx: True
        if len(tests) == 1:
            return tests[0]
        if len(tests) == 2:
            first, second = tests
            return lambda ctx: first(ctx) and second(ctx)

        def run(ctx: Ctx) -> bool:
            for t in tests:
                if not t(ctx):
                    return False
            return True

        return run

    def test(self, node: ast.Node) -> Test:
        """Compile a node for matching only."""
        f = self.value(node)
        if self.type_of(node) in (SET, PIECE):
            return lambda ctx: bool(f(ctx))
        return lambda ctx: f(ctx) is not None

    def value(self, node: ast.Node) -> Fn:
        """Compile a node into a value closure (None = no match)."""
        f: Fn = getattr(self, "c_" + type(node).__name__)(node)
        if has_effects(node):
            # Smart comments (docs/reference/cql.md#output): a failing filter drops what it
            # generated.
            is_set = self.type_of(node) in (SET, PIECE)
            inner = f
            keep = self.always_comment

            def checkpoint(ctx: Ctx) -> Any:
                mark, smark = len(ctx.comments), len(ctx.sorts)
                v = inner(ctx)
                if v is None or (is_set and not v):
                    if not keep:
                        del ctx.comments[mark:]
                    del ctx.sorts[smark:]
                return v

            return checkpoint
        return f

    def set_value(self, node: ast.Node) -> Fn:
        """A set operand (piece variables become their square)."""
        return self.value(node)

    # leaves ------------------------------------------------------------------------


def has_effects(node: ast.Node) -> bool:
    """True if a subtree can generate comments or sort values (needs a checkpoint)."""
    return any(
        isinstance(n, ast.Emit) and n.kind == "comment" or isinstance(n, ast.Sort)
        or isinstance(n, (ast.Find, ast.Echo)) and not n.quiet
        or isinstance(n, ast.Path) and (n.title is not None or not n.params.isdisjoint(
            {"verbose", "piecepath", "keepallbest"}) or "quiet" not in n.params)
        for n in ast.walk([node])
    )
