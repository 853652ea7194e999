"""The numbers of a program that tuning may change, and the program rewritten with new ones.

A weight is one number literal written inside a rule (evaluation and endgame modules),
identified by its source position. A literal right after a unary minus (`-0.15`) is
written back with its sign, so a weight may change sign without any other edit; the rest
of the source — layout, comments, every other character — is kept as it was.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from esochess.chespel import ast
from esochess.chespel.runtime.values import NUM_MAX, format_num


@dataclass(frozen=True)
class Weight:
    """One number literal of a rule: where it is, what it says, whether a `-` precedes it."""

    index: int
    rule: str
    line: int
    column: int
    spelling: str
    millis: int
    negated: bool
    """Written as `-SPELLING`: the source span starts one column earlier, at the minus."""

    @property
    def written(self) -> int:
        """The value as the source shows it (the minus included), in milli-units."""
        return -self.millis if self.negated else self.millis


def find_weights(program: ast.Program) -> tuple[list[Weight], dict[int, int]]:
    """Every number literal inside a rule, in source order, and `id(NumLit)` → index."""
    weights: list[Weight] = []
    ids: dict[int, int] = {}
    for module in program.modules:
        for rule in module.rules:
            negated: set[int] = set()
            for expr in ast.walk_expressions(rule.body):
                if (isinstance(expr, ast.Unary) and expr.op == "-"
                        and isinstance(expr.operand, ast.NumLit)
                        and expr.pos.line == expr.operand.pos.line
                        and expr.pos.column + 1 == expr.operand.pos.column):
                    negated.add(id(expr.operand))
                if isinstance(expr, ast.NumLit) and id(expr) not in ids:
                    ids[id(expr)] = len(weights)
                    weights.append(Weight(len(weights), rule.name, expr.pos.line,
                                          expr.pos.column, expr.spelling, expr.millis,
                                          id(expr) in negated))
    return weights, ids


_COMPARISONS = {"<", ">", "<=", ">=", "==", "!=", "*<", "*>", "*<=", "*>=", "in", "and", "or"}


def score_literals(program: ast.Program) -> set[int]:
    """`id` of every literal whose value can reach a score as a number: not one written in a
    condition, a comparison, a call's argument (an index, a cell, a distance), a divisor
    or a justification. Only these are traced (the others cannot be linear weights, and
    tracing them would only cost time)."""
    found: set[int] = set()

    def expr(node: ast.Expr | None) -> None:
        if node is None:
            return
        if isinstance(node, ast.NumLit):
            found.add(id(node))
        elif isinstance(node, ast.Unary):
            expr(node.operand)
        elif isinstance(node, ast.Binary):
            if node.op not in _COMPARISONS:
                expr(node.left)
                if node.op != "/":
                    expr(node.right)
        elif isinstance(node, ast.ListLit):
            for element in node.elements:
                expr(element)
        elif isinstance(node, ast.Call):
            expr(node.receiver)

    def block(body: tuple[ast.Stmt, ...]) -> None:
        for stmt in body:
            if isinstance(stmt, ast.Score):
                expr(stmt.value)
            elif isinstance(stmt, ast.Let):
                expr(stmt.value)
            elif isinstance(stmt, (ast.If, ast.Loop)):
                block(stmt.body)

    for module in program.modules:
        for rule in module.rules:
            block(rule.body)
    return found


def clamp_weight(millis: float) -> int:
    """A fitted value as a Num: rounded to a thousandth, within ±10000."""
    return max(-NUM_MAX, min(NUM_MAX, round(millis)))


def rewrite(text: str, weights: Sequence[Weight], values: dict[int, int]) -> str:
    """`text` with weight `i` replaced by `values[i]` (milli-units, the literal's own value,
    before any minus written in front of it); weights not in `values` are left alone."""
    bom = 1 if text.startswith("\ufeff") else 0
    lines = text.split("\n")
    by_line: dict[int, list[Weight]] = {}
    for weight in weights:
        if weight.index in values and values[weight.index] != weight.millis:
            by_line.setdefault(weight.line, []).append(weight)
    for number, found in by_line.items():
        line = lines[number - 1]
        shift = bom if number == 1 else 0
        # Right to left, so that earlier columns stay valid.
        for weight in sorted(found, key=lambda w: w.column, reverse=True):
            end = weight.column - 1 + shift + len(weight.spelling)
            start = weight.column - 1 + shift - (1 if weight.negated else 0)
            value = values[weight.index]
            if weight.negated:
                new = format_num(-value)
            else:
                new = format_num(value)
                if value < 0 and line[:start].rstrip().endswith("-"):
                    new = f"({new})"
            line = line[:start] + new + line[end:]
        lines[number - 1] = line
    return "\n".join(lines)


def weight_table(weights: Iterable[Weight], values: dict[int, int],
                 frozen: set[int]) -> list[str]:
    """One line per tuned or frozen weight: rule, position, old → new (the written form)."""
    rows = []
    for weight in weights:
        if weight.index in frozen:
            new = "frozen"
        elif weight.index in values:
            new = format_num(-values[weight.index] if weight.negated
                             else values[weight.index])
        else:
            continue
        rows.append((weight.rule, f"{weight.line}:{weight.column}",
                     format_num(weight.written), new))
    if not rows:
        return []
    widths = [max(len(row[i]) for row in rows + [("rule", "at", "old", "new")])
              for i in range(4)]
    lines = [f"{'rule':<{widths[0]}}  {'at':<{widths[1]}}  {'old':>{widths[2]}}    new"]
    for rule, at, old, new in rows:
        lines.append(f"{rule:<{widths[0]}}  {at:<{widths[1]}}  {old:>{widths[2]}} -> {new}")
    return lines
