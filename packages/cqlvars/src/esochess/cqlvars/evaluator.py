"""The compiled evaluator (docs/reference/cql.md#filters): checked AST -> Python closures.

Every node compiles to a closure `f(ctx) -> value`, where None means "does not match"
(no value). Logical filters return True, numeric ones an int, sets a 64-bit mask (a set
matches when non-empty; 0 is still a value), positions a position id, strings a str.
The closures read the game through `model.Ctx` (model.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

import chess

from esochess.cqlvars import ast, pawns, regexes
from esochess.cqlvars.checker import LOGICAL, NUMERIC, PIECE, POSITION, SET, STRING, CheckedQuery
from esochess.cqlvars.model import Ctx, GameModel
from esochess.cqlvars.parser import query_error
from esochess.cqlvars.variables import (
    MAX_VALUE,
    CqlRuntimeError,
    Slots,
    check_range,
    format_set,
)
from esochess.fen import SourceError

Fn = Callable[["Ctx"], Any]
Test = Callable[["Ctx"], bool]

PIECE_VALUES = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}
LETTER_TYPES = {"k": chess.KING, "q": chess.QUEEN, "r": chess.ROOK, "b": chess.BISHOP,
                "n": chess.KNIGHT, "p": chess.PAWN}  # fmt: skip
DIR_STEPS = ast.DIRECTION_STEPS
ORTHOGONAL = ("up", "down", "left", "right")
DIAGONAL = ("northeast", "northwest", "southeast", "southwest")
INT_RE = re.compile(r"[+-]?[0-9]+")


def _ctrunc(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _int_of(text: str) -> int | None:
    if not INT_RE.fullmatch(text):
        return None
    value = int(text)
    return value if -MAX_VALUE <= value <= MAX_VALUE else None


def _elo(headers: Mapping[str, str], tag: str) -> int | None:
    text = headers.get(tag)
    if text is None:
        return None
    return _int_of(text.strip())


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


class Compiler:
    """Compiles a checked (and transform-expanded) body into closures."""

    def __init__(self, checked: CheckedQuery, path: str, source: str):
        self.checked = checked
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
        if _has_effects(node):
            # Smart comments (docs/reference/cql.md#output): a failing filter drops what it
            # generated.
            is_set = self.type_of(node) in (SET, PIECE)
            inner = f

            def checkpoint(ctx: Ctx) -> Any:
                mark, smark = len(ctx.comments), len(ctx.sorts)
                v = inner(ctx)
                if v is None or (is_set and not v):
                    del ctx.comments[mark:]
                    del ctx.sorts[smark:]
                return v

            return checkpoint
        return f

    def set_value(self, node: ast.Node) -> Fn:
        """A set operand (piece variables become their square)."""
        return self.value(node)

    # leaves ------------------------------------------------------------------------
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
                for sq, other in ctx.game.piece_ids(ctx.pos).items():
                    if other == pid:
                        return chess.BB_SQUARES[sq]
                return 0

            return piece_square
        return lambda ctx: ctx.slots[slot]

    def c_Simple(self, node: ast.Simple) -> Fn:
        """Parameterless keyword filters (check, mate, ply, currentposition, ...)."""
        name = node.name
        if name == "check":
            return lambda ctx: True if _cached(ctx, "check", ctx.board().is_check) else None
        if name == "mate":
            return lambda ctx: True if _is_mate(ctx) else None
        if name == "stalemate":
            return lambda ctx: True if _is_stalemate(ctx) else None
        if name == "wtm":
            return lambda ctx: True if ctx.board().turn == chess.WHITE else None
        if name == "btm":
            return lambda ctx: True if ctx.board().turn == chess.BLACK else None
        if name == "initial":
            return lambda ctx: True if ctx.pos == 0 else None
        if name == "terminal":
            return lambda ctx: None if ctx.game.children[ctx.pos] else True
        if name == "true":
            return lambda ctx: True
        if name == "false":
            return lambda ctx: None
        if name == "ply":
            return lambda ctx: ctx.game.plies[ctx.pos]
        if name == "movenumber":
            return lambda ctx: ctx.board().fullmove_number or 1
        if name in ("currentposition", "positionid"):
            return lambda ctx: ctx.pos
        if name == "initialposition":
            return lambda ctx: 0
        if name == "parent":
            return lambda ctx: None if ctx.pos == 0 else ctx.game.parents[ctx.pos]
        if name in pawns.FILTERS:
            structure = pawns.FILTERS[name]
            return lambda ctx: _cached(ctx, name, lambda: structure(ctx.board()))
        raise self.error(node.span, f"filter '{name}' is not supported")  # pragma: no cover

    def c_GameInfo(self, node: ast.GameInfo) -> Fn:
        """Tag filters (player, event, elo, year, result, gamenumber, ...)."""
        fld, color, literal = node.field, node.color, node.literal
        if fld == "gamenumber":
            return lambda ctx: ctx.number
        if fld == "year":

            def year(ctx: Ctx) -> int | None:
                date = ctx.game.headers.get("Date", "")
                return int(date[:4]) if len(date) >= 4 and date[:4].isdigit() else None

            return year
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
        """Prefix operators: not, -, abs, ~, #, power, pieceid, int, lower/uppercase."""
        op = node.op
        if op == "not":
            t = self.test(node.operand)

            def negate(ctx: Ctx) -> bool | None:
                mark, smark = len(ctx.comments), len(ctx.sorts)
                ok = t(ctx)
                del ctx.comments[mark:]
                del ctx.sorts[smark:]
                return None if ok else True

            return negate
        f = self.value(node.operand)
        span = node.span
        if op == "-":
            return _lift(f, lambda v: check_range(-v, span.line, span.column))
        if op == "abs":
            return _lift(f, abs)
        if op == "~":
            return _lift(f, lambda v: ~v & chess.BB_ALL)
        if op in ("file", "rank"):
            coordinate = chess.square_file if op == "file" else chess.square_rank

            def number(v: int) -> int | None:
                # One square: its file or rank, 1-8; any other set has no value.
                return coordinate(chess.lsb(v)) + 1 if chess.popcount(v) == 1 else None

            return _lift(f, number)
        if op == "light":
            return _lift(f, lambda v: v & chess.BB_LIGHT_SQUARES)
        if op == "dark":
            return _lift(f, lambda v: v & chess.BB_DARK_SQUARES)
        if op == "#":
            if self.type_of(node.operand) == STRING:
                return _lift(f, len)
            return _lift(f, chess.popcount)
        if op == "power":

            def power(ctx: Ctx) -> int | None:
                mask = f(ctx)
                if mask is None:
                    return None
                board = ctx.board()
                return sum(
                    PIECE_VALUES.get(board.piece_type_at(sq) or 0, 0)
                    for sq in chess.scan_forward(mask & board.occupied)
                )

            return power
        if op == "pieceid":
            self.uses_piece_ids = True

            def pieceid(ctx: Ctx) -> int | None:
                mask = f(ctx)
                if not mask or chess.popcount(mask) != 1:
                    return None
                return ctx.game.piece_ids(ctx.pos).get(chess.lsb(mask))

            return pieceid
        if op == "int":
            return _lift(f, _int_of)
        if op == "lowercase":
            return _lift(f, str.lower)
        return _lift(f, str.upper)

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
                return _both(left, right, lambda a, b: True if a & ~b == 0 else None)
            return _both(left, right, lambda a, b: True if a in b else None)
        if op in ("<", "<=", ">", ">=", "==", "!="):
            return self.comparison(op, left, right, lset, rset, ltype, rtype)
        if op == "+" and ltype == STRING:
            return _both(left, right, lambda a, b: a + b)
        if op in ("+", "-", "*"):
            fn: Callable[[int, int], int] = {
                "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b
            }[op]
            return _both(left, right, lambda a, b: check_range(fn(a, b), span.line, span.column))
        if op == "/":
            return _both(left, right, lambda a, b: None if b == 0 else _ctrunc(a, b))
        if op == "%":
            return _both(left, right, lambda a, b: None if b == 0 else a - b * _ctrunc(a, b))
        if op == "|":
            return _both(left, right, lambda a, b: a | b)
        if op == "&" and ltype == POSITION:

            def same(ctx: Ctx) -> int | None:
                a, b = left(ctx), right(ctx)
                if a is None or b is None:
                    return None
                return _same_squares(ctx.game.board(a), ctx.game.board(b))

            return same
        if op == "&":
            return _both(left, right, lambda a, b: a & b)
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
            return _both(left, right, lambda a, b: True if a and b and rel(a, b) else None)
        if ltype in (STRING, POSITION):
            return _both(left, right, lambda a, b: True if rel(a, b) else None)
        lconv = chess.popcount if lset else None
        rconv = chess.popcount if rset else None

        def compare(ctx: Ctx) -> int | None:
            a = left(ctx)
            if a is None:
                return None
            b = right(ctx)
            if b is None:
                return None
            if lconv is not None:
                a = lconv(a)
            if rconv is not None:
                b = rconv(b)
            return a if rel(a, b) else None

        return compare

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
        """`S[i]` and `S[i:j]` with Python semantics; an index out of range fails."""
        target = self.value(node.target)
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

    # moves -------------------------------------------------------------------------
    def c_Move(self, node: ast.Move) -> Fn:
        """`move`: played, previous, legal or pseudo-legal moves under the constraints."""
        from_ = self.value(node.from_) if node.from_ is not None else None
        to = self.value(node.to) if node.to is not None else None
        capture = self.value(node.capture) if node.capture is not None else None
        promote = node.promote.pieces if isinstance(node.promote, ast.Designator) else None
        enpassant, castle, null, count = node.enpassant, node.castle, node.null, node.count
        mode, first = node.mode, node.first

        def candidates(ctx: Ctx) -> tuple[int, list[chess.Move]] | None:
            game = ctx.game
            if mode == "played":
                return ctx.pos, [game.moves[c] for c in game.children[ctx.pos]]  # type: ignore[misc]
            if mode == "previous":
                if ctx.pos == 0:
                    return None
                return game.parents[ctx.pos], [game.moves[ctx.pos]]  # type: ignore[list-item]
            board = ctx.board()
            moves = board.legal_moves if mode == "legal" else board.pseudo_legal_moves
            return ctx.pos, list(moves)

        def move(ctx: Ctx) -> int | None:
            found = candidates(ctx)
            if found is None:
                return None
            where, moves = found
            saved = ctx.pos
            ctx.pos = where
            try:
                board = ctx.board()
                fs = from_(ctx) if from_ is not None else chess.BB_ALL
                ts = to(ctx) if to is not None else chess.BB_ALL
                cs = capture(ctx) if capture is not None else chess.BB_ALL
            finally:
                ctx.pos = saved
            if fs is None or ts is None or cs is None:
                return None
            n = 0
            value = 0
            for mv in moves:
                if not mv:
                    if null and not (from_ or to or capture or promote or enpassant or castle):
                        n += 1
                    continue
                if null:
                    continue
                if not chess.BB_SQUARES[mv.from_square] & fs:
                    continue
                if not chess.BB_SQUARES[mv.to_square] & ts:
                    continue
                cap_sq = None
                if capture is not None or first == "capture":
                    if board.is_en_passant(mv):
                        cap_sq = mv.to_square + (-8 if board.turn == chess.WHITE else 8)
                    elif board.is_capture(mv) and not board.is_castling(mv):
                        cap_sq = mv.to_square
                    if capture is not None and (cap_sq is None or not chess.BB_SQUARES[cap_sq] & cs):
                        continue
                if promote is not None:
                    if mv.promotion is None:
                        continue
                    letter = chess.piece_symbol(mv.promotion)
                    letter = letter.upper() if board.turn == chess.WHITE else letter
                    colour_any = "A" if board.turn == chess.WHITE else "a"
                    if letter not in promote and colour_any not in promote:
                        continue
                if enpassant and not board.is_en_passant(mv):
                    continue
                if castle == "o-o" and not board.is_kingside_castling(mv):
                    continue
                if castle == "o-o-o" and not board.is_queenside_castling(mv):
                    continue
                if castle == "castle" and not board.is_castling(mv):
                    continue
                n += 1
                if first == "to":
                    value |= chess.BB_SQUARES[mv.to_square]
                elif first == "capture":
                    value |= chess.BB_SQUARES[cap_sq] if cap_sq is not None else 0
                else:
                    value |= chess.BB_SQUARES[mv.from_square]
            if count:
                return n
            if n == 0:
                return None
            return value if value else (chess.BB_ALL if null else value)

        return move

    def c_Pin(self, node: ast.Pin) -> Fn:
        """`pin`: slider, pinned non-king piece and target on one line
        (docs/reference/cql.md#pin)."""
        default_from = lambda ctx: ctx.board().occupied  # noqa: E731
        from_ = self.value(node.from_) if node.from_ is not None else default_from
        through = self.value(node.through) if node.through is not None else default_from

        def kings(ctx: Ctx) -> int:
            return int(ctx.board().kings)

        to = self.value(node.to) if node.to is not None else kings
        first = node.first

        def pin(ctx: Ctx) -> int | None:
            ss, ts, us = from_(ctx), through(ctx), to(ctx)
            if ss is None or ts is None or us is None:
                return None
            board = ctx.board()
            pinners = pinned = targets = 0
            for s in chess.scan_forward(ss & board.occupied):
                ptype = board.piece_type_at(s)
                if ptype == chess.BISHOP:
                    dirs: tuple[str, ...] = DIAGONAL
                elif ptype == chess.ROOK:
                    dirs = ORTHOGONAL
                elif ptype == chess.QUEEN:
                    dirs = ORTHOGONAL + DIAGONAL
                else:
                    continue
                color = board.color_at(s)
                for d in dirs:
                    t = _first_occupied(board, s, d)
                    if t is None or not chess.BB_SQUARES[t] & ts:
                        continue
                    if board.color_at(t) == color or board.piece_type_at(t) == chess.KING:
                        continue
                    u = _first_occupied(board, t, d)
                    if u is None or not chess.BB_SQUARES[u] & us:
                        continue
                    if board.color_at(u) != board.color_at(t):
                        continue
                    pinners |= chess.BB_SQUARES[s]
                    pinned |= chess.BB_SQUARES[t]
                    targets |= chess.BB_SQUARES[u]
            if first == "from":
                return pinners
            if first == "to":
                return targets
            return pinned

        return pin

    def c_Ray(self, node: ast.Ray) -> Fn:
        """`ray`: squares in line in the given order with empty squares between."""
        args = [self.value(a) for a in node.args]
        dirs = node.directions

        def ray(ctx: Ctx) -> int | None:
            masks = [a(ctx) for a in args]
            if any(m is None for m in masks):
                return None
            board = ctx.board()
            result = 0
            for q1 in chess.scan_forward(masks[0]):
                for d in dirs:
                    if _ray_chain(board, q1, d, masks, 1):
                        result |= chess.BB_SQUARES[q1]
                        break
            return result

        return ray

    def c_MakeSquare(self, node: ast.MakeSquare) -> Fn:
        """`makesquare (f r)`: the square on file f, rank r (1-8); out of range: no value."""

        def square(f: int, r: int) -> int | None:
            return chess.BB_SQUARES[chess.square(f - 1, r - 1)] if 1 <= f <= 8 and 1 <= r <= 8 else None

        return _both(self.value(node.file), self.value(node.rank), square)

    def c_Direction(self, node: ast.Direction) -> Fn:
        """`up 2 K`: the squares `low`..`high` steps from the operand's squares (pieces in
        between do not matter)."""
        operand = self.value(node.operand)
        steps = [DIR_STEPS[d] for d in node.directions]
        low, high = node.low, node.high

        def squares(mask: int) -> int:
            out = 0
            for sq in chess.scan_forward(mask):
                x, y = chess.square_file(sq), chess.square_rank(sq)
                for dx, dy in steps:
                    for n in range(low, high + 1):
                        tx, ty = x + n * dx, y + n * dy
                        if not (0 <= tx < 8 and 0 <= ty < 8):
                            break
                        out |= chess.BB_SQUARES[chess.square(tx, ty)]
            return out

        return _lift(operand, squares)

    def c_Between(self, node: ast.Between) -> Fn:
        """`between(S T)`: the union of squares strictly between aligned pairs."""
        left, right = self.value(node.left), self.value(node.right)

        def between(ctx: Ctx) -> int | None:
            ss, ts = left(ctx), right(ctx)
            if ss is None or ts is None:
                return None
            out = 0
            for s in chess.scan_forward(ss):
                for t in chess.scan_forward(ts):
                    out |= chess.between(s, t)
            return out

        return between

    # navigation --------------------------------------------------------------------
    def c_Find(self, node: ast.Find) -> Fn:
        """`find`: first matching position forward (or backward), or a count."""
        body = self.test(node.body)
        backward, all_, low, high = node.backward, node.all, node.low, node.high
        span = node.span

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
        in_all = node.in_all
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
        backward = node.backward
        if all(item[2] is None and item[3] == item[4] == 1 for item in compiled):
            return self._plain_line([item[1] for item in compiled], backward)

        def line(ctx: Ctx) -> int | None:
            saved = ctx.pos
            memo: dict[tuple[int, int], bool] = {}
            game = ctx.game

            def nexts(p: int) -> list[int | None]:
                if backward:
                    parent = game.parents[p]
                    return [parent if parent >= 0 else None]
                kids: list[int | None] = list(game.children[p])
                return kids or [None]

            def single(key: int, t: Test, p: int) -> bool:
                k = (key, p)
                if k not in memo:
                    ctx.pos = p
                    memo[k] = t(ctx)
                return memo[k]

            def seq_ends(items: list[Any], states: set[tuple[int | None, int]]) -> set[tuple[int | None, int]]:
                for item in items:
                    states = item_ends(item, states)
                    if not states:
                        break
                return states

            def once(item: Any, states: set[tuple[int | None, int]]) -> set[tuple[int | None, int]]:
                out: set[tuple[int | None, int]] = set()
                key, t, group = item[0], item[1], item[2]
                for p, n in states:
                    if p is None:
                        continue
                    if group is not None:
                        for q, m in seq_ends(group, {(p, 0)}):
                            if m > 0:
                                out.add((q, n + m))
                    elif single(key, t, p):
                        for q in nexts(p):
                            out.add((q, n + 1))
                return out

            def item_ends(item: Any, states: set[tuple[int | None, int]]) -> set[tuple[int | None, int]]:
                low, high = item[3], item[4]
                results: set[tuple[int | None, int]] = set()
                frontier = states
                k = 0
                seen: set[tuple[int | None, int]] = set()
                while frontier:
                    if k >= low:
                        results |= frontier
                    if high is not None and k >= high:
                        break
                    frontier = once(item, frontier) - seen
                    seen |= frontier
                    k += 1
                return results

            try:
                ends = seq_ends(compiled, {(saved, 0)})
            finally:
                ctx.pos = saved
            best = max((n for _, n in ends), default=0)
            return best if best >= 1 else None

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
                if p is None:
                    return None
                board = ctx.game.board(p)
                side = "wtm" if board.turn == chess.WHITE else "btm"
                return f"move {board.fullmove_number or 1} ({side})"

            return position
        return lambda ctx: None if (v := f(ctx)) is None else str(v)

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
        fn: Callable[[Any, Any], Any] = {
            "+=": lambda a, b: a + b,
            "-=": lambda a, b: a - b,
            "*=": lambda a, b: a * b,
            "/=": lambda a, b: None if b == 0 else _ctrunc(a, b),
            "%=": lambda a, b: None if b == 0 else a - b * _ctrunc(a, b),
        }[op]
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

    def _assign_subscript(self, node: ast.Assign, target: ast.Subscript) -> Fn:
        assert isinstance(target.target, ast.Var)
        name = target.target.name
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


