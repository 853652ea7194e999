"""What the checker hands to the back end: `CheckResult` with the program, its
diagnostics and the annotations code generation reads (see checker.py), the resolution of
a call (`CallInfo`), the opening rules (`Opening`), and the checker's limits."""

from __future__ import annotations

from dataclasses import dataclass, field

from esochess.chespel import ast
from esochess.chespel.classes import (
    Base,
    Class,
)
from esochess.chespel.library import (
    Entry,
)
from esochess.fen import SourceError

MAX_ERRORS = 50
# An implementation limit (not in the spec): deeper expressions are refused with an error
# rather than risking the recursion limits of this checker and of the generated Python.
MAX_DEPTH = 200
# Likewise for blocks (a rule body is level 1); Python itself stops at 100 indentations.
MAX_BLOCKS = 32
# The generated code spends one indentation level per loop variable (chespel-back).
MAX_LOOP_VARIABLES = 32
MAX_LOOP_VARIABLES_IN_SCOPE = 64


@dataclass(frozen=True)
class CallInfo:
    """What an `ast.Name` or `ast.Call` resolved to (see the module docstring).

    * kind "variable": `variable` is the name.
    * kind "global": a true global function `entry` applied to `args`.
    * kind "method": `entry` (a method of `entry.receiver`, or a List method) applied to
      the receiver and `args`. The receiver is `receiver` (an expression) or, when
      `implicit` is set, the loop variable of that name. With `lifted`, the receiver is a
      list: `path` then `entry` are applied to each element and the results collected
      (concatenated when `flatten`). Without `lifted`, `path` is applied to the receiver
      itself first (`p.value` = `Type.value(Piece.type(p))`). `element` is the element
      class of a list receiver (None for `[]` or non-list receivers).
    """

    kind: str
    entry: Entry | None = None
    receiver: ast.Expr | None = None
    implicit: str | None = None
    args: tuple[ast.Expr, ...] = ()
    path: tuple[Entry, ...] = ()
    lifted: bool = False
    flatten: bool = False
    element: Base | None = None
    variable: str | None = None


@dataclass(frozen=True)
class Opening:
    """One opening rule with the keys (docs/reference/chespel.md#opening) of its origin and
    destination positions."""

    line: int
    origin: str
    destination: str
    origin_key: str
    destination_key: str
    reachable: bool


SEARCH_DEFAULTS: dict[str, int | bool] = {
    "maxTime": 4000,
    "maxDepth": 64,
    "hashSize": 64,
    "quiescence": True,
}
ENDGAME_DEFAULTS: dict[str, int | bool] = {"threshold": 20000, "replace": False}

# name -> (kind, low, high, description for E19); Num bounds are exact fractions.
@dataclass
class CheckResult:
    """The checked program, its diagnostics and the annotations for the back end."""

    path: str
    program: ast.Program | None
    diagnostics: list[SourceError] = field(default_factory=list)
    classes: dict[int, Class] = field(default_factory=dict)
    calls: dict[int, CallInfo] = field(default_factory=dict)
    search: dict[str, int | bool] = field(default_factory=lambda: dict(SEARCH_DEFAULTS))
    endgame: dict[str, int | bool] = field(default_factory=lambda: dict(ENDGAME_DEFAULTS))
    openings: tuple[Opening, ...] = ()

    @property
    def errors(self) -> list[SourceError]:
        """The error diagnostics (the program may run only when this is empty)."""
        return [d for d in self.diagnostics if d.is_error]

    @property
    def warnings(self) -> list[SourceError]:
        """The warnings."""
        return [d for d in self.diagnostics if not d.is_error]

    @property
    def ok(self) -> bool:
        """True when the program parsed and has no error."""
        return self.program is not None and not self.errors

    def class_of(self, expr: ast.Expr) -> Class | None:
        """The static class of `expr`, or None if it contains an error."""
        return self.classes.get(id(expr))

    def call_of(self, node: ast.Expr) -> CallInfo | None:
        """The resolution of a `Name` or `Call` node, or None if it did not resolve."""
        return self.calls.get(id(node))
