"""What is known of an expression before the program runs: its constant value, if it has
one, and how deeply it nests (the checker's limit)."""

from __future__ import annotations

from esochess.chespel import ast
from esochess.chespel.runtime.values import (
    TYPE_VALUES,
    clamp,
    num_div,
    num_mul,
)


def const_value(expr: ast.Expr) -> int | None:
    """The value in milli-units of a constant Num expression (docs/reference/chespel.md#num), else
    None."""
    if isinstance(expr, ast.NumLit):
        return expr.millis
    if isinstance(expr, (ast.RowLit, ast.ColLit)):
        return expr.number * 1000
    if isinstance(expr, ast.TypeLit):
        return TYPE_VALUES[expr.piece_type]
    if isinstance(expr, ast.Unary) and expr.op in ("-", "abs"):
        v = const_value(expr.operand)
        if v is None:
            return None
        return clamp(-v if expr.op == "-" else abs(v))
    if isinstance(expr, ast.Binary) and expr.op in ("+", "-", "*", "/"):
        a, b = const_value(expr.left), const_value(expr.right)
        if a is None or b is None:
            return None
        if expr.op == "+":
            return clamp(a + b)
        if expr.op == "-":
            return clamp(a - b)
        if expr.op == "*":
            return num_mul(a, b)
        if b == 0:
            return None
        return num_div(a, b, expr.pos.line, expr.pos.column)
    return None


def expression_depth(expr: ast.Expr) -> int:
    """Nesting depth of an expression tree (a literal is 1), computed without recursion."""
    deepest = 0
    stack = [(expr, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        if isinstance(node, ast.Unary):
            stack.append((node.operand, depth + 1))
        elif isinstance(node, ast.Binary):
            stack.extend(((node.left, depth + 1), (node.right, depth + 1)))
        elif isinstance(node, ast.Call):
            stack.extend((arg, depth + 1) for arg in node.args)
            if node.receiver is not None:
                stack.append((node.receiver, depth + 1))
        elif isinstance(node, ast.ListLit):
            stack.extend((item, depth + 1) for item in node.elements)
    return deepest
