"""The Gambit abstract syntax tree: frozen dataclasses, each with its source position.

`pos` is the (line, column) the diagnostics rules of docs/reference/gambit.md#diagnostics point at:
the operator of an operation, the called name of a call, the property name of an access, the `[` of
an index, the entity name of a selector, the first token of anything else.
"""

from __future__ import annotations

from dataclasses import dataclass

Pos = tuple[int, int]


# ------------------------------------------------------------------ type expressions


@dataclass(frozen=True, eq=False)
class TName:
    """A named type: `int`, `Card`, `Suit` (or an unknown name, reported later)."""

    pos: Pos
    name: str


@dataclass(frozen=True, eq=False)
class TList:
    """`[T]`."""

    pos: Pos
    elem: TypeExpr


@dataclass(frozen=True, eq=False)
class TSuffix:
    """`T!` or `T?` (`op` is "!" or "?")."""

    pos: Pos
    inner: TypeExpr
    op: str


@dataclass(frozen=True, eq=False)
class TUnion:
    """`A | B | …`."""

    pos: Pos
    members: tuple[TypeExpr, ...]


@dataclass(frozen=True, eq=False)
class TSel:
    """A selector used as a type (parameters and patterns only)."""

    pos: Pos
    selector: Selector


@dataclass(frozen=True, eq=False)
class TNone:
    """The type `none`."""

    pos: Pos


@dataclass(frozen=True, eq=False)
class TAny:
    """The top type `any`."""

    pos: Pos


TypeExpr = TName | TList | TSuffix | TUnion | TSel | TNone | TAny


# ------------------------------------------------------------------ selectors and patterns


@dataclass(frozen=True, eq=False)
class Entry:
    """One selector entry: `op` is "true", "false", "pat", "==", "!=", "<=" or ">="."""

    pos: Pos
    prop: str
    op: str
    pattern: Pattern | None = None
    value: Expr | None = None


@dataclass(frozen=True, eq=False)
class Selector:
    """`Entity<entry, …>`."""

    pos: Pos
    entity: str
    entries: tuple[Entry, ...]
    # Just past the closing `>`, so messages can quote the selector as written.
    end: Pos = (0, 0)


@dataclass(frozen=True, eq=False)
class PAlt:
    """`P | Q | …`."""

    pos: Pos
    alts: tuple[Pattern, ...]


@dataclass(frozen=True, eq=False)
class PNot:
    """`!P`."""

    pos: Pos
    inner: Pattern


@dataclass(frozen=True, eq=False)
class PNone:
    """The pattern `none`."""

    pos: Pos


@dataclass(frozen=True, eq=False)
class PAny:
    """The pattern `any` (and `else` arms)."""

    pos: Pos


@dataclass(frozen=True, eq=False)
class PType:
    """A type pattern: a type name, selector, list type, `T!`/`T?`."""

    pos: Pos
    type: TypeExpr


@dataclass(frozen=True, eq=False)
class PRange:
    """`lo..hi`, an inclusive int range."""

    pos: Pos
    lo: Expr
    hi: Expr


@dataclass(frozen=True, eq=False)
class PValue:
    """A value pattern (matched by the `is` superset rule)."""

    pos: Pos
    value: Expr


Pattern = PAlt | PNot | PNone | PAny | PType | PRange | PValue


# ------------------------------------------------------------------ expressions


@dataclass(frozen=True, eq=False)
class Lit:
    """A literal: int, num, str, bool or none (`value` holds the Python value)."""

    pos: Pos
    value: object


@dataclass(frozen=True, eq=False)
class NotationLit:
    """A notation literal `'text'` (docs/reference/gambit.md#notations)."""

    pos: Pos
    text: str


@dataclass(frozen=True, eq=False)
class Name:
    """A bare name: local, nullary property, function value, enum member or type."""

    pos: Pos
    name: str


@dataclass(frozen=True, eq=False)
class Member:
    """`obj.name`: property read, struct member, or qualified enum member."""

    pos: Pos
    obj: Expr
    name: str


@dataclass(frozen=True, eq=False)
class TupleExpr:
    """`(a, b)`, only valid before `.name` (n-ary property access)."""

    pos: Pos
    items: tuple[Expr, ...]


@dataclass(frozen=True, eq=False)
class Index:
    """`obj[i]` (1-based)."""

    pos: Pos
    obj: Expr
    index: Expr


@dataclass(frozen=True, eq=False)
class Arg:
    """A call argument, named only in constructor calls."""

    pos: Pos
    name: str | None
    value: Expr


@dataclass(frozen=True, eq=False)
class Call:
    """`f(args)`; `method` is True for `a:f(b)` (already rewritten to `f(a, b)`)."""

    pos: Pos
    func: Expr
    args: tuple[Arg, ...]
    method: bool = False


@dataclass(frozen=True, eq=False)
class FilterMap:
    """`xs filter (x: cond)` or `xs map (x: expr)`."""

    pos: Pos
    kind: str
    source: Expr
    var: str
    var_pos: Pos
    body: Expr


