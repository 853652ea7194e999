"""Piece designators as written in a query (docs/reference/cql.md#piece-designators):
`Ra3`, `[Qq]d1`, `a-h1`, `_f1-8`, `[]`, `.`; the lexer reads them before words."""

from __future__ import annotations

from dataclasses import dataclass

import chess

PIECE_CHARS = frozenset("KQRBNPkqrbnpAa_")
FILES = "abcdefgh"
RANKS = "12345678"
WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_$")


@dataclass(frozen=True)
class DesignatorValue:
    """What a designator token denotes: piece characters (None: any) and a square mask."""

    pieces: str | None
    squares: int | None


def _square_spec(text: str, i: int) -> tuple[int, int] | None:
    """Match SQSPEC at i; return (mask, end) or None. Raises on a descending range."""
    if i >= len(text) or text[i] not in FILES:
        return None
    f0 = f1 = FILES.index(text[i])
    j = i + 1
    if j + 1 < len(text) and text[j] == "-" and text[j + 1] in FILES:
        f1 = FILES.index(text[j + 1])
        j += 2
    if j >= len(text) or text[j] not in RANKS:
        return None
    r0 = r1 = RANKS.index(text[j])
    j += 1
    if j + 1 < len(text) and text[j] == "-" and text[j + 1] in RANKS:
        r1 = RANKS.index(text[j + 1])
        j += 2
    if f1 < f0 or r1 < r0:
        raise ValueError("a square range must be ascending")
    mask = 0
    for f in range(f0, f1 + 1):
        for r in range(r0, r1 + 1):
            mask |= chess.BB_SQUARES[chess.square(f, r)]
    return mask, j


def _square_set(text: str, i: int) -> tuple[int, int] | None:
    """Match SQUARESET at i; return (mask, end) or None."""
    if i < len(text) and text[i] == "[":
        first = _square_spec(text, i + 1)
        if first is None:
            return None
        mask, j = first
        while j < len(text) and text[j] == ",":
            nxt = _square_spec(text, j + 1)
            if nxt is None:
                return None
            mask |= nxt[0]
            j = nxt[1]
        if j < len(text) and text[j] == "]":
            return mask, j + 1
        return None
    return _square_spec(text, i)


def match_designator(text: str, i: int) -> tuple[DesignatorValue, int] | None:
    """Match the longest piece designator at i (docs/reference/cql.md#query-structure item 5), or
    None.

    The match is rejected when the next character is a word character. A descending
    range raises ValueError.
    """
    result: tuple[DesignatorValue, int] | None = None
    if text.startswith("[]", i):
        result = (DesignatorValue("", None), i + 2)
    elif i < len(text) and text[i] == ".":
        result = (DesignatorValue(None, None), i + 1)
    else:
        pieces: str | None = None
        j = i
        if i < len(text) and text[i] in PIECE_CHARS:
            pieces, j = text[i], i + 1
        elif i < len(text) and text[i] == "[":
            k = i + 1
            while k < len(text) and text[k] in PIECE_CHARS:
                k += 1
            if k > i + 1 and k < len(text) and text[k] == "]":
                pieces, j = text[i + 1 : k], k + 1
        if pieces is not None:
            squares = _square_set(text, j)
            if squares is not None:
                result = (DesignatorValue(pieces, squares[0]), squares[1])
            else:
                result = (DesignatorValue(pieces, None), j)
        # `a-h1` is a square range although `a` alone is a piece: keep the longest match.
        alone = _square_set(text, i)
        if alone is not None and (result is None or alone[1] > result[1]):
            result = (DesignatorValue(None, alone[0]), alone[1])
    if result is None:
        return None
    end = result[1]
    if end < len(text) and text[end] in WORD_CHARS:
        return None
    return result
