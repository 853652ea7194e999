"""Grouping the items of a `path` into its constituents (docs/reference/cql.md#path).

The grammar reads a path as a flat list of items: filters, moves (`--`, `[x]` with the
ties the lexer saw), promotions, repetitions and parenthesised groups. CQL 6.2 groups
them thus:

- a move takes the set written right before it, with no space, as where it starts
  (`Q--`), and the set right after it as where it ends (`--g5`), then an optional
  promotion (`=Q`);
- the filters after a move, up to the next move, group or repetition, are its targets:
  they are tested at the position the move leads to (`×h7 check`);
- a repetition applies to the move just before it, targets included, or to a group;
- filters before the first move (or after a group) are tested where the path stands.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from lark import Token

from esochess.cqlvars import ast
from esochess.cqlvars.lexer import span_of, token_extra
from esochess.fen import SourceError

#: The parameters written as single words.
WORD_PARAMS = frozenset(
    {"quiet", "firstmatch", "lastposition", "nestban", "primary", "singlecolor", "verbose",
     "keepallbest", "piecepath"}
)  # fmt: skip


@dataclass(frozen=True)
class Item:
    """One item of the flat list: `kind` is filter, dash, promote, rep or group."""

    kind: str
    span: ast.Span
    node: ast.Node | None = None
    #: dash: (capture, tied left, tied right); rep: (low, high).
    extra: object = None
    items: tuple[Item, ...] = ()


Error = Callable[[ast.Span, str], SourceError]


def build_steps(items: Sequence[Item], error: Error) -> tuple[ast.PathStep, ...]:
    """The constituents of a path (or of a group) from its items."""
    out: list[ast.PathStep] = []
    i = 0
    while i < len(items):
        item = items[i]
        i += 1
        if item.kind == "filter":
            assert item.node is not None
            last = out[-1] if out else None
            if last is not None and last.kind == "move" and last.high == 1 and last.low == 1:
                out[-1] = replace(last, targets=(*last.targets, item.node))
            else:
                out.append(ast.PathStep(item.span, "filter", targets=(item.node,)))
        elif item.kind == "group":
            out.append(ast.PathStep(item.span, "group", steps=build_steps(item.items, error)))
        elif item.kind == "rep":
            out.append(_repeat(out.pop() if out else None, item, error))
        elif item.kind == "promote":
            raise error(item.span, "a promotion '=' must follow a path move, as in '--=Q'")
        else:
            step, i = _move(item, items, i, out, error)
            out.append(step)
    return tuple(out)


def _move(item: Item, items: Sequence[Item], i: int, out: list[ast.PathStep],
          error: Error) -> tuple[ast.PathStep, int]:
    """A move item with its start set (taken back from the previous constituent), its
    end set and its promotion; returns the step and the index after them."""
    assert isinstance(item.extra, tuple)
    capture, tied_left, tied_right = item.extra
    left: ast.Node | None = None
    if tied_left and out and out[-1].targets and out[-1].kind in ("move", "filter"):
        last = out.pop()
        left = last.targets[-1]
        if last.kind == "move" or len(last.targets) > 1:
            out.append(replace(last, targets=last.targets[:-1]))
    right: ast.Node | None = None
    if tied_right and i < len(items) and items[i].kind == "filter":
        right = items[i].node
        i += 1
    promote: ast.Node | None = None
    if i < len(items) and items[i].kind == "promote":
        promote = items[i].node
        i += 1
    return ast.PathStep(item.span, "move", left, right, capture, promote), i


def _repeat(step: ast.PathStep | None, item: Item, error: Error) -> ast.PathStep:
    if step is None or step.kind == "filter":
        raise error(item.span, "a repetition applies to a path move ('--', '[x]') with its "
                               "filters, or to a group of them '( ... )'")
    if (step.low, step.high) != (1, 1):
        raise error(item.span, "two repetitions in a row; put the first in a group '( ... )'")
    assert isinstance(item.extra, tuple)
    low, high = item.extra
    return replace(step, low=low, high=high)


class PathBuilder:
    """The parser's tree-transformer methods for `path` (mixed into parser._Builder)."""

    error: Error

    def turnstile(self, c: list[Any]) -> ast.Node:
        """`path PARAMETERS ITEMS`: the items become constituents in py."""
        fields: dict[str, Any] = {}
        words: set[str] = set()
        numbers: list[int] = []
        for param in c[1:]:
            if isinstance(param, Item):
                continue
            name, value = param
            if name == "number":
                numbers.append(value)
            elif name in WORD_PARAMS or name == "secondary":
                words.add(name)
            elif name in fields:
                raise self.error(span_of(c[0]), f"'path' parameter '{name}' given twice")
            else:
                fields[name] = value
        if "secondary" in words:
            raise self.error(span_of(c[0]), "'path' does not take 'secondary' (CQL has none)")
        if len(numbers) > 2 or (len(numbers) == 2 and numbers[0] > numbers[1]):
            raise self.error(span_of(c[0]), "'path' takes a range: LO or LO HI, ascending")
        if "singlecolor" in words and "focus" in fields:
            raise self.error(span_of(c[0]), "'path' takes 'singlecolor' or 'focus', not both")
        if "piecepath" in words and "focus" not in fields:
            raise self.error(span_of(c[0]), "'piecepath' comments the moves of the focused "
                                            "pieces: it needs 'focus'")
        focus, focus_capture = fields.get("focus", (None, False))
        items = [x for x in c if isinstance(x, Item)]
        return ast.Path(
            span_of(c[0]), build_steps(items, self.error), frozenset(words),
            focus, focus_capture, numbers[0] if numbers else None,
            numbers[-1] if numbers else None, fields.get("title"), fields.get("max"),
        )  # fmt: skip

    def path_param(self, c: list[Any]) -> tuple[str, Any]:
        tok = c[0]
        if tok.type == "PATHNUM":
            return ("number", int(str(tok)))
        return (str(tok), True)

    def path_title(self, c: list[Any]) -> tuple[str, Any]:
        return ("title", token_extra(c[1]))

    def path_focus(self, c: list[Any]) -> tuple[str, Any]:
        return ("focus", (c[-1], any(isinstance(t, Token) and t.type == "CAPTURE" for t in c)))

    def path_max(self, c: list[Any]) -> tuple[str, Any]:
        return ("max", c[1])

    def path_filter(self, c: list[Any]) -> Item:
        node: ast.Node = c[0]
        return Item("filter", node.span, node)

    def path_token(self, c: list[Any]) -> Item:
        tok = c[0]
        extra = token_extra(tok)
        if tok.type == "PATHDASH":
            return Item("dash", span_of(tok), extra=extra)
        if tok.type == "REP":
            return Item("rep", span_of(tok), extra=extra)
        promote = ast.Designator(span_of(tok), extra.pieces, None, str(tok)[1:])
        return Item("promote", span_of(tok), promote)

    def path_group(self, c: list[Any]) -> Item:
        items = tuple(x for x in c if isinstance(x, Item))
        return Item("group", span_of(c[0]), items=items)
