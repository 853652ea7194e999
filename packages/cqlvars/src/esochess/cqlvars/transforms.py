"""Transforms as AST rewrites (docs/reference/cql.md#transforms): each transform becomes a
`Variants` node.

A variant g(F) is F with every square part of a designator mapped through g, `ray`
directions mapped through g's linear part and, under `flipcolor`, colours swapped
(pieces, wtm/btm, result, player/elo colour). The board itself is never transformed.
Types computed by the checker are carried over to the rewritten nodes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import chess

from esochess.cqlvars import ast
from esochess.cqlvars.filters import FILTERS

SquareMap = Callable[[int, int], tuple[int, int]]

VECTORS = ast.DIRECTION_STEPS
NAMES = {v: k for k, v in VECTORS.items()}


def _identity(x: int, y: int) -> tuple[int, int]:
    return x, y


def _rot(x: int, y: int) -> tuple[int, int]:
    return y, 7 - x


def _compose(f: SquareMap, g: SquareMap) -> SquareMap:
    return lambda x, y: f(*g(x, y))


def _rotations() -> list[SquareMap]:
    maps: list[SquareMap] = [_identity]
    for _ in range(3):
        maps.append(_compose(_rot, maps[-1]))
    return maps


def _mirror_rank(x: int, y: int) -> tuple[int, int]:
    return x, 7 - y


def _mirror_file(x: int, y: int) -> tuple[int, int]:
    return 7 - x, y


#: The eight directions in turning order, 45 degrees apart (for `rotate45`).
COMPASS = ("up", "northeast", "right", "southeast", "down", "southwest", "left", "northwest")


def group(kind: str, named: int) -> list[tuple[SquareMap, bool]]:
    """The elements (square map, swap colours) of a transform's set G, identity first.

    `rotate45` turns directions only (its elements are told apart by `turns`)."""
    if kind == "flipvertical":
        return [(_identity, False), (_mirror_rank, False)]
    if kind == "fliphorizontal":
        return [(_identity, False), (_mirror_file, False)]
    if kind == "rotate90":
        return [(m, False) for m in _rotations()]
    if kind == "flip":
        rotations = _rotations()
        return [(m, False) for m in rotations] + [
            (_compose(m, _mirror_file), False) for m in rotations
        ]
    if kind == "flipcolor":
        return [(_identity, False), (_mirror_rank, True)]
    if kind == "reversecolor":
        return [(_mirror_rank, True)]
    if kind == "rotate45":
        return [(_identity, False)] * len(COMPASS)
    squares = [sq for sq in chess.SQUARES if named & chess.BB_SQUARES[sq]]
    dxs = range(-7, 8) if kind in ("shift", "shifthorizontal") else range(0, 1)
    dys = range(-7, 8) if kind in ("shift", "shiftvertical") else range(0, 1)
    result: list[tuple[SquareMap, bool]] = [(_identity, False)]
    if not squares:
        return result
    for dy in dys:
        for dx in dxs:
            if (dx, dy) == (0, 0):
                continue
            if all(
                0 <= chess.square_file(sq) + dx < 8 and 0 <= chess.square_rank(sq) + dy < 8
                for sq in squares
            ):
                result.append((_translate(dx, dy), False))
    return result


def _translate(dx: int, dy: int) -> SquareMap:
    return lambda x, y: (x + dx, y + dy)


def named_squares(node: ast.Node) -> int:
    """The union of every explicitly named square in a subtree (for `shift`)."""
    mask = 0
    for item in ast.walk([node]):
        if isinstance(item, ast.Designator) and item.squares is not None:
            mask |= item.squares
    return mask


#: The dihedral maps by the images of the unit vectors along a file and along a rank.
LINEAR_NAMES = {
    ((1, 0), (0, 1)): "",
    ((0, 1), (-1, 0)): "rotate90",
    ((-1, 0), (0, -1)): "rotate180",
    ((0, -1), (1, 0)): "rotate270",
    ((1, 0), (0, -1)): "reflect_v",
    ((-1, 0), (0, 1)): "reflect_h",
    ((0, 1), (1, 0)): "reflect_diagonal",
    ((0, -1), (-1, 0)): "reflect_antidiagonal",
}


def element_name(mapping: SquareMap, swap: bool, turns: int = 0) -> str:
    """How `currenttransform` names one transform element ("" for the identity)."""
    x0, y0 = mapping(0, 0)
    x1, y1 = mapping(1, 0)
    x2, y2 = mapping(0, 1)
    linear = LINEAR_NAMES[((x1 - x0, y1 - y0), (x2 - x0, y2 - y0))]
    parts = [f"rotate45[{45 * turns}]"] if turns else []
    if swap:
        parts.append("reversecolor")
        # the colour reversal includes the reflection about the horizontal bisector
        linear = "" if linear == "reflect_v" else linear
    if linear:
        parts.append(linear)
    elif (x0, y0) != (0, 0) and not swap:
        parts.append(f"shift[{x0:+d},{y0:+d}]")
    return " ".join(parts)


class _Rewriter:
    def __init__(self, mapping: SquareMap, swap: bool, types: dict[int, str], turns: int = 0):
        self.mapping = mapping
        self.swap = swap
        self.types = types
        self.turns = turns
        self.name = element_name(mapping, swap, turns)

    def map_mask(self, mask: int) -> int:
        """The image of a square mask (squares mapped off the board are dropped)."""
        out = 0
        for sq in chess.scan_forward(mask):
            x, y = self.mapping(chess.square_file(sq), chess.square_rank(sq))
            if 0 <= x < 8 and 0 <= y < 8:
                out |= chess.BB_SQUARES[chess.square(x, y)]
        return out

    def map_direction(self, name: str) -> str:
        """The image of a ray direction under the map's linear part."""
        dx, dy = VECTORS[name]
        x0, y0 = self.mapping(3, 3)
        x1, y1 = self.mapping(3 + dx, 3 + dy)
        mapped = NAMES[(x1 - x0, y1 - y0)]
        return COMPASS[(COMPASS.index(mapped) + self.turns) % len(COMPASS)]

    def rewrite(self, node: ast.Node) -> ast.Node:
        """The variant of a subtree, carrying the checker's types over."""
        new = self._rewrite(node)
        if id(node) in self.types:
            self.types[id(new)] = self.types[id(node)]
        return new

    def _rewrite(self, node: ast.Node) -> ast.Node:
        if isinstance(node, ast.Filter) and node.name == "currenttransform":
            return ast.TransformName(node.span, (self.name,) if self.name else ())
        if isinstance(node, ast.TransformName):
            return replace(node, names=(self.name, *node.names) if self.name else node.names)
        if isinstance(node, ast.Designator):
            pieces = node.pieces
            if self.swap and pieces:
                pieces = pieces.swapcase()
            squares = None if node.squares is None else self.map_mask(node.squares)
            return replace(node, pieces=pieces, squares=squares)
        if self.swap and isinstance(node, ast.Filter):
            reversed_name = FILTERS[node.name].reversed
            if reversed_name is not None:
                node = replace(node, name=reversed_name)
        if self.swap and isinstance(node, ast.GameInfo):
            color = {"white": "black", "black": "white"}.get(node.color or "", node.color)
            literal = node.literal
            if node.field == "result":
                literal = {"1-0": "0-1", "0-1": "1-0"}.get(literal or "", literal)
            return replace(node, color=color, literal=literal)
        changes: dict[str, object] = {}
        if isinstance(node, (ast.Ray, ast.Direction)):
            changes["directions"] = tuple(self.map_direction(d) for d in node.directions)
        for key, value in vars(node).items():
            if isinstance(value, ast.Node):
                changes[key] = self.rewrite(value)
            elif isinstance(value, tuple) and value and isinstance(value[0], ast.Node):
                changes[key] = tuple(self.rewrite(v) for v in value)
        return replace(node, **changes) if changes else node  # type: ignore[arg-type]


