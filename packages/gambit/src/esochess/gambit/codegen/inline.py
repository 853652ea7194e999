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
HELPER_CALL = re.compile(r"(?<![\w.])(?:_[A-Za-z]\w*|m\.read_prop)\(")


# The call level of the generated function running an inlined call. Code that cannot
# pause runs at one level from its first line to its last (every call it makes restores
# the depth), so `Namespace.define` computes it once, at the top of a function using it.
def outside_literals(text: str, change: Callable[[str], str]) -> str:
    """`text` with `change` applied to everything outside its string literals."""
    out, i = [], 0
    for lit in _LITERAL.finditer(text):
        out += [change(text[i:lit.start()]), lit.group(0)]
        i = lit.end()
    return "".join([*out, change(text[i:])])


def without_literals(text: str) -> str:
    """`text` with every string literal emptied."""
    return _LITERAL.sub("''", text)


LEVEL = "_level"
LEVEL_LINE = f"    {LEVEL} = m.depth + len(m.frames)"

_ASSIGN = re.compile(r"L\[(\d+)\] = (.+)")
_IF = re.compile(r"if (.+):")


def _statements(lines: list[str]) -> list[tuple[str, str, str]] | None:
    """A leaf body's lines as ("set", slot, value), ("if", cond, value) -- an `if` whose
    block is one `return` -- and a final ("ret", "", value); None for any other shape."""
    out: list[tuple[str, str, str]] = []
    base = len(lines[0]) - len(lines[0].lstrip(" ")) if lines else 0
    i = 0
    while i < len(lines):
        line = lines[i]
        text = line.strip()
        if len(line) - len(line.lstrip(" ")) != base:
            return None
        if text.startswith("return "):
            out.append(("ret", "", text[len("return "):]))
            return out  # (what follows is unreachable)
        if (a := _ASSIGN.fullmatch(text)) is not None:
            out.append(("set", a.group(1), a.group(2)))
            i += 1
            continue
        c = _IF.fullmatch(text)
        inner = lines[i + 1] if i + 1 < len(lines) else ""
        after = lines[i + 2] if i + 2 < len(lines) else ""
        if c is None or len(inner) - len(inner.lstrip(" ")) != base + 4 \
                or not inner.strip().startswith("return ") \
                or len(after) - len(after.lstrip(" ")) > base:  # fmt: skip
            return None
        out.append(("if", c.group(1), inner.strip()[len("return "):]))
        i += 2
    return None


def body_expression(lines: list[str], nargs: int, temp: Callable[[], str]) -> str | None:
    """A leaf body as one expression over its parameters `L[0]`..`L[nargs - 1]`, or None.

    The body may assign locals (fresh names here, none at the start as in the frame), and
    return early from an `if` whose block is one `return`; statements run in order, so
    `v := e` and `x if c else rest` nest to the same evaluation.
    """
    stmts = _statements(lines)
    if stmts is None:
        return None
    if any(kind == "set" and int(slot) < nargs for kind, slot, _ in stmts):
        return None  # a parameter reassigned: the wrapper's fallback needs the arguments
    names: dict[int, str] = {}

    def name_of(k: int) -> str:
        if k not in names:
            names[k] = temp()
        return names[k]

    def local(mt: re.Match[str]) -> str:
        k = int(mt.group(1))
        return mt.group(0) if k < nargs else name_of(k)

    expr = _LOCAL.sub(local, stmts[-1][2])
    for kind, slot, value in reversed(stmts[:-1]):
        v = _LOCAL.sub(local, value)
        if kind == "set":
            expr = f"((({name_of(int(slot))} := {v}), ) and {expr})"
        else:
            expr = f"({v} if {_LOCAL.sub(local, slot)} else {expr})"
    # A local read before any assignment holds none, as in a fresh frame.
    assigned: set[int] = set()
    unset: set[int] = set()
    for kind, slot, value in stmts:
        reads = f"{slot} {value}" if kind == "if" else value
        unset |= {int(k) for k in _LOCAL.findall(reads) if int(k) >= nargs} - assigned
        if kind == "set":
            assigned.add(int(slot))
    if unset:
        init = "".join(f"({name_of(k)} := None), " for k in sorted(unset))
        expr = f"(({init}) and {expr})"
    return expr


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
    while (hit := HELPER_CALL.search(text, i)) is not None:
        out.append(text[i:hit.start()])
        out.append(slow)
        i = _call_end(text, hit.end() - 1)
    out.append(text[i:])
    return "".join(out)


