"""The layout post-lexer: statement starts, tab indentation, word classification
(docs/reference/chespel.md#source-text).

lark's basic lexer produces raw tokens, whitespace and comments included; `Layout.process`
turns them into the token stream the LALR grammar expects:

* drops whitespace, newlines and comments, remembering for each token whether it is the
  first on its physical line and what the line's indentation is;
* at every construct start (docs/reference/chespel.md#layout: after a module name, a parameter
  value, a `;` or a `:`) checks that the token starts its line (E04), that the indentation is tabs
  only (E01) and at the right level (E02, E03), and emits `_INDENT` / `_DEDENT`;
* re-types each WORD: the word after `module` becomes a module-name token (or E14), the
  word after `.` a method name (IDENT), reserved words their keyword token, `a1`..`h8`
  CELL, anything else IDENT;
* turns the lexer's catch-all error terminals into E07-E10.

Errors are raised as `LayoutError` (line, column, message); the parser module turns them
into `SourceError`s. Tokens are produced lazily, so the first error in reading order wins
whether it is lexical, layout or syntactic.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from lark import Token

MODULE_NAMES = {
    "search": "SEARCH",
    "evaluation": "EVALUATION",
    "opening": "OPENING",
    "endgame": "ENDGAME",
}

TYPE_OF_WORD: dict[str, int] = {
    "pawn": 1,
    "P": 1,
    "knight": 2,
    "N": 2,
    "bishop": 3,
    "B": 3,
    "rock": 4,
    "rook": 4,
    "R": 4,
    "queen": 5,
    "Q": 5,
    "king": 6,
    "K": 6,
}
"""Every Type literal word with its python-chess piece type (the parser builds TypeLit from it)."""

KEYWORDS: dict[str, str] = {
    "module": "MODULE",
    "rule": "RULE",
    "sym": "SYM",
    "score": "SCORE",
    "if": "IF",
    "let": "LET",
    "piece": "PIECE",
    "cell": "CELLKW",
    "with": "WITH",
    "in": "IN",
    "and": "AND",
    "or": "OR",
    "not": "NOT",
    "abs": "ABS",
    "true": "BOOL",
    "false": "BOOL",
    "me": "PLAYER",
    "foe": "PLAYER",
    "white": "COLOR",
    "black": "COLOR",
    **{word: "TYPE" for word in TYPE_OF_WORD},
}

RESERVED = frozenset(KEYWORDS)

_CELL = re.compile(r"[a-h][1-8]\Z")

_TRIVIA = frozenset({"WS", "NEWLINE", "LINE_COMMENT", "BLOCK_COMMENT"})


class LayoutError(Exception):
    """A lexical or layout error at a 1-based position (the parser makes it a SourceError)."""

    def __init__(self, line: int, column: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.column = column
        self.message = message


def classify_word(word: str) -> str:
    """The token type of a WORD outside the special places: keyword, CELL or IDENT."""
    kind = KEYWORDS.get(word)
    if kind is not None:
        return kind
    return "CELL" if _CELL.match(word) else "IDENT"


def _lexical_error(tok: Token) -> LayoutError:
    line, column = tok.line or 1, tok.column or 1
    if tok.type == "BAD_NUMBER":
        return LayoutError(line, column, f"malformed number '{tok}'")
    if tok.type == "BAD_STRING":
        return LayoutError(line, column, "unterminated string")
    if tok.type == "BAD_DOLLAR":
        return LayoutError(
            line, column, f"invalid row or column literal '{tok}' (use $1..$8 or $a..$h)"
        )
    return LayoutError(line, column, "unterminated comment")


_BAD = frozenset({"BAD_NUMBER", "BAD_STRING", "BAD_DOLLAR", "BAD_COMMENT"})


class _Placed:
    """A significant token with what the layout rules need to know about its line."""

    __slots__ = ("token", "first", "indent")

    def __init__(self, token: Token, first: bool, indent: str) -> None:
        self.token = token
        self.first = first
        self.indent = indent


def _placed(stream: Iterator[Token]) -> Iterator[_Placed]:
    """Drop trivia; tag each token with first-on-line and its line's indentation."""
    clean = True  # nothing but whitespace/one-line comments so far on this line
    at_start = True  # no character consumed yet on this line
    indent = ""
    for tok in stream:
        kind = tok.type
        if kind in _BAD:
            raise _lexical_error(tok)
        if kind in _TRIVIA:
            if kind == "NEWLINE":
                clean, at_start, indent = True, True, ""
            elif kind == "WS":
                if at_start:
                    indent = str(tok)
                at_start = False
            elif kind == "BLOCK_COMMENT" and "\n" in tok:
                # The next line starts inside this comment: it has no indentation and
                # no construct may start on it (docs/reference/chespel.md#layout).
                clean, at_start, indent = False, False, ""
            else:
                at_start = False
            continue
        yield _Placed(tok, clean, indent)
        clean = at_start = False


