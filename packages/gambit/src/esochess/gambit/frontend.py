"""The front end: source text to a checked, compiled `Program` with its diagnostics."""

from __future__ import annotations

from esochess.fen import SourceError
from esochess.gambit.check import check
from esochess.gambit.codegen import SourceCompiler
from esochess.gambit.compiler import Compiler
from esochess.gambit.limits import deep_python_stack
from esochess.gambit.parser import parse
from esochess.gambit.program import (
    Program,
)

ENGINES = ("compiled", "interpreter")
"""The engines (docs/reference/gambit.md#engines): generated Python source (the default) and
the reference interpreter of closures and instructions."""


def compile_source(
    source: str, path: str, engine: str = "compiled"
) -> tuple[Program | None, list[SourceError]]:
    """Parse, check and compile for `engine`; returns (program or None, diagnostics sorted
    by position).

    Every stage recurses over the tree; the parser bounds its depth (`MAX_NESTING`), and
    the stages run with the Python stack that bound needs.
    """
    with deep_python_stack():
        return _compile(source, path, engine)


def _compile(source: str, path: str, engine: str) -> tuple[Program | None, list[SourceError]]:
    try:
        tree = parse(source, path)
    except SourceError as err:
        return None, [err]
    checked = check(tree)
    diags = sorted(checked.errors, key=lambda e: (e.line, e.column))[:50]
    diags = _dedupe(diags) + sorted(checked.warnings, key=lambda e: (e.line, e.column))
    diags.sort(key=lambda e: (e.line, e.column, e.severity == "warning"))
    if checked.errors:
        return None, diags
    compiler = SourceCompiler if engine == "compiled" else Compiler
    program = compiler(tree, checked).build()
    program.warnings = [d for d in diags if d.severity == "warning"]
    return program, diags


def _dedupe(errs: list[SourceError]) -> list[SourceError]:
    out: list[SourceError] = []
    seen: set[tuple[int, int, str]] = set()
    for e in errs:
        key = (e.line, e.column, e.message)
        if key not in seen:
            seen.add(key)
            out.append(e)
    return out
