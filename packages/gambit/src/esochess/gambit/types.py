"""Static types of Gambit (docs/reference/gambit.md#types): representation, subtyping, join and
display."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Prim:
    """int, num, bool, str, none, any, Function, Procedure."""

    name: str


@dataclass(frozen=True)
class EnumT:
    """An enum type."""

    name: str


@dataclass(frozen=True)
class EntityT:
    """An entity type."""

    name: str


@dataclass(frozen=True)
class StructT:
    """A struct type."""

    name: str


@dataclass(frozen=True)
class ListT:
    """`[T]`."""

    elem: Type


@dataclass(frozen=True)
class MultiT:
    """`T!`: non-empty sets of members of the enums in `inner`."""

    inner: Type


@dataclass(frozen=True)
class UnionT:
    """A flattened union; `members` keep their first-seen order for display."""

    members: tuple[Type, ...]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, UnionT) and set(self.members) == set(other.members)

    def __hash__(self) -> int:
        return hash(frozenset(self.members))


@dataclass(frozen=True)
class SelT:
    """A selector type `E<…>` (parameters and patterns); `key` identifies its entries."""

    entity: str
    key: int
    text: str


@dataclass(frozen=True)
class NoValue:
    """The "returns no value" pseudo-type."""


@dataclass(frozen=True)
class ErrT:
    """The type of an expression that already had an error (suppresses follow-ups)."""


Type = Prim | EnumT | EntityT | StructT | ListT | MultiT | UnionT | SelT | NoValue | ErrT

INT = Prim("int")
NUM = Prim("num")
BOOL = Prim("bool")
STR = Prim("str")
NONE = Prim("none")
ANY = Prim("any")
FUNCTION = Prim("Function")
PROCEDURE = Prim("Procedure")
NOVALUE = NoValue()
ERR = ErrT()

ALIASES = {
    "int": INT, "Integer": INT, "num": NUM, "Number": NUM, "bool": BOOL, "Boolean": BOOL,
    "str": STR, "String": STR, "Function": FUNCTION, "Procedure": PROCEDURE,
}  # fmt: skip


def members(t: Type) -> tuple[Type, ...]:
    """The union members of `t` (itself when not a union)."""
    return t.members if isinstance(t, UnionT) else (t,)


def union(types: list[Type]) -> Type:
    """The flattened union of `types` (duplicates dropped)."""
    out: list[Type] = []
    for t in types:
        for m in members(t):
            if m not in out:
                out.append(m)
    if len(out) == 1:
        return out[0]
    return UnionT(tuple(out))


def optional(t: Type) -> Type:
    """`T?`."""
    return union([t, NONE])


def contains_none(t: Type) -> bool:
    """True when `none` is a value of `t`."""
    return t == ANY or any(m == NONE for m in members(t)) or t == ERR


def strip_none(t: Type) -> Type:
    """`t` without `none` (narrowing by a none test)."""
    if t == ANY:
        return ANY
    rest = [m for m in members(t) if m != NONE]
    return union(rest) if rest else NONE


def enums_of(t: Type) -> set[str] | None:
    """The enum names of an enum, multi or union-of-enums type, or None."""
    out: set[str] = set()
    for m in members(t):
        if isinstance(m, EnumT):
            out.add(m.name)
        elif isinstance(m, MultiT):
            inner = enums_of(m.inner)
            if inner is None:
                return None
            out |= inner
        else:
            return None
    return out


def is_subtype(s: Type, t: Type) -> bool:
    """`S <: T` (docs/reference/gambit.md#types)."""
    if s == t or t == ANY or isinstance(s, ErrT) or isinstance(t, ErrT):
        return True
    if isinstance(s, UnionT):
        return all(is_subtype(m, t) for m in s.members)
    if isinstance(t, UnionT):
        if any(is_subtype(s, m) for m in t.members):
            return True
        # A multi-type member of a union also absorbs enum values (`Suit!?|Colour`).
        return False
    if s == INT and t == NUM:
        return True
    if s == FUNCTION and t == PROCEDURE:
        return True
    if isinstance(t, MultiT):
        target = enums_of(t.inner) or set()
        source = enums_of(s)
        return source is not None and source <= target
    if isinstance(s, SelT):
        return isinstance(t, EntityT) and t.name == s.entity
    if isinstance(s, ListT) and isinstance(t, ListT):
        return is_subtype(s.elem, t.elem)
    return False


def join(a: Type, b: Type) -> Type:
    """The join (docs/reference/gambit.md#inference): the wider of two types, or their union."""
    if is_subtype(a, b):
        return b
    if is_subtype(b, a):
        return a
    if isinstance(a, ListT) and isinstance(b, ListT):
        return ListT(join(a.elem, b.elem))
    return union([a, b])


def overlap(a: Type, b: Type) -> bool:
    """True when two types may share a value (for `==`)."""
    if a == ANY or b == ANY or isinstance(a, ErrT) or isinstance(b, ErrT):
        return True
    for x in members(a):
        for y in members(b):
            if is_subtype(x, y) or is_subtype(y, x):
                return True
            if {x, y} <= {INT, NUM}:
                return True
            ex, ey = enums_of(x), enums_of(y)
            if ex is not None and ey is not None and ex & ey:
                return True
            if isinstance(x, SelT) and isinstance(y, EntityT) and x.entity == y.name:
                return True
            if isinstance(x, ListT) and isinstance(y, ListT):
                return True
    return False


def show(t: Type) -> str:
    """A type as messages write it."""
    if isinstance(t, Prim):
        return t.name
    if isinstance(t, (EnumT, EntityT, StructT)):
        return t.name
    if isinstance(t, ListT):
        return f"[{show(t.elem)}]"
    if isinstance(t, MultiT):
        inner = show(t.inner)
        return f"({inner})!" if isinstance(t.inner, UnionT) else f"{inner}!"
    if isinstance(t, UnionT):
        ms = list(t.members)
        if NONE in ms and len(ms) == 2:
            other = ms[0] if ms[1] == NONE else ms[1]
            text = show(other)
            return f"({text})?" if isinstance(other, UnionT) else f"{text}?"
        return "|".join(show(m) for m in ms)
    if isinstance(t, SelT):
        return t.text
    if isinstance(t, NoValue):
        return "no value"
    return "?"


def element_type(t: Type) -> Type | None:
    """The element type when `t` can be iterated (lists, str, multi), else None."""
    if isinstance(t, ListT):
        return t.elem
    if t == STR:
        return STR
    if isinstance(t, MultiT):
        return union([EnumT(e) for e in sorted(enums_of(t.inner) or ())])
    if isinstance(t, UnionT) and NONE in t.members:
        # `T!?` iterates like T! (none is the empty set).
        rest = strip_none(t)
        if isinstance(rest, MultiT):
            return element_type(rest)
    if isinstance(t, ErrT):
        return ERR
    return None