class Layout:
    """lark post-lexer implementing docs/reference/chespel.md#layout and
    docs/reference/chespel.md#literals (see the module docstring)."""

    always_accept = ("WORD", "WS", "NEWLINE", "LINE_COMMENT", "BLOCK_COMMENT", *sorted(_BAD))

    def process(self, stream: Iterator[Token]) -> Iterator[Token]:
        """Yield the parser's tokens; raise `LayoutError` at the first layout error."""
        boundary = True  # the next token starts a construct
        colon: Token | None = None  # the ':' whose block has not started yet
        colon_level = 0
        level = 0  # innermost open block level
        construct_level = 0
        count = 0  # tokens of the current construct so far
        first_type = ""
        param = ""  # "", "value" (after '=' and an optional '-'), "done" (after the value)
        previous = ""
        for placed in _placed(stream):
            tok = placed.token
            if param == "done" and tok.type != "SEMI":
                boundary = True
            if boundary:
                boundary = False
                param = ""
                yield from self._start(placed, colon, colon_level, level)
                # After _start, the construct's level is the innermost open level.
                level = construct_level = len(placed.indent)
                colon = None
                count = 0
            tok = self._retype(tok, previous)
            count += 1
            if count == 1:
                first_type = tok.type
            elif count == 2 and first_type == "IDENT" and tok.type == "ASSIGN":
                param = "value"
            elif param == "value" and tok.type != "MINUS":
                param = "done"
            elif param == "done":
                param = ""
            yield tok
            if tok.type == "SEMI":
                boundary = True
            elif tok.type == "COLON":
                boundary = True
                colon = tok
                colon_level = construct_level
            elif previous == "MODULE":
                boundary = True
            previous = tok.type
        if colon is not None:
            raise LayoutError(
                colon.line or 1, colon.column or 1, "expected an indented block after ':'"
            )
        for _ in range(level):
            yield Token("_DEDENT", "")

    def _start(
        self, placed: _Placed, colon: Token | None, colon_level: int, level: int
    ) -> Iterator[Token]:
        """Check a construct start and yield the _INDENT/_DEDENT tokens it implies."""
        tok = placed.token
        line, column = tok.line or 1, tok.column or 1
        if not placed.first:
            raise LayoutError(line, column, "statement must start on a new line")
        if " " in placed.indent:
            raise LayoutError(line, placed.indent.index(" ") + 1, "indentation must use tabs only")
        n = len(placed.indent)
        if colon is not None:
            expected = colon_level + 1
            if n > expected:
                raise LayoutError(
                    line,
                    column,
                    f"unexpected indentation (expected {expected} tab(s), found {n})",
                )
            if n < expected:
                raise LayoutError(
                    colon.line or 1, colon.column or 1, "expected an indented block after ':'"
                )
            yield Token.new_borrow_pos("_INDENT", "", tok)
            return
        if n > level:
            raise LayoutError(
                line, column, f"unexpected indentation (expected {level} tab(s), found {n})"
            )
        for _ in range(level - n):
            yield Token.new_borrow_pos("_DEDENT", "", tok)

    @staticmethod
    def _retype(tok: Token, previous: str) -> Token:
        if tok.type != "WORD":
            return tok
        word = str(tok)
        if previous == "MODULE":
            kind = MODULE_NAMES.get(word)
            if kind is None:
                raise LayoutError(
                    tok.line or 1,
                    tok.column or 1,
                    f"unknown module '{word}' "
                    "(expected search, evaluation, opening or endgame)",
                )
            return Token.new_borrow_pos(kind, word, tok)
        if previous == "DOT":
            return Token.new_borrow_pos("IDENT", word, tok)
        return Token.new_borrow_pos(classify_word(word), word, tok)
