"""Running a decision's legality predicate (compiler/legality.py) on the paused machine.

The code between the `choose` and the end of its legality tests is run on a copy of the
frame's locals, with the option as the chosen value; the machine's state is only read.
The result is what a look-ahead fork would find (`illegal` or the horizon), without the
fork; a run-time error is reported exactly as the fork would report it.
"""

from __future__ import annotations

import sys
from typing import Any

from esochess.gambit.limits import CALL_DEPTH_LIMIT, OUT_OF_MEMORY, PYTHON_RECURSION_LIMIT
from esochess.gambit.machine import Machine
from esochess.gambit.program import OP_EXEC, OP_JF, OP_JUMP, OP_SET
from esochess.gambit.results import IllegalSignal, RunError
from esochess.gambit.values import NumberTooLong


def predicate_stop(m: Machine) -> int | None:
    """Where the legality test of the pending decision ends, when it is a predicate now."""
    if m.pending is None or m.seats < 2:
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


def option_is_legal(m: Machine, key: int | tuple[int, ...], stop: int) -> bool:
    """Run the legality test of option `key` of the pending decision (see `predicate_stop`).

    Raises `GambitRuntimeError` for a run-time error, as the look-ahead fork would.
    """
    assert m.pending is not None
    dest, options, _ = m.pending
    value: Any = tuple(options[i - 1] for i in key) if isinstance(key, tuple) else options[key - 1]
    frame = m.frames[-1]
    L = list(frame.locals)
    if dest >= 0:
        L[dest] = value
    instrs = frame.code.instrs
    pc = frame.pc
    # Look-ahead forks neither trace nor print, and start with no call depth of their own.
    tracing, silent, depth, peak = m.tracing, m.silent, m.depth, m.peak
    m.tracing, m.silent, m.depth, m.peak = False, True, 0, 0
    # The machine runs with a deep Python stack (limits.py); so does its predicate.
    old_limit = sys.getrecursionlimit()
    raised = old_limit < PYTHON_RECURSION_LIMIT
    if raised:
        sys.setrecursionlimit(PYTHON_RECURSION_LIMIT)
    try:
        while pc != stop:
            ins = instrs[pc]
            pc += 1
            op = ins[0]
            if op == OP_SET:
                L[ins[1]] = ins[2](m, L)
            elif op == OP_EXEC:
                ins[1](m, L)
            elif op == OP_JF:
                if not ins[1](m, L):
                    pc = ins[2]
            else:
                assert op == OP_JUMP
                pc = ins[1]
    except IllegalSignal:
        return False
    except RunError as err:
        raise m._runtime_error(err.pos, err.message, err.trail, err.notes) from None
    except RecursionError:
        raise m._runtime_error(m._top_pos(), f"call depth limit ({CALL_DEPTH_LIMIT}) exceeded") from None
    except MemoryError:
        raise m._runtime_error(m._top_pos(), OUT_OF_MEMORY) from None
    except NumberTooLong as err:
        raise m._runtime_error(m._top_pos(), str(err)) from None
    finally:
        m.tracing, m.silent, m.depth, m.peak = tracing, silent, depth, peak
        if raised:
            sys.setrecursionlimit(old_limit)
    return True