#: Filters the expanded transforms may hold: nested transforms multiply (`flip` makes 8
#: copies, `shift` up to 225), so a few nested ones could exhaust memory.
MAX_VARIANT_NODES = 200_000


class TooManyVariants(Exception):
    """Nested transforms expand beyond MAX_VARIANT_NODES; `span` is the outer transform."""

    def __init__(self, span: ast.Span) -> None:
        super().__init__(span)
        self.span = span


def expand(node: ast.Node, types: dict[int, str]) -> ast.Node:
    """Expand every transform in a subtree into `Variants`, innermost first."""
    changes: dict[str, object] = {}
    for key, value in vars(node).items():
        if isinstance(value, ast.Node):
            new_value = expand(value, types)
            if new_value is not value:
                changes[key] = new_value
        elif isinstance(value, tuple) and value and isinstance(value[0], ast.Node):
            items = tuple(expand(v, types) for v in value)
            if any(a is not b for a, b in zip(items, value, strict=True)):
                changes[key] = items
    new = replace(node, **changes) if changes else node  # type: ignore[arg-type]
    if id(node) in types:
        types[id(new)] = types[id(node)]
    if isinstance(new, ast.Transform):
        # An inner transform is already a `Variants`: this transform applies to each of
        # its variants on its own. (`shift flip {Kg1}` must shift each flipped image;
        # shifting their union, whose squares touch every edge, allowed no translation.)
        inner = new.body
        bodies = inner.variants if isinstance(inner, ast.Variants) and not inner.count else (inner,)
        size = sum(1 for _ in ast.walk(bodies))
        images: list[ast.Node] = []
        for body in bodies:
            elements = group(new.kind, named_squares(body))
            if (len(images) + len(elements)) * size // len(bodies) > MAX_VARIANT_NODES:
                raise TooManyVariants(new.span)
            images.extend(
                _Rewriter(mapping, swap, types, i if new.kind == "rotate45" else 0).rewrite(body)
                for i, (mapping, swap) in enumerate(elements)
            )
        variants = tuple(images)
        result = ast.Variants(new.span, new.count, variants)
        types[id(result)] = types[id(node)]
        return result
    return new


def expand_body(body: tuple[ast.Node, ...], types: dict[int, str]) -> tuple[ast.Node, ...]:
    """Expand the transforms of every body element."""
    return tuple(expand(element, types) for element in body)
