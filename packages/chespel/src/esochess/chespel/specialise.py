"""Evaluation code specialised by rule shape (issue 17), for the fast score functions only.

Two shapes are recognised; everything else keeps the generic code of codegen.py, and the
verbose (justification) functions are always generic.

* **Constant lists**: `let t = [0, 0.05, -0.25, …]` whose elements are literals becomes a
  module-level constant built once (no generated code mutates a list).
* **Pawn-structure rules**: a rule that reads nothing but the pawns of both sides (loops
  over pawns, `me.doubledPawns`, `p.passedPawn`, `c.open`, …; PAWN_KEYS below) is cached
  by pawn placement and perspective; one that also reads the kings (`me.king.cell`, for a
  pawn shelter) by pawn and king placement.
* **Piece-square terms**: a loop over one piece variable whose conditions fold into its
  bitboard (`player == me`, `type == pawn`, …) or depend only on the piece itself, and
  whose body only adds scores (possibly under `if`s) computed from the piece's own cell,
  type and colour, literals and such constant lets — `score t.elem((p.rank - 1) * 8 + …)`,
  `score p.value`, `if (p.cell.inCenter) score 0.2`. At import, the body is run once per
  (colour, type, cell) on a board holding that piece alone (`runtime/squares.py`); the
  loop then adds table entries. An entry whose computation raised a run-time error is
  None: meeting one, the specialised loop falls back to the generic loop, which raises
  the same error at the same place.

"Depends only on the piece itself" is decided from a whitelist of library entries that
read nothing but the cell, type and colour they are given (PURE_KEYS below).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from esochess.chespel import ast

if TYPE_CHECKING:
    from esochess.chespel.codegen import _Generator

PURE_KEYS = frozenset({
    "global.abs", "global.in", "global.min", "global.max", "global.row", "global.col",
    "global.cell",
    "Row.rank", "Row.rank/1", "Row.number",
    "Col.number", "Col.isQueenSide", "Col.isKingSide", "Col.isCenter", "Col.startingType",
    "Cell.row", "Cell.col", "Cell.pos", "Cell.color", "Cell.inCenter", "Cell.inExpandedCenter",
    "Cell.inLongDiagonal", "Cell.distance", "Cell.diagonal", "Cell.adjacent",
    "Type.value", "Type.movesStraight", "Type.movesDiagonal", "Type.major", "Type.minor",
    "Type.startingPos",
    "Color.player", "Color.other", "Player.color", "Player.other", "Player.rank",
    "Piece.player", "Piece.type", "Piece.cell", "Piece.color", "Piece.rank", "Piece.startingRow",
    "List.length", "List.empty", "List.head", "List.last", "List.elem", "List.tail",
    "List.nub", "List.min", "List.max", "List.sort", "List.reverseSort", "List.sum",
    "List.product", "List.all", "List.any",
})
"""Library entries whose result depends only on their receiver and arguments (for a piece:
its cell, type and colour), never on the rest of the position."""
PAWN_KEYS = PURE_KEYS | {
    "Player.isolatedPawns", "Player.doubledPawns", "Player.backwardPawns",
    "Player.passedPawns", "Player.advancedPawns",
    "Piece.isolatedPawn", "Piece.doubledPawn", "Piece.passedPawn", "Piece.backwardPawn",
    "Piece.advancedPawn",
    "Col.pawns", "Col.open", "Col.halfOpen", "Col.halfOpenFor", "Col.closed",
}
"""Entries whose result depends only on their arguments and the pawns of both sides (on
pieces that are pawns, which is all a pawn-only rule can name)."""
PAWN_KING_KEYS = PAWN_KEYS | {"Player.king"}
"""… and the kings (`me.king.cell`): such rules are cached by pawns and kings."""
PAWN_CACHE_LIMIT = 1 << 16
"""Entries of a pawn-structure cache before it is emptied."""
_LITERALS = (ast.NumLit, ast.StrLit, ast.BoolLit, ast.RowLit, ast.ColLit, ast.CellLit,
             ast.TypeLit, ast.PlayerLit, ast.ColorLit)
_COLOUR_MASK = re.compile(r"ctx\.occupied_co\[(.+)\]\Z")
_TYPE_MASKS = {"ctx.board.pawns": 1, "ctx.board.knights": 2, "ctx.board.bishops": 3,
               "ctx.board.rooks": 4, "ctx.board.queens": 5, "ctx.board.kings": 6}
COLOUR_STRIDE = 448
"""Table layout: colour * 448 + type * 64 + cell (see runtime/squares.py)."""


class Specialiser:
    """Recognises the shapes above for one generator and writes their code."""

    def __init__(self, gen: _Generator) -> None:
        self.gen = gen
        self.module_lines: list[str] = []
        """Module-level code (constants, table builders), emitted after the rules."""
        self.counter = 0

    # ------------------------------------------------------------------ analysis

    def pure(self, expr: ast.Expr, variables: frozenset[str],
             keys: frozenset[str] = PURE_KEYS) -> bool:
        """Whether `expr` depends only on literals and the given variables, through
        entries of `keys` (PURE_KEYS: nothing else of the position is read)."""
        if isinstance(expr, _LITERALS):
            return True
        if isinstance(expr, ast.ListLit):
            return all(self.pure(e, variables, keys) for e in expr.elements)
        if isinstance(expr, ast.Unary):
            return self.pure(expr.operand, variables, keys)
        if isinstance(expr, ast.Binary):
            return self.pure(expr.left, variables, keys) and self.pure(expr.right, variables, keys)
        if isinstance(expr, (ast.Name, ast.Call)):
            info = self.gen.call_info(expr)
            if info.kind == "variable":
                return info.variable in variables
            if info.entry is None or info.entry.key not in keys:
                return False
            if any(step.key not in keys for step in info.path):
                return False
            if info.implicit is not None and info.implicit not in variables:
                return False
            if info.receiver is not None and not self.pure(info.receiver, variables, keys):
                return False
            return all(self.pure(arg, variables, keys) for arg in info.args)
        return False

    @staticmethod
    def literal_list(expr: ast.Expr) -> bool:
        """A list of literals (negated numbers included): it can never fail to build."""
        return isinstance(expr, ast.ListLit) and all(
            isinstance(e, _LITERALS)
            or (isinstance(e, ast.Unary) and e.op == "-" and isinstance(e.operand, ast.NumLit))
            for e in expr.elements)

    def _adds_only(self, body: tuple[ast.Stmt, ...], variables: frozenset[str]) -> bool:
        for stmt in body:
            if isinstance(stmt, ast.Score):
                if not self.pure(stmt.value, variables):
                    return False
            elif isinstance(stmt, ast.If):
                if not (self.pure(stmt.condition, variables)
                        and self._adds_only(stmt.body, variables)):
                    return False
            else:
                return False
        return True

    def table_loop(self, stmt: ast.Stmt, lets: frozenset[str]) -> bool:
        """Whether a rule-level statement is a piece-square loop (see the module text)."""
        if not (isinstance(stmt, ast.Loop) and stmt.kind == "piece"
                and len(stmt.variables) == 1):
            return False
        name = stmt.variables[0].name
        variables = lets | {name}
        _, rest = self.gen.piece_domain(name, list(stmt.conditions))
        return (all(self.pure(cond, variables) for cond in rest)
                and self._adds_only(stmt.body, variables))

    def pawn_only(self, body: tuple[ast.Stmt, ...], variables: frozenset[str],
                  keys: frozenset[str] = PAWN_KEYS) -> bool:
        """Whether statements read nothing of the position but what `keys` read (the pawns,
        or the pawns and kings)."""
        for stmt in body:
            if isinstance(stmt, ast.Score):
                if not self.pure(stmt.value, variables, keys):
                    return False
            elif isinstance(stmt, ast.If):
                if not (self.pure(stmt.condition, variables, keys)
                        and self.pawn_only(stmt.body, variables, keys)):
                    return False
            elif isinstance(stmt, ast.Let):
                if not self.pure(stmt.value, variables, keys):
                    return False
                variables = variables | {stmt.name}
            elif isinstance(stmt, ast.Loop):
                names = frozenset(v.name for v in stmt.variables)
                if stmt.kind == "piece":
                    if len(names) != 1:
                        return False
                    mask, rest = self.gen.piece_domain(stmt.variables[0].name,
                                                       list(stmt.conditions))
                    if "ctx.board.pawns" not in set(_split(mask)):
                        return False
                    conditions = rest
                else:
                    conditions = list(stmt.conditions)
                inner = variables | names
                if not (all(self.pure(c, inner, keys) for c in conditions)
                        and self.pawn_only(stmt.body, inner, keys)):
                    return False
            else:
                return False
        return True

    # ------------------------------------------------------------------ code

    def score_body(self, body: tuple[ast.Stmt, ...]) -> None:
        """A rule's statements for its score function (one level in), specialised where
        possible, generic otherwise."""
        gen = self.gen
        lets: list[ast.Let] = []
        for stmt in body:
            if isinstance(stmt, ast.Let) and self.literal_list(stmt.value):
                constant = self.constant(gen.expr(stmt.value))
                gen.flush("    ")
                gen.lines.append(f"    {gen.variable(stmt.name)} = {constant}")
                lets.append(stmt)
            elif isinstance(stmt, ast.Loop) and self.table_loop(
                    stmt, frozenset(let.name for let in lets)):
                self.emit_table_loop(stmt, lets, 1, functools.partial(gen.statement, stmt, 1))
            else:
                gen.statement(stmt, 1)

    def cache_kind(self, body: tuple[ast.Stmt, ...]) -> str | None:
        """`pawns`, `pawns and kings` (what a rule's cache is keyed by), or None."""
        if self.pawn_only(body, frozenset()):
            return "pawns"
        if self.pawn_only(body, frozenset(), PAWN_KING_KEYS):
            return "pawns and kings"
        return None

    def emit_pawn_cache(self, function: str, kind: str) -> None:
        """`function` becomes a cache in front of `function`_raw, keyed by the pawns (and
        the kings when `kind` says so) and the perspective."""
        emit = self.gen.lines.append
        self.counter += 1
        cache = f"_PC{self.counter}"
        self.module_lines.append(f"{cache} = {{}}")
        emit("")
        emit(f"def {function}(ctx, me):")
        emit("    _p = ctx.board.pawns")
        if kind == "pawns":
            emit("    _k = (_p & ctx.occupied_co[1], _p & ctx.occupied_co[0], me)")
        else:
            emit("    _q = ctx.board.kings")
            emit("    _k = (_p & ctx.occupied_co[1], _p & ctx.occupied_co[0], _q & ctx.occupied_co[1], "
                 "_q & ctx.occupied_co[0], me)")
        emit(f"    _v = {cache}.get(_k)")
        emit("    if _v is None:")
        emit(f"        _v = {function}_raw(ctx, me)")
        emit(f"        if len({cache}) >= {PAWN_CACHE_LIMIT}:")
        emit(f"            {cache}.clear()")
        emit(f"        {cache}[_k] = _v")
        emit("    return _v")

    def constant(self, code: str) -> str:
        """A module-level name for a constant list."""
        self.counter += 1
        name = f"_K{self.counter}"
        self.module_lines.append(f"{name} = {code}")
        return name

    def emit_table_loop(self, stmt: ast.Loop, lets: list[ast.Let], depth: int,
                        generic: Callable[[], None]) -> None:
        """The specialised loop; `generic` emits the generic loop at the current position."""
        gen = self.gen
        emit = gen.lines.append
        pad = "    " * depth
        self.counter += 1
        n = self.counter
        name = stmt.variables[0].name
        var = gen.variable(name)
        mask, rest = gen.piece_domain(name, list(stmt.conditions))
        self._builder(n, stmt, lets, rest, var)
        colour, piece_type = _known(mask)
        index = []
        if colour is not None:
            index.append(f"({colour}) * {COLOUR_STRIDE}")
        else:
            index.append(f"(ctx.occupied_co[1] >> {var} & 1) * {COLOUR_STRIDE}")
        if colour is not None:
            # the same value on every cell: a sum of popcounts
            emit(f"{pad}_u{n} = _UNI{n}[me][{colour}]")
            emit(f"{pad}if _u{n} is not None:")
            emit(f"{pad}    _m{n} = {mask}")
            if piece_type is not None:
                emit(f"{pad}    _s += _u{n}[{piece_type}] * _m{n}.bit_count()")
            else:
                terms = " + ".join(f"_u{n}[{t}] * (_m{n} & {attr}).bit_count()"
                                   for attr, t in _TYPE_MASKS.items())
                emit(f"{pad}    _s += {terms}")
            pad += "    "
            depth += 1
            emit(f"{pad[:-4]}else:")
        emit(f"{pad}_t{n} = _TAB{n}[me]")
        emit(f"{pad}_a{n} = 0")
        emit(f"{pad}_ok{n} = True")
        if piece_type is not None:
            index.append(str(piece_type * 64))
            inner = pad
            emit(f"{pad}for {var} in _scan({mask}):")
        else:
            # one scan per piece type: no piece_type_at per piece
            index.append(f"_T{n}")
            inner = pad + "    "
            emit(f"{pad}for _T{n}, _m{n} in _SQ.by_type(ctx.board):")
            emit(f"{inner}for {var} in _scan(({mask}) & _m{n}):")
        index.append(var)
        emit(f"{inner}    _v{n} = _t{n}[{' + '.join(index)}]")
        emit(f"{inner}    if _v{n} is None:")
        emit(f"{inner}        _ok{n} = False")
        emit(f"{inner}        break")
        emit(f"{inner}    _a{n} += _v{n}")
        if piece_type is None:
            emit(f"{inner}if not _ok{n}:")
            emit(f"{inner}    break")
        emit(f"{pad}if _ok{n}:")
        emit(f"{pad}    _s += _a{n}")
        emit(f"{pad}else:")
        emit(f"{pad}    # an entry that failed: the generic loop raises the error")
        saved = gen.lines
        gen.lines = []
        generic()
        inner_lines = gen.lines
        gen.lines = saved
        for line in inner_lines:
            emit("    " * depth + line)

    def _builder(self, n: int, stmt: ast.Loop, lets: list[ast.Let], rest: list[ast.Expr],
                 var: str) -> None:
        """Module-level `_build{n}(me)` and the tables `_TAB{n}` for both perspectives."""
        gen = self.gen
        saved = gen.lines
        gen.lines = []
        emit = gen.lines.append
        emit(f"def _build{n}(me):")
        for let in lets:
            gen.statement(let, 1)
        emit(f"    def _f(ctx, {var}):")
        emit("        _s = 0")
        body: tuple[ast.Stmt, ...] = stmt.body
        for cond in reversed(rest):
            body = (ast.If(cond.pos, cond, body, False),)
        gen.block(body, 2)
        emit("        return _s")
        emit("    return _SQ.square_table(_f)")
        emit(f"_TAB{n} = [_build{n}(False), _build{n}(True)]")
        emit(f"_UNI{n} = [_SQ.uniform(_TAB{n}[0]), _SQ.uniform(_TAB{n}[1])]")
        self.module_lines.extend(gen.lines)
        gen.lines = saved


def _known(mask: str) -> tuple[str | None, int | None]:
    """The colour code and piece type fixed by a loop's bitboard, where it fixes them."""
    colour = piece_type = None
    for part in _split(mask):
        found = _COLOUR_MASK.match(part)
        if found:
            colour = found.group(1)
        elif part in _TYPE_MASKS:
            piece_type = _TYPE_MASKS[part]
    return colour, piece_type


def _split(mask: str) -> Iterator[str]:
    yield from (part.strip() for part in mask.split(" & "))