@dataclass(frozen=True, eq=False)
class Unary:
    """Prefix `-`, `+`, `#` or `not`."""

    pos: Pos
    op: str
    operand: Expr


@dataclass(frozen=True, eq=False)
class Binary:
    """A binary operation (arithmetic, `and`/`or`, `&`, `..`, comparisons, `in`)."""

    pos: Pos
    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True, eq=False)
class Alt:
    """`a | b` alternatives (valid only on the right of `==`/`!=`)."""

    pos: Pos
    alts: tuple[Expr, ...]


@dataclass(frozen=True, eq=False)
class Is:
    """`x is P`."""

    pos: Pos
    value: Expr
    pattern: Pattern


@dataclass(frozen=True, eq=False)
class SelectorExpr:
    """A selector in expression position: the list of matching instances."""

    pos: Pos
    selector: Selector


@dataclass(frozen=True, eq=False)
class ListLit:
    """`[a, b, c]`."""

    pos: Pos
    items: tuple[Expr, ...]


@dataclass(frozen=True, eq=False)
class IfArm:
    """One arm of an if-expression; `cond` is None for `else`."""

    pos: Pos
    cond: Expr | None
    value: Expr


@dataclass(frozen=True, eq=False)
class IfExpr:
    """`if { c: v, … }`."""

    pos: Pos
    arms: tuple[IfArm, ...]


@dataclass(frozen=True, eq=False)
class MatchArm:
    """One arm of a match expression; `pattern` is None for `else`."""

    pos: Pos
    pattern: Pattern | None
    value: Expr


@dataclass(frozen=True, eq=False)
class MatchExpr:
    """`match subject { pattern: value, … }`."""

    pos: Pos
    subject: Expr
    arms: tuple[MatchArm, ...]


@dataclass(frozen=True, eq=False)
class Choose:
    """`player choose[k] secret ("prompt") options`."""

    pos: Pos
    player: Expr
    k: Expr | None
    secret: bool
    prompt: Expr | None
    options: Expr


Expr = (
    Lit | NotationLit | Name | Member | TupleExpr | Index | Call | FilterMap | Unary | Binary |
    Alt | Is | SelectorExpr | ListLit | IfExpr | MatchExpr | Choose
)


# ------------------------------------------------------------------ statements


@dataclass(frozen=True, eq=False)
class Block:
    """A brace block or singleton block."""

    pos: Pos
    stmts: tuple[Stmt, ...]


@dataclass(frozen=True, eq=False)
class DeclStmt:
    """`Type name [= expr]`."""

    pos: Pos
    type: TypeExpr
    name: str
    name_pos: Pos
    value: Expr | None


@dataclass(frozen=True, eq=False)
class Assign:
    """`place op expr` with op one of = += -= *= /= %=."""

    pos: Pos
    target: Expr
    op: str
    value: Expr


@dataclass(frozen=True, eq=False)
class IncDec:
    """`place++` / `place--`."""

    pos: Pos
    target: Expr
    op: str


@dataclass(frozen=True, eq=False)
class Swap:
    """`swap a, b`."""

    pos: Pos
    a: Expr
    b: Expr


@dataclass(frozen=True, eq=False)
class EndStmt:
    """`P wins` / `P loses`."""

    pos: Pos
    who: Expr
    kind: str


@dataclass(frozen=True, eq=False)
class Simple:
    """`draw`, `illegal`, `commit`, `break` or `continue`."""

    pos: Pos
    kind: str


@dataclass(frozen=True, eq=False)
class Return:
    """`return [expr]`."""

    pos: Pos
    value: Expr | None


@dataclass(frozen=True, eq=False)
class ExprStmt:
    """An expression evaluated for its effect."""

    pos: Pos
    expr: Expr


@dataclass(frozen=True, eq=False)
class If:
    """`if c block {else if c block} [else block]` as (cond, block) branches."""

    pos: Pos
    branches: tuple[tuple[Expr, Block], ...]
    orelse: Block | None


@dataclass(frozen=True, eq=False)
class For:
    """`for var in iterable block`."""

    pos: Pos
    var: str
    var_pos: Pos
    iterable: Expr
    body: Block


@dataclass(frozen=True, eq=False)
class While:
    """`while cond block`."""

    pos: Pos
    cond: Expr
    body: Block


@dataclass(frozen=True, eq=False)
class Loop:
    """`loop block`."""

    pos: Pos
    body: Block


@dataclass(frozen=True, eq=False)
class StmtArm:
    """A match-statement arm; `pattern` is None for `else`."""

    pos: Pos
    pattern: Pattern | None
    body: Block


@dataclass(frozen=True, eq=False)
class MatchStmt:
    """`match subject { arms }`."""

    pos: Pos
    subject: Expr
    arms: tuple[StmtArm, ...]


Stmt = (
    DeclStmt | Assign | IncDec | Swap | EndStmt | Simple | Return | ExprStmt | If | For |
    While | Loop | MatchStmt
)
