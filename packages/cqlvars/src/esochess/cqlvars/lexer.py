"""The CQL tokenizer (docs/reference/cql.md#query-structure), plugged into lark as a custom lexer.

A regular-expression lexer cannot express CQL's rules: piece designators are tried before
words with a longest match that must not run into a word character, `[` is a designator
or a subscript bracket depending on what follows, the result tokens exist only after
`result`, and inside a `line` the tokens `*`, `+`, `?` and `{m,n}` are repetitions. The
last rule depends on the parser's progress, so the lexer looks at lark's LALR value stack:
an unreduced `LINE` token there means a line is still open.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

from lark import Token
from lark.lexer import Lexer, LexerState

from esochess.cqlvars.ast import Span
from esochess.cqlvars.designators import WORD_CHARS, match_designator
from esochess.cqlvars.filters import FILTERS, Syntax
from esochess.cqlvars.pathlex import PATH_DASHES, PATH_WORDS, dash_ties, open_sequence
from esochess.fen import SourceError

#: Keywords with their own grammar rule; the filter table's keywords are added below.
SYNTAX_KEYWORDS = frozenset(
    """cql input output matchcount variations quiet silent sort result
matchstring and or not if then else move previous legal pseudolegal from to capture promote
enpassant castle null count attacks attackedby ray pin through flipcolor
flip flipvertical fliphorizontal rotate90 shift shifthorizontal shiftvertical line find
all echo in min max comment message player white black elo event site date eco
square piece function persistent isbound isunbound str originalcomment up down
left right horizontal vertical diagonal orthogonal northeast northwest southeast
southwest anydirection tag rotate45 reversecolor primary secondary firstmatch lastposition
singlecolor nestban dictionary unbind path focus title verbose keepallbest piecepath atomic
local""".split()
)

#: The token type of each filter-table keyword (its syntax, see filters.Syntax).
FILTER_TOKENS = {name: spec.syntax.value for name, spec in FILTERS.items()}

TIER1_KEYWORDS = SYNTAX_KEYWORDS | frozenset(FILTERS)

#: CQL words this implementation does not support (a located "not supported" error), with
#: what to write instead.
UNSUPPORTED = {
    "writefile": "cql writes one output file, atomically; print text with message (...) or "
                 "put it in the output games with comment (...)",
    "hhdb": "the Heijden database fields are not interpreted; test the PGN directly, e.g. "
            'tag "Black" ~~ "\\(c\\)" for a correction, originalcomment "<main>" for a main line',
}
TIER2_KEYWORDS = frozenset(UNSUPPORTED)

KEYWORDS = TIER1_KEYWORDS | TIER2_KEYWORDS

# Header parameter words are recognised contextually (docs/reference/cql.md#header), so inside
# `cql(...)` every bare run is an HWORD and parser.py interprets it.
OPERATORS = (
    ("-->", "RARROW"),
    ("<--", "LARROW"),
    ("==", "CMP"),
    ("!=", "CMP"),
    ("<=", "CMP"),
    (">=", "CMP"),
    ("=?", "ASSIGNQ"),
    ("+=", "OPASSIGN"),
    ("-=", "OPASSIGN"),
    ("*=", "OPASSIGN"),
    ("/=", "OPASSIGN"),
    ("%=", "OPASSIGN"),
    ("~~", "REGEX"),
    ("=", "ASSIGN"),
    ("<", "CMP"),
    (">", "CMP"),
    ("+", "PLUS"),
    ("-", "MINUS"),
    ("*", "STAR"),
    ("/", "SLASH"),
    ("%", "PERCENT"),
    ("|", "BAR"),
    ("&", "AMP"),
    ("~", "TILDE"),
    ("#", "HASH"),
    (":", "COLON"),
    ("?", "QMARK"),
    ("(", "LPAR"),
    (")", "RPAR"),
    ("{", "LBRACE"),
    ("}", "RBRACE"),
    ("[", "LBRACK"),
    ("]", "RBRACK"),
)

TOKEN_TYPES = sorted(
    {name for _, name in OPERATORS}
    | {kw.upper() for kw in SYNTAX_KEYWORDS}
    | {syntax.value for syntax in Syntax}
    | {"MOVEARROW", "CAPTUREARROW", "PATHDASH", "PATHPROMOTE", "PATHNUM", "PATHMAX"}
    | {"DASHFROM", "DASHTO", "DASHANY"}
    | {
        "IDENT",
        "CALLNAME",
        "NUMBER",
        "FINDNUM",
        "STEPNUM",
        "STRING",
        "SLICECOLON",
        "SORTMIN",
        "SORTMAX",
        "DESIG",
        "CAPREF",
        "RESULTTOK",
        "OO",
        "OOO",
        "REP",
        "HWORD",
    }
)

WORD_RE = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
INT_RE = re.compile(r"[0-9]+")
REP_RE = re.compile(r"\{\s*(\d*)\s*(?:(,)\s*(\d*)\s*|(\d+)\s*)?\}")
# After `result`: a result as a word or (CQL 6.2) as a string, `*` included.
RESULT_RE = re.compile(r'"(1/2-1/2|1-0|0-1|\*)"|1/2-1/2|1-0|0-1|\*')
MAX_LITERAL = 1_000_000_000
DIRECTION_TOKENS = frozenset(
    "UP DOWN LEFT RIGHT NORTHEAST NORTHWEST SOUTHEAST SOUTHWEST HORIZONTAL VERTICAL DIAGONAL "
    "ORTHOGONAL ANYDIRECTION".split()
)
#: Brackets open at once. Deeper queries are refused at the bracket, in one linear pass,
#: before the parser's stack (which `open_sequence` reads at every token) grows with them.
MAX_NESTING = 200

#: CQL 6.2's Unicode symbols that start a piece designator, as their ASCII spelling.
UNICODE_DESIGNATORS = {
    "♔": "K", "♕": "Q", "♖": "R", "♗": "B", "♘": "N", "♙": "P",
    "♚": "k", "♛": "q", "♜": "r", "♝": "b", "♞": "n", "♟": "p",
    "△": "A", "▲": "a", "□": "_", "◭": "[Aa]", "▦": ".",
}  # fmt: skip
#: The other Unicode symbols, as the ASCII text they stand for.
UNICODE_WORDS = {
    "――": "--", "×": "[x]", "→": "->", "←": "<-", "✵": "flip", "⬓": "flipcolor",
    "∙": "currentposition", "≤": "<=", "≥": ">=", "≠": "!=", "∪": "|", "∩": "&",
    "⊢": "path", "◎": "focus",
}  # fmt: skip
#: The 6.2 arrows: `S -- T` and `S [x] T` are moves, `->` and `<-` attacks.
ARROWS = (("->", "ATTACKS"), ("<-", "ATTACKEDBY"))
#: The move filter's dash (`--`, `[x]`, `――`, `×`) by the sides a set is written against
#: with no space (CQL 6.2: only such a set is where the move starts or ends; one written
#: after a space is a filter of its own). Tied on both sides it is the infix arrow.
DASH_TOKENS = {(True, True): "MOVEARROW", (True, False): "DASHFROM",
               (False, True): "DASHTO", (False, False): "DASHANY"}  # fmt: skip


class CqlToken(Token):
    """A lark Token with room for the decoded payload and the source length."""

    __slots__ = ("extra", "length")

    extra: Any
    length: int


class Tokenizer:
    """Turns query text into lark Tokens; `sequence` says whether a `line` or a `path` is
    reading its constituents ("line", "path" or "", see pathlex.open_sequence)."""

    def __init__(self, text: str, path: str, sequence: Callable[[], str] | None = None):
        self.text = text
        self.path = path
        self.sequence = sequence or (lambda: "")
        # Where a path move (or the end set tied to it) ends: `=Q` there is a promotion.
        self.dash_end = -1
        self.pos = 0
        self.line = 1
        self.col = 1
        # Open brackets, innermost last: a `:` directly inside a subscript is a slice colon.
        self.brackets: list[str] = []

    def error(self, message: str, line: int, col: int) -> SourceError:
        """Build a lexical error at (line, col)."""
        lines = self.text.split("\n")
        source = lines[line - 1] if 0 < line <= len(lines) else None
        return SourceError(self.path, line, col, message, source_line=source)

    def _advance(self, n: int) -> None:
        chunk = self.text[self.pos : self.pos + n]
        newlines = chunk.count("\n")
        if newlines:
            self.line += newlines
            self.col = len(chunk) - chunk.rfind("\n")
        else:
            self.col += n
        self.pos += n

    def _token(self, type_: str, value: str, length: int, extra: Any = None) -> CqlToken:
        tok = CqlToken(type_, value, self.pos, self.line, self.col, self.line, self.col + length)
        tok.extra = extra
        tok.length = length
        self._advance(length)
        return tok

    def _skip_space(self) -> None:
        text = self.text
        while self.pos < len(text):
            ch = text[self.pos]
            if ch in " \t\r\n\f\v" or ch == "\ufeff":
                self._advance(1)
            elif text.startswith("//", self.pos):
                end = text.find("\n", self.pos)
                self._advance((len(text) if end < 0 else end) - self.pos)
            elif text.startswith("/*", self.pos):
                end = text.find("*/", self.pos + 2)
                if end < 0:
                    raise self.error("unterminated block comment", self.line, self.col)
                self._advance(end + 2 - self.pos)
            else:
                break

    def _string(self) -> CqlToken:
        text = self.text
        j = self.pos + 1
        out: list[str] = []
        while True:
            if j >= len(text) or text[j] == "\n":
                raise self.error("unterminated string", self.line, self.col)
            ch = text[j]
            if ch == "\\" and j + 1 < len(text) and text[j + 1] in "\"\\":
                out.append(text[j + 1])
                j += 2
            elif ch == '"':
                j += 1
                break
            else:
                out.append(ch)
                j += 1
        return self._token("STRING", self.text[self.pos : j], j - self.pos, "".join(out))

    def tokens(self) -> Iterator[CqlToken]:
        """Yield the tokens of the whole text (the header first, in header mode)."""
        yield from self._header()
        prev: Token | None = None
        prev_type = ""
        prev_prev = ""
        in_find = False
        in_path = False
        text = self.text
        while True:
            self._skip_space()
            if self.pos >= len(text):
                return
            tok = self._next(prev)
            if tok.type in ("LPAR", "LBRACE", "LBRACK"):
                self.brackets.append(tok.type)
                if len(self.brackets) > MAX_NESTING:
                    raise self.error(
                        f"the query is nested too deeply (more than {MAX_NESTING} brackets)",
                        tok.line or self.line, tok.column or self.col,
                    )  # fmt: skip
            elif tok.type in ("RPAR", "RBRACE", "RBRACK") and self.brackets:
                self.brackets.pop()
            elif tok.type == "COLON" and self.brackets and self.brackets[-1] == "LBRACK":
                tok.type = "SLICECOLON"
            elif tok.type in ("MIN", "MAX") and prev is not None and prev.type == "SORT":
                tok.type = "SORT" + tok.type
            # Numbers right after a direction are its distance range, not its operand.
            if tok.type == "NUMBER" and prev is not None and (
                prev.type in DIRECTION_TOKENS
                or (prev.type == "STEPNUM" and prev_prev in DIRECTION_TOKENS)
            ):
                tok.type = "STEPNUM"
            # Numbers among find's leading parameters are its range, not its operand.
            if tok.type == "FIND":
                in_find = True
            elif in_find and tok.type == "NUMBER":
                tok.type = "FINDNUM"
            elif tok.type not in ("QUIET", "LARROW", "ALL"):
                in_find = False
            # Numbers among path's leading words are its range; `max` there takes a filter.
            if tok.type == "PATH":
                in_path = True
            elif in_path and tok.type in ("NUMBER", "MAX"):
                tok.type = "PATHNUM" if tok.type == "NUMBER" else "PATHMAX"
                in_path = tok.type == "PATHNUM"
            elif tok.type not in PATH_WORDS and not (tok.type == "STRING" and prev_type == "TITLE"):
                in_path = tok.type == "TITLE" and in_path
            prev_prev = prev.type if prev is not None else ""
            prev_type = tok.type
            prev = tok
            yield tok

    def _header(self) -> Iterator[CqlToken]:
        self._skip_space()
        if not self.text.startswith("cql", self.pos) or (
            self.pos + 3 < len(self.text) and self.text[self.pos + 3] in WORD_CHARS
        ):
            raise self.error("a query must begin with 'cql('", self.line, self.col)
        yield self._token("CQL", "cql", 3)
        self._skip_space()
        if self.pos >= len(self.text) or self.text[self.pos] != "(":
            raise self.error("expected '(' after 'cql'", self.line, self.col)
        yield self._token("LPAR", "(", 1)
        while True:
            self._skip_space()
            if self.pos >= len(self.text):
                raise self.error("unterminated header: expected ')'", self.line, self.col)
            ch = self.text[self.pos]
            if ch == ")":
                yield self._token("RPAR", ")", 1)
                return
            if ch == '"':
                yield self._string()
                continue
            if ch == "(":
                raise self.error("unexpected '(' in the header", self.line, self.col)
            j = self.pos
            while j < len(self.text) and self.text[j] not in ' \t\r\n\f\v()"':
                j += 1
            yield self._token("HWORD", self.text[self.pos : j], j - self.pos)

    def _next(self, prev: Token | None) -> CqlToken:
        text = self.text
        i = self.pos
        ch = text[i]
        if prev is not None and prev.type == "RESULT":
            m = RESULT_RE.match(text, i)
            if m:
                return self._token("RESULTTOK", m.group(1) or m.group(0), len(m.group(0)))
        for spelling, kind in (("o-o-o", "OOO"), ("o-o", "OO")):
            end = i + len(spelling)
            if text.startswith(spelling, i) and (end >= len(text) or text[end] not in WORD_CHARS):
                return self._token(kind, spelling, len(spelling))
        if ch == '"':
            return self._string()
        if ch == "\\" and i + 1 < len(text) and text[i + 1] in "123456789":
            return self._token("CAPREF", text[i : i + 2], 2, int(text[i + 1]))
        sequence = self.sequence()
        if sequence == "path" and (found := self._path_move(prev)) is not None:
            return found
        if ch in UNICODE_DESIGNATORS:
            return self._unicode_designator(ch)
        if (dash := self._dash(prev)) is not None:
            return dash
        for symbol, ascii_text in UNICODE_WORDS.items():
            if text.startswith(symbol, i):
                return self._unicode_word(symbol, ascii_text, prev)
        if not text.startswith("<--", i):
            for spelling, kind in ARROWS:
                # `x <-3` is arithmetic: an arrow's right side is never a number.
                after = text[i + len(spelling) : i + len(spelling) + 1]
                if text.startswith(spelling, i) and not after.isdigit():
                    word = {"->": "attacks", "<-": "attackedby"}[spelling]
                    return self._token(kind, word, len(spelling))
        line_open = sequence != ""
        if ch == "{" and line_open and prev is not None and prev.type not in (
            "RARROW",
            "LARROW",
            "LPAR",
        ):
            m = REP_RE.match(text, i)
            if m and (m.group(1) or m.group(3) or m.group(4)):
                return self._repetition(m)
        try:
            designator = match_designator(text, i)
        except ValueError as exc:
            raise self.error(str(exc), self.line, self.col) from None
        if designator is not None:
            value, end = designator
            if sequence == "path" and self.dash_end == i:
                self.dash_end = end
            return self._token("DESIG", text[i:end], end - i, value)
        m = INT_RE.match(text, i)
        if m:
            end = m.end()
            if end < len(text) and text[end] in WORD_CHARS:
                raise self.error(
                    f"invalid number '{text[i:end + 1]}': a digit cannot be followed by a letter",
                    self.line,
                    self.col,
                )
            return self._token("NUMBER", m.group(0), end - i)
        m = WORD_RE.match(text, i)
        if m:
            word = m.group(0)
            if word in TIER2_KEYWORDS:
                raise self.error(
                    f"filter '{word}' is not supported by this implementation: "
                    + UNSUPPORTED[word],
                    self.line,
                    self.col,
                )
            if word in FILTER_TOKENS:
                return self._token(FILTER_TOKENS[word], word, len(word))
            if word in SYNTAX_KEYWORDS:
                return self._token(word.upper(), word, len(word))
            kind = "CALLNAME" if m.end() < len(text) and text[m.end()] == "(" else "IDENT"
            return self._token(kind, word, len(word))
        for spelling, kind in OPERATORS:
            if text.startswith(spelling, i):
                if line_open and spelling in ("*", "+", "?"):
                    bounds = {"*": (0, None), "+": (1, None), "?": (0, 1)}[spelling]
                    return self._token("REP", spelling, 1, bounds)
                return self._token(kind, spelling, len(spelling))
        raise self.error(f"unexpected character {ch!r}", self.line, self.col)

    def _dash(self, prev: Token | None) -> CqlToken | None:
        """The move filter's dash outside a path, typed by its ties (`Q--g5`, `Q--`, `--g5`,
        `--`); `x--3` is arithmetic: a dash's right side is never a number."""
        text, i = self.text, self.pos
        for spelling, capture in PATH_DASHES:
            if text.startswith(spelling, i) and not text.startswith("-->", i):
                end = i + len(spelling)
                if not capture and text[end : end + 1].isdigit():
                    return None
                left, _ = dash_ties(text, i, end, prev.type if prev is not None else "")
                # No group follows a dash here, so a bracket after it starts its set.
                after = text[end : end + 1]
                right = after != "" and not after.isspace() and after not in ")}]"
                kind = "CAPTUREARROW" if capture and left and right else DASH_TOKENS[left, right]
                return self._token(kind, "[x]" if capture else "--", len(spelling))
        return None

    def _path_move(self, prev: Token | None) -> CqlToken | None:
        """A path move (`Q--g5`, `×h7`) with its ties, or a promotion `=Q` right after one."""
        text, i = self.text, self.pos
        if text[i] == "=" and i == self.dash_end and not text.startswith("==", i):
            found = match_designator(text, i + 1)
            if found is None or found[0].pieces is None or found[0].squares is not None:
                raise self.error("expected the promoted piece after '=', as in '--=Q'",
                                 self.line, self.col)
            return self._token("PATHPROMOTE", text[i : found[1]], found[1] - i, found[0])
        for spelling, capture in PATH_DASHES:
            if text.startswith(spelling, i) and not text.startswith("-->", i):
                end = i + len(spelling)
                left, right = dash_ties(text, i, end, prev.type if prev is not None else "")
                self.dash_end = end if right or text.startswith("=", end) else -1
                arrow = "[x]" if capture else "--"
                return self._token("PATHDASH", arrow, len(spelling), (capture, left, right))
        return None

    def _unicode_designator(self, ch: str) -> CqlToken:
        """A figurine or piece symbol, with any squares written after it (`♔g1`)."""
        ascii_text = UNICODE_DESIGNATORS[ch]
        tail = self.text[self.pos + 1 : self.pos + 40]
        try:
            found = match_designator(ascii_text + tail, 0)
        except ValueError as exc:
            raise self.error(str(exc), self.line, self.col) from None
        if found is None:
            raise self.error(f"unexpected character {ch!r}", self.line, self.col)
        value, end = found
        length = end - len(ascii_text) + 1
        return self._token("DESIG", self.text[self.pos : self.pos + length], length, value)

    def _unicode_word(self, symbol: str, ascii_text: str, prev: Token | None) -> CqlToken:
        """A Unicode operator or keyword symbol, lexed as its ASCII spelling."""
        sub = Tokenizer(ascii_text, self.path)
        sub.line, sub.col = self.line, self.col
        tok = sub._next(prev)
        return self._token(tok.type, str(tok), len(symbol), tok.extra)

    def _repetition(self, m: re.Match[str]) -> CqlToken:
        lo_text, comma, hi_text, second = m.group(1), m.group(2), m.group(3), m.group(4)
        low = int(lo_text) if lo_text else 0
        if second:
            high: int | None = int(second)
        elif comma:
            high = int(hi_text) if hi_text else None
        else:
            high = low
        if high is not None and high < low:
            raise self.error("a repetition range must be ascending", self.line, self.col)
        return self._token("REP", m.group(0), len(m.group(0)), (low, high))


def token_extra(tok: Any) -> Any:
    """The decoded payload the lexer attached to a token."""
    return tok.extra if isinstance(tok, CqlToken) else None


def span_of(tok: Token) -> Span:
    """The span of a token (its length is the caret's width)."""
    length = tok.length if isinstance(tok, CqlToken) else len(str(tok))
    return Span(tok.line or 1, tok.column or 1, max(length, 1))


class LarkLexer(Lexer):
    """Adapter that lets lark's LALR parser pull tokens from `Tokenizer`."""

    __future_interface__ = 2
    path = "<query>"

    def __init__(self, lexer_conf: Any) -> None:
        self.conf = lexer_conf

    def lex(self, lexer_state: LexerState, parser_state: Any) -> Iterator[Token]:
        """Yield tokens; consults the parser state to recognise line repetitions."""
        text = lexer_state.text
        source = text.text if hasattr(text, "text") else str(text)
        # `open_sequence` reads the whole parser stack: only a query with a `line` or a
        # `path` pays.
        if "line" in source or "path" in source or "⊢" in source:
            tokenizer = Tokenizer(source, self.path, lambda: open_sequence(parser_state))
        else:
            tokenizer = Tokenizer(source, self.path)
        yield from tokenizer.tokens()
