"""Chespel classes (docs/reference/chespel.md#classes): the ten base classes and list classes, as
static types.

A class is either a `Base` member (`Base.NUM`, `Base.PIECE`, ...) or a `ListOf(element)`;
`ListOf(None)` is the class of the empty list literal, written `[]`
(docs/reference/chespel.md#lists). `str()` of a class is its name as diagnostics print it (`Num`,
`[Piece]`, `[]`).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Base(enum.Enum):
    """The ten classes that are not lists; the value is the class name."""

    BOOL = "Bool"
    NUM = "Num"
    STRING = "String"
    ROW = "Row"
    COL = "Col"
    CELL = "Cell"
    TYPE = "Type"
    PLAYER = "Player"
    COLOR = "Color"
    PIECE = "Piece"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class ListOf:
    """The list class `[X]`; `element` None is the empty-list class `[]`."""

    element: Base | None

    def __str__(self) -> str:
        return "[]" if self.element is None else f"[{self.element}]"


Class = Base | ListOf

EMPTY_LIST = ListOf(None)

# Classes with an implicit numeric value (docs/reference/chespel.md#numeric-value): Row number, Col
# number, Type value.
NUMERIC: frozenset[Base] = frozenset({Base.NUM, Base.ROW, Base.COL, Base.TYPE})

# Classes with `<` (docs/reference/chespel.md#operators); list sorting additionally accepts Piece.
ORDERABLE: frozenset[Base] = frozenset({Base.NUM, Base.ROW, Base.COL, Base.TYPE, Base.CELL})

# Classes that have `==` (docs/reference/chespel.md#operators); lists have it too, String never.
EQUATABLE: frozenset[Base] = frozenset(Base) - {Base.STRING}

# Classes a list may hold (docs/reference/chespel.md#lists: not String, not List).
LISTABLE: frozenset[Base] = frozenset(Base) - {Base.STRING}

BY_NAME: dict[str, Base] = {b.value: b for b in Base}


def parse_class(text: str) -> Class:
    """Read a class name as written in the library table: `Num`, `[Cell]` or `[]`."""
    text = text.strip()
    if text == "[]":
        return EMPTY_LIST
    if text.startswith("[") and text.endswith("]"):
        return ListOf(BY_NAME[text[1:-1]])
    return BY_NAME[text]


def is_numeric(cls: Class) -> bool:
    """True for Num and the classes that convert to Num
    (docs/reference/chespel.md#numeric-value)."""
    return isinstance(cls, Base) and cls in NUMERIC


def is_list(cls: Class) -> bool:
    """True for every list class, `[]` included."""
    return isinstance(cls, ListOf)


def lists_compatible(a: ListOf, b: ListOf) -> bool:
    """`[X]` with `[X]`, or either is `[]` (docs/reference/chespel.md#lists)."""
    return a.element is None or b.element is None or a.element == b.element


def common_list(a: ListOf, b: ListOf) -> ListOf:
    """The class of `a ++ b` for compatible lists: the non-empty one wins."""
    return a if a.element is not None else b


def fits(expected: Class, actual: Class) -> bool:
    """Argument passing: Num parameters take Num* (docs/reference/chespel.md#numeric-value); list
    parameters take `[]`."""
    if expected == actual:
        return True
    if expected is Base.NUM and is_numeric(actual):
        return True
    if isinstance(expected, ListOf) and isinstance(actual, ListOf):
        return lists_compatible(expected, actual)
    return False


_ARITH = frozenset({"+", "-", "*", "/"})
_ORDER = frozenset({"<", ">", "<=", ">="})
_RELATIVE = frozenset({"*<", "*>", "*<=", "*>="})


def binary_class(op: str, left: Class, right: Class) -> Class | None:
    """The class of `left op right` (docs/reference/chespel.md#operators), or None when the operator
    does not apply."""
    if op in _ARITH:
        return Base.NUM if is_numeric(left) and is_numeric(right) else None
    if op in _ORDER:
        same = left == right and isinstance(left, Base) and left in ORDERABLE
        mixed = (left is Base.NUM and is_numeric(right)) or (right is Base.NUM and is_numeric(left))
        return Base.BOOL if same or mixed else None
    if op in _RELATIVE:
        return Base.BOOL if left is Base.ROW and right is Base.ROW else None
    if op in ("==", "!="):
        if isinstance(left, ListOf) and isinstance(right, ListOf):
            return Base.BOOL if lists_compatible(left, right) else None
        if isinstance(left, Base) and isinstance(right, Base):
            if left == right and left in EQUATABLE:
                return Base.BOOL
            if (left is Base.NUM and is_numeric(right)) or (right is Base.NUM and is_numeric(left)):
                return Base.BOOL
        return None
    if op == "in":
        if isinstance(left, Base) and left in LISTABLE and isinstance(right, ListOf):
            return Base.BOOL if right.element in (None, left) else None
        return None
    if op in ("and", "or"):
        return Base.BOOL if left is Base.BOOL and right is Base.BOOL else None
    # '++' (docs/reference/chespel.md#string-forms)
    if isinstance(left, ListOf) and isinstance(right, ListOf):
        return common_list(left, right) if lists_compatible(left, right) else None
    if isinstance(left, ListOf) or isinstance(right, ListOf):
        other = right if isinstance(left, ListOf) else left
        return Base.STRING if other is Base.STRING else None
    return Base.STRING
