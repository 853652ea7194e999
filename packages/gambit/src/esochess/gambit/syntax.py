"""Syntax error messages: what the parser expected, in words, at the token where it
stopped, and the special cases where a better message names the real mistake."""

from __future__ import annotations

import lark
import lark.exceptions
from lark import Token

from esochess.fen import Note, SourceError
from esochess.fen.suggest import did_you_mean
from esochess.gambit.lexer import Raw

TOKEN_NAMES = {
    "_NL": "end of line", "$END": "end of file", "IDENT": "a name", "INT": "a number",
    "NUM": "a number", "STRING": "a string", "LBRACE": "'{'", "RBRACE": "'}'",
    "LPAR": "'('", "RPAR": "')'", "LSQB": "'['", "RSQB": "']'", "COLON": "':'",
    "COMMA": "','", "ASSIGN": "'='", "FATARROW": "'=>'", "ARROW": "'->'",
    "SEL_OPEN": "'<'", "SEL_CLOSE": "'>'", "DECL": "a declaration",
    "ENTITY_NAME": "an entity type", "TYPE_NAME": "a type name",
}  # fmt: skip


def _describe(kind: str, text: str) -> str:
    if kind in ("_NL", "$END"):
        return TOKEN_NAMES[kind]
    if kind in ("IDENT", "ENTITY_NAME", "TYPE_NAME", "INT", "NUM"):
        return f"'{text}'"
    if kind == "STRING":
        return "a string"
    return f"'{text}'" if text else TOKEN_NAMES.get(kind, kind)


def syntax_error(
    exc: lark.exceptions.UnexpectedInput, path: str, source: str, toks: list[Raw]
) -> SourceError:
    """The diagnostic for the parser stopping at `exc` (source: the normalised text)."""
    choose = _after_choose(toks, exc)
    if choose is not None:
        return SourceError(path, choose.line, choose.col, "choose needs options (a list, "
                           "a selector, a range or a type name)").with_source(source)  # fmt: skip
    tok: Token | None = getattr(exc, "token", None)
    better = _real_mistake(toks, tok, path, source)
    if better is not None:
        return better
    expected = sorted(getattr(exc, "expected", set()) or set())
    lines = source.splitlines()
    if tok is None or tok.type == "$END":
        line = max(len(lines), 1)
        col = len(lines[-1]) + 1 if lines else 1
        found = "end of file"
    else:
        line, col = tok.line or 1, tok.column or 1
        found = _describe(tok.type, str(tok))
    message = _message_for(tok, expected, found)
    src = lines[line - 1] if 1 <= line <= len(lines) else ""
    return SourceError(path, line, col, message, source_line=src)


def _message_for(tok: Token | None, expected: list[str], found: str) -> str:
    """`expected X, found Y` with the most useful X among lark's expected terminals."""
    exp = set(expected)
    if {"LBRACE", "COLON"} <= exp and tok is not None and tok.type not in ("_NL", "$END"):
        what = "'{' or ':' to start a block"
    elif exp & {"IDENT", "INT", "STRING", "LPAR"} and not exp & {"_NL", "RBRACE"}:
        what = "an expression"
    elif "_NL" in exp or "RBRACE" in exp:
        what = "the end of the statement"
        if tok is not None and tok.type in ("_NL", "RBRACE", "$END"):
            what = "an expression" if exp & {"IDENT", "INT"} else what
    else:
        names = [TOKEN_NAMES[e] for e in sorted(exp) if e in TOKEN_NAMES and e != "$END"]
        names += [f"'{e.lower()}'" for e in sorted(exp) if e not in TOKEN_NAMES][: 3 - len(names)]
        what = " or ".join(names[:3]) if names else "something else"
    return f"expected {what}, found {found}"


def _after_choose(toks: list[Raw], exc: lark.exceptions.UnexpectedInput) -> Raw | None:
    """The `choose` token when the parser stopped right where its options should be."""
    tok: Token | None = getattr(exc, "token", None)
    if tok is None:
        return None
    at = next((k for k, t in enumerate(toks) if t.pos == tok.start_pos and t.kind == tok.type),
              None)  # fmt: skip
    if at is None or at == 0:
        return None
    k = at - 1
    if toks[k].kind == "RPAR":
        depth = 0
        while k >= 0:
            kind = toks[k].kind
            if kind == "RPAR":
                depth += 1
            elif kind in ("LPAR", "PROMPT_LPAR"):
                depth -= 1
                if depth == 0:
                    break
            k -= 1
        if k < 0 or toks[k].kind != "PROMPT_LPAR":
            return None
        k -= 1
    while k >= 0 and toks[k].kind in ("SECRET", "CHOOSE_RSQB"):
        if toks[k].kind == "CHOOSE_RSQB":
            while k >= 0 and toks[k].kind != "CHOOSE_LSQB":
                k -= 1
        k -= 1
    return toks[k] if k >= 0 and toks[k].kind == "CHOOSE" else None


