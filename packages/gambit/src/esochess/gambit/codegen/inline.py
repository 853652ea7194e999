"""Leaf calls inlined at their call site.

A leaf body (codegen/calls.py) that is a single `return expr` is pasted into its caller:
`on_grid(r, c)` becomes the expression itself with the arguments bound to fresh locals,
saving the wrapper call and the argument list. Everything observable stays:

* the arguments are evaluated once, first, left to right, as for the call;
* the call depth test, tracing and the `peak` depth run as in the leaf wrapper; when
  the depth limit is reached or the machine traces, the wrapper itself is called;
* every helper call in the body (`_index`, `_arith…`, `m.read_prop`: the paths that
  can raise a run-time error or leave the fast path) is replaced by a call of the
  wrapper with the same arguments. The body is a pure expression without calls, so
  evaluating it again in the wrapper gives the same value, or raises the same error
  with the `called from` line the wrapper adds.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from esochess.gambit.limits import CALL_DEPTH_LIMIT

_LOCAL = re.compile(r"\bL\[(\d+)\]")
_LITERAL = re.compile(r"'(?:\\.|[^'\\])*'|\"(?:\\.|[^\"\\])*\"")
_BARE_L = re.compile(r"\bL\b(?!\[\d+\])")
# A call of a generated helper or of the machine's property reader.
_HELPER = re.compile(r"(?<![\w.])(?:_[A-Za-z]\w*|m\.read_prop)\(")


def body_expression(lines: list[str]) -> str | None:
    """The expression of a leaf body that is a single `return expr`, else None."""
    stripped = [ln.strip() for ln in lines]
    if not stripped or not stripped[0].startswith("return "):
        return None
    if any(s != "return None" for s in stripped[1:]):
        return None
    return stripped[0][len("return "):]


def _call_end(text: str, start: int) -> int:
    """The index just after the parenthesis closing the call whose `(` is at `start`
    (string literals skipped)."""
    depth = 0
    i = start
    while i < len(text):
        ch = text[i]
        if ch in "'\"":
            i += 1
            while text[i] != ch:
                i += 2 if text[i] == "\\" else 1
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise ValueError("unbalanced generated source")


def _replace_helpers(text: str, slow: str) -> str:
    """`text` with every helper call replaced by `slow`."""
    out: list[str] = []
    i = 0
    while (hit := _HELPER.search(text, i)) is not None:
        out.append(text[i:hit.start()])
        out.append(slow)
        i = _call_end(text, hit.end() - 1)
    out.append(text[i:])
    return "".join(out)


def inline_call(
    wrapper: str, pos: tuple[int, int], args: list[str], body: str, temp: Callable[[], str]
) -> str | None:
    """Source that evaluates `wrapper(m, pos, [args])` with the leaf `body` in place, or
    None when the body uses a local other than its parameters."""
    if any(set(lit.group()) & set("L_()[]") for lit in _LITERAL.finditer(body)):
        return None  # (the substitutions below do not parse string literals)
    if _BARE_L.search(body) or any(int(k) >= len(args) for k in _LOCAL.findall(body)):
        return None
    names = [temp() for _ in args]
    level = temp()
    slow = f"{wrapper}(m, {pos!r}, [{', '.join(names)}])"
    fast = _LOCAL.sub(lambda mt: names[int(mt.group(1))], _replace_helpers(body, slow))
    guard = (f"({level} := m.depth + len(m.frames)) < {CALL_DEPTH_LIMIT} and not m.tracing"
             f" and ({level} <= m.peak or _peak(m, {level}))")  # fmt: skip
    if args:
        bind = ", ".join(f"({n} := {a})" for n, a in zip(names, args, strict=True))
        guard = f"({bind}, ) and {guard}"
    return f"(({fast}) if {guard} else {slow})"


def memo_call(
    wrapper: str, pos: tuple[int, int], args: list[str], memo: tuple[str, str],
    temp: Callable[[], str],
) -> str:  # fmt: skip
    """Source that evaluates `wrapper(m, pos, [args])` of a memoised body, looking the
    result up in its memo table in place: the wrapper's hit path (tracing, the key, the
    depth the result needed, `peak`) without the call; a miss calls the wrapper, which
    looks up again and computes. `memo` is (table, flag) from `CallWrappers.memos`."""
    table, flag = memo
    names = [temp() for _ in args]
    hit, level, static = temp(), temp(), temp()
    slow = f"{wrapper}(m, {pos!r}, [{', '.join(names)}])"
    key = "".join(f"{n}, " for n in names) + f"m.inst_version if {static} else m.version"
    guard = (f"({static} := {flag}) is not None and not m.tracing"
             f" and ({hit} := {table}.get(({key}))) is not None"
             f" and ({level} := m.depth + len(m.frames) + {hit}[1]) < {CALL_DEPTH_LIMIT}"
             f" and ({level} <= m.peak or _peak(m, {level}))")  # fmt: skip
    if args:
        bind = ", ".join(f"({n} := {a})" for n, a in zip(names, args, strict=True))
        guard = f"({bind}, ) and {guard}"
    return f"({hit}[0] if {guard} else {slow})"
