"""Evaluation code specialised by rule shape (issue 17), for the fast score functions only.

These shapes are recognised; everything else keeps the generic code of codegen.py, and the
verbose (justification) functions are always generic.

* **Constant lists**: `let t = [0, 0.05, -0.25, …]` whose elements are literals becomes a
  module-level constant built once (no generated code mutates a list).
* **Placement caches**: a rule that reads nothing but the placement of some piece types,
  both sides (loops over one type, `me.doubledPawns`, `p.passedPawn`, `c.open`,
  `me.king.cell`, `me.bishopPair`, …; PIECE_READS below) is cached by the bitboards of
  those types and the perspective: pawn structure by the pawns, a pawn shelter by pawns
  and kings, rooks on open columns by pawns and rooks.
* **Piece-square terms**: a loop over one piece variable whose conditions fold into its
  bitboard (`player == me`, `type == pawn`, …) or depend only on the piece itself, and
  whose body only adds scores (possibly under `if`s) computed from the piece's own cell,
  type and colour, literals and such constant lets — `score t.elem((p.rank - 1) * 8 + …)`,
  `score p.value`, `if (p.cell.inCenter) score 0.2`. At import, the body is run once per
  (colour, type, cell) on a board holding that piece alone (`runtime/squares.py`); the
  loop then adds table entries. An entry whose computation raised a run-time error is
  None: meeting one, the specialised loop falls back to the generic loop, which raises
  the same error at the same place.
* **Pieces near a cell**: a loop whose conditions all fold into its bitboard and whose body
  is `if (q.cell.distance(k) <= 2) score -0.15;` (any comparison, a literal bound, `k` a
  variable, literal scores) adds the score times the popcount of the bitboard and a
  precomputed distance mask around `k` (king safety: enemy pieces near the king).

"Depends only on the piece itself" is decided from a whitelist of library entries that
read nothing but the cell, type and colour they are given (PURE_KEYS below).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
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
PIECE_READS = {
    **dict.fromkeys((
        "Player.isolatedPawns", "Player.doubledPawns", "Player.backwardPawns",
        "Player.passedPawns", "Player.advancedPawns",
        "Piece.isolatedPawn", "Piece.doubledPawn", "Piece.passedPawn", "Piece.backwardPawn",
        "Piece.advancedPawn",
        "Col.pawns", "Col.open", "Col.halfOpen", "Col.halfOpenFor", "Col.closed"), "pawns"),
    "Player.king": "kings",
    "Player.bishopPair": "bishops",
}
"""Entries whose result depends only on their arguments and the pieces of one type, both
colours (the board attribute named). A rule that reads nothing else is cached by the
placement of those types: pawn structure, pawns and kings (a shelter), pawns and rooks
(rooks on open columns), … (on a piece of another type, a `Piece` entry reads only that
piece's own type and colour, which the key also fixes)."""
CACHE_KEYS = PURE_KEYS | PIECE_READS.keys()
CACHE_ORDER = ("pawns", "knights", "bishops", "rooks", "queens", "kings")
PIECE_CACHE_LIMIT = 1 << 16
"""Entries of a placement cache before it is emptied."""
_COMPARISONS = {"<": ">", "<=": ">=", "==": "==", "!=": "!=", ">": "<", ">=": "<="}
"""Comparison operators and their mirror images (`2 >= d` is `d <= 2`)."""
_LITERALS = (ast.NumLit, ast.StrLit, ast.BoolLit, ast.RowLit, ast.ColLit, ast.CellLit,
             ast.TypeLit, ast.PlayerLit, ast.ColorLit)
_COLOUR_MASK = re.compile(r"ctx\.occupied_co\[(.+)\]\Z")
_TYPE_MASKS = {"ctx.board.pawns": 1, "ctx.board.knights": 2, "ctx.board.bishops": 3,
               "ctx.board.rooks": 4, "ctx.board.queens": 5, "ctx.board.kings": 6}
COLOUR_STRIDE = 448
"""Table layout: colour * 448 + type * 64 + cell (see runtime/squares.py)."""


@dataclass(frozen=True)
class NearLoop:
    """A loop counting pieces near a cell: its bitboard (code), the distance test
    (`distance OP bound`, bound in milli-units), the cell (code) and the score per piece
    (code)."""

    mask: str
    op: str
    bound: int
    cell: str
    scores: str


class Specialiser:
    """Recognises the shapes above for one generator and writes their code."""

    def __init__(self, gen: _Generator) -> None:
        self.gen = gen
        self.module_lines: list[str] = []
        """Module-level code (constants, table builders), emitted after the rules."""
        self.counter = 0
        self.tables: list[tuple[int, str]] = []
        """The table loops written so far: (number of `_TAB{n}`, the bitboard code)."""

    # ------------------------------------------------------------------ analysis

    def pure(self, expr: ast.Expr, variables: frozenset[str],
             keys: frozenset[str] = PURE_KEYS, reads: set[str] | None = None) -> bool:
        """Whether `expr` depends only on literals and the given variables, through
        entries of `keys` (PURE_KEYS: nothing else of the position is read); the board
        attributes that its PIECE_READS entries read are added to `reads`."""
        if isinstance(expr, _LITERALS):
            return True
        if isinstance(expr, ast.ListLit):
            return all(self.pure(e, variables, keys, reads) for e in expr.elements)
        if isinstance(expr, ast.Unary):
            return self.pure(expr.operand, variables, keys, reads)
        if isinstance(expr, ast.Binary):
            return (self.pure(expr.left, variables, keys, reads)
                    and self.pure(expr.right, variables, keys, reads))
        if isinstance(expr, (ast.Name, ast.Call)):
            info = self.gen.call_info(expr)
            if info.kind == "variable":
                return info.variable in variables
            if info.entry is None or info.entry.key not in keys:
                return False
            if any(step.key not in keys for step in info.path):
                return False
            if reads is not None:
                reads.update(PIECE_READS[step.key] for step in (*info.path, info.entry)
                             if step.key in PIECE_READS)
            if info.implicit is not None and info.implicit not in variables:
                return False
            if info.receiver is not None and not self.pure(info.receiver, variables, keys,
                                                           reads):
                return False
            return all(self.pure(arg, variables, keys, reads) for arg in info.args)
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

    def reads_only(self, body: tuple[ast.Stmt, ...], variables: frozenset[str],
                   reads: set[str]) -> bool:
        """Whether statements read nothing of the position but the placement of some piece
        types (PIECE_READS, and loops over one type), which are added to `reads`."""
        for stmt in body:
            if isinstance(stmt, ast.Score):
                if not self.pure(stmt.value, variables, CACHE_KEYS, reads):
                    return False
            elif isinstance(stmt, ast.If):
                if not (self.pure(stmt.condition, variables, CACHE_KEYS, reads)
                        and self.reads_only(stmt.body, variables, reads)):
                    return False
            elif isinstance(stmt, ast.Let):
                if not self.pure(stmt.value, variables, CACHE_KEYS, reads):
                    return False
                variables = variables | {stmt.name}
            elif isinstance(stmt, ast.Loop):
                names = frozenset(v.name for v in stmt.variables)
                if stmt.kind == "piece":
                    if len(names) != 1:
                        return False
                    mask, rest = self.gen.piece_domain(stmt.variables[0].name,
                                                       list(stmt.conditions))
                    types = [part.removeprefix("ctx.board.") for part in _split(mask)
                             if part in _TYPE_MASKS]
                    if len(types) != 1:
                        return False
                    reads.add(types[0])
                    conditions = rest
                else:
                    conditions = list(stmt.conditions)
                inner = variables | names
                if not (all(self.pure(c, inner, CACHE_KEYS, reads) for c in conditions)
                        and self.reads_only(stmt.body, inner, reads)):
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
            elif (near := self.near_loop(stmt)) is not None:
                gen.flush("    ")
                self.emit_near_loop(near, 1)
            else:
                gen.statement(stmt, 1)

    def cache_kind(self, rule: ast.Rule) -> tuple[str, ...] | None:
        """The board attributes (`pawns`, `kings`, …) a rule's cache is keyed by, or None
        when the rule reads more of the position than the placement of some types.

        A rule that is not symmetric and is nothing but piece-square loops (and constant
        lists) is left to its tables unless it reads pawns only: a lookup in a table per
        piece costs about what a cache lookup does. A symmetric rule's cache holds both
        sides' difference (`emit_sym_cache`), one lookup for two evaluations."""
        reads: set[str] = set()
        if not self.reads_only(rule.body, frozenset(), reads) or not reads:
            return None
        if not rule.sym and reads != {"pawns"} and self._tables_only(rule.body):
            return None
        return tuple(attribute for attribute in CACHE_ORDER if attribute in reads)

    def cache_groups(self, rule: ast.Rule) -> list[tuple[list[ast.Stmt], tuple[str, ...]]] | None:
        """For a cached rule whose statements read the placement of different piece types
        (`pieces`: rooks on open columns read pawns and rooks, the bishop pair bishops):
        runs of consecutive statements reading the same types, each with the types its own
        cache is keyed by — a bishop move then leaves the rooks' entry valid. None when the
        rule is one such run, declares anything but constant lists, or has a statement
        that can fail (a cache per run changes which of two errors comes first)."""
        constants = frozenset(stmt.name for stmt in rule.body
                              if isinstance(stmt, ast.Let) and self.literal_list(stmt.value))
        groups: list[tuple[list[ast.Stmt], tuple[str, ...]]] = []
        for stmt in rule.body:
            if isinstance(stmt, ast.Let):
                if stmt.name not in constants:
                    return None
                continue
            reads: set[str] = set()
            if (not self.reads_only((stmt,), constants, reads) or not reads
                    or any(self.gen.can_fail(expr) for expr in _expressions(stmt))):
                return None
            key = tuple(attribute for attribute in CACHE_ORDER if attribute in reads)
            if groups and groups[-1][1] == key:
                groups[-1][0].append(stmt)
            else:
                groups.append(([stmt], key))
        return groups if len(groups) > 1 else None

    def foldable(self, rule: ast.Rule) -> bool:
        """Whether a rule is nothing but piece-square terms and symmetric: the search then
        keeps its sum move by move (runtime/search_board.py) instead of running it."""
        return rule.sym and self._tables_only(rule.body)

    def fold_lines(self, which: str, loops: list[tuple[int, str]]) -> list[str]:
        """Module-level `PSQ_{WHICH}`: the folded table of the given table loops (None when
        there are none, or an entry of one failed: then no rule of the module is folded)."""
        if not loops:
            return [f"PSQ_{which.upper()} = None"]
        parts = ", ".join(f"(_TAB{n}, lambda ctx, me: {mask})" for n, mask in loops)
        return [f"PSQ_{which.upper()} = _SQ.fold(({parts},))"]

    def _tables_only(self, body: tuple[ast.Stmt, ...]) -> bool:
        lets: set[str] = set()
        for stmt in body:
            if isinstance(stmt, ast.Let) and self.literal_list(stmt.value):
                lets.add(stmt.name)
            elif not self.table_loop(stmt, frozenset(lets)):
                return False
        return True

    def emit_piece_cache(self, function: str, attributes: tuple[str, ...],
                         sym: bool = False) -> None:
        """`function` becomes a cache in front of `function`_raw, keyed by the placement of
        the piece types in `attributes` (both colours) and the perspective; with `sym`,
        `function`_sym too, whose entries are `raw(me) - raw(not me)` (in that order, so
        that an error is raised where the drivers' order raises it)."""
        self._cache(f"{function}(ctx, me)", f"{function}_raw(ctx, me)", attributes)
        if sym:
            self._cache(f"{function}_sym(ctx, me)",
                        f"{function}_raw(ctx, me) - {function}_raw(ctx, not me)", attributes)

    def _cache(self, head: str, value: str, attributes: tuple[str, ...]) -> None:
        emit = self.gen.lines.append
        self.counter += 1
        cache = f"_PC{self.counter}"
        self.module_lines.append(f"{cache} = {{}}")
        emit("")
        emit(f"def {head}:")
        emit("    _w = ctx.occupied_co[1]")
        emit("    _b = ctx.occupied_co[0]")
        parts = []
        for index, attribute in enumerate(attributes):
            emit(f"    _p{index} = ctx.board.{attribute}")
            parts += [f"_p{index} & _w", f"_p{index} & _b"]
        emit(f"    _k = ({', '.join(parts)}, me)")
        emit(f"    _v = {cache}.get(_k)")
        emit("    if _v is None:")
        emit(f"        _v = {value}")
        emit(f"        if len({cache}) >= {PIECE_CACHE_LIMIT}:")
        emit(f"            {cache}.clear()")
        emit(f"        {cache}[_k] = _v")
        emit("    return _v")

    def near_loop(self, stmt: ast.Stmt) -> NearLoop | None:
        """The shape when `stmt` counts pieces near a cell: `piece q with … : if
        (q.cell.distance(k) <= 2) score -0.15;` with `k` a variable and only literal
        scores; the loop becomes a popcount against a distance mask."""
        if not (isinstance(stmt, ast.Loop) and stmt.kind == "piece"
                and len(stmt.variables) == 1 and len(stmt.body) == 1):
            return None
        name = stmt.variables[0].name
        mask, rest = self.gen.piece_domain(name, list(stmt.conditions))
        test = stmt.body[0]
        if rest or not isinstance(test, ast.If) or not test.body:
            return None
        scores = [score.value for score in test.body
                  if isinstance(score, ast.Score) and _literal_number(score.value)]
        condition = test.condition
        if len(scores) != len(test.body) or not (
                isinstance(condition, ast.Binary) and condition.op in _COMPARISONS):
            return None
        op, distance, bound = condition.op, condition.left, condition.right
        if isinstance(distance, ast.NumLit):
            op, distance, bound = _COMPARISONS[op], bound, distance
        cell = self._distance_to(name, distance)
        if cell is None or not isinstance(bound, ast.NumLit):
            return None
        return NearLoop(mask, op, bound.millis, cell,
                        " + ".join(self.gen.num(value) for value in scores))

    def _distance_to(self, name: str, expr: ast.Expr) -> str | None:
        """The code of variable `k` when `expr` is `name.cell.distance(k)`, else None."""
        if not isinstance(expr, (ast.Name, ast.Call)):
            return None
        info = self.gen.call_info(expr)
        if (info.kind != "method" or info.lifted or info.entry is None
                or info.entry.key != "Cell.distance" or len(info.args) != 1):
            return None
        steps = [step.key for step in info.path]
        if steps == ["Piece.cell"]:
            if not self.gen.receiver_is(name, info):
                return None
        elif steps or info.receiver is None \
                or self.gen.accessor_of(name, info.receiver) != "Piece.cell":
            return None
        other = info.args[0]
        if not isinstance(other, ast.Name):
            return None
        target = self.gen.call_info(other)
        if target.kind != "variable" or target.variable is None or target.variable == name:
            return None
        return self.gen.variable(target.variable)

    def emit_near_loop(self, shape: NearLoop, depth: int) -> None:
        """`_s += score × popcount(pieces & cells within the distance of the cell)`."""
        self.counter += 1
        table = f"_NEAR{self.counter}"
        self.module_lines.append(f"{table} = _SQ.near_masks({shape.op!r}, {shape.bound})")
        self.gen.lines.append(f"{'    ' * depth}_s += ({shape.scores}) * "
                              f"(({shape.mask}) & {table}[{shape.cell}]).bit_count()")

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
        self.tables.append((n, mask))
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


def _expressions(stmt: ast.Stmt) -> Iterator[ast.Expr]:
    """The expressions a statement evaluates, nested statements included."""
    if isinstance(stmt, ast.Score):
        yield stmt.value
        if stmt.justification is not None:
            yield stmt.justification
    elif isinstance(stmt, ast.If):
        yield stmt.condition
    elif isinstance(stmt, ast.Let):
        yield stmt.value
    elif isinstance(stmt, ast.Loop):
        yield from stmt.conditions
    if isinstance(stmt, (ast.If, ast.Loop)):
        for inner in stmt.body:
            yield from _expressions(inner)


def _literal_number(expr: ast.Expr) -> bool:
    return isinstance(expr, ast.NumLit) or (
        isinstance(expr, ast.Unary) and expr.op == "-" and isinstance(expr.operand, ast.NumLit))


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
