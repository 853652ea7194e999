"""The Chespel front end in one call: `compile_source(path, text) -> CheckResult`.

This is the entry point for every command that reads a program (`check`, `build`,
`eval`, `run`, `uci`, `match`, docs/reference/chespel.md#diagnostics):

    result = compile_source("engine.chp", text)
    if not result.ok:            # errors (warnings alone do not fail)
        print(format_report(result), file=sys.stderr)
    ...                          # result.program, result.class_of(e), result.call_of(e)

`CheckResult` (defined in check_result.py) holds the AST, the sorted diagnostics (lexical,
layout and syntax errors end the analysis and are the only error then,
docs/reference/chespel.md#diagnostics; otherwise up to 50 errors), the static class of every
expression, the resolution of every call, the module parameters and the opening rules.
`concat_spelling` gives the source spelling `++` uses for a numeric literal
(docs/reference/chespel.md#string-forms).
"""

from __future__ import annotations

import sys

import lark.exceptions

from esochess.chespel import ast
from esochess.chespel.check_modules import truncation_warning
from esochess.chespel.check_result import MAX_DEPTH, MAX_ERRORS, CallInfo, CheckResult, Opening
from esochess.chespel.checker import check
from esochess.chespel.layout import LayoutError
from esochess.chespel.parser import number_literal, parse, prepare_source, raw_tokens
from esochess.fen import SourceError, format_diagnostic, sort_diagnostics

__all__ = [
    "CallInfo",
    "CheckResult",
    "Opening",
    "compile_source",
    "concat_spelling",
    "format_report",
    "prepare_source",
]


# Frames the parse-tree transformer needs for programs within the checker's depth limit.
_RECURSION_LIMIT = 12_000


def compile_source(path: str, text: str) -> CheckResult:
    """Run the whole front end on `text` (read from `path`); never raises for user errors."""
    source = prepare_source(text)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, _RECURSION_LIMIT))
    try:
        return _compile(path, source)
    except RecursionError:
        # Only a pathologically nested program gets here (thousands of levels).
        result = CheckResult(path, None)
        message = f"expression is nested too deeply (more than {MAX_DEPTH} levels)"
        result.diagnostics = [SourceError(path, 1, 1, message)]
        _attach_source(result, source)
        return result
    finally:
        sys.setrecursionlimit(limit)


def _compile(path: str, source: str) -> CheckResult:
    try:
        program = parse(path, source)
    except SourceError as exc:
        result = CheckResult(path, None)
        result.diagnostics = sort_diagnostics([exc, *_early_warnings(path, source, exc)])
        _attach_source(result, source)
        return result
    result = check(program, path)
    ordered = sort_diagnostics(result.diagnostics)
    kept: list[SourceError] = []
    errors = 0
    for diag in ordered:
        if diag.is_error:
            errors += 1
            if errors > MAX_ERRORS:
                continue
        kept.append(diag)
    result.diagnostics = kept
    _attach_source(result, source)
    return result


def _attach_source(result: CheckResult, source: str) -> None:
    result.diagnostics = [
        d if d.source_line is not None else d.with_source(source) for d in result.diagnostics
    ]


def _early_warnings(path: str, source: str, error: SourceError) -> list[SourceError]:
    """W1 for number literals before a fatal error (docs/reference/chespel.md#diagnostics keeps
    earlier warnings)."""
    found: list[SourceError] = []
    try:
        for tok in raw_tokens(source):
            line, column = tok.line or 1, tok.column or 1
            if (line, column) >= (error.line, error.column):
                break
            if tok.type == "NUMBER" and len(str(tok).partition(".")[2]) > 3:
                lit = number_literal(tok)
                message = truncation_warning(lit.spelling, lit.millis)
                found.append(SourceError(path, line, column, message, severity="warning"))
    except (LayoutError, lark.exceptions.UnexpectedInput):
        # The same error was already reported by the parse; the tokens before it are in.
        pass
    return found


def format_report(result: CheckResult) -> str:
    """All diagnostics (source and caret lines included) plus the
    docs/reference/chespel.md#diagnostics summary line.

    The summary `compilation failed: N error(s), M warning(s)` is added only when there is
    an error. The text has no trailing newline; it is empty for a clean program.
    """
    parts = [format_diagnostic(d) for d in result.diagnostics]
    errors = len(result.errors)
    if errors:
        parts.append(f"compilation failed: {errors} error(s), {len(result.warnings)} warning(s)")
    return "\n".join(parts)


def concat_spelling(expr: ast.Expr) -> str | None:
    """The source spelling `++` prints for a numeric literal operand
    (docs/reference/chespel.md#string-forms), else None.

    Applies to a number literal with at most 3 decimals, optionally preceded by unary `-`.
    """
    sign = ""
    if isinstance(expr, ast.Unary) and expr.op == "-":
        sign, expr = "-", expr.operand
    if isinstance(expr, ast.NumLit) and len(expr.spelling.partition(".")[2]) <= 3:
        return sign + expr.spelling
    return None
