"""The resource limits of a run, in one place: how deep Gambit calls may nest and how
much Python stack the machine may use while it runs them."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

CALL_DEPTH_LIMIT = 1000

# The run-time error for a program whose values outgrow the memory (string or list
# doubling, huge ranges): located where the growing operation is, or at the statement.
OUT_OF_MEMORY = "out of memory: the program's values grew past what the machine can hold"

# Pure calls nest in Python frames, and the Gambit depth limit
# (docs/reference/gambit.md#run-time-errors) must trigger before Python's: the limit is raised while
# the machine runs, and restored afterwards (other code in the same process may rely on the
# default).
PYTHON_RECURSION_LIMIT = 20000


@contextmanager
def deep_python_stack() -> Iterator[None]:
    """Raise Python's recursion limit for the duration of a machine run."""
    old = sys.getrecursionlimit()
    if old >= PYTHON_RECURSION_LIMIT:
        yield
        return
    sys.setrecursionlimit(PYTHON_RECURSION_LIMIT)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)
