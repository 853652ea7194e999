"""Typed, immutable syntax tree of a CQL query; every node keeps its source span."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

#: The eight ray directions as (file step, rank step), as seen by White (docs/reference/cql.md#ray).
DIRECTION_STEPS = {
    "up": (0, 1),
    "down": (0, -1),
    "left": (-1, 0),
    "right": (1, 0),
    "northeast": (1, 1),
    "northwest": (-1, 1),
    "southeast": (1, -1),
    "southwest": (-1, -1),
}


@dataclass(frozen=True)
class Span:
    """A 1-based source position plus the length of the token it names (for the caret)."""

    line: int
    column: int
    length: int = 1


@dataclass(frozen=True)
class Node:
    """Base of every filter node."""

    span: Span


@dataclass(frozen=True)
class Designator(Node):
    """A piece designator: piece letters (None = any content) intersected with squares.

    `pieces` holds the piece characters of docs/reference/cql.md#query-structure
    (`KQRBNPkqrbnpAa_`), `squares` a 64-bit mask (None when the designator has no square part).
    `text` is the source spelling.
    """

    pieces: str | None
    squares: int | None
    text: str


@dataclass(frozen=True)
class IntLit(Node):
    """A non-negative integer literal."""

    value: int


@dataclass(frozen=True)
class StrLit(Node):
    """A string literal (escapes already resolved)."""

    value: str


@dataclass(frozen=True)
class Var(Node):
    """A reference to a variable by name."""

    name: str


@dataclass(frozen=True)
class CaptureRef(Node):
    """`\\n`: group n of the most recent successful `~~`."""

    group: int


@dataclass(frozen=True)
class Filter(Node):
    """A filter of the filter table (filters.py): `check`, `light S`, `between (S T)`, ..."""

    name: str
    args: tuple[Node, ...] = ()


@dataclass(frozen=True)
class Move(Node):
    """`move` with its parameters; `first` is the first of from/to/capture written."""

    mode: str  # "played", "previous", "legal" or "pseudolegal"
    from_: Node | None = None
    to: Node | None = None
    capture: Node | None = None
    promote: Node | None = None
    enpassant: bool = False
    castle: str | None = None  # "o-o", "o-o-o" or "castle"
    null: bool = False
    count: bool = False
    first: str | None = None
    branch: str | None = None  # "primary" (main continuations) or "secondary" (variations)


@dataclass(frozen=True)
class Pin(Node):
    """`pin [from S] [through T] [to U]`; `first` selects the value (docs/reference/cql.md#pin)."""

    from_: Node | None = None
    through: Node | None = None
    to: Node | None = None
    first: str | None = None


@dataclass(frozen=True)
class Ray(Node):
    """`ray [DIR ...] (S1 ... Sn)`; `directions` are the 8 compass names after expansion."""

    directions: tuple[str, ...]
    args: tuple[Node, ...]


@dataclass(frozen=True)
class Direction(Node):
    """`DIR [m [n]] S`: the squares m..n steps from S in the directions (default 1..7)."""

    directions: tuple[str, ...]
    low: int
    high: int
    operand: Node


@dataclass(frozen=True)
class Unary(Node):
    """A prefix operator: not - ~ #."""

    op: str
    operand: Node


@dataclass(frozen=True)
class Binary(Node):
    """A binary operator; `span` points at the operator token."""

    op: str
    left: Node
    right: Node


@dataclass(frozen=True)
class Subscript(Node):
    """`S[i]` (stop is None and not is_slice) or `S[i:j]` (either bound may be None)."""

    target: Node
    start: Node | None
    stop: Node | None
    is_slice: bool


@dataclass(frozen=True)
class AtPosition(Node):
    """`P : F` — evaluate F with position P as the current position."""

    position: Node
    body: Node


@dataclass(frozen=True)
class Assign(Node):
    """An assignment; `op` is `=`, `=?`, `+=`, ...; `target` is a Var or a Subscript."""

    op: str
    target: Node
    value: Node
    piece: bool = False
    persistent: bool = False
    quiet: bool = False
    #: `atomic x = ...`: inside a `path`, x's value follows the branch being tried.
    atomic: bool = False


@dataclass(frozen=True)
class Unbind(Node):
    """`unbind X` (the variable becomes unbound) or `unbind D[K]` (the entry is removed)."""

    target: Node


@dataclass(frozen=True)
class DictDecl(Node):
    """`[persistent [quiet] | local] dictionary NAME` or `dictionary NAME[KEY] = VALUE`."""

    name: str
    name_span: Span
    persistent: bool = False
    quiet: bool = False
    init: Node | None = None
    #: `local dictionary`: emptied at the start of each game (a plain one keeps its entries
    #: for the whole run, as in CQL 6.2)
    local: bool = False


@dataclass(frozen=True)
class Compound(Node):
    """`{ F1 ... Fn }` — or the query body itself."""

    elements: tuple[Node, ...]


@dataclass(frozen=True)
class If(Node):
    """`if C [then] A [else B]`."""

    cond: Node
    then: Node
    else_: Node | None


@dataclass(frozen=True)
class Transform(Node):
    """A transform prefix (`flipcolor`, `flip`, ..., `shift*`), optionally with `count`."""

    kind: str
    count: bool
    body: Node


@dataclass(frozen=True)
class Variants(Node):
    """A transform after expansion: the variants g(F), identity first (transforms.py)."""

    count: bool
    variants: tuple[Node, ...]


@dataclass(frozen=True)
class LineItem(Node):
    """One `line` constituent: a filter or a group of constituents, with a repetition."""

    filter: Node | None
    group: tuple[LineItem, ...] | None
    low: int = 1
    high: int | None = 1  # None = unbounded


@dataclass(frozen=True)
class Line(Node):
    """`line --> C1 --> C2 ...` (forward) or `line <-- ...` (backward)."""

    backward: bool
    items: tuple[LineItem, ...]
    #: `firstmatch`, `lastposition`, `singlecolor`, `nestban`, `primary`, `secondary`.
    params: frozenset[str] = frozenset()
    #: `line LO [HI] --> ...`: the match must consume LO..HI positions.
    low: int | None = None
    high: int | None = None


@dataclass(frozen=True)
class PathStep(Node):
    """One `path` constituent (docs/reference/cql.md#path).

    `kind` is "move" (`S--T` or `S[x]T` with its target filters, tested after the move),
    "filter" (a filter tested where the path stands) or "group" (`( ... )`).
    """

    kind: str
    left: Node | None = None
    right: Node | None = None
    capture: bool = False
    #: `--=Q`: the promotion piece letters (a designator without squares).
    promote: Node | None = None
    #: move: the filters tested at the position after the move; filter: the one filter.
    targets: tuple[Node, ...] = ()
    steps: tuple[PathStep, ...] = ()
    low: int = 1
    high: int | None = 1  # None = unbounded


@dataclass(frozen=True)
class Path(Node):
    """`path [PARAMETERS] C1 C2 ...` (CQL 6.2, also written `⊢`)."""

    steps: tuple[PathStep, ...]
    #: `quiet`, `firstmatch`, `lastposition`, `nestban`, `primary`, `singlecolor`,
    #: `verbose`, `keepallbest`, `piecepath`.
    params: frozenset[str] = frozenset()
    focus: Node | None = None
    focus_capture: bool = False
    low: int | None = None
    high: int | None = None
    title: str | None = None
    maximize: Node | None = None


@dataclass(frozen=True)
class Find(Node):
    """`find [<--] [all | LO [HI]] F`."""

    backward: bool
    all: bool
    low: int | None
    high: int | None
    body: Node
    quiet: bool = False  # no automatic "found" comments


@dataclass(frozen=True)
class Echo(Node):
    """`echo (S T) [in all] F`."""

    source: str
    target: str
    in_all: bool
    body: Node
    names_span: Span = field(default=Span(0, 0))
    quiet: bool = False  # no automatic "echo target" comments


@dataclass(frozen=True)
class Iterate(Node):
    """`square [all] X in S F` or `piece [all] X in S F`."""

    kind: str  # "square" or "piece"
    all: bool
    var: str
    var_span: Span
    domain: Node
    body: Node


@dataclass(frozen=True)
class Sort(Node):
    """`sort [min|max] ["DOC"] N`."""

    minimum: bool
    doc: str
    body: Node


@dataclass(frozen=True)
class Emit(Node):
    """`comment(...)`, `message(...)` (logical) or `str(...)` (string)."""

    kind: str
    args: tuple[Node, ...]


@dataclass(frozen=True)
class MaxMin(Node):
    """`max(...)` or `min(...)`."""

    op: str
    args: tuple[Node, ...]


@dataclass(frozen=True)
class GameInfo(Node):
    """A tag filter: player/event/site/date/eco/elo/year/result, with colour or literal."""

    field: str
    color: str | None = None
    literal: str | None = None


@dataclass(frozen=True)
class TransformName(Node):
    """`currenttransform` inside transforms, after their expansion: the names of the
    transform elements that made this variant, outermost first (identities left out)."""

    names: tuple[str, ...]


@dataclass(frozen=True)
class OriginalComment(Node):
    """`originalcomment ["lit"]`."""

    literal: str | None


@dataclass(frozen=True)
class IsBound(Node):
    """`isbound X` / `isunbound X`."""

    name: str
    negate: bool


@dataclass(frozen=True)
class FunctionDef(Node):
    """`function NAME(P1 ... Pk) { BODY }` (top level only)."""

    name: str
    params: tuple[str, ...]
    body: tuple[Node, ...]
    top_level: bool = True


@dataclass(frozen=True)
class Call(Node):
    """`NAME(A1 ... Ak)`."""

    name: str
    args: tuple[Node, ...]


@dataclass(frozen=True)
class Header:
    """The `cql(...)` parameters (docs/reference/cql.md#header)."""

    inputs: tuple[str, ...] = ()
    output: str | None = None
    gamenumber: tuple[int, int | None] | None = None
    matchcount: tuple[int, int | None] | None = None
    sort_matchcount: bool = False
    result: str | None = None
    variations: bool = False
    quiet: bool = False
    silent: bool = False
    matchstring: str = "CQL"


@dataclass(frozen=True)
class Query:
    """A whole query: its header and its body elements."""

    header: Header
    body: tuple[Node, ...]
    end: Span


def children(node: Node) -> Iterator[Node]:
    """The direct sub-nodes of a node, in field order."""
    for value in vars(node).values():
        if isinstance(value, Node):
            yield value
        elif isinstance(value, tuple):
            yield from (v for v in value if isinstance(v, Node))


def walk(nodes: Iterable[Node]) -> Iterator[Node]:
    """Every node of the given trees (each tree's root included), depth first."""
    stack = list(nodes)
    while stack:
        node = stack.pop()
        yield node
        stack.extend(children(node))
