"""The checker (docs/reference/gambit.md#declarations and docs/reference/gambit.md#notations,
docs/reference/gambit.md#diagnostics): names, types, narrowing, selectors, overloads, purity and
notations, over the whole program before anything runs.

`check(program)` returns an `Analysis` (analysis.py): the symbol tables plus typed side
tables keyed by node that the compiler needs.
"""

from __future__ import annotations

from esochess.gambit import declarations as D
from esochess.gambit.analysis import Analysis
from esochess.gambit.check.common import signature
from esochess.gambit.check.program import ProgramChecker
from esochess.gambit.check.purity import static_function_names, static_node

__all__ = ["check", "signature", "static_function_names", "static_node"]


def check(program: D.Program) -> Analysis:
    """Check a parsed program; errors and warnings are in the result."""
    return ProgramChecker(program).run()