def _lift(f: Fn, g: Callable[[Any], Any]) -> Fn:
    def lifted(ctx: Ctx) -> Any:
        v = f(ctx)
        return None if v is None else g(v)

    return lifted


def _both(left: Fn, right: Fn, g: Callable[[Any, Any], Any]) -> Fn:
    def both(ctx: Ctx) -> Any:
        a = left(ctx)
        if a is None:
            return None
        b = right(ctx)
        if b is None:
            return None
        return g(a, b)

    return both


def _cached(ctx: Ctx, key: str, compute: Callable[[], Any]) -> Any:
    cache = ctx.game.cache[ctx.pos]
    if key not in cache:
        cache[key] = compute()
    return cache[key]


def _has_legal_move(ctx: Ctx) -> bool:
    return _cached(ctx, "any_legal", lambda: any(True for _ in ctx.board().legal_moves))  # type: ignore[no-any-return]


def _is_mate(ctx: Ctx) -> bool:
    return bool(_cached(ctx, "check", ctx.board().is_check)) and not _has_legal_move(ctx)


def _is_stalemate(ctx: Ctx) -> bool:
    return not _cached(ctx, "check", ctx.board().is_check) and not _has_legal_move(ctx)


def _same_squares(a: chess.Board, b: chess.Board) -> int:
    same = ~a.occupied & ~b.occupied & chess.BB_ALL
    for color in chess.COLORS:
        for ptype in chess.PIECE_TYPES:
            same |= a.pieces_mask(ptype, color) & b.pieces_mask(ptype, color)
    return same


