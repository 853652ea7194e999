"""The front end: source text to a checked, compiled `Program` with its diagnostics."""

from __future__ import annotations

from esochess.fen import SourceError
from esochess.gambit.check import check
from esochess.gambit.compiler import Compiler
from esochess.gambit.limits import deep_python_stack
from esochess.gambit.parser import parse
from esochess.gambit.program import (
    Program,
)


def compile_source(source: str, path: str) -> tuple[Program | None, list[SourceError]]:
    """Parse, check and compile; returns (program or None, diagnostics sorted by position).

    Every stage recurses over the tree; the parser bounds its depth (`MAX_NESTING`), and
    the stages run with the Python stack that bound needs.
    """
    with deep_python_stack():
        return _compile(source, path)


def _compile(source: str, path: str) -> tuple[Program | None, list[SourceError]]:
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
    program = Compiler(tree, checked).build()
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
