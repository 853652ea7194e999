"""Which traits the generated code memoises: not those read only by the plain statements
of procedures that make no decision.

A trait's memo is keyed by the state version, which every property write renews. A
memo hit needs the same read twice with no write in between: a map, filter or selector
evaluated per element, a function or trait evaluated many times, a legality test run
for every option of a decision (the statements of a procedure that chooses). A
procedure that decides nothing runs its statements once per visit, and in a game its
visits are separated by the moves that write the state -- Connect Four's `board_full`,
read once per turn after the disc is dropped, never hits: every read paid the key, the
lookup and the store of a result nobody reads again. Those traits are run by their
wrapper without a memo, as the cheap bodies are (codegen/calls.py): the memo is
unobservable (a result, an error and the call depth a body needs are the same
recomputed), so only the cost changes, never a result.
"""

from __future__ import annotations

from typing import Any

from esochess.gambit import ast as A
from esochess.gambit import declarations as D
from esochess.gambit.analysis import Analysis, NaryRef, PropRef
from esochess.gambit.compiler.horizon import nodes

# Where a procedure's expression is evaluated once per element or per option.
_REPEATED = (A.FilterMap, A.SelectorExpr, A.Selector, A.Choose)


def traits_read_once(tree: D.Program, an: Analysis) -> set[str]:
    """The traits every read of which is a plain statement's (outside maps, filters and
    selectors) in a procedure that contains no `choose`."""
    everywhere = _reads(nodes(tree), an)
    plain: dict[str, int] = {}
    for decl in nodes(tree):
        if isinstance(decl, D.FuncDecl) and not decl.pure and not any(
                isinstance(n, A.Choose) for n in nodes(decl.body)):  # fmt: skip
            for name, count in _reads(nodes(decl.body, _REPEATED), an).items():
                plain[name] = plain.get(name, 0) + count
    return {name for name, count in plain.items() if everywhere.get(name) == count}


def _reads(found: list[Any], an: Analysis) -> dict[str, int]:
    """How many times each trait is read among `found`."""
    out: dict[str, int] = {}
    for n in found:
        if isinstance(n, (A.Name, A.Member)):
            ref = an.resolved.get(n)
            if isinstance(ref, (PropRef, NaryRef)) and ref.prop.kind == "trait":
                out[ref.prop.name] = out.get(ref.prop.name, 0) + 1
    return out
