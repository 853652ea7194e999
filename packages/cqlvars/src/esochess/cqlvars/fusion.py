"""Loops over the arguments of a `ray`, fused into one bitboard computation.

`piece A in [QRB] piece F in a piece B in a ray (A F B)` runs the ray 16 x 16 times per
attacker when evaluated literally. Since `ray` asks whether *some* choice of squares
forms a chain, a `square`/`piece` loop whose body is a ray with the loop variable as one
argument matches exactly the squares of its domain that belong to some chain through the
other arguments: `rays.ray_members` computes them in one pass, with the domain in the
variable's place. Nested loops over further arguments fuse the same way. A loop fuses
only when that is invisible: no `all`, arguments and domains free of effects and of the
fused variables (except the one argument each variable fills).
"""

from __future__ import annotations

from dataclasses import dataclass

from esochess.cqlvars import ast

#: Nodes whose evaluation has no effect and reads no position but the current one.
PURE = (ast.Designator, ast.Var, ast.Filter, ast.Unary, ast.Binary, ast.IntLit, ast.StrLit)


@dataclass(frozen=True)
class Loop:
    """A fused loop: its variable fills argument `index` of the ray."""

    index: int
    domain: ast.Node
    piece: bool


@dataclass(frozen=True)
class RayPlan:
    """A ray with some arguments filled by loops; the value is the chain members at
    argument `result` (0: the ray's own value)."""

    ray: ast.Ray
    loops: tuple[Loop, ...]
    result: int


def _vars(node: ast.Node) -> set[str]:
    return {n.name for n in ast.walk([node]) if isinstance(n, ast.Var)}


def _pure(node: ast.Node) -> bool:
    return all(
        isinstance(n, PURE) and not (isinstance(n, ast.Binary) and n.op in ("and", "or"))
        for n in ast.walk([node])
    )


def plan(node: ast.Node, bound: frozenset[str] = frozenset()) -> RayPlan | None:
    """The fused form of `node` (a ray, or loops around one), or None when it does not
    fuse. `bound` are the variables of enclosing fused loops."""
    if isinstance(node, ast.Compound) and len(node.elements) == 1:
        return plan(node.elements[0], bound)
    if isinstance(node, ast.Ray):
        return RayPlan(node, (), 0)
    if not isinstance(node, ast.Iterate) or node.all:
        return None
    var = node.var
    if not _pure(node.domain) or _vars(node.domain) & (bound | {var}):
        return None
    inner = plan(node.body, bound | {var})
    if inner is None:
        return None
    filled = {loop.index for loop in inner.loops}
    places = [
        i for i, arg in enumerate(inner.ray.args)
        if i not in filled and var in _vars(arg)
    ]  # fmt: skip
    if len(places) != 1:
        return None
    index = places[0]
    if not (isinstance(inner.ray.args[index], ast.Var)):
        return None
    if any(var in _vars(loop.domain) for loop in inner.loops):
        return None
    for i, arg in enumerate(inner.ray.args):
        if i not in filled and i != index and not _pure(arg):
            return None
    loop = Loop(index, node.domain, node.kind == "piece")
    return RayPlan(inner.ray, (*inner.loops, loop), index)