# Statement keywords a misspelt first word of a statement is compared with.
STATEMENT_WORDS = ("loop", "while", "for", "if", "else", "match", "return", "break", "continue")
PROPERTY_KINDS = ("FIXED", "STATE", "TRAIT")


def _real_mistake(
    toks: list[Raw], tok: Token | None, path: str, source: str
) -> SourceError | None:
    """A message naming the real mistake, for the mistakes people make most: a misspelt
    keyword, a missing `}`, and the constructs of the language's other dialects."""
    lines = source.splitlines()
    if tok is None or tok.type == "$END":
        return _unclosed_brace(toks, path, lines)
    at = next((k for k, t in enumerate(toks) if t.pos == tok.start_pos and t.kind == tok.type),
              None)  # fmt: skip
    if at is None:
        return None
    here, prev = toks[at], toks[at - 1] if at > 0 else None

    def error(t: Raw, message: str) -> SourceError:
        return SourceError(path, t.line, t.col, message).with_source(source)

    if prev is not None and prev.kind == "IDENT" and prev.start and here.kind == "LBRACE":
        hint = did_you_mean(prev.text, STATEMENT_WORDS)
        if hint is not None:
            return error(prev, f"unknown statement '{prev.text}'; {hint}")
    if here.kind == "COLON" and at + 1 < len(toks) and toks[at + 1].kind == "COLON":
        name = prev.text if prev is not None and prev.kind == "IDENT" else "x"
        return error(here, f"'{name} :: …' is the binding syntax of another Gambit dialect; "
                     f"write '{name} = …' (or 'Type {name} = …' to give it a type)")  # fmt: skip
    first = next((toks[k] for k in range(at, -1, -1)
                  if k == 0 or toks[k - 1].line != here.line), None)  # fmt: skip
    if here.kind == "LPAR" and first is not None and first.kind in PROPERTY_KINDS:
        form = _bracket_form(toks, at, first, lines)
        if form is not None:
            return error(here, form)
    if here.kind == "ASSIGN":
        opening = _enclosing_enum(toks, at)
        if opening is not None:
            members = _enum_members(toks, opening)
            return error(here, "numbered enum members belong to another Gambit dialect; list "
                         f"the members alone, 'enum {toks[opening - 1].text} "
                         f"{{ {', '.join(members)} }}' (ord(m) gives a member's position)")  # fmt: skip
    return None


def _unclosed_brace(toks: list[Raw], path: str, lines: list[str]) -> SourceError | None:
    """At the end of the file: the innermost `{` that is never closed, if any."""
    stack: list[Raw] = []
    for t in toks:
        if t.kind == "LBRACE":
            stack.append(t)
        elif t.kind == "RBRACE" and stack:
            stack.pop()
    if not stack:
        return None
    opening = stack[-1]
    line = max(len(lines), 1)
    col = len(lines[-1]) + 1 if lines else 1
    src = lines[line - 1] if lines else ""
    return SourceError(path, line, col, f"missing '}}': the end of the file comes before the "
                       f"'{{' on line {opening.line} is closed", source_line=src,
                       notes=(Note(path, opening.line, opening.col, "this '{' is not closed"),))  # fmt: skip


def _bracket_form(toks: list[Raw], at: int, kind: Raw, lines: list[str]) -> str | None:
    """`state int (Card card).tokens`: the message with the `[Card tokens]` form."""
    k = at + 1
    entities: list[str] = []
    while k < len(toks) and toks[k].kind != "RPAR":
        if toks[k].kind == "ENTITY_NAME":
            entities.append(toks[k].text)
        k += 1
    if not (k + 2 < len(toks) and toks[k + 1].kind == "DOT" and toks[k + 2].kind == "IDENT"):
        return None
    name, lpar = toks[k + 2].text, toks[at]
    written = lines[lpar.line - 1][lpar.col - 1 : toks[k + 2].col - 1 + len(name)]
    type_text = lines[kind.line - 1][kind.col - 1 + len(kind.text) : lpar.col - 1].strip()
    return (f"'{written}' is the property syntax of another Gambit dialect; declare it as "
            f"'{kind.text} {type_text} [{' '.join(entities)} {name}]'")  # fmt: skip


def _enclosing_enum(toks: list[Raw], at: int) -> int | None:
    """The index of the `{` of the enum declaration that token `at` is inside, if any."""
    k = at - 1
    while k >= 1 and toks[k].kind not in ("LBRACE", "RBRACE"):
        k -= 1
    if k >= 2 and toks[k].kind == "LBRACE" and toks[k - 2].kind == "ENUM":
        return k
    return None


def _enum_members(toks: list[Raw], opening: int) -> list[str]:
    """The member names of an enum declaration (the names before `=`, `,` or `}`)."""
    members: list[str] = []
    k = opening + 1
    while k < len(toks) and toks[k].kind != "RBRACE":
        if toks[k].kind == "IDENT" and toks[k - 1].kind in ("LBRACE", "COMMA"):
            members.append(toks[k].text)
        k += 1
    return members
