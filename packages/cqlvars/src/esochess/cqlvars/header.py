"""The `cql(...)` header (docs/reference/cql.md#header): its words are read in context,
after the parse, into an `ast.Header`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lark import Token

from esochess.cqlvars import ast
from esochess.cqlvars.lexer import MAX_LITERAL, span_of, token_extra
from esochess.fen import SourceError

#: Builds the located error of a header word.
ErrorAt = Callable[[ast.Span, str], SourceError]


def parse_range(
    words: list[Token], i: int, error: ErrorAt, name: str
) -> tuple[tuple[int, int | None], int]:
    """Read `LO [HI]` header numbers starting at words[i]."""
    numbers: list[int] = []
    while i < len(words) and len(numbers) < 2 and str(words[i]).isdigit():
        value = int(str(words[i]))
        if value > MAX_LITERAL:
            raise error(span_of(words[i]), f"numeric literal {value} exceeds {MAX_LITERAL}")
        numbers.append(value)
        i += 1
    if not numbers:
        where = words[i] if i < len(words) else words[i - 1]
        raise error(span_of(where), f"'{name}' needs a number")
    low = numbers[0]
    high = numbers[1] if len(numbers) > 1 else low
    if high < low:
        raise error(span_of(words[i - 1]), f"'{name}' range must be ascending")
    return (low, high), i


def parse_header(words: list[Token], error: ErrorAt) -> ast.Header:
    """Interpret the header's contextual words (docs/reference/cql.md#header)."""
    fields: dict[str, Any] = {}
    inputs: list[str] = []
    seen: set[str] = set()
    i = 0

    def path_at(j: int, name: str) -> str:
        if j >= len(words):
            raise error(span_of(words[j - 1]), f"'{name}' needs a file name")
        tok = words[j]
        return str(token_extra(tok)) if tok.type == "STRING" else str(tok)

    while i < len(words):
        tok = words[i]
        word = str(tok)
        if tok.type == "STRING" or word not in (
            "input",
            "output",
            "gamenumber",
            "matchcount",
            "sort",
            "result",
            "variations",
            "mainline",
            "quiet",
            "silent",
            "matchstring",
        ):
            raise error(span_of(tok), f"unknown header parameter {word!r}")
        if word != "input" and word in seen:
            raise error(span_of(tok), f"header parameter '{word}' given twice")
        seen.add(word)
        i += 1
        if word == "input":
            inputs.append(path_at(i, word))
            i += 1
        elif word == "output":
            fields["output"] = path_at(i, word)
            i += 1
        elif word in ("gamenumber", "matchcount"):
            rng, i = parse_range(words, i, error, word)
            if word == "matchcount" and rng[0] < 1:
                raise error(span_of(words[i - 1]), "matchcount must be at least 1")
            if word == "matchcount" and "matchcount" in fields:
                raise error(span_of(tok), "matchcount is already set by 'sort matchcount'")
            fields[word] = rng
        elif word == "sort":
            if i >= len(words) or str(words[i]) != "matchcount":
                raise error(span_of(tok), "header 'sort' must be followed by 'matchcount'")
            i += 1
            fields["sort_matchcount"] = True
            if i < len(words) and str(words[i]).isdigit():
                if "matchcount" in fields:
                    raise error(span_of(words[i]), "matchcount is given twice")
                rng, i = parse_range(words, i, error, "matchcount")
                if rng[0] < 1:
                    raise error(span_of(words[i - 1]), "matchcount must be at least 1")
                fields["matchcount"] = rng
                seen.add("matchcount")
        elif word == "result":
            value = path_at(i, word)
            if value not in ("1-0", "0-1", "1/2-1/2"):
                raise error(span_of(words[i]), f"invalid result {value!r}")
            fields["result"] = value
            i += 1
        elif word == "matchstring":
            fields["matchstring"] = path_at(i, word)
            i += 1
        elif word in ("variations", "quiet", "silent"):
            fields[word] = True
        if "variations" in seen and "mainline" in seen:
            raise error(span_of(tok), "'mainline' and 'variations' cannot be combined")
    return ast.Header(inputs=tuple(inputs), **fields)


