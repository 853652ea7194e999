"""The checker's hand-off to the back end: what every name, member, call and pattern of a
checked program resolved to, as typed side tables keyed by AST node.

The checker writes an `Analysis`; the compiler only reads it. Each resolution is a frozen
dataclass of one union, dispatched with `match` and `assert_never`, so mypy names a case
that a stage forgot.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Generic, TypeAlias, TypeVar

from esochess.fen import SourceError
from esochess.gambit import ast as A
from esochess.gambit import declarations as D
from esochess.gambit import types as T
from esochess.gambit.resolver import FuncInfo, NotationInfo, PropInfo, Symbols
from esochess.gambit.values import EnumVal, FuncVal, Inst, StructVal

if TYPE_CHECKING:
    from esochess.gambit.values import _Unset

# A run-time value of the language: numbers, text, enum members and multi-values, entity
# instances, structs, function values, lists (immutable tuples) and `none`.
Value: TypeAlias = (
    "int | float | bool | str | None | EnumVal | frozenset[EnumVal] | Inst | StructVal"
    " | FuncVal | tuple[Value, ...] | _Unset"
)

N = TypeVar("N")
V = TypeVar("V")


class NodeTable(Generic[N, V]):
    """A side table keyed by node identity (AST nodes are compared by identity here)."""

    __slots__ = ("_rows",)

    def __init__(self) -> None:
        self._rows: dict[int, V] = {}

    def __setitem__(self, node: N, value: V) -> None:
        self._rows[id(node)] = value

    def __getitem__(self, node: N) -> V:
        return self._rows[id(node)]

    def __contains__(self, node: N) -> bool:
        return id(node) in self._rows

    def get(self, node: N) -> V | None:
        """The row of `node`, or None."""
        return self._rows.get(id(node))

    def __len__(self) -> int:
        return len(self._rows)

    def values(self) -> Iterator[V]:
        """Every row."""
        return iter(self._rows.values())


# ---------------------------------------------------------------- what a name resolved to
@dataclass(frozen=True, slots=True)
class LocalRef:
    """A local variable or parameter, by frame slot."""

    slot: int


@dataclass(frozen=True, slots=True)
class PropRef:
    """A nullary property named bare, or a unary property read as `x.p`."""

    prop: PropInfo


@dataclass(frozen=True, slots=True)
class NaryRef:
    """A property of several entities read as `(a, b).p`."""

    prop: PropInfo


@dataclass(frozen=True, slots=True)
class FuncRef:
    """A function or procedure named as a value."""

    name: str


@dataclass(frozen=True, slots=True)
class EnumRef:
    """An enum member."""

    value: EnumVal


@dataclass(frozen=True, slots=True)
class EntityList:
    """An entity name used as the list of its instances."""

    entity: str


@dataclass(frozen=True, slots=True)
class EnumList:
    """An enum name used as the list of its members."""

    enum: str


@dataclass(frozen=True, slots=True)
class BoolList:
    """`bool` used as the list [false, true]."""


@dataclass(frozen=True, slots=True)
class FieldRef:
    """A struct member read as `s.name`."""

    name: str


@dataclass(frozen=True, slots=True)
class NotationRef:
    """A notation literal and the notation that reads it."""

    info: NotationInfo


# ---------------------------------------------------------------- what a call resolved to
@dataclass(frozen=True, slots=True)
class UserCall:
    """A call of a user overload set, dispatched by specificity."""

    name: str


@dataclass(frozen=True, slots=True)
class BuiltinCall:
    """A call of a built-in of the library table."""

    name: str


@dataclass(frozen=True, slots=True)
class ValueCall:
    """A call through a Function or Procedure value."""


@dataclass(frozen=True, slots=True)
class StructCtor:
    """A struct constructor `S(member: value, …)`."""

    name: str


@dataclass(frozen=True, slots=True)
class EntityCtor:
    """An entity constructor `E(prop: value, …)`."""

    name: str


Resolution = (
    LocalRef | PropRef | NaryRef | FuncRef | EnumRef | EntityList | EnumList | BoolList
    | FieldRef | NotationRef
)  # fmt: skip
CallTarget = UserCall | BuiltinCall | ValueCall | StructCtor | EntityCtor


# ---------------------------------------------------------------- implicit conversions
@dataclass(frozen=True, slots=True)
class ToNum:
    """An int stored where a num is expected."""


@dataclass(frozen=True, slots=True)
class SelectionToEntity:
    """A selector (or entity name) stored where one instance is expected: exactly one must
    match (or none, when the target is optional)."""

    entity: str
    optional: bool
    text: str


Conversion = ToNum | SelectionToEntity


# ---------------------------------------------------------------- overload cells
# (docs/reference/gambit.md#overloads) One cell element: an entity and one representative value per
# fixed unary property it tests, or None for the `none` cell of optional patterns.
Atom: TypeAlias = "tuple[str, dict[int, Value]] | None"
Cell: TypeAlias = tuple[Atom, ...]


@dataclass(frozen=True)
class CellAnalysis:
    """The cells of one overload set and arity, and which cells each overload matches."""

    cells: list[Cell]
    matches: list[frozenset[int]]
    positions: list[int]
    group: list[FuncInfo]


@dataclass(frozen=True, slots=True)
class ForSlots:
    """The frame slots of a `for` loop: its hidden iterator and its variable."""

    iterator: int
    variable: int


@dataclass(frozen=True, slots=True)
class CompiledNotation:
    """A notation declaration with its compiled regular expression."""

    info: NotationInfo
    regex: re.Pattern[str]


Body: TypeAlias = (
    "D.FuncDecl | D.PropertyDecl | D.NotationDecl | A.Expr"
)


@dataclass
class Analysis:
    """Everything the checker resolved, for the compiler (the checker's only output)."""

    sym: Symbols
    errors: list[SourceError] = field(default_factory=list)
    warnings: list[SourceError] = field(default_factory=list)
    # Expressions: names, members and notation literals.
    resolved: NodeTable[A.Expr, Resolution] = field(default_factory=NodeTable)
    calls: NodeTable[A.Call, CallTarget] = field(default_factory=NodeTable)
    types: NodeTable[A.Expr, T.Type] = field(default_factory=NodeTable)
    narrowed: NodeTable[A.Is, T.Type] = field(default_factory=NodeTable)
    conversions: NodeTable[A.Expr, Conversion] = field(default_factory=NodeTable)
    # Statements and binders: the slots they declare.
    declared: NodeTable[A.DeclStmt | A.Assign, int] = field(default_factory=NodeTable)
    for_slots: NodeTable[A.For, ForSlots] = field(default_factory=NodeTable)
    binders: NodeTable[A.FilterMap, int] = field(default_factory=NodeTable)
    # Patterns and selectors.
    pattern_types: NodeTable[A.PType, T.Type] = field(default_factory=NodeTable)
    entry_props: NodeTable[A.Entry, PropInfo] = field(default_factory=NodeTable)
    notations: NodeTable[D.NotationDecl, CompiledNotation] = field(default_factory=NodeTable)
    # Frame sizes of every body (functions, traits, defaults, notations).
    nlocals: NodeTable[Body, int] = field(default_factory=NodeTable)
    # Call graph by body name, and the bodies that pause or call through values.
    call_graph: dict[str, set[str]] = field(default_factory=dict)
    uses_value_calls: set[str] = field(default_factory=set)
    choosers: set[str] = field(default_factory=set)
    # Cell analysis per (overload set, arity), for run-time dispatch order
    # (docs/reference/gambit.md#overloads).
    overload_sets: dict[tuple[str, int], CellAnalysis] = field(default_factory=dict)
