"""Chespel abstract syntax tree: frozen dataclasses, every node with its source position.

How to read it (for the checker and the back end):

* Every node has `pos`, the 1-based (line, column) where diagnostics about the node point:
  the operator of a `Binary`/`Unary`, the method or function name of a `Call`, the first
  token of a literal or name, the keyword of a statement. Expressions also have `start`,
  the position of their first token (a `(` included), which is where diagnostics about a
  whole operand point ("argument 1 of 'X' must be ...", "score value must be Num").
* Parentheses leave no node: `(a + b)` is the `Binary` itself, with `start` at the `(`.
* Calls are normalised. `x.m`, `x.m()` and `x.m(a)` are `Call(receiver=x, name="m", ...)`;
  `f(a, b)` is `Call(receiver=None, ...)`; a bare word is a `Name`. Whether a bare call is
  a true global, a global-form method call (`check(me)`) or an implicit-receiver call
  (docs/reference/chespel.md#implicit-receiver) is decided by the checker and recorded in
  `CheckResult` (see `frontend.py`), not here. `in(x, L)` is `Call(name="in")`; `x in L` is
  `Binary(op="in")`; `abs x` and `abs(x)` are both `Unary(op="abs")`.
* Num literals are exact: `millis` is the value in thousandths, truncated toward zero to 3
  decimals (docs/reference/chespel.md#literals); `spelling` is the source text, which `++` prints
  when the literal is directly an operand of `++` (docs/reference/chespel.md#string-forms, see
  `frontend.concat_spelling`).
* Types and cells use python-chess numbering: `TypeLit.piece_type` is `chess.PAWN` (1) ...
  `chess.KING` (6); `CellLit.square` is `chess.A1` (0) ... `chess.H8` (63).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, fields, is_dataclass


@dataclass(frozen=True, order=True)
class Pos:
    """A 1-based (line, column) in the source; a TAB counts as one column."""

    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.line}:{self.column}"


# --------------------------------------------------------------------------- expressions


@dataclass(frozen=True)
class Expr:
    """Base of every expression: `pos` is the diagnostic anchor, `start` the first token."""

    pos: Pos
    start: Pos


@dataclass(frozen=True)
class NumLit(Expr):
    """A number literal: `millis` thousandths (truncated), `spelling` as written."""

    millis: int
    spelling: str


@dataclass(frozen=True)
class StrLit(Expr):
    """A string literal (either quote); `value` is the text between the quotes."""

    value: str


@dataclass(frozen=True)
class BoolLit(Expr):
    """`true` or `false`."""

    value: bool


@dataclass(frozen=True)
class RowLit(Expr):
    """`$1` .. `$8`; `number` is 1..8."""

    number: int


@dataclass(frozen=True)
class ColLit(Expr):
    """`$a` .. `$h`; `number` is 1 (a) .. 8 (h)."""

    number: int


@dataclass(frozen=True)
class CellLit(Expr):
    """`a1` .. `h8`; `square` is the python-chess square index (a1 = 0, h8 = 63)."""

    square: int


@dataclass(frozen=True)
class TypeLit(Expr):
    """A piece type; `piece_type` is chess.PAWN .. chess.KING; `spelling` as written."""

    piece_type: int
    spelling: str


@dataclass(frozen=True)
class PlayerLit(Expr):
    """`me` (is_me True) or `foe` (is_me False): relative to the current pass."""

    is_me: bool


@dataclass(frozen=True)
class ColorLit(Expr):
    """`white` (is_white True) or `black`."""

    is_white: bool


@dataclass(frozen=True)
class ListLit(Expr):
    """A list literal `[e1, ..., en]` (possibly empty)."""

    elements: tuple[Expr, ...]


@dataclass(frozen=True)
class Name(Expr):
    """A bare word without an argument list: variable, 0-ary global, implicit receiver."""

    name: str


@dataclass(frozen=True)
class Call(Expr):
    """A call `receiver.name(args)` or, with `receiver` None, `name(args)`.

    `pos` is the name. `has_parens` tells `x.m()` from `x.m` (they mean the same thing)
    and `f()` from the bare word `f` (which is a `Name`, never a `Call`).
    """

    receiver: Expr | None
    name: str
    args: tuple[Expr, ...]
    has_parens: bool


@dataclass(frozen=True)
class Unary(Expr):
    """A prefix operator: `-`, `abs` or `not`; `pos` is the operator."""

    op: str
    operand: Expr


@dataclass(frozen=True)
class Binary(Expr):
    """An infix operator (`+ - * / ++ == != < > <= >= *< *> *<= *>= in and or`)."""

    op: str
    left: Expr
    right: Expr


# ---------------------------------------------------------------------------- statements


@dataclass(frozen=True)
class Stmt:
    """Base of every statement; `pos` is its first keyword."""

    pos: Pos


@dataclass(frozen=True)
class Score(Stmt):
    """`score VALUE [[,] JUSTIFICATION];`."""

    value: Expr
    justification: Expr | None


@dataclass(frozen=True)
class If(Stmt):
    """`if COND: block` or the inline `if COND score ...;` (`inline` True, one Score)."""

    condition: Expr
    body: tuple[Stmt, ...]
    inline: bool
    colon: Pos | None = None


@dataclass(frozen=True)
class Let(Stmt):
    """`let NAME = VALUE;`; `name_pos` is where the name is written."""

    name: str
    name_pos: Pos
    value: Expr


@dataclass(frozen=True)
class VarDecl:
    """A loop variable as declared in a loop header."""

    name: str
    pos: Pos


@dataclass(frozen=True)
class Loop(Stmt):
    """`piece|cell V1, ..., Vn [with C1, ..., Ck]: block`; `kind` is "piece" or "cell"."""

    kind: str
    variables: tuple[VarDecl, ...]
    conditions: tuple[Expr, ...]
    body: tuple[Stmt, ...]


# ------------------------------------------------------------------------ module members


@dataclass(frozen=True)
class Rule:
    """`[sym] rule NAME WORDS:` and its block; `name` has single spaces between words."""

    pos: Pos
    name: str
    name_pos: Pos
    sym: bool
    body: tuple[Stmt, ...]


@dataclass(frozen=True)
class Parameter:
    """`NAME = [-]VALUE [;]` of a search or endgame module.

    `value` is the literal text with its sign (`"-3"`, `"0.5"`, `"true"`); the checker
    validates it and `CheckResult.parameters` holds the typed values.
    """

    pos: Pos
    name: str
    value: str
    value_pos: Pos


@dataclass(frozen=True)
class OpeningRule:
    """`'FEN' -> 'FEN';` with the position of each string literal."""

    pos: Pos
    origin: str
    destination: str
    destination_pos: Pos


@dataclass(frozen=True)
class Module:
    """One `module NAME` section; `kind` is search, evaluation, opening or endgame."""

    pos: Pos
    kind: str
    name_pos: Pos
    parameters: tuple[Parameter, ...] = ()
    rules: tuple[Rule, ...] = ()
    openings: tuple[OpeningRule, ...] = ()


@dataclass(frozen=True)
class Program:
    """A whole source file: its modules in source order."""

    path: str
    modules: tuple[Module, ...] = field(default=())

    def module(self, kind: str) -> Module | None:
        """Return the first module of that kind, or None."""
        for module in self.modules:
            if module.kind == kind:
                return module
        return None


def walk_expressions(node: object) -> Iterator[Expr]:
    """Every expression inside `node` (a Program, Module, Rule, statement or Expr),
    outermost first, in source order."""
    if isinstance(node, Expr):
        yield node
    if isinstance(node, tuple):
        for item in node:
            yield from walk_expressions(item)
    elif is_dataclass(node) and not isinstance(node, (Pos, type)):
        for item in fields(node):
            yield from walk_expressions(getattr(node, item.name))
