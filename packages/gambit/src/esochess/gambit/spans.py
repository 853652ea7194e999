"""Where AST nodes start and end in the source text: for diagnostics that point at the
first character of an expression and messages that quote a construct as written."""

from __future__ import annotations

from typing import Any

from esochess.gambit import ast as A


def first_pos(node: Any) -> A.Pos:
    """The position of the first character of an expression (its leftmost sub-expression)."""
    while True:
        if isinstance(node, A.Binary):
            node = node.left
        elif isinstance(node, (A.Member, A.Index)):
            node = node.obj
        elif isinstance(node, A.Call):
            if node.method and node.args:
                node = node.args[0].value
            else:
                return node.pos
        elif isinstance(node, A.FilterMap):
            node = node.source
        elif isinstance(node, A.Is):
            node = node.value
        elif isinstance(node, A.Alt):
            node = node.alts[0]
        elif isinstance(node, A.Choose):
            node = node.player
        else:
            pos: A.Pos = node.pos
            return pos


def span_text(source: str, start: A.Pos, end: A.Pos) -> str | None:
    """The source text from `start` up to `end` (exclusive) when both lie on one line."""
    if start[0] != end[0] or start[0] < 1 or end[1] <= start[1]:
        return None
    lines = source.splitlines()
    if start[0] > len(lines):
        return None
    return lines[start[0] - 1][start[1] - 1 : end[1] - 1]
