"""Run-time values of Gambit programs and their display forms
(docs/reference/gambit.md#display-forms).

Every value is immutable, so a value can be shared between forks of a machine and
value semantics (docs/reference/gambit.md#types) come for free: lists are Python tuples and a place
update builds a new tuple. The representation:

* int, num, bool, str, none -> Python int, float, bool, str, None;
* enum member -> `EnumVal`; multi-value of two or more members -> `frozenset` of
  `EnumVal` (a one-member set *is* that member, an empty one is none);
* entity instance -> `Inst`; list -> `tuple`; struct -> `StructVal`;
* Function/Procedure value -> `FuncVal`.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Iterable
from typing import Any, Final


class NumberTooLong(ValueError):
    """An int too long to show as text."""

    def __init__(self) -> None:
        super().__init__(f"a number of more than {sys.get_int_max_str_digits()} digits cannot be shown")


class EnumVal:
    """An enum member: `enum` is the enum's name, `ordinal` its 1-based position."""

    __slots__ = ("enum", "name", "ordinal")

    def __init__(self, enum: str, name: str, ordinal: int) -> None:
        self.enum = enum
        self.name = name
        self.ordinal = ordinal

    def __repr__(self) -> str:
        return f"{self.enum}.{self.name}"

    @property
    def qualified(self) -> str:
        """The `Suit.HEARTS` form used by state hashing."""
        return f"{self.enum}.{self.name}"


class Inst:
    """An entity instance `Type#k`. Instances are interned: there is one object per
    (type, creation index) in a process, shared by every machine and fork, so equality
    and hashing are object identity (done in C: store reads keyed by instances cost no
    Python call). Unpickling goes through the same table."""

    __slots__ = ("type_name", "index")
    type_name: str
    index: int

    def __new__(cls, type_name: str, index: int) -> Inst:
        key = (type_name, index)
        got = _INTERNED.get(key)
        if got is None:
            got = object.__new__(cls)
            got.type_name = type_name
            got.index = index
            _INTERNED[key] = got
        return got

    def __reduce__(self) -> tuple[type[Inst], tuple[str, int]]:
        return (Inst, (self.type_name, self.index))

    def __copy__(self) -> Inst:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Inst:
        return self

    def __repr__(self) -> str:
        return f"{self.type_name}#{self.index}"

    @property
    def ident(self) -> str:
        """The instance id used in traces, hashes and records: `Card#3`."""
        return f"{self.type_name}#{self.index}"


_INTERNED: dict[tuple[str, int], Inst] = {}


class StructVal:
    """A struct value: its type name, member names in declaration order, and values."""

    __slots__ = ("type_name", "names", "values")

    def __init__(self, type_name: str, names: tuple[str, ...], values: tuple[Any, ...]) -> None:
        self.type_name = type_name
        self.names = names
        self.values = values

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, StructVal)
            and other.type_name == self.type_name
            and all(values_equal(a, b) for a, b in zip(self.values, other.values, strict=True))
        )

    def __hash__(self) -> int:
        return hash((self.type_name, self.names))

    def get(self, name: str) -> Any:
        """Return member `name`."""
        return self.values[self.names.index(name)]

    def replace(self, name: str, value: Any) -> StructVal:
        """Return a copy with member `name` set to `value`."""
        i = self.names.index(name)
        return StructVal(self.type_name, self.names, self.values[:i] + (value,) + self.values[i + 1 :])

    def __repr__(self) -> str:
        return display(self)


class FuncVal:
    """A Function/Procedure value: the name of a user overload set
    (docs/reference/gambit.md#functions-and-procedures)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FuncVal) and other.name == self.name

    def __hash__(self) -> int:
        return hash(("fn", self.name))

    def __repr__(self) -> str:
        return self.name


class _Unset:
    """Marker for a state value with no default and no zero value, never written."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "UNSET"


UNSET: Final = _Unset()


def make_multi(members: Iterable[EnumVal]) -> Any:
    """Normalise a set of enum members: none when empty, the member when single."""
    s = frozenset(members)
    if not s:
        return None
    if len(s) == 1:
        return next(iter(s))
    return s


def multi_members(v: Any) -> list[EnumVal]:
    """The members of a multi-value (or single member, or none) in declaration order."""
    if v is None:
        return []
    if isinstance(v, EnumVal):
        return [v]
    return sorted(v, key=lambda e: (e.enum, e.ordinal))


def values_equal(a: Any, b: Any) -> bool:
    """Gambit `==` (docs/reference/gambit.md#expressions): numeric, identity, set, structural and
    name equality."""
    if a is b:
        return True
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, tuple):
        return (
            isinstance(b, tuple)
            and len(a) == len(b)
            and all(values_equal(x, y) for x, y in zip(a, b, strict=True))
        )
    return bool(a == b)


def is_superset(a: Any, b: Any) -> bool:
    """The `is` value test (docs/reference/gambit.md#multi-values): every member of `b` is a member
    of `a`."""
    if isinstance(b, (EnumVal, frozenset)) and isinstance(a, (EnumVal, frozenset)):
        return set(multi_members(b)) <= set(multi_members(a))
    return values_equal(a, b)


def quote(s: str) -> str:
    """A string's display inside lists and structs: double-quoted, escaped."""
    body = s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{body}"'


NameHook = Callable[[Inst], "str | None"]


def display(v: Any, name_of: NameHook | None = None, nested: bool = False) -> str:
    """The display form of a value (docs/reference/gambit.md#display-forms); `name_of` gives an
    entity's `name` property."""
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        try:
            return str(v)
        except ValueError:  # Python's limit on converting huge ints to text
            raise NumberTooLong() from None
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, str):
        return quote(v) if nested else v
    if isinstance(v, EnumVal):
        return v.name
    if isinstance(v, frozenset):
        return "&".join(m.name for m in multi_members(v))
    if isinstance(v, Inst):
        if name_of is not None:
            name = name_of(v)
            if name is not None:
                return name
        if v.type_name == "Player":
            return f"Player {v.index}"
        return v.ident
    if isinstance(v, tuple):
        return "[" + ", ".join(display(x, name_of, True) for x in v) + "]"
    if isinstance(v, StructVal):
        inner = ", ".join(
            f"{n}: {display(x, name_of, True)}" for n, x in zip(v.names, v.values, strict=True)
        )
        return f"{v.type_name}({inner})"
    if isinstance(v, FuncVal):
        return v.name
    return str(v)


def check_number(x: float) -> bool:
    """True when a float result is finite (infinities and NaN are run-time errors)."""
    return math.isfinite(x)