def inline_call(
    wrapper: str, pos: tuple[int, int], args: list[str], body: str, temp: Callable[[], str],
    checks: list[int] | None = None, untested: Callable[[str], str] | None = None,
) -> str | None:  # fmt: skip
    """Source that evaluates `wrapper(m, pos, [args])` with the leaf `body` (see
    `body_expression`) in place, or None when the body uses a local other than its
    parameters. `checks` are the arguments that must not be none (entity parameters);
    when one is, `untested(list)` is the call site's dispatch of that argument list."""
    if any(set(lit.group()) & set("L_()[]") for lit in _LITERAL.finditer(body)):
        return None  # (the substitutions below do not parse string literals)
    if _BARE_L.search(body) or any(int(k) >= len(args) for k in _LOCAL.findall(body)):
        return None
    # Arguments that are all plain locals or integer literals are read where the body
    # reads its parameters: reading a slot has no effect and cannot fail, and nothing in
    # the inlined expression writes one (its own locals are fresh names), so every read
    # sees the value a binding would have held -- without building the binding tuple.
    plain = all(_LOCAL.fullmatch(a) or a.isdigit() for a in args)
    names = list(args) if plain else [temp() for _ in args]
    slow = f"{wrapper}(m, {pos!r}, [{', '.join(names)}])"
    fast = _replace_helpers(_LOCAL.sub(lambda mt: names[int(mt.group(1))], body), slow)
    guard = (f"{LEVEL} < {CALL_DEPTH_LIMIT} and not m.tracing"
             f" and ({LEVEL} <= m.peak or _peak(m, {LEVEL}))")  # fmt: skip
    fallback = slow
    if checks:
        assert untested is not None
        present = " and ".join(f"{names[i]} is not None" for i in checks)
        guard = f"{present} and {guard}"
        v = temp()
        fallback = f"({slow} if {present} else (({v} := [{', '.join(names)}]) and {untested(v)}))"
    if args and not plain:
        bind = ", ".join(f"({n} := {a})" for n, a in zip(names, args, strict=True))
        guard = f"({bind}, ) and {guard}"
    return f"(({fast}) if {guard} else {fallback})"


def memo_call(
    wrapper: str, pos: tuple[int, int], args: list[str], memo: tuple[str, str],
    temp: Callable[[], str],
) -> str:  # fmt: skip
    """Source that evaluates `wrapper(m, pos, [args])` of a memoised body, looking the
    result up in its memo table in place: the wrapper's hit path (the key, tracing, the
    depth the result needed, `peak`) without the call; a miss calls the wrapper, which
    looks up again and computes. `memo` is (table, flag) from `CallWrappers.memos`; only
    the wrapper fills the table, so a body that turns out not to be memoised (flag None)
    always misses."""
    table, flag = memo
    names = [temp() for _ in args]
    hit, level = temp(), temp()
    slow = f"{wrapper}(m, {pos!r}, [{', '.join(names)}])"
    key = "".join(f"({n} := {a}), " for n, a in zip(names, args, strict=True))
    key += f"m.inst_version if {flag} else m.version"
    # (A tuple also for a body without parameters: the wrapper's key is `(version,)`.)
    guard = (f"({hit} := {table}.get(({key},))) is not None and not m.tracing"
             f" and ({level} := {LEVEL} + {hit}[1]) < {CALL_DEPTH_LIMIT}"
             f" and ({level} <= m.peak or _peak(m, {level}))")  # fmt: skip
    return f"({hit}[0] if {guard} else {slow})"