def _step(sq: int, d: str) -> int | None:
    dx, dy = DIR_STEPS[d]
    x, y = chess.square_file(sq) + dx, chess.square_rank(sq) + dy
    if 0 <= x < 8 and 0 <= y < 8:
        return chess.square(x, y)
    return None


def _first_occupied(board: chess.Board, sq: int, d: str) -> int | None:
    nxt = _step(sq, d)
    while nxt is not None:
        if board.occupied & chess.BB_SQUARES[nxt]:
            return nxt
        nxt = _step(nxt, d)
    return None


def _ray_chain(board: chess.Board, q: int, d: str, masks: list[int], i: int) -> bool:
    if i == len(masks):
        return True
    nxt = _step(q, d)
    while nxt is not None:
        if masks[i] & chess.BB_SQUARES[nxt] and _ray_chain(board, nxt, d, masks, i + 1):
            return True
        if board.occupied & chess.BB_SQUARES[nxt]:
            return False
        nxt = _step(nxt, d)
    return False


def _has_effects(node: ast.Node) -> bool:
    """True if a subtree can generate comments or sort values (needs a checkpoint)."""
    return any(
        isinstance(n, ast.Emit) and n.kind == "comment" or isinstance(n, ast.Sort)
        for n in ast.walk([node])
    )


__all__ = ["CqlRuntimeError", "Compiler", "Ctx", "GameModel", "piece_mask"]
