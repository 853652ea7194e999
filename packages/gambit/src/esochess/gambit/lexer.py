"""The Gambit lexer and post-lexer (docs/reference/gambit.md#source-text, Appendix C).

Gambit's tokens depend on context, so lark gets this custom lexer. In order:

1. `scan` cuts the text into raw tokens (nested block comments, strings, notation
   literals, the raw REGEX after `notation TYPE`) and classifies each `:`
   (docs/reference/gambit.md#method-colon);
2. type names found by a pre-scan of `entity`/`enum`/`struct` declarations become
   ENTITY_NAME/TYPE_NAME; `<` after an entity name opens a selector, and `>` inside one
   closes it (`>>` closes two);
3. contextual words (docs/reference/gambit.md#source-text) become keywords only where they are
special;
4. NEWLINEs are dropped where docs/reference/gambit.md#source-text says they do not end a statement
(bracket stack);
5. a DECL marker is put before a statement that starts with `Type name` followed by `=`
   or the end of the statement, the one place the grammar is not LALR(1)
   (docs/reference/gambit.md#statements).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from lark import Token
from lark.lexer import Lexer

from esochess.fen import SourceError

RESERVED = {
    "entity": "ENTITY", "enum": "ENUM", "struct": "STRUCT", "fixed": "FIXED",
    "trait": "TRAIT", "state": "STATE", "fn": "FN", "notation": "NOTATION",
    "static": "STATIC", "if": "IF", "else": "ELSE", "for": "FOR", "in": "IN",
    "while": "WHILE", "loop": "LOOP", "break": "BREAK", "continue": "CONTINUE",
    "return": "RETURN", "match": "MATCH", "is": "IS", "and": "AND", "or": "OR",
    "not": "NOT", "true": "TRUE", "false": "FALSE", "none": "NONE", "any": "ANY",
}  # fmt: skip

PREDECLARED_TYPES = {
    "int", "num", "bool", "str", "Integer", "Number", "Boolean", "String",
    "Function", "Procedure",
}  # fmt: skip

OPERATORS = [
    ("..", "DOTDOT"), ("==", "EQ"), ("!=", "NE"), ("<=", "LE"), (">=", "GE"),
    ("=>", "FATARROW"), ("->", "ARROW"), ("+=", "PLUSEQ"), ("-=", "MINUSEQ"),
    ("*=", "STAREQ"), ("/=", "SLASHEQ"), ("%=", "PERCENTEQ"), ("++", "INC"), ("--", "DEC"),
    ("+", "PLUS"), ("-", "MINUS"), ("*", "STAR"), ("/", "SLASH"), ("%", "PERCENT"),
    ("#", "HASH"), ("&", "AMP"), ("|", "BAR"), ("!", "BANG"), ("?", "QMARK"), (".", "DOT"),
    (",", "COMMA"), (":", "COLON"), ("=", "ASSIGN"), ("<", "LT"), (">", "GT"),
    ("(", "LPAR"), (")", "RPAR"), ("[", "LSQB"), ("]", "RSQB"), ("{", "LBRACE"),
    ("}", "RBRACE"),
]  # fmt: skip

# Tokens after which a NEWLINE continues the statement (docs/reference/gambit.md#source-text rules 3
# and 4).
CONTINUING = {
    "PLUS", "MINUS", "STAR", "SLASH", "PERCENT", "HASH", "AMP", "BAR", "BANG", "DOTDOT",
    "EQ", "NE", "LT", "LE", "GT", "GE", "AND", "OR", "NOT", "IS", "IN", "CHOOSE", "SECRET",
    "CHOOSE_RSQB", "ASSIGN", "PLUSEQ", "MINUSEQ", "STAREQ", "SLASHEQ", "PERCENTEQ",
    "FATARROW", "ARROW", "DOT", "COLON", "COMMA", "LBRACE", "METHOD_COLON", "PROMPT_LPAR",
}  # fmt: skip

# Tokens that end a complete expression (for contextual words and the method colon).
EXPR_END = {
    "IDENT", "ENTITY_NAME", "TYPE_NAME", "INT", "NUM", "STRING", "NOTATION_LIT",
    "TRUE", "FALSE", "NONE", "RPAR", "RSQB", "SEL_CLOSE",
}  # fmt: skip

STATEMENT_START = {"_NL", "LBRACE", "COLON", "$START"}
STATEMENT_END = {"_NL", "RBRACE", "$END"}

# Names: a letter or `_`, then letters, digits and `_`, where letters and digits are
# Unicode ones; a run of word characters that Python's `str.isidentifier` refuses (a
# superscript digit, say) is an error naming it. Names compare exactly as written.
_IDENT = re.compile(r"[^\W\d]\w*")
_NUMBER = re.compile(r"[0-9]+(\.[0-9]+)?")


@dataclass
class Raw:
    """A raw token before post-processing: kind, text, position, preceding blank."""

    kind: str
    text: str
    line: int
    col: int
    pos: int
    space_before: bool
    start: bool = False  # begins a statement (set by the newline pass)


class _Scanner:
    def __init__(self, text: str, path: str) -> None:
        self.text = text
        self.path = path
        self.i = 0
        self.line = 1
        self.col = 1
        self.out: list[Raw] = []

    def error(self, line: int, col: int, message: str) -> SourceError:
        lines = self.text.splitlines()
        src = lines[line - 1] if 1 <= line <= len(lines) else ""
        return SourceError(self.path, line, col, message, source_line=src)

    def advance(self, n: int) -> None:
        chunk = self.text[self.i : self.i + n]
        newlines = chunk.count("\n")
        if newlines:
            self.line += newlines
            self.col = len(chunk) - chunk.rfind("\n")
        else:
            self.col += len(chunk)
        self.i += n

    def add(self, kind: str, text: str, line: int, col: int, start: int, space: bool) -> None:
        self.out.append(Raw(kind, text, line, col, start, space))

    def run(self) -> list[Raw]:
        t = self.text
        n = len(t)
        space = True
        while self.i < n:
            ch = t[self.i]
            line, col, start = self.line, self.col, self.i
            if ch in " \t":
                self.advance(1)
                space = True
                continue
            if ch == "\n":
                self.add("_NL", "\n", line, col, start, space)
                self.advance(1)
                space = True
                continue
            if t.startswith("//", self.i):
                end = t.find("\n", self.i)
                self.advance((n if end < 0 else end) - self.i)
                space = True
                continue
            if t.startswith("/*", self.i):
                self.block_comment(line, col)
                space = True
                continue
            if ch == '"':
                self.add("STRING", self.string(line, col), line, col, start, space)
            elif ch == "'":
                end = t.find("'", self.i + 1)
                nl = t.find("\n", self.i + 1)
                if end < 0 or (0 <= nl < end):
                    raise self.error(line, col, "unterminated notation literal")
                self.add("NOTATION_LIT", t[self.i + 1 : end], line, col, start, space)
                self.advance(end + 1 - self.i)
            elif "0" <= ch <= "9":
                m = _NUMBER.match(t, self.i)
                assert m is not None
                kind = "NUM" if m.group(1) else "INT"
                self.add(kind, m.group(0), line, col, start, space)
                self.advance(len(m.group(0)))
            elif ch.isalpha() or ch == "_":
                m = _IDENT.match(t, self.i)
                assert m is not None  # a letter or `_` starts a match
                word = m.group(0)
                if not word.isidentifier():
                    bad = next(c for k, c in enumerate(word) if not ("a" + word[: k + 1]).isidentifier())
                    raise self.error(line, col, f"'{word}' is not a valid name: {bad!r} cannot "
                                     "be part of a name (names are letters, digits and '_')")
                self.add(RESERVED.get(word, "IDENT"), word, line, col, start, space)
                self.advance(len(word))
                if self.regex_follows():
                    self.regex()
            elif ch == ";":
                raise self.error(line, col, "unexpected ';': end statements with a newline")
            else:
                for text, kind in OPERATORS:
                    if t.startswith(text, self.i):
                        self.add(kind, text, line, col, start, space)
                        self.advance(len(text))
                        break
                else:
                    raise self.error(line, col, f"unexpected character {ch!r}")
            space = False
        self.add("_NL", "", self.line, self.col, self.i, True)
        return self.out

    def block_comment(self, line: int, col: int) -> None:
        depth = 0
        t = self.text
        while self.i < len(t):
            if t.startswith("/*", self.i):
                depth += 1
                self.advance(2)
            elif t.startswith("*/", self.i):
                depth -= 1
                self.advance(2)
                if depth == 0:
                    return
            else:
                self.advance(1)
        raise self.error(line, col, "unterminated comment")

    def string(self, line: int, col: int) -> str:
        t = self.text
        j = self.i + 1
        out: list[str] = []
        while True:
            if j >= len(t) or t[j] in "\r\n":
                raise self.error(line, col, "unterminated string literal")
            c = t[j]
            if c == '"':
                break
            if c == "\\":
                nxt = t[j + 1] if j + 1 < len(t) else ""
                mapped = {'"': '"', "\\": "\\", "n": "\n", "t": "\t"}.get(nxt)
                if mapped is None:
                    ecol = col + (j - self.i)
                    raise self.error(line, ecol, f"unknown escape '\\{nxt}' in string")
                out.append(mapped)
                j += 2
                continue
            out.append(c)
            j += 1
        self.advance(j + 1 - self.i)
        return "".join(out)

    def regex_follows(self) -> bool:
        # `notation NAME` followed by the raw regular expression
        # (docs/reference/gambit.md#notations).
        o = self.out
        return len(o) >= 2 and o[-2].kind == "NOTATION" and o[-1].kind == "IDENT"

    def regex(self) -> None:
        t = self.text
        while self.i < len(t) and t[self.i] in " \t":
            self.advance(1)
        line, col, start = self.line, self.col, self.i
        eol = t.find("\n", self.i)
        eol = len(t) if eol < 0 else eol
        m = re.compile(r"[ \t]+=>").search(t, self.i, eol)
        if m is None:
            raise self.error(line, col, "expected '=>' after the notation's regular expression")
        raw = t[self.i : m.start()]
        self.add("REGEX", raw, line, col, start, True)
        self.advance(m.start() - self.i)


def prescan_types(raws: list[Raw]) -> tuple[set[str], set[str]]:
    """Entity names and other type names declared anywhere in the file
    (docs/reference/gambit.md#selectors)."""
    entities = {"Player"}
    others = set(PREDECLARED_TYPES)
    for a, b in zip(raws, raws[1:], strict=False):
        if b.kind == "IDENT":
            if a.kind == "ENTITY":
                entities.add(b.text)
            elif a.kind in ("ENUM", "STRUCT"):
                others.add(b.text)
    return entities, others - entities


class _Post:
    """Steps 2–5 of the module docstring over the raw token list."""

    def __init__(self, raws: list[Raw], path: str, text: str) -> None:
        self.raws = raws
        self.path = path
        self.text = text
        self.entities, self.types = prescan_types(raws)

    def error(self, r: Raw, message: str) -> SourceError:
        lines = self.text.splitlines()
        src = lines[r.line - 1] if 1 <= r.line <= len(lines) else ""
        return SourceError(self.path, r.line, r.col, message, source_line=src)

    def run(self) -> list[Raw]:
        toks = self.names_and_brackets(self.raws)
        toks = self.contextual(toks)
        toks = self.newlines(toks)
        return self.declarations(toks)

    def names_and_brackets(self, raws: list[Raw]) -> list[Raw]:
        out: list[Raw] = []
        stack: list[str] = []
        i = 0
        while i < len(raws):
            r = raws[i]
            if r.kind == "IDENT":
                if r.text in self.entities:
                    r.kind = "ENTITY_NAME"
                elif r.text in self.types:
                    r.kind = "TYPE_NAME"
            k = r.kind
            if k == "STATIC":
                raise self.error(r, "'static' is not a property kind: use 'fixed'")
            if k == "LT" and out and out[-1].kind == "ENTITY_NAME":
                r.kind = "SEL_OPEN"
                stack.append("<")
            elif k in ("LPAR", "LSQB", "LBRACE"):
                stack.append(r.text)
            elif k in ("RPAR", "RSQB", "RBRACE"):
                if stack and stack[-1] != "<":
                    stack.pop()
            elif stack and stack[-1] == "<":
                if k == "GT":
                    r.kind = "SEL_CLOSE"
                    stack.pop()
                    self.strict_gt_check(out, raws, i)
                elif k == "LT":
                    raise self.error(
                        r, "strict '<' is not allowed in a selector; use '<=' (e.g. 'tokens <= 9')"
                    )
            if k == "COLON" and self.is_method_colon(out, raws, i):
                r.kind = "METHOD_COLON"
            out.append(r)
            i += 1
        # `>>` is never one token (Gambit has no such operator), so `X<a: Y<b>>` closes
        # both selectors above without splitting anything.
        return out

    def strict_gt_check(self, out: list[Raw], raws: list[Raw], i: int) -> None:
        prev = out[-1] if out else None
        nxt = raws[i + 1] if i + 1 < len(raws) else None
        nxt2 = raws[i + 2] if i + 2 < len(raws) else None
        if (
            prev is not None
            and prev.kind == "IDENT"
            and nxt is not None
            and nxt.kind in ("INT", "NUM", "IDENT", "STRING")
            and nxt.line == raws[i].line
            and nxt2 is not None
            and nxt2.kind in ("GT", "GE")
        ):
            hint = f"{int(nxt.text) + 1}" if nxt.kind == "INT" else nxt.text
            raise self.error(
                raws[i],
                f"strict '>' is not allowed in a selector; use '>=' (e.g. '{prev.text} >= {hint}')",
            )

    @staticmethod
    def is_method_colon(out: list[Raw], raws: list[Raw], i: int) -> bool:
        c = raws[i]
        if c.space_before or not out:
            return False
        prev = out[-1]
        if prev.kind not in EXPR_END or prev.kind in ("TRUE", "FALSE", "NONE"):
            return False
        nxt = raws[i + 1] if i + 1 < len(raws) else None
        after = raws[i + 2] if i + 2 < len(raws) else None
        return (
            nxt is not None
            and after is not None
            and nxt.kind == "IDENT"
            and not nxt.space_before
            and after.kind == "LPAR"
            and not after.space_before
        )

    def contextual(self, toks: list[Raw]) -> list[Raw]:
        n = len(toks)
        depth = 0
        for i, r in enumerate(toks):
            if r.kind in ("LBRACE", "LPAR", "LSQB", "SEL_OPEN"):
                depth += 1
            elif r.kind in ("RBRACE", "RPAR", "RSQB", "SEL_CLOSE"):
                depth -= 1
            if r.kind != "IDENT":
                continue
            prev = toks[i - 1].kind if i > 0 else "$START"
            nxt = toks[i + 1] if i + 1 < n else None
            nk = nxt.kind if nxt is not None else "$END"
            w = r.text
            if w == "players" and depth == 0 and prev in ("_NL", "$START") and nk == "INT":
                r.kind = "PLAYERS"
            elif w == "choose" and prev in EXPR_END:
                r.kind = "CHOOSE"
                if nxt is not None and nk == "LSQB" and not nxt.space_before:
                    nxt.kind = "CHOOSE_LSQB"
                    self.mark_choose_close(toks, i + 1)
                elif nxt is not None and nk == "LPAR":
                    nxt.kind = "PROMPT_LPAR"
            elif w == "secret" and prev in ("CHOOSE", "CHOOSE_RSQB"):
                r.kind = "SECRET"
                if nxt is not None and nk == "LPAR":
                    nxt.kind = "PROMPT_LPAR"
            elif w in ("filter", "map") and prev in EXPR_END and nk == "LPAR":
                if i + 3 < n and toks[i + 2].kind == "IDENT" and toks[i + 3].kind == "COLON":
                    r.kind = w.upper()
            elif w in ("wins", "loses") and prev in EXPR_END and nk in STATEMENT_END:
                r.kind = w.upper()
            elif w in ("draw", "illegal", "commit") and prev in STATEMENT_START and (
                nk in STATEMENT_END
            ):
                r.kind = w.upper()
            elif w == "swap" and prev in STATEMENT_START and nk != "LPAR":
                r.kind = "SWAP"
        return toks

    @staticmethod
    def mark_choose_close(toks: list[Raw], open_index: int) -> None:
        depth = 0
        for j in range(open_index, len(toks)):
            k = toks[j].kind
            if k in ("LSQB", "CHOOSE_LSQB", "LPAR", "LBRACE", "SEL_OPEN"):
                depth += 1
            elif k in ("RSQB", "RPAR", "RBRACE", "SEL_CLOSE"):
                depth -= 1
                if depth == 0:
                    if k == "RSQB":
                        toks[j].kind = "CHOOSE_RSQB"
                        if j + 1 < len(toks) and toks[j + 1].kind == "LPAR":
                            toks[j + 1].kind = "PROMPT_LPAR"
                    return

    def newlines(self, toks: list[Raw]) -> list[Raw]:
        out: list[Raw] = []
        # "(", "[", "<", "{" (block), "A" (expression arms) or "S" (statement arms)
        stack: list[str] = []
        match_pending: list[tuple[int, str]] = []  # (stack depth, brace kind) per `match`
        n = len(toks)
        for i, r in enumerate(toks):
            k = r.kind
            if k == "_NL":
                if stack and stack[-1] in "([<":
                    continue
                if not out or out[-1].kind in CONTINUING or out[-1].kind == "_NL":
                    continue
                j = i + 1
                while j < n and toks[j].kind == "_NL":
                    j += 1
                nk = toks[j].kind if j < n else "$END"
                if nk == "RBRACE":
                    continue
                if nk == "ELSE" and not (stack and stack[-1] in "AS"):
                    continue
                out.append(r)
                continue
            prev = out[-1].kind if out else "$START"
            r.start = prev in ("_NL", "LBRACE", "COLON") and bool(stack) and stack[-1] in "{S"
            if k == "MATCH":
                if r.start:
                    r.kind = "MATCH_STMT"
                match_pending.append((len(stack), "S" if r.start else "A"))
            if k in ("LPAR", "LSQB", "CHOOSE_LSQB", "PROMPT_LPAR"):
                stack.append("(" if k in ("LPAR", "PROMPT_LPAR") else "[")
            elif k == "SEL_OPEN":
                stack.append("<")
            elif k == "LBRACE":
                kind = "A" if prev == "IF" else "{"
                if match_pending and match_pending[-1][0] == len(stack):
                    kind = match_pending.pop()[1]
                stack.append(kind)
            elif k in ("RPAR", "RSQB", "CHOOSE_RSQB", "SEL_CLOSE", "RBRACE"):
                if stack:
                    stack.pop()
            out.append(r)
        while out and out[0].kind == "_NL":
            out.pop(0)
        return out

    def declarations(self, toks: list[Raw]) -> list[Raw]:
        out: list[Raw] = []
        n = len(toks)
        for i, r in enumerate(toks):
            if r.start and r.kind in ("TYPE_NAME", "ENTITY_NAME", "LSQB", "LPAR", "IDENT", "NONE", "ANY"):
                j = self.skip_type(toks, i)
                if (
                    j is not None
                    and j < n
                    and toks[j].kind == "IDENT"
                    and (j + 1 >= n or toks[j + 1].kind in ("ASSIGN", "_NL", "RBRACE", "COMMA"))
                    and not (r.kind == "IDENT" and j != i + 1)
                ):
                    out.append(Raw("DECL", "", r.line, r.col, r.pos, True))
            out.append(r)
        return out

    def skip_type(self, toks: list[Raw], i: int) -> int | None:
        """Index just after a complete type starting at `i`, or None."""
        n = len(toks)

        def atom(j: int) -> int | None:
            if j >= n:
                return None
            k = toks[j].kind
            if k in ("TYPE_NAME", "IDENT", "NONE", "ANY"):
                return j + 1
            if k == "ENTITY_NAME":
                if j + 1 < n and toks[j + 1].kind == "SEL_OPEN":
                    depth = 0
                    for m in range(j + 1, n):
                        if toks[m].kind == "SEL_OPEN":
                            depth += 1
                        elif toks[m].kind == "SEL_CLOSE":
                            depth -= 1
                            if depth == 0:
                                return m + 1
                    return None
                return j + 1
            if k in ("LSQB", "LPAR"):
                close = "RSQB" if k == "LSQB" else "RPAR"
                e = union(j + 1)
                if e is not None and e < n and toks[e].kind == close:
                    return e + 1
            return None

        def post(j: int) -> int | None:
            e = atom(j)
            while e is not None and e < n and toks[e].kind in ("BANG", "QMARK"):
                e += 1
            return e

        def union(j: int) -> int | None:
            e = post(j)
            while e is not None and e < n and toks[e].kind == "BAR":
                e = post(e + 1)
            return e

        return union(i)


def tokenize(text: str, path: str) -> list[Raw]:
    """Lex a whole source file into post-processed tokens (raises SourceError)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    raws = _Scanner(text, path).run()
    return _Post(raws, path, text).run()


class GambitLexer(Lexer):
    """A lark lexer that replays the tokens of `tokenize` (set on the instance)."""

    def __init__(self, lexer_conf: object) -> None:
        self.tokens: list[Raw] = []

    def lex(self, data: object) -> Iterator[Token]:  # type: ignore[override]
        """Yield lark tokens for the pre-computed token list."""
        for r in self.tokens:
            yield Token(
                r.kind, r.text, start_pos=r.pos, line=r.line, column=r.col,
                end_line=r.line, end_column=r.col + len(r.text), end_pos=r.pos + len(r.text),
            )  # fmt: skip
