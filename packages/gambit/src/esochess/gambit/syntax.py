"""Syntax error messages: what the parser expected, in words, at the token where it
stopped, and the special cases where a better message names the real mistake."""

from __future__ import annotations

import lark
import lark.exceptions
from lark import Token

from esochess.fen import SourceError
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
