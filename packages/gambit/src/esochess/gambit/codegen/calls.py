"""Generated call wrappers: one per called body, the interpreter's call rules
(`call_known` and `Machine.call`) specialised to that body.

A call site `f(a, b)` becomes `_cwN(m, pos, [a, b])`. The wrapper keeps every rule that
can be observed: the call depth limit and the `peak` depth the memo relies on, the
`called from` trail of an error, and tracing (which goes through `Machine.call`). Results of
traits and of functions that read only fixed data are memoised exactly as the interpreter
memoises them (a table per body, filled from the machine's own memo entry, which holds
the call depth the result needed), so a hit needs no frame -- except bodies so cheap that
the lookup would cost as much as the body (`cheap`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from esochess.gambit.codegen.emit import Namespace
from esochess.gambit.codegen.inline import LEVEL, outside_literals, without_literals
from esochess.gambit.limits import CALL_DEPTH_LIMIT
from esochess.gambit.machine import MEMO_LIMIT
from esochess.gambit.program import Code

# A call in generated source, and the callees that never read the call depth: a
# property's dict (`_s3.get`, see `hoisted_store`; `m.store[3].get` is no call of a name
# here), memo tables, the value helpers, arithmetic, and `peak` (given its level).
_CALL = re.compile(r"(?<![\w.])([A-Za-z_][\w.]*)\(")
_DEPTH_FREE = re.compile(r"_s\d+\.get|_memo\d+\.get|_peak|type|len|_tr|_eq|_iter|_index|_num|_arith\d+")
_WRAPPER = re.compile(r"(?<![\w.])(_cwp?\d+)\(m, ")
_POSITIONAL = re.compile(r"(?<![\w.])_cwp(\d+)\(m, ")
# The locals list, and a read or write of one of its slots.
_LOCALS = re.compile(r"(?<![\w.])L(?!\w)")
_SLOT = re.compile(r"(?<![\w.])L\[(\d+)\]")


_STORE = re.compile(r"(?<![\w.])m\.store\[(\d+)\]")
_LOOP = re.compile(r"^\s*(while|for) ", re.MULTILINE)


def hoisted_store(body: list[str]) -> list[str]:
    """A wrapper body with the dict of each property it reads more than once (or inside
    a loop, or a loop's condition) looked up once at the start: a machine's store never
    replaces a dict."""
    pids: list[str] = []
    loops: list[int] = []  # the indentation of each loop the line is in
    for line in body:
        code = without_literals(line)
        indent = len(code) - len(code.lstrip(" "))
        while loops and indent <= loops[-1]:
            loops.pop()
        header = _LOOP.match(code) is not None
        # (A read inside a loop, or in its header, counts as many.)
        pids += _STORE.findall(code) * (2 if loops or header else 1)
        if header:
            loops.append(indent)
    hoist = sorted({p for p in pids if pids.count(p) > 1}, key=int)
    if not hoist:
        return body
    wanted = set(hoist)

    def local(code: str) -> str:
        return _STORE.sub(lambda g: f"_s{g[1]}" if g[1] in wanted else g[0], code)

    return [*[f"        _s{p} = m.store[{p}]" for p in hoist],
            *[outside_literals(line, local) for line in body]]  # fmt: skip


_GUARD = (f"{LEVEL} < {CALL_DEPTH_LIMIT} and not m.tracing"
          f" and ({LEVEL} <= m.peak or _peak(m, {LEVEL}))")
_MEMO_GUARD = " is not None and not m.tracing and ("


def settled_level(body: list[str]) -> list[str]:
    """A wrapper body whose inlined calls test their level once, before the body runs:
    the wrapper runs only when the machine is not tracing (nothing turns tracing on
    inside a call), its body's level never changes, and `peak` never drops below a level
    it reached, so every call site would pass the test the first one passes. Raising
    `peak` to the body's level when no call site runs is unobservable: a memo entry
    then records at most one level more than its body needed, so a hit near the depth
    limit is refused and the body recomputed -- to the same value or error."""
    text = "\n".join(body)
    if _GUARD not in text and _MEMO_GUARD not in text:
        return body
    first = f"{LEVEL} < {CALL_DEPTH_LIMIT} and ({LEVEL} <= m.peak or _peak(m, {LEVEL}))"
    return [f"        _settled = {first}",
            *[outside_literals(line, lambda code: code.replace(_GUARD, "_settled")
                               .replace(_MEMO_GUARD, " is not None and (")) for line in body]]  # fmt: skip


def python_locals(body: list[str], nlocals: int) -> list[str] | None:
    """A body whose lines use the locals list only slot by slot (`L[3]`, never `L`
    itself: no generated selector, map or closure is handed the list) with every slot a
    Python local `_L3`, read from the list once at the start; None for any other body.
    Nothing reads the list after a wrapper's body, so nothing else changes."""
    if _LOCALS.search(_SLOT.sub("", without_literals("\n".join(body)))):
        return None
    if not nlocals:
        return body
    names = ", ".join(f"_L{k}" for k in range(nlocals))
    return [f"        {names}, = L",
            *[outside_literals(line, lambda code: _SLOT.sub(r"_L\1", code)) for line in body]]  # fmt: skip


def positional_locals(body: list[str], nlocals: int, nargs: int) -> list[str] | None:
    """`python_locals` for a wrapper whose arguments arrive as the Python parameters
    `_L0`..: the other slots start as none, as in a fresh frame (except those the body's
    first lines set before anything reads them); None where the body uses the list
    itself."""
    body_locals = python_locals(body, nlocals)
    if body_locals is None:
        return None
    lines = body_locals[1:] if nlocals else body_locals
    first = set_first(lines, nargs)
    rest = [f"_L{k}" for k in range(nargs, nlocals) if k not in first]
    start = [f"        {' = '.join(rest)} = None"] if rest else []
    return start + lines


def parameter_locals(code: Code, body: list[str], nargs: int) -> list[str]:
    """A positional wrapper's body (`positional_locals`), or where the body uses the
    locals list itself, the list built from the parameters `_L0`.. and none for each
    other local, then the body."""
    local = positional_locals(body, code.nlocals, nargs)
    if local is not None:
        return local
    items = [f"_L{k}" for k in range(nargs)] + ["None"] * (code.nlocals - nargs)
    return [f"        L = [{', '.join(items)}]", *body]


# How a wrapper's lines are made: (name, code, body, argument count) -> lines.
_Lines = Callable[[str, Code, list[str], int], list[str]]

_SET_LOCAL = re.compile(r"        _L(\d+) = (.*)")
_READ_LOCAL = re.compile(r"(?<![\w.])_L(\d+)\b")


def set_first(body: list[str], nargs: int) -> set[int]:
    """The locals a body's first lines set, one after another, before anything can read
    them (each value reads only the arguments and the locals set above it): they need
    not start as none."""
    done: set[int] = set()
    for line in body:
        got = _SET_LOCAL.fullmatch(line)
        if got is None:
            break
        reads = {int(k) for k in _READ_LOCAL.findall(without_literals(got[2]))}
        if any(k >= nargs and k not in done for k in reads):
            break
        done.add(int(got[1]))
    return done


def depth_free(body: list[str]) -> bool:
    """True when nothing in `body` reads the call depth except through a call wrapper
    (which `fused_lines` then calls at the depth it would have seen)."""
    text = without_literals("\n".join(body))
    if "m.depth" in text or "m.frames" in text:
        return False
    return all(_DEPTH_FREE.fullmatch(n) or _WRAPPER.match(n + "(m, ") for n in _CALL.findall(text))


class CallWrappers:
    """Names the wrapper of each called body and generates them once the bodies exist."""

    def __init__(self, ns: Namespace) -> None:
        self.ns = ns
        self.wanted: dict[int, tuple[str, Code]] = {}
        # Bodies cheap enough to recompute (no call, selector, loop…): a memo lookup would
        # cost as much as the body, and skipping it is unobservable.
        self.cheap: set[int] = set()
        # Leaf bodies (cheap, and nothing in them reads the call depth): their wrapper is
        # the body itself, at indentation 2 under the wrapper's `try`.
        self.inline: dict[int, list[str]] = {}
        # Every other generated body, at indentation 2: a wrapper that does not memoise
        # runs it in place (`fused_lines`) instead of calling its function.
        self.fused: dict[int, list[str]] = {}
        # Memo tables named before the wrappers exist, so that call sites can look a
        # result up in place: code id -> (table, flag). The flag is set by `define_all`:
        # None when the wrapper does not memoise, else True when keyed by the instance
        # version (static bodies), False when keyed by the state version.
        self.memos: dict[int, tuple[str, str]] = {}
        # Wrappers also called with their arguments as Python parameters (`_cwpN(m, pos,
        # a, b)`: no argument list to build and unpack): code id -> (name, argument count).
        self.positional: dict[int, tuple[str, int]] = {}
        # Positional wrappers also called settled (`settled_calls`): their names.
        self.settled: set[str] = set()

    def name(self, code: Code) -> str:
        """The global name of `code`'s wrapper (defined by `define_all`)."""
        got = self.wanted.get(id(code))
        if got is None:
            got = (self.ns.fresh("cw"), code)
            self.wanted[id(code)] = got
        return got[0]

    def positional_call(self, code: Code, pos: tuple[int, int], args: list[str]) -> str | None:
        """A call of `code` passing `args` as Python parameters, for a body already known
        to run in place (generated, not memoised: see `fused_lines`); None otherwise."""
        if id(code) not in self.fused or id(code) in self.inline or self.memoised(code) \
                or len(args) > code.nlocals:  # fmt: skip
            return None
        name = self.name(code)
        got = self.positional.setdefault(id(code), (name.replace("_cw", "_cwp", 1), len(args)))
        if got[1] != len(args):
            return None
        return f"{got[0]}(m, {pos!r}, {', '.join(args)})"

    def settled_calls(self, source: str) -> tuple[str, list[str]]:
        """A map's per-element source with each positional wrapper it calls chosen once
        before the loop (the lines, at indentation 1, in the second item): the settled
        variant (`settled_lines`) when the map's calls run where that variant's
        assumptions hold, else the wrapper itself. The caller runs on a machine that does
        not trace, at the call level `_level` (a map's calls return the depth count to
        where it was); `peak` never drops while the loop runs, so a test that holds
        before it holds at every call."""
        names: dict[str, str] = {}

        def local(code: str) -> str:
            def pick(g: re.Match[str]) -> str:
                names[g[1]] = f"_fs{g[1]}"
                return f"_fs{g[1]}(m, "
            return _POSITIONAL.sub(pick, code)

        source = outside_literals(source, local)
        self.settled.update(names)
        return source, [f"    {v} = _cws{k} if _level < {CALL_DEPTH_LIMIT - 1} and _level < m.peak"
                        f" else _cwp{k}" for k, v in names.items()]  # fmt: skip

    def memo_names(self, code: Code) -> tuple[str, str]:
        """The names of `code`'s memo table and of its key flag (see `memos`)."""
        got = self.memos.get(id(code))
        if got is None:
            got = (self.ns.const({}, "memo"), self.ns.fresh("memoflag"))
            self.ns.globals[got[1]] = None
            self.memos[id(code)] = got
        return got

    def memoised(self, code: Code) -> bool:
        """True when `code`'s wrapper memoises its results."""
        return (code.pure or code.static) and id(code) not in self.cheap

    def define_all(self) -> None:
        """Generate every wrapper named so far (call sites look them up at run time)."""
        for name, code in self.wanted.values():
            if id(code) in self.memos:
                flag = self.memos[id(code)][1]
                self.ns.globals[flag] = code.static if self.memoised(code) else None
            body = self.inline.get(id(code))
            if body is not None:
                try:
                    self.ns.define(name, self.leaf_lines(name, code, body), f"fn {code.where}")
                    continue
                except (SyntaxError, RecursionError, MemoryError):
                    pass  # nested too deeply for Python: the wrapper calls the body
            fused = self.fused.get(id(code))
            if fused is not None and not self.memoised(code):
                try:
                    self.ns.define(name, self.fused_lines(name, code, fused),
                                   f"fn {code.where}")  # fmt: skip
                    continue
                except (SyntaxError, RecursionError, MemoryError):
                    pass  # nested too deeply for Python: the wrapper calls the body
            self.ns.define(name, self.lines(name, code), f"calls of {code.where}")
        for code_id, (name, nargs) in self.positional.items():
            code = self.wanted[code_id][1]
            fused = self.fused[code_id]
            lines = None if self.memoised(code) else self.positional_lines
            # (A positional wrapper that cannot run its body calls the list wrapper.)
            self.define_or_forward(name, code, nargs, lines, self.wanted[code_id][0], True)
            if name[4:] in self.settled:
                settled = name.replace("_cwp", "_cws", 1)
                lines = None if self.memoised(code) else self.settled_lines
                self.define_or_forward(settled, code, nargs, lines, name, False)

    def define_or_forward(self, name: str, code: Code, nargs: int, lines: _Lines | None,
                          target: str, listed: bool) -> None:  # fmt: skip
        """Define the wrapper `name` of `code`'s body with `nargs` positional arguments
        from `lines`, or where there are none or Python cannot compile them (nested too
        deeply), as a call of the wrapper `target` (passing the arguments as a list when
        `listed`)."""
        what = f"fn {code.where}, " + ("arguments as parameters" if listed else "settled")
        if lines is not None:
            try:
                self.ns.define(name, lines(name, code, self.fused[id(code)], nargs), what)
                return
            except (SyntaxError, RecursionError, MemoryError):
                pass  # nested too deeply for Python
        params = ", ".join(f"_L{k}" for k in range(nargs))
        self.ns.define(name, [f"def {name}(m, pos, {params}):",
                              f"    return {target}(m, pos, {f'[{params}]' if listed else params})"],
                       what)  # fmt: skip

    def head(self, name: str, code: Code, level: str, args: str, listed: str = "") -> list[str]:
        """The opening every wrapper that runs its body shares: the call level, the depth
        limit (and tracing) handed to the machine, `peak`, and the locals padded out.
        `args` is the argument list's name, or with `listed` (the list's source) the
        parameters of a positional wrapper, whose locals need no padding."""
        c = self.ns.const(code, "code")
        out = [
            f"def {name}(m, pos, {args}):",
            f"    {level} = m.depth + len(m.frames)",
            f"    if {level} >= {CALL_DEPTH_LIMIT} or m.tracing:",
            f"        return m.call({c}, {listed or args}, pos)",
            f"    if {level} > m.peak:",
            f"        m.peak = {level}",
        ]
        if code.nlocals and not listed:
            out.append(f"    if {code.nlocals} > len({args}):")
            out.append(f"        {args} += [None] * ({code.nlocals} - len({args}))")
        return out

    def leaf_lines(self, name: str, code: Code, body: list[str]) -> list[str]:
        """A wrapper that runs a leaf body in place. The body calls nothing, so nothing
        in it reads the call depth: the depth test, `peak` and the error trail are kept,
        the depth count itself need not move."""
        out = self.head(name, code, "level", "L")
        body = hoisted_store(python_locals(body, code.nlocals) or body)
        return out + ["    try:", *body, "    except RunError as err:",
                      f"        err.trail.append(({code.where!r}, pos))", "        raise"]  # fmt: skip

    def fused_lines(self, name: str, code: Code, body: list[str]) -> list[str]:
        """A wrapper that runs a body in place: the rules of `lines` (depth test and
        count, `peak`, error trail) around the body's own lines, one Python call fewer.
        The body's call level is the wrapper's plus one, set before the body runs."""
        out = self.head(name, code, LEVEL, "L")
        body = settled_level(hoisted_store(python_locals(body, code.nlocals) or body))
        return self.around(out, code, body)

    def around(self, out: list[str], code: Code, body: list[str]) -> list[str]:
        """A wrapper's `head` and its body, with the depth count moved for the body (or,
        where nothing in it but its calls reads the count, around those calls only) and
        an error's `called from` line."""
        if depth_free(body):
            # Nothing in the body reads the depth count but the wrappers it calls (an
            # inlined leaf's slow path): it moves around those calls only.
            body = [outside_literals(line, lambda code: _WRAPPER.sub(r"_up(\1, m, ", code))
                    for line in body]  # fmt: skip
            return out + [f"    {LEVEL} += 1", "    try:", *body, "    except RunError as err:",
                          f"        err.trail.append(({code.where!r}, pos))", "        raise"]  # fmt: skip
        return out + ["    m.depth += 1", f"    {LEVEL} += 1", "    try:", *body,
                      "    except RunError as err:",
                      f"        err.trail.append(({code.where!r}, pos))", "        raise",
                      "    finally:", "        m.depth -= 1"]  # fmt: skip

    def positional_lines(self, name: str, code: Code, body: list[str], nargs: int) -> list[str]:
        """`fused_lines` for arguments passed as the parameters `_L0`.. (`positional`):
        the same rules, the argument list built only where the machine needs one."""
        params = ", ".join(f"_L{k}" for k in range(nargs))
        out = self.head(name, code, LEVEL, params, f"[{params}]")
        return self.around(out, code, settled_level(hoisted_store(parameter_locals(code, body, nargs))))

    def settled_lines(self, name: str, code: Code, body: list[str], nargs: int) -> list[str]:
        """`positional_lines` for a caller that has made sure of what its head tests: the
        machine does not trace and `peak` has reached the body's level, which is under the
        depth limit (`settled_calls`). The head would then only confirm both, so the body
        runs with its inlined calls settled; the depth count and the error trail stay."""
        params = ", ".join(f"_L{k}" for k in range(nargs))
        body = [outside_literals(line, lambda c: c.replace(_GUARD, "True")
                                 .replace(_MEMO_GUARD, " is not None and ("))
                for line in hoisted_store(parameter_locals(code, body, nargs))]  # fmt: skip
        head = [f"def {name}(m, pos, {params}):"]
        if LEVEL in without_literals("\n".join(body)):
            head.append(f"    {LEVEL} = m.depth + len(m.frames) + 1")
        if depth_free(body):
            body = [outside_literals(line, lambda c: _WRAPPER.sub(r"_up(\1, m, ", c))
                    for line in body]  # fmt: skip
            return head + ["    try:", *body, "    except RunError as err:",
                           f"        err.trail.append(({code.where!r}, pos))", "        raise"]  # fmt: skip
        return head + ["    m.depth += 1", "    try:", *body, "    except RunError as err:",
                       f"        err.trail.append(({code.where!r}, pos))", "        raise",
                       "    finally:", "        m.depth -= 1"]  # fmt: skip

    def computed(self, code: Code, table: str) -> list[str]:
        """A memoised wrapper's miss: `Machine.call`'s rules for a body with a generated
        function, in place -- the depth limit, `peak` measured from the call's own level
        for the depth the result needs, the error trail -- with the result and that
        depth stored in the wrapper's table under `key`."""
        c = self.ns.const(code, "code")
        body = self.ns.const(code.simple, "body")
        out = [
            "    level = m.depth + len(m.frames)",
            f"    if level >= {CALL_DEPTH_LIMIT}:",
            f"        return m.call({c}, vals, pos)",
            "    outer = m.peak",
            "    m.peak = level",
        ]
        if code.nlocals:
            out.append(f"    if {code.nlocals} > len(vals):")
            out.append(f"        vals += [None] * ({code.nlocals} - len(vals))")
        return out + [
            "    m.depth += 1",
            "    try:",
            f"        value = {body}(m, vals)",
            "    except RunError as err:",
            f"        err.trail.append(({code.where!r}, pos))",
            "        raise",
            "    finally:",
            "        m.depth -= 1",
            "        used = m.peak - level",
            "        if outer > m.peak:",
            "            m.peak = outer",
            f"    if len({table}) >= {MEMO_LIMIT}:",
            f"        {table}.clear()",
            f"    {table}[key] = (value, used)",
            "    return value",
        ]

    def lines(self, name: str, code: Code) -> list[str]:
        """The source of one wrapper."""
        c = self.ns.const(code, "code")
        limit = CALL_DEPTH_LIMIT
        out = [f"def {name}(m, pos, vals):"]
        if self.memoised(code):
            version = "m.inst_version" if code.static else "m.version"
            table = self.memo_names(code)[0]
            out += [
                "    if m.tracing:",
                f"        return m.call({c}, vals, pos)",
                f"    key = (*vals, {version})",
                f"    hit = {table}.get(key)",
                "    if hit is not None:",
                "        level = m.depth + len(m.frames) + hit[1]",
                f"        if level < {limit}:",
                "            if level > m.peak:",
                "                m.peak = level",
                "            return hit[0]",
            ]
            if code.simple is None:
                return out + [f"    return _memo_miss(m, {c}, vals, pos, {table}, key)"]
            return out + self.computed(code, table)
        body = self.ns.const(code.simple, "body") if code.simple is not None else None
        if body is None:
            return out + [f"    return m.call({c}, vals, pos)"]
        out = self.head(name, code, "level", "vals")
        out += [
            "    m.depth += 1",
            "    try:",
            f"        return {body}(m, vals)",
            "    except RunError as err:",
            f"        err.trail.append(({code.where!r}, pos))",
            "        raise",
            "    finally:",
            "        m.depth -= 1",
        ]
        return out
