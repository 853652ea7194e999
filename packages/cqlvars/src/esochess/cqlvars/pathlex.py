"""How the lexer reads the constituents of `line` and `path` (docs/reference/cql.md#line,
docs/reference/cql.md#path).

Inside an open `line` or `path` (and outside brackets that open a block, a subscript or
an argument list), `*`, `+`, `?` and `{m,n}` are repetitions. Inside a `path`, moreover,
`--`, `[x]`, `――` and `×` are path moves whose meaning depends on spacing, as in CQL 6.2:
a set written right before the dash, with no space, is where the move starts (`Q--`),
and a set right after it where it ends (`--g5`); `=Q` right after them is a promotion.
Whether a sequence is open depends on the parser's progress, so this reads lark's LALR
value stack.
"""

from __future__ import annotations

from typing import Any

from lark import Token

#: Tokens after which `(` opens an argument list (not a path group).
ARG_OPENERS = frozenset(
    """CALLNAME FILTERARGS FILTEROPT RAY COMMENT MESSAGE STR MAX MIN ECHO UP DOWN LEFT RIGHT
NORTHEAST NORTHWEST SOUTHEAST SOUTHWEST HORIZONTAL VERTICAL DIAGONAL ORTHOGONAL
ANYDIRECTION""".split()
)

#: The path moves, ASCII and Unicode, and whether each is a capture.
PATH_DASHES = (("--", False), ("[x]", True), ("――", False), ("×", True))

#: Characters before a dash that cannot end its start set (CQL 6.2's rule), and after
#: it that cannot begin its end set.
_NO_LEFT = frozenset("({:+-*/><,~=|&")
_NO_RIGHT = frozenset("})*+?:({=")
#: Token types that can end a start set written right before a dash.
_SET_ENDS = frozenset({"DESIG", "IDENT", "RPAR", "RBRACE", "RBRACK", "FILTER"})

#: `path` parameters that are single words (`title` takes a string, `focus` and `max` a
#: filter).
PATH_WORDS = frozenset(
    {"QUIET", "FIRSTMATCH", "LASTPOSITION", "NESTBAN", "PRIMARY", "SECONDARY",
     "SINGLECOLOR", "VERBOSE", "KEEPALLBEST", "PIECEPATH"}
)  # fmt: skip


def open_sequence(parser_state: Any) -> str:
    """"line" or "path" when the innermost open `line`/`path` on the LALR value stack is
    reading its constituents at its own level; "" otherwise.

    In a `line`, brackets switch repetition lexing off again, except the parentheses of a
    constituent group, which directly follow an arrow; in a `path`, every parenthesis
    opens a group except an argument list.
    """
    stack = getattr(parser_state, "value_stack", None)
    if not stack:
        return ""
    start = -1
    for index in range(len(stack) - 1, -1, -1):
        value = stack[index]
        if isinstance(value, Token) and value.type in ("LINE", "PATH"):
            start = index
            break
    if start < 0:
        return ""
    kind_of_sequence = stack[start].type
    opened: list[bool] = []  # per open bracket: does it close the sequence's level?
    prev = ""
    for value in stack[start + 1 :]:
        kind = value.type if isinstance(value, Token) else ""
        if kind == "LPAR" and kind_of_sequence == "LINE":
            opened.append(prev not in ("RARROW", "LARROW") or any(opened))
        elif kind == "LPAR":
            opened.append(prev in ARG_OPENERS or any(opened))
        elif kind in ("LBRACE", "LBRACK"):
            opened.append(True)
        elif kind in ("RPAR", "RBRACE", "RBRACK") and opened:
            opened.pop()
        prev = kind
    if any(opened):
        return ""
    return "line" if kind_of_sequence == "LINE" else "path"


def dash_ties(text: str, start: int, end: int, prev_type: str) -> tuple[bool, bool]:
    """Whether the dash text[start:end] is tied to a start set on its left and to an end
    set on its right (no space between)."""
    before = text[start - 1] if start > 0 else " "
    left = not before.isspace() and before not in _NO_LEFT and prev_type in _SET_ENDS
    after = text[end] if end < len(text) else " "
    right = not after.isspace() and after not in _NO_RIGHT
    return left, right
