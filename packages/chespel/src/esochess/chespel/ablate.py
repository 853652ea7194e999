"""`chespel ablate`: what each rule is worth, by matches of a program against itself with one
rule switched off.

A rule is switched off by commenting its lines out in a copy of the source (so that every
other line keeps its number); the copies live in a temporary directory for the duration of
the run. Each copy plays a match against the whole program; the whole program's Elo in that
match is the rule's value.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from esochess.chespel import ast
from esochess.chespel.match import EngineSpec, MatchResult, Settings, run_match
from esochess.chespel.stats import elo_text, los
from esochess.fen.files import write_atomic


@dataclass(frozen=True)
class RuleSpan:
    """A rule of the program and its lines (1-based, `last` included)."""

    module: str
    name: str
    first: int
    last: int


@dataclass(frozen=True)
class Row:
    """One rule's match: the whole program against the program without the rule."""

    rule: RuleSpan
    result: MatchResult


def rule_spans(program: ast.Program, line_count: int) -> list[RuleSpan]:
    """Every rule with its lines: from its header to the line before the next rule or module."""
    starts: list[tuple[int, RuleSpan | None]] = []
    for module in program.modules:
        starts.append((module.pos.line, None))
        for rule in module.rules:
            starts.append((rule.pos.line, RuleSpan(module.kind, rule.name, rule.pos.line, 0)))
    starts.sort(key=lambda entry: entry[0])
    spans = []
    for index, (line, span) in enumerate(starts):
        if span is None:
            continue
        end = starts[index + 1][0] - 1 if index + 1 < len(starts) else line_count
        spans.append(RuleSpan(span.module, span.name, line, end))
    return spans


def without_rule(source: str, span: RuleSpan) -> str:
    """The source with the rule's lines commented out (every line keeps its number)."""
    lines = source.splitlines(keepends=True)
    for number in range(span.first, span.last + 1):
        if lines[number - 1].strip():
            lines[number - 1] = "// " + lines[number - 1]
    return "".join(lines)


def _file_name(stem: str, span: RuleSpan) -> str:
    return f"{stem}-no-{re.sub(r'[^A-Za-z0-9_]+', '_', span.name)}.chp"


def ablate(path: str, source: str, program: ast.Program, settings: Settings,
           progress: Callable[[str], None], rules: tuple[str, ...] = ()) -> list[Row]:
    """Play the program against each one-rule-off copy (only the named `rules` when given)."""
    spans = rule_spans(program, len(source.splitlines()))
    if rules:
        spans = [span for span in spans if span.name in rules]
    stem = Path(path).stem
    rows = []
    with tempfile.TemporaryDirectory(prefix="chespel-ablate-") as directory:
        for span in spans:
            variant = Path(directory) / _file_name(stem, span)
            write_atomic(variant, without_rule(source, span))
            progress(f"rule {span.name}: {settings.games} games")
            result = run_match(EngineSpec.parse(path), EngineSpec.parse(str(variant)), settings,
                               lambda line: None)
            rows.append(Row(span, result))
    return rows


def table(rows: list[Row]) -> list[str]:
    """The rules' values, one line each: games, W-L-D of the whole program, Elo and the half
    width of its 95 % interval, LOS."""
    width = max([len(row.rule.name) for row in rows] + [4])
    lines = [f"{'rule':<{width}}  {'games':>5}  {'W-L-D':>8}  {'Elo':>7}  {'+/-':>6}  {'LOS':>6}"]
    for row in rows:
        result = row.result
        wld = f"{result.wins}-{result.losses}-{result.draws}"
        elo, _, margin = elo_text(result.scores).partition(" +/- ")
        lines.append(f"{row.rule.name:<{width}}  {len(result.scores):>5}  {wld:>8}  {elo:>7}  "
                     f"{margin or 'inf':>6}  {100 * los(result.wins, result.losses):>5.1f}%")
    return lines
