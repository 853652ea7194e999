"""The Chespel built-in library (docs/reference/chespel.md#built-in-functions) as ONE table of data,
and method resolution (docs/reference/chespel.md#aggregation).

Both the checker and the code generator read this module; nothing else lists built-ins.

The table
---------
`LIBRARY` is a tuple of `Entry`. One entry is one signature of one function:

* `receiver`: the class name that owns the method (`"Piece"`, `"Row"`, ...), `"List"` for
  the list methods of docs/reference/chespel.md#lib-lists, or None for the true global functions of
  docs/reference/chespel.md#lib-global.
* `name`, `aliases`: the name and its aliases (docs/reference/chespel.md#built-in-functions). An
  alias is the same entry: it resolves to the same `Entry` object, so the back end implements each
  entry once.
* `params`, `returns`: class names as written in the spec (`"Num"`, `"[Cell]"`). In list
  methods and in the global `in`, `"X"` is the element class and `"[X]"` a list of it.
* `key`: a unique, stable identifier such as `"Piece.coveredBy"`, `"Type.pieces/1"`,
  `"List.sum"`, `"global.min"`. Overloads (Row.rank, Type.pieces) differ by the `/N`
  arity suffix of the second signature. The back end maps `key` to its run-time function.
* `element`: for list methods, what the element class must be (`"orderable"`: Num, Row,
  Col, Type, Cell or Piece; `"numeric"`: Num, Row, Col, Type; `"bool"`: Bool), else None.
* `on_empty`: for list methods, whether the method may be called on the empty-list class
  `[]` (docs/reference/chespel.md#lists: length, empty, tail, nub, sort, reverseSort).
* `ranges`: for E41, per parameter index, the accepted constant values in milli-units
  (`ArgRange`); checked only when the argument is a constant expression.
* `core`: the ★ core set of docs/reference/chespel.md#built-in-functions; `cost`: `c`, `a` or `m`
  (docs/reference/chespel.md#built-in-functions).

Method resolution
-----------------
`resolve_method(cls, name)` applies docs/reference/chespel.md#aggregation (own method, component
accessor chain, ambiguity) to a non-list class and returns a `Resolved` (entries reachable through
`path`, a tuple of component-accessor entries to apply to the receiver first: `p.value` resolves to
path `(Piece.type,)` and entry `Type.value`), an `Ambiguous` (for E26) or None (E25).
List classes are handled by the checker (own List methods first, then lifting,
docs/reference/chespel.md#lists).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from esochess.chespel.classes import NUMERIC, ORDERABLE, Base, Class, ListOf, parse_class


@dataclass(frozen=True)
class ArgRange:
    """Allowed constant values of one argument, in milli-units, inclusive."""

    low: int
    high: int | None
    integer: bool = True

    def accepts(self, millis: int) -> bool:
        """True when the constant value `millis` (thousandths) is allowed."""
        if self.integer and millis % 1000 != 0:
            return False
        return millis >= self.low and (self.high is None or millis <= self.high)


@dataclass(frozen=True)
class Entry:
    """One signature of one built-in function (see the module docstring)."""

    receiver: str | None
    name: str
    params: tuple[str, ...]
    returns: str
    cost: str
    core: bool = False
    aliases: tuple[str, ...] = ()
    element: str | None = None
    on_empty: bool = False
    ranges: tuple[tuple[int, ArgRange], ...] = ()
    key: str = field(default="", compare=False)

    @property
    def arity(self) -> int:
        """Number of parameters, the receiver excluded."""
        return len(self.params)

    @property
    def names(self) -> tuple[str, ...]:
        """The name followed by its aliases."""
        return (self.name, *self.aliases)

    def range_of(self, index: int) -> ArgRange | None:
        """The E41 range of parameter `index` (0-based), if any."""
        for i, rng in self.ranges:
            if i == index:
                return rng
        return None

    def param_class(self, index: int, element: Class | None = None) -> Class | None:
        """Class of parameter `index`; `X` is replaced by `element` (None if unknown)."""
        return _instantiate(self.params[index], element)

    def return_class(self, element: Class | None = None) -> Class | None:
        """Class of the result; `X` is replaced by `element` (None if unknown)."""
        return _instantiate(self.returns, element)


def _instantiate(text: str, element: Class | None) -> Class | None:
    if text == "X":
        return element
    if text == "[X]":
        if element is None:
            return ListOf(None)
        return ListOf(element) if isinstance(element, Base) else None
    return parse_class(text)


RANK_1_8 = ArgRange(1000, 8000)
INDEX = ArgRange(0, None)


def _e(
    receiver: str | None,
    name: str,
    params: str,
    returns: str,
    cost: str = "c",
    *,
    core: bool = False,
    aliases: tuple[str, ...] = (),
    element: str | None = None,
    on_empty: bool = False,
    ranges: tuple[tuple[int, ArgRange], ...] = (),
) -> Entry:
    plist = tuple(p.strip() for p in params.split(",") if p.strip())
    return Entry(receiver, name, plist, returns, cost, core, aliases, element, on_empty, ranges)


# The whole library of docs/reference/chespel.md#built-in-functions, in the order of the spec's
# tables.
_TABLE: tuple[Entry, ...] = (
    # docs/reference/chespel.md#lib-global true global functions
    _e(None, "abs", "Num", "Num", core=True),
    _e(None, "in", "X, [X]", "Bool", core=True),
    _e(None, "min", "Num, Num", "Num"),
    _e(None, "max", "Num, Num", "Num"),
    _e(None, "row", "Num", "Row", ranges=((0, RANK_1_8),)),
    _e(None, "col", "Num", "Col", ranges=((0, RANK_1_8),)),
    _e(None, "cell", "Col, Row", "Cell"),
    _e(None, "allPieces", "", "[Piece]"),
    _e(None, "allCells", "", "[Cell]"),
    _e(None, "phaseMaterial", "", "Num"),
    _e(None, "inEndgame", "", "Bool"),
    _e(None, "turn", "", "Color"),
    # docs/reference/chespel.md#lib-row Row
    _e("Row", "cells", "", "[Cell]"),
    _e("Row", "pieces", "", "[Piece]"),
    _e("Row", "rank", "", "Num", core=True),
    _e("Row", "rank", "Player", "Num"),
    _e("Row", "number", "", "Num"),
    # docs/reference/chespel.md#lib-col Col
    _e("Col", "cells", "", "[Cell]"),
    _e("Col", "pieces", "", "[Piece]"),
    _e("Col", "number", "", "Num"),
    _e("Col", "pawns", "Player", "[Piece]"),
    _e("Col", "open", "", "Bool"),
    _e("Col", "halfOpen", "", "Bool"),
    _e("Col", "halfOpenFor", "Player", "Bool"),
    _e("Col", "closed", "", "Bool"),
    _e("Col", "isQueenSide", "", "Bool"),
    _e("Col", "isKingSide", "", "Bool"),
    _e("Col", "isCenter", "", "Bool"),
    _e("Col", "startingType", "", "Type"),
    # docs/reference/chespel.md#lib-cell Cell
    _e("Cell", "row", "", "Row", core=True),
    _e("Cell", "col", "", "Col", core=True),
    _e("Cell", "pos", "", "Cell", core=True),
    _e("Cell", "pieces", "", "[Piece]", core=True),
    _e("Cell", "occupied", "", "Bool"),
    _e("Cell", "occupiedBy", "Player", "Bool"),
    _e("Cell", "color", "", "Color"),
    _e("Cell", "inCenter", "", "Bool"),
    _e("Cell", "inExpandedCenter", "", "Bool"),
    _e("Cell", "inLongDiagonal", "", "Bool"),
    _e("Cell", "diagonal", "", "[Cell]"),
    _e("Cell", "adjacent", "", "[Cell]"),
    _e("Cell", "distance", "Cell", "Num"),
    _e("Cell", "guarded", "", "Bool", "a"),
    _e("Cell", "threatened", "", "Bool", "a"),
    _e("Cell", "attackedBy", "Player", "[Piece]", "a"),
    _e("Cell", "enPassant", "", "Bool"),
    # docs/reference/chespel.md#lib-type Type
    _e("Type", "value", "", "Num", core=True),
    _e("Type", "pieces", "", "[Piece]", core=True),
    _e("Type", "pieces", "Player", "[Piece]"),
    _e("Type", "alive", "Player", "Num"),
    _e("Type", "startingPos", "Color", "[Cell]"),
    _e("Type", "movesStraight", "", "Bool"),
    _e("Type", "movesDiagonal", "", "Bool"),
    _e("Type", "major", "", "Bool"),
    _e("Type", "minor", "", "Bool"),
    # docs/reference/chespel.md#lib-color Color
    _e("Color", "player", "", "Player"),
    _e("Color", "other", "", "Color"),
    _e("Color", "hasTurn", "", "Bool"),
    _e("Color", "cells", "", "[Cell]"),
    _e("Color", "pieces", "", "[Piece]"),
    # docs/reference/chespel.md#lib-player Player
    _e("Player", "pieces", "", "[Piece]", core=True),
    _e("Player", "color", "", "Color"),
    _e("Player", "other", "", "Player"),
    _e("Player", "hasTurn", "", "Bool"),
    _e("Player", "king", "", "Piece"),
    _e("Player", "check", "", "Bool", "a", core=True, aliases=("underCheck",)),
    _e("Player", "underDoubleCheck", "", "Bool", "a"),
    _e("Player", "makesCheck", "", "Bool", "a"),
    _e("Player", "makesDoubleCheck", "", "Bool", "a"),
    _e("Player", "castled", "", "Bool", core=True),
    _e("Player", "castledSide", "Type", "Bool", core=True),
    _e("Player", "canCastle", "", "Bool", "m"),
    _e("Player", "hasCastlingAbility", "", "Bool"),
    _e("Player", "totalValue", "", "Num", core=True),
    _e("Player", "valueBalance", "", "Num"),
    _e("Player", "mobility", "", "Num", "m"),
    _e("Player", "rank", "Num", "Row", ranges=((0, RANK_1_8),)),
    _e("Player", "homeRank", "", "Row", aliases=("homeRow",)),
    _e("Player", "advancedPawns", "", "[Piece]"),
    _e("Player", "isolatedPawns", "", "[Piece]"),
    _e("Player", "doubledPawns", "", "[Piece]"),
    _e("Player", "backwardPawns", "", "[Piece]", "a"),
    _e("Player", "passedPawns", "", "[Piece]"),
    _e("Player", "guardedPieces", "", "[Piece]", "a"),
    _e("Player", "exposedPieces", "", "[Piece]", "a"),
    _e("Player", "hangingPieces", "", "[Piece]", "a"),
    _e("Player", "pinnedPieces", "", "[Piece]", "a"),
    _e("Player", "bishopPair", "", "Bool"),
    _e("Player", "connectedRocks", "", "Bool", aliases=("connectedRooks",)),
    _e("Player", "battery", "", "Bool", "a"),
    # docs/reference/chespel.md#lib-piece Piece
    _e("Piece", "player", "", "Player", core=True),
    _e("Piece", "type", "", "Type", core=True),
    _e("Piece", "cell", "", "Cell", core=True),
    _e("Piece", "color", "", "Color"),
    _e("Piece", "rank", "", "Num"),
    _e("Piece", "startingRow", "", "Row", core=True),
    _e("Piece", "visibleCells", "", "[Cell]", "a", core=True),
    _e("Piece", "moves", "", "[Cell]", "m"),
    _e("Piece", "numberOfMoves", "", "Num", "m", aliases=("mobility",)),
    _e("Piece", "emptyCellMoves", "", "[Cell]", "m"),
    _e("Piece", "threatens", "", "[Piece]", "a", core=True, aliases=("threatenedPieces",)),
    _e("Piece", "threatenedBy", "", "[Piece]", "a", core=True, aliases=("attackedBy",)),
    _e("Piece", "covers", "", "[Piece]", "a", core=True, aliases=("coveredPieces",)),
    _e("Piece", "coveredBy", "", "[Piece]", "a", core=True),
    _e("Piece", "singleCoveredPieces", "", "[Piece]", "a"),
    _e("Piece", "threatenedHangedPieces", "", "[Piece]", "a"),
    _e("Piece", "reachablePieces", "", "[Piece]", "a"),
    _e("Piece", "reachedBy", "", "[Piece]", "a"),
    _e("Piece", "guarded", "", "Bool", "a"),
    _e("Piece", "exposed", "", "Bool", "a"),
    _e("Piece", "threatened", "", "Bool", "a"),
    _e("Piece", "hanged", "", "Bool", "a", aliases=("hanging",)),
    _e("Piece", "makesCheck", "", "Bool", "a"),
    _e("Piece", "absolutePinned", "", "Bool", "a"),
    _e("Piece", "pinned", "", "Bool", "a"),
    _e("Piece", "fork", "", "Bool", "a"),
    _e("Piece", "isolatedPawn", "", "Bool"),
    _e("Piece", "doubledPawn", "", "Bool"),
    _e("Piece", "passedPawn", "", "Bool"),
    _e("Piece", "backwardPawn", "", "Bool", "a"),
    _e("Piece", "advancedPawn", "", "Bool"),
    _e("Piece", "enPassantPawn", "", "Bool"),
    _e("Piece", "badBishop", "", "Bool"),
    _e("Piece", "blackCellBishop", "", "Bool"),
    _e("Piece", "whiteCellBishop", "", "Bool"),
    # docs/reference/chespel.md#lib-lists List [X]
    _e("List", "length", "", "Num", core=True, on_empty=True),
    _e("List", "empty", "", "Bool", core=True, on_empty=True),
    _e("List", "head", "", "X"),
    _e("List", "last", "", "X"),
    _e("List", "elem", "Num", "X", ranges=((0, INDEX),)),
    _e("List", "tail", "", "[X]", on_empty=True),
    _e("List", "nub", "", "[X]", on_empty=True),
    _e("List", "min", "", "X", element="orderable"),
    _e("List", "max", "", "X", element="orderable"),
    _e("List", "sort", "", "[X]", element="orderable", on_empty=True),
    _e("List", "reverseSort", "", "[X]", element="orderable", on_empty=True),
    _e("List", "sum", "", "Num", core=True, element="numeric"),
    _e("List", "product", "", "Num", element="numeric"),
    _e("List", "all", "", "Bool", element="bool"),
    _e("List", "any", "", "Bool", element="bool"),
)


def _with_keys(table: tuple[Entry, ...]) -> tuple[Entry, ...]:
    seen: dict[tuple[str, str], int] = {}
    out: list[Entry] = []
    for entry in table:
        owner = entry.receiver or "global"
        count = seen.get((owner, entry.name), 0)
        seen[(owner, entry.name)] = count + 1
        key = f"{owner}.{entry.name}" + (f"/{entry.arity}" if count else "")
        out.append(replace(entry, key=key))
    return tuple(out)


LIBRARY: tuple[Entry, ...] = _with_keys(_TABLE)

BY_KEY: dict[str, Entry] = {e.key: e for e in LIBRARY}

# Aggregation (docs/reference/chespel.md#aggregation): the components of each aggregate, in the
# order the spec lists them. Each component is reached through the aggregate's accessor entry of the
# same name.
COMPONENTS: dict[str, tuple[tuple[str, str], ...]] = {
    "Cell": (("row", "Row"), ("col", "Col")),
    "Piece": (("player", "Player"), ("type", "Type"), ("cell", "Cell")),
}


def _index() -> dict[tuple[str | None, str], tuple[Entry, ...]]:
    table: dict[tuple[str | None, str], list[Entry]] = {}
    for entry in LIBRARY:
        for name in entry.names:
            table.setdefault((entry.receiver, name), []).append(entry)
    return {k: tuple(v) for k, v in table.items()}


_BY_NAME = _index()


def own(receiver: str | None, name: str) -> tuple[Entry, ...]:
    """The signatures `receiver` itself defines under `name` (aliases included).

    `receiver` is a class name, `"List"`, or None for the true globals.
    """
    return _BY_NAME.get((receiver, name), ())


def globals_named(name: str) -> tuple[Entry, ...]:
    """The true global functions (docs/reference/chespel.md#lib-global) called `name`."""
    return own(None, name)


def entries_of(receiver: str | None) -> Iterator[Entry]:
    """Every entry a receiver defines (None: the true globals), in table order."""
    return (e for e in LIBRARY if e.receiver == receiver)


@dataclass(frozen=True)
class Resolved:
    """`name` found on a class: apply `path` (accessor entries) to the receiver, then one
    of `entries` (several only for overloads such as Row.rank; pick one by arity).

    `via` names the class that actually defines the entries.
    """

    path: tuple[Entry, ...]
    entries: tuple[Entry, ...]
    via: str


@dataclass(frozen=True)
class Ambiguous:
    """`name` is ambiguous on the class (docs/reference/chespel.md#aggregation rule 4): `providers`
    for the E26 message."""

    providers: tuple[str, ...]


def resolve_method(cls: Base, name: str) -> Resolved | Ambiguous | None:
    """Resolve `name` on a non-list class by docs/reference/chespel.md#aggregation (own method,
    inheritance, ambiguity)."""
    return _resolve(cls.value, name)


def _resolve(owner: str, name: str) -> Resolved | Ambiguous | None:
    mine = own(owner, name)
    if mine:
        return Resolved((), mine, owner)
    found: list[tuple[str, Resolved | Ambiguous]] = []
    for accessor, component in COMPONENTS.get(owner, ()):
        inner = _resolve(component, name)
        if inner is not None:
            found.append((accessor, inner))
    if not found:
        return None
    if len(found) == 1:
        accessor, inner = found[0]
        if isinstance(inner, Ambiguous):
            return inner
        step = own(owner, accessor)[0]
        return Resolved((step, *inner.path), inner.entries, inner.via)
    providers = tuple(parse_class_name(owner, accessor) for accessor, _ in found)
    return Ambiguous(providers)


def method_names(cls: Base) -> set[str]:
    """Every method name a value of class `cls` answers to (its components' included)."""
    return _method_names(cls.value)


def _method_names(owner: str) -> set[str]:
    names = {name for receiver, name in _BY_NAME if receiver == owner}
    for _, component in COMPONENTS.get(owner, ()):
        names |= _method_names(component)
    return names


def parse_class_name(owner: str, accessor: str) -> str:
    """The class name of the component of `owner` reached through `accessor`."""
    for acc, component in COMPONENTS[owner]:
        if acc == accessor:
            return component
    raise KeyError(accessor)


def ambiguity_text(providers: tuple[str, ...]) -> str:
    """`A and from B` / `A, from B and from C`, as E26 prints the providers."""
    if len(providers) == 2:
        return f"{providers[0]} and from {providers[1]}"
    head = ", from ".join(providers[:-1])
    return f"{head} and from {providers[-1]}"


def element_accepts(requirement: str | None, element: Class) -> bool:
    """Whether a list method's element requirement holds for element class `element`."""
    if requirement is None:
        return True
    if not isinstance(element, Base):
        return False
    if requirement == "orderable":
        return element in ORDERABLE or element is Base.PIECE
    if requirement == "numeric":
        return element in NUMERIC
    return element is Base.BOOL


_TITLES = {None: "Global functions", "List": "Lists `[X]`"}
_ORDER = (None, "Row", "Col", "Cell", "Type", "Color", "Player", "Piece", "List")


def reference_markdown() -> str:
    """The library as the compact Markdown list of docs/chespel.md (kept in sync by a test)."""
    lines = []
    for receiver in _ORDER:
        items = []
        for entry in entries_of(receiver):
            signature = entry.name + (f"({', '.join(entry.params)})" if entry.params else "")
            signature += "".join(f" = {alias}" for alias in entry.aliases)
            items.append(f"`{signature}` → {entry.returns}")
        lines.append(f"* **{_TITLES.get(receiver, receiver)}**: " + "; ".join(items) + ".")
    return "\n".join(lines)
