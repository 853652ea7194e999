"""Notation regular expressions (docs/reference/gambit.md#notations): Lua-style `%` classes
translated to Python `re` syntax, matched by RE2.

Literals are matched against every notation while a program is checked, so a pattern such
as `(a|a)*b` must not make `gambit check` backtrack for ever on a long literal: matching is
done by RE2, in time linear in the literal. Python's `re` still compiles each pattern, for
its precise syntax messages and its group count; a pattern RE2 cannot run (backreferences,
look-around) is refused with a message saying why.
"""

from __future__ import annotations

import functools
import re
import warnings

import re2  # type: ignore[import-untyped]

_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False  # errors become diagnostics; RE2 must not print them

_PUNCT = "".join(chr(c) for c in range(33, 127) if not chr(c).isalnum())
_CLASSES = {
    "d": "0-9", "a": "A-Za-z", "l": "a-z", "u": "A-Z", "w": "A-Za-z0-9", "x": "0-9A-Fa-f",
}  # fmt: skip


class NotationRegexError(Exception):
    """A notation regex that cannot be translated or compiled."""


def translate(source: str) -> str:
    """Translate `%` classes outside and inside `[…]` (docs/reference/gambit.md#notations) into a
    Python pattern."""
    out: list[str] = []
    i = 0
    in_class = False
    n = len(source)
    while i < n:
        c = source[i]
        if c == "\\" and i + 1 < n:
            out.append(source[i : i + 2])
            i += 2
            continue
        if c == "[" and not in_class:
            in_class = True
            out.append(c)
            # A `]` right after `[` or `[^` is a literal member.
            if source.startswith("^", i + 1):
                out.append("^")
                i += 1
            if source.startswith("]", i + 1):
                out.append("\\]")
                i += 1
            i += 1
            continue
        if c == "]" and in_class:
            in_class = False
            out.append(c)
            i += 1
            continue
        if c == "%":
            if i + 1 >= n:
                raise NotationRegexError("unknown notation class '%'")
            k = source[i + 1]
            out.append(_class(k, in_class))
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def _class(k: str, in_class: bool) -> str:
    if k == "%":
        return "%"
    if k == "s":
        return r"\s"
    if k in _CLASSES:
        body = _CLASSES[k]
        return body if in_class else f"[{body}]"
    if k == "p" and not in_class:
        return "[" + re.escape(_PUNCT) + "]"
    if k.lower() in _CLASSES or k == "S":
        if in_class:
            raise NotationRegexError(f"'%{k}' cannot be used inside [...]")
        if k == "S":
            return r"\S"
        return f"[^{_CLASSES[k.lower()]}]"
    if k == "p":
        raise NotationRegexError("'%p' cannot be used inside [...]")
    raise NotationRegexError(f"unknown notation class '%{k}'")


def compile_notation(source: str) -> re.Pattern[str]:
    """Translate and compile; raises NotationRegexError quoting the `re` message."""
    text = translate(source)
    try:
        with warnings.catch_warnings():
            # `re` warns about syntax it may change later ("possible set difference"); the
            # pattern means what it says today, and a Python warning is no diagnostic.
            warnings.simplefilter("ignore")
            pattern = re.compile(text)
    except re.error as exc:
        raise NotationRegexError(f"{exc.msg} at position {exc.pos}") from None
    try:
        _linear(text)
    except re2.error:
        raise NotationRegexError(
            "backreferences and look-around are not supported in notations "
            "(a literal is matched in time linear in its length)"
        ) from None
    return pattern


@functools.lru_cache(maxsize=256)
def _linear(text: str) -> object:
    return re2.compile(text, _RE2_OPTIONS)


def fullmatch_groups(regex: str, literal: str) -> tuple[str, ...] | None:
    """The groups of `literal` matched as a whole by a notation's translated pattern (the
    `.pattern` of what `compile_notation` returned; "" for a group that took no part), or
    None when it does not match; linear time (RE2)."""
    found = _linear(regex).fullmatch(literal)  # type: ignore[attr-defined]
    if found is None:
        return None
    return tuple(g if g is not None else "" for g in found.groups())
