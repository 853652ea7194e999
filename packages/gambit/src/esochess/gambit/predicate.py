"""Running a decision's legality predicate (compiler/legality.py) on the paused machine.

The code between the `choose` and the end of its legality tests is run on a copy of the
frame's locals, with the option as the chosen value; the machine's state is only read.
The result is what a look-ahead fork would find (`illegal` or the horizon), without the
fork; a run-time error is reported exactly as the fork would report it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any

from esochess.gambit.compiler.runtime import SayIllegal
from esochess.gambit.limits import CALL_DEPTH_LIMIT, OUT_OF_MEMORY, PYTHON_RECURSION_LIMIT
from esochess.gambit.machine import Machine
from esochess.gambit.program import OP_EXEC, OP_JF, OP_JUMP, OP_RUN, OP_SET, RETURNS
from esochess.gambit.results import GambitRuntimeError, IllegalSignal, RunError
from esochess.gambit.values import NumberTooLong

Key = int | tuple[int, ...]


def predicate_stop(m: Machine) -> int | None:
    """Where the legality test of the pending decision ends, when it is a predicate now."""
    # (The game layer's unit tests drive it with a stand-in machine: no predicates there.)
    if not isinstance(m, Machine) or m.pending is None or m.seats < 2:
        return None
    frame = m.frames[-1]
    ins = frame.code.instrs[frame.pc - 1]
    if len(ins) < 7:
        return None
    stop, callee = ins[6]
    if callee:
        if len(m.frames) < 2:
            return None
        caller = m.frames[-2]
        if caller.pc not in caller.code.horizon_returns:
            return None
    assert isinstance(stop, int)
    return stop


class OptionFailed(Exception):
    """A run-time error in the legality test of option `key`."""

    def __init__(self, key: Key, error: GambitRuntimeError) -> None:
        super().__init__(error.message)
        self.key = key
        self.error = error


def legal_keys(m: Machine, keys: Sequence[Key], stop: int) -> list[tuple[Key, list[Any] | None]]:
    """The keys among `keys` (options of the pending decision, see `predicate_stop`) whose
    legality test passes, in order, each with the frame's locals at `stop` -- exactly
    what running the option would leave there, so playing it can resume from `stop`
    (see `resume`) -- or None when the test skipped a `print` it could not prove safe.

    Raises `OptionFailed` for a run-time error, as the look-ahead fork would report it.
    """
    assert m.pending is not None
    _, options, _ = m.pending
    frame = m.frames[-1]
    scan = scanner(frame.code.instrs, frame.pc, stop)
    # Look-ahead forks neither trace nor print, and start with no call depth of their own.
    tracing, silent, depth, peak, skipped = m.tracing, m.silent, m.depth, m.peak, m.skipped_print
    m.tracing, m.silent, m.depth, m.peak = False, True, 0, 0
    # The machine runs with a deep Python stack (limits.py); so do its predicates.
    old_limit = sys.getrecursionlimit()
    raised = old_limit < PYTHON_RECURSION_LIMIT
    if raised:
        sys.setrecursionlimit(PYTHON_RECURSION_LIMIT)
    try:
        return scan(m, frame.locals, options, keys)
    except Failed as failed:
        raise OptionFailed(failed.key, option_error(m, failed.exc)) from None
    finally:
        m.tracing, m.silent, m.depth, m.peak = tracing, silent, depth, peak
        m.skipped_print = skipped
        if raised:
            sys.setrecursionlimit(old_limit)


def resume(m: Machine, key: Key, L: list[Any], stop: int) -> None:
    """Answer the pending decision with `key` as if it ran up to `stop` and left the
    locals `L` there (from `legal_keys` on this machine, which has not changed since)."""
    m.choose(key)
    frame = m.frames[-1]
    frame.locals = list(L)  # the option may be played on more than one fork
    frame.pc = stop


class Failed(Exception):
    """A run-time error `exc` in the legality test of option `key` (inside a scan)."""

    def __init__(self, key: Key, exc: BaseException) -> None:
        super().__init__(key)
        self.key = key
        self.exc = exc


_FAILS = (RunError, RecursionError, MemoryError, NumberTooLong)

_NESTING = 20
"""The deepest `if`s a generated scan nests (Python's parser has a limit)."""

Scan = Callable[[Machine, list[Any], Sequence[Any], Sequence[Key]], list[tuple[Key, list[Any] | None]]]
"""`scan(m, locals, options, keys)`: the legal keys with their locals (see `legal_keys`)."""

# Scans made so far, by (instruction list, start, stop); the list is kept alive with its
# function so that its id is not reused.
_MADE: dict[tuple[int, int, int], tuple[list[tuple[Any, ...]], Scan]] = {}


def scanner(instrs: list[tuple[Any, ...]], pc: int, stop: int) -> Scan:
    """Instructions pc..stop (plain ones only: see compiler/legality.py) run for every
    option on a copy of the locals, as one Python function: an option is legal when they
    reach `stop`, not when they reach an `illegal`."""
    made = _MADE.get((id(instrs), pc, stop))
    if made is not None:
        return made[1]
    if len(_MADE) >= 10_000:
        _MADE.clear()
    fn = _generated(instrs, pc, stop)
    if fn is None:
        dest = instrs[pc - 1][2]

        def fn(m: Machine, L0: list[Any], options: Sequence[Any], keys: Sequence[Key]
               ) -> list[tuple[Key, list[Any] | None]]:  # fmt: skip
            found: list[tuple[Key, list[Any] | None]] = []
            for key in keys:
                m.skipped_print = False
                L = list(L0)
                if dest >= 0:
                    L[dest] = _chosen(options, key)
                try:
                    if not _run(m, L, instrs, pc, stop):
                        continue
                except IllegalSignal:
                    continue
                except _FAILS as exc:
                    raise Failed(key, exc) from None
                found.append((key, None if m.skipped_print else L))
            return found

    _MADE[(id(instrs), pc, stop)] = (instrs, fn)
    return fn


def _chosen(options: Sequence[Any], key: Key) -> Any:
    """The value a decision's `choose` gives for option `key`."""
    return tuple(options[i - 1] for i in key) if isinstance(key, tuple) else options[key - 1]


def _generated(instrs: list[tuple[Any, ...]], pc: int, stop: int) -> Scan | None:
    """`scanner` as generated code; None when a jump goes backwards.

    Where the jumps nest (`_nested`: each conditional jump skips a run of lines whose own
    jumps stay inside it), the lines are nested Python `if`s. Otherwise, where every jump
    goes forward, each instruction becomes one line, guarded once a jump came before it:
    `s` is the index execution skips to, so the instructions a taken jump passes over do
    not run, and those from its target on do. A generated expression (the compiled
    engine's, see `RETURNS`) is pasted into its line, in the namespace of its program; any
    other instruction function is called.
    """
    names: dict[str, Any] = {}
    prelude: set[str] = set()
    scopes: set[int] = set()

    def use(k: int, f: Any) -> str:
        pasted = RETURNS.get(f)
        if pasted is None:
            names[f"f{k}"] = f
            return f"f{k}(m, L)"
        level, expr, scope = pasted
        if id(scope) not in scopes:
            scopes.add(id(scope))
            names.update(scope)
        prelude.add(level)
        return f"({expr})"

    def statement(k: int, ins: tuple[Any, ...]) -> str | None:
        """The Python statement of instruction `k` (`ins`); None for a jump."""
        if ins[0] == OP_SET:
            return f"L[{ins[1]}] = {use(k, ins[2])}"
        if ins[0] == OP_EXEC:
            return "continue" if isinstance(ins[1], SayIllegal) else use(k, ins[1])
        return None

    def nested(a: int, b: int, pad: str) -> list[str] | None:
        """Lines a..b as nested `if`s, or None where a jump leaves its run (or they nest
        deeper than `_NESTING`)."""
        out: list[str] = []
        k = a
        while k < b:
            ins = _plain(instrs[k])
            line = statement(k, ins)
            if line is not None:
                out.append(pad + line)
            elif ins[0] == OP_JF:
                # Not taken (the condition holds): the lines up to its target run.
                end = ins[2]
                if not k < end <= b or len(pad) >= 4 * _NESTING:
                    return None
                inner = nested(k + 1, end, pad + "    ")
                if inner is None:
                    return None
                out += [f"{pad}if {use(k, ins[1])}:", *(inner or [f"{pad}    pass"])]
                k = end
                continue
            elif ins[1] != k + 1:  # a jump to the next line is no jump
                return None
            k += 1
        return out

    def guarded() -> list[str] | None:
        """Lines pc..stop, each guarded by `s` once a jump came before it; None when a
        jump goes backwards."""
        out: list[str] = []
        jumped = False  # no jump before this line: it always runs, unguarded
        for k in range(pc, stop):
            ins = _plain(instrs[k])
            guard = f"            if s <= {k}"
            line = statement(k, ins)
            if line is not None:
                out.append(f"{guard}: {line}" if jumped else f"            {line}")
                continue
            if ins[0] == OP_JF:
                if ins[2] <= k:
                    return None
                cond = f"{guard} and not" if jumped else "            if not"
                out.append(f"{cond} {use(k, ins[1])}: s = {ins[2]}")
            else:
                assert ins[0] == OP_JUMP
                if ins[1] <= k:
                    return None
                out.append(f"{guard}: s = {ins[1]}" if jumped else f"            s = {ins[1]}")
            jumped = True
        return ["            s = 0", *out] if jumped else out

    body = nested(pc, stop, "            ")
    if body is None:
        body = guarded()
    if body is None:
        return None
    dest = instrs[pc - 1][2]
    names.update(_IllegalSignal=IllegalSignal, _Failed=Failed, _FAILS=_FAILS, _chosen=_chosen)
    lines = ["def scan(m, L0, options, keys):", "    found = []"]
    # The call level is the same for every line (they run at one level, see emit.py).
    lines += sorted(line for line in prelude if line)
    lines += ["    for key in keys:", "        m.skipped_print = False", "        L = list(L0)"]
    if dest >= 0:
        lines.append(f"        L[{dest}] = options[key - 1] if type(key) is int else _chosen(options, key)")
    lines += ["        try:", *body,
              "        except _IllegalSignal:", "            continue",
              "        except _FAILS as exc:", "            raise _Failed(key, exc) from None",
              "        found.append((key, None if m.skipped_print else L))", "    return found"]  # fmt: skip
    exec("\n".join(lines), names)  # noqa: S102 - source generated here from the instructions
    fn: Scan = names["scan"]
    return fn


def _run(m: Machine, L: list[Any], instrs: list[tuple[Any, ...]], pc: int, stop: int) -> bool:
    """Run instructions pc..stop one by one (plain ones only: see compiler/legality.py)."""
    while pc != stop:
        ins = _plain(instrs[pc])
        pc += 1
        op = ins[0]
        if op == OP_SET:
            L[ins[1]] = ins[2](m, L)
        elif op == OP_EXEC and isinstance(ins[1], SayIllegal):
            return False
        elif op == OP_EXEC:
            ins[1](m, L)
        elif op == OP_JF:
            if not ins[1](m, L):
                pc = ins[2]
        else:
            assert op == OP_JUMP
            pc = ins[1]
    return True


def _plain(ins: tuple[Any, ...]) -> tuple[Any, ...]:
    """The instruction itself, also where a run of instructions starts (codegen/runs.py)."""
    return ins[2] if ins[0] == OP_RUN else ins


def option_error(m: Machine, exc: BaseException) -> GambitRuntimeError:
    """The run-time error `Machine.run_until_pause` would raise for `exc`."""
    if isinstance(exc, RunError):
        return m._runtime_error(exc.pos, exc.message, exc.trail, exc.notes)
    if isinstance(exc, RecursionError):
        return m._runtime_error(m._top_pos(), f"call depth limit ({CALL_DEPTH_LIMIT}) exceeded")
    if isinstance(exc, MemoryError):
        return m._runtime_error(m._top_pos(), OUT_OF_MEMORY)
    return m._runtime_error(m._top_pos(), str(exc))
