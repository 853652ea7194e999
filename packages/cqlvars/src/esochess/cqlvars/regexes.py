"""The regular expressions of `~~`, run by RE2: time linear in the text, whatever the pattern.

Python's `re` backtracks: `player white ~~ "^(\\w+\\s?)*$"` took exponential time on a
37-character name, and `"x" ~~ player black` makes PGN data the pattern. RE2 has no
backtracking, so no pattern can make a search slow; in exchange it refuses the few
features that need backtracking (backreferences such as `\\1`, look-around `(?=`, `(?<=`),
with a message saying so. RE2 reads UTF-8: the bytes of old Latin-1 PGN files, kept by
cql as surrogate escapes, are passed as private-use characters (one character each, so
`.` matches one) and turned back in the groups. Unlike Python's `re`, `\\w` and `\\d`
are ASCII only.
"""

from __future__ import annotations

import functools
from typing import Any


@functools.cache
def _re2() -> tuple[Any, Any]:
    """RE2 and its options, loaded by the first query that uses `~~`."""
    import re2  # type: ignore[import-untyped]

    options = re2.Options()
    options.log_errors = False  # errors are reported by cql, not printed by RE2
    return re2, options


class RegexError(ValueError):
    """A pattern RE2 cannot compile; the message says why."""


# Surrogate escapes U+DC80..U+DCFF <-> private-use U+F780..U+F7FF.
_TO_PRIVATE = {0xDC00 + b: 0xF700 + b for b in range(0x80, 0x100)}
_FROM_PRIVATE = {v: k for k, v in _TO_PRIVATE.items()}


def _bytes(text: str) -> bytes:
    return text.translate(_TO_PRIVATE).encode("utf-8")


def _text(data: bytes) -> str:
    return data.decode("utf-8").translate(_FROM_PRIVATE)


@functools.lru_cache(maxsize=512)
def compile_regex(pattern: str) -> Any:
    """Compile `pattern` once (patterns from PGN data repeat); RegexError if invalid."""
    re2, options = _re2()
    try:
        return re2.compile(_bytes(pattern), options)
    except re2.error as exc:
        reason = exc.args[0] if exc.args else exc
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", "replace")
        if "\\" in pattern and "invalid escape sequence" in str(reason):
            reason = f"{reason} (backreferences are not supported)"
        elif "(?<" in pattern or "(?=" in pattern or "(?!" in pattern:
            reason = f"{reason} (look-around is not supported)"
        raise RegexError(str(reason)) from None


def search(pattern: str, text: str) -> tuple[str, tuple[str | None, ...]] | None:
    """The first match of `pattern` in `text`: (whole match, groups), or None."""
    found = compile_regex(pattern).search(_bytes(text))
    if found is None:
        return None
    groups = tuple(None if g is None else _text(g) for g in found.groups())
    return _text(found.group(0)), groups
