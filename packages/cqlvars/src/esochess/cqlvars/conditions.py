"""Necessary conditions of a query: what a game must have for the query to match in it.

`necessary(body)` reads the checked, transform-expanded body and returns a `Cond` such
that, in any game whose summary (summary.py) fails the condition, evaluating the body
at every position gives "no match" without a runtime error and without an effect. Two
consumers test it: the index (cqldb.py, in SQL over the stored summaries) and the plain-PGN
prefilter (`raw_test`, over the game's text before any move is read).

Only what is certain is derived; anything else is `ANY` (every game is a candidate):

- a piece designator `Kh8` needs that piece on one of those squares in some position;
- a count comparison `[Qq] == 0`, `#R >= 2` needs a position of that material (several
  in one conjunction need one position with all of them);
- a table filter with an `implies` feature (`check`, `mate`, `stalemate`) needs it;
- `move` needs the features of its `capture`, `promote`, `enpassant`, `castle`, `null`;
  with `mate` beside it in a conjunction, `move previous from X` needs a mate given by X;
- `and`, `{…}` and a query body need every part whose earlier siblings cannot stop the run
  (a runtime error) before it is reached; `or` and colour/flip variants need one part.

A query with effects (persistent variables, `message`/`comment`) gets no condition: a
skipped game would lose them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import assert_never

import chess

from esochess.cqlvars import ast
from esochess.cqlvars.filters import FILTERS
from esochess.cqlvars.summary import BIT, PIECES, GameSummary

#: Comparison operators of a material constraint, with their meaning.
COMPARE: dict[str, Callable[[int, int], bool]] = {
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
}
_MIRROR = {"==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


@dataclass(frozen=True)
class Occupies:
    """Some piece of `pieces` (letters of `summary.PIECES`) stood on some square of
    `squares` in some position."""

    pieces: str
    squares: int


@dataclass(frozen=True)
class Feature:
    """A game feature of `summary.FEATURES` occurred."""

    name: str


@dataclass(frozen=True)
class Material:
    """Some position has every constraint: (pieces, operator, n) = the number of pieces of
    those letters compares so with n."""

    constraints: tuple[tuple[str, str, int], ...]


@dataclass(frozen=True)
class All:
    """Every part holds (an empty `All` always holds)."""

    parts: tuple[Cond, ...]


@dataclass(frozen=True)
class AnyOf:
    """Some part holds."""

    parts: tuple[Cond, ...]


Cond = Occupies | Feature | Material | All | AnyOf
#: No condition: every game is a candidate.
ANY = All(())

#: Nodes whose evaluation cannot raise a runtime error (loops count their steps,
#: arithmetic can overflow, `assert`/`loop`/`readfile` raise, functions may do anything).
_SAFE_NODES = (ast.Designator, ast.IntLit, ast.StrLit, ast.Filter, ast.Move, ast.Binary,
               ast.Unary, ast.Compound, ast.Variants, ast.GameInfo, ast.Ray, ast.Pin,
               ast.Direction)
_RAISING_FILTERS = frozenset({"assert", "loop", "readfile"})
_ARITHMETIC = frozenset({"+", "-", "*", "/", "%"})


def necessary(body: Sequence[ast.Node], *, effects: bool) -> Cond:
    """The necessary condition of a body (a conjunction); `ANY` when it has effects."""
    return ANY if effects else _conjunction(body)


def _conjunction(parts: Sequence[ast.Node]) -> Cond:
    found: list[Cond] = []
    reached: list[ast.Node] = []
    for part in parts:
        found.append(_cond(part))
        reached.append(part)
        if not _safe(part):
            break  # a later part may never be reached: it says nothing
    found.append(_mate_by(reached))
    return _all(found)


def _mate_by(parts: Sequence[ast.Node]) -> Cond:
    """`mate` and `move previous from X` in one conjunction (one position): X gave mate."""
    if not any(isinstance(p, ast.Filter) and p.name == "mate" for p in parts):
        return ANY
    for part in parts:
        if (isinstance(part, ast.Move) and part.mode == "previous" and not part.count
                and not part.null and (movers := _letters(part.from_)) is not None):
            return _any([Feature(f"mate_by:{t}") for t in sorted(set(movers.upper()))])
    return ANY


def _all(parts: Sequence[Cond]) -> Cond:
    """`All`, flattened, with the material constraints of one position merged."""
    flat: list[Cond] = []
    material: list[tuple[str, str, int]] = []
    for part in parts:
        for item in part.parts if isinstance(part, All) else (part,):
            if isinstance(item, Material):
                material.extend(item.constraints)
            else:
                flat.append(item)
    if material:
        flat.append(Material(tuple(material)))
    return flat[0] if len(flat) == 1 else All(tuple(flat))


def _any(parts: Sequence[Cond]) -> Cond:
    if any(part == ANY for part in parts):
        return ANY
    return parts[0] if len(parts) == 1 else AnyOf(tuple(parts))


def _safe(node: ast.Node) -> bool:
    for n in ast.walk((node,)):
        if not isinstance(n, _SAFE_NODES):
            return False
        if isinstance(n, ast.Filter) and n.name in _RAISING_FILTERS:
            return False
        if isinstance(n, ast.Binary) and n.op in _ARITHMETIC:
            return False
        if isinstance(n, ast.Unary) and n.op not in ("not", "#"):
            return False
    return True


def _letters(node: ast.Node | None) -> str | None:
    """The piece letters of a designator on all squares (A/a expanded), or None."""
    if not isinstance(node, ast.Designator) or not node.pieces or "_" in node.pieces:
        return None
    if node.squares is not None and node.squares != chess.BB_ALL:
        return None
    return _expand(node.pieces)


def _expand(pieces: str) -> str:
    return "".join(dict.fromkeys(pieces.replace("A", "KQRBNP").replace("a", "kqrbnp")))


def _cond(node: ast.Node) -> Cond:
    match node:
        case ast.Designator(pieces=str(pieces), squares=squares) if pieces and "_" not in pieces:
            return Occupies(_expand(pieces), chess.BB_ALL if squares is None else squares)
        case ast.Filter(name=name) if name in FILTERS and FILTERS[name].implies:
            return Feature(FILTERS[name].implies or "")
        case ast.Move():
            return _move(node)
        case ast.Compound(elements=elements) if elements:
            return _conjunction(elements)
        case ast.Binary(op="and", left=left, right=right):
            return _conjunction((left, right))
        case ast.Binary(op="or", left=left, right=right):
            return _any((_cond(left), _cond(right)))
        case ast.Binary(op=op, left=left, right=right) if op in COMPARE:
            return _material(op, left, right)
        case ast.Variants(count=False, variants=variants) if variants:
            return _any([_cond(v) for v in variants])
    return ANY


def _counted(node: ast.Node) -> str | None:
    if isinstance(node, ast.Unary) and node.op == "#":
        node = node.operand
    return _letters(node)


def _material(op: str, left: ast.Node, right: ast.Node) -> Cond:
    if isinstance(right, ast.IntLit) and (pieces := _counted(left)) is not None:
        return Material(((pieces, op, right.value),))
    if isinstance(left, ast.IntLit) and (pieces := _counted(right)) is not None:
        return Material(((pieces, _MIRROR[op], left.value),))
    return ANY


def _move(node: ast.Move) -> Cond:
    if node.count or node.mode not in ("played", "previous"):
        return ANY
    if node.null:
        return Feature("null")
    parts: list[Cond] = []
    capture = node.capture
    if capture is not None and not (
        isinstance(capture, ast.Designator) and capture.pieces and "_" in capture.pieces
    ):
        taken = _letters(capture)
        if taken is not None:
            parts.append(_any([Feature(f"captured:{t}") for t in sorted(set(taken.upper()))]))
        else:
            parts.append(Feature("capture"))
        by = _letters(node.from_)
        if by is not None:
            parts.append(_any([Feature(f"capture_by:{t}") for t in sorted(set(by.upper()))]))
    if isinstance(node.promote, ast.Designator) and node.promote.pieces:
        kinds = set(node.promote.pieces.upper()) - {"_"}
        if kinds and kinds <= set("NBRQ"):
            parts.append(_any([Feature(f"promote:{t}") for t in sorted(kinds)]))
        elif kinds:
            parts.append(Feature("promote"))
    if node.enpassant:
        parts.append(Feature("enpassant"))
    if node.castle is not None:
        parts.append(Feature("castle"))
    return _all(parts)


def holds(cond: Cond, summary: GameSummary) -> bool:
    """Whether a game with this summary meets the condition."""
    match cond:
        case Occupies(pieces, squares):
            return any(summary.occupancy[PIECES.index(p)] & squares for p in pieces)
        case Feature(name):
            return bool(summary.flags & BIT[name])
        case Material(constraints):
            return any(_meets(signature, constraints) for signature in summary.materials)
        case All(parts):
            return all(holds(part, summary) for part in parts)
        case AnyOf(parts):
            return any(holds(part, summary) for part in parts)
        case _:
            assert_never(cond)


def _meets(signature: tuple[int, ...], constraints: tuple[tuple[str, str, int], ...]) -> bool:
    return all(
        COMPARE[op](sum(signature[PIECES.index(p)] for p in pieces), n)
        for pieces, op, n in constraints
    )


# the plain-PGN prefilter ------------------------------------------------------------------
#: Where each piece stands in the standard starting position.
_START = {
    letter: chess.Board().pieces_mask(chess.PIECE_SYMBOLS.index(letter.lower()), letter.isupper())
    for letter in PIECES
}
#: Where castling puts a king or a rook (in any castling notation, UCI included, the
#: rook's square need not be written).
_CASTLED = chess.BB_C1 | chess.BB_D1 | chess.BB_F1 | chess.BB_G1 | chess.BB_C8 | chess.BB_D8 \
    | chess.BB_F8 | chess.BB_G8
#: A promotion as python-chess reads it: `e8=Q`, `e8Q`, UCI `e7e8q`.
_PROMOTION = re.compile(r"[a-h][18]=?[nbrqkNBRQK]")
#: Tags that change how the moves are read or where the pieces start.
_UNUSUAL = re.compile(r"\[\s*(?:FEN|Variant)\s", re.IGNORECASE)

RawTest = Callable[[str], bool]


def _arrival(pieces: str, squares: int) -> re.Pattern[str]:
    """What a move bringing one of `pieces` to one of `squares` writes, as python-chess
    reads moves: a pawn names the square; a piece is named by its letter (`Nf3`, `Nxf3`,
    `Ng1-f3`), or the move is fully specified (`g1f3`), or it is a promotion (`f8=N`, `f8n`).
    """
    names = "|".join(chess.SQUARE_NAMES[sq] for sq in chess.scan_forward(squares))
    kinds = set(pieces.upper())
    if "P" in kinds:
        return re.compile(names)
    letters = "".join(sorted(kinds))
    promoted = "".join(sorted(kinds - {"K"}))
    pattern = f"(?:[{letters}][a-h]?[1-8]?|[a-h][1-8])[-x]?(?:{names})"
    if promoted:
        pattern += f"|(?:{names})=?[{promoted}{promoted.lower()}]"
    return re.compile(pattern)


def raw_test(cond: Cond) -> RawTest | None:
    """A test of a game's PGN text that fails only where `cond` cannot hold (None: no test).

    Before any move is read: a piece reaches a square other than its starting square only
    by a move naming that square (see `_arrival`); a promotion writes a back-rank square and
    a piece letter.
    A game with a `FEN` or `Variant` tag always passes.
    """
    test = _raw(cond)
    if test is None:
        return None

    def raw(text: str) -> bool:
        return _UNUSUAL.search(text) is not None or test(text)

    return raw


def _raw(cond: Cond) -> RawTest | None:
    match cond:
        case Occupies(pieces, squares):
            if any(_START[p] & squares for p in pieces) or (
                squares & _CASTLED and set(pieces) & set("KRkr")
            ):
                return None
            search = _arrival(pieces, squares).search
            return lambda text: search(text) is not None
        case Feature(name) if name.startswith("promote"):
            return lambda text: _PROMOTION.search(text) is not None
        case All(parts):
            tests = [t for t in map(_raw, parts) if t is not None]
            if not tests:
                return None
            return lambda text: all(t(text) for t in tests)
        case AnyOf(parts):
            anyof = [_raw(part) for part in parts]
            if any(t is None for t in anyof):
                return None
            return lambda text: any(t(text) for t in anyof if t is not None)
    return None
