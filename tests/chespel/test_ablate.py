"""`chespel ablate` pieces: rule spans, switching a rule off, the table."""

from __future__ import annotations

from pathlib import Path

import chess

from esochess.chespel.ablate import Row, RuleSpan, rule_spans, table, without_rule
from esochess.chespel.frontend import compile_source
from esochess.chespel.match import GameRecord, MatchResult

SOURCE = Path("examples/chespel/positional.chp")


def test_every_rule_is_found_and_switched_off_alone() -> None:
    text = SOURCE.read_text()
    program = compile_source(str(SOURCE), text).program
    assert program is not None
    spans = rule_spans(program, len(text.splitlines()))
    names = [span.name for span in spans]
    assert names[:3] == ["material", "pawnSquares", "knightSquares"]
    assert len(names) == sum(len(module.rules) for module in program.modules)
    for span in spans:
        variant = without_rule(text, span)
        assert len(variant.splitlines()) == len(text.splitlines())
        checked = compile_source("variant.chp", variant)
        assert checked.ok, (span, checked.diagnostics)
        assert checked.program is not None
        left = [rule.name for module in checked.program.modules for rule in module.rules]
        assert left == [name for name in names if name != span.name]


def test_table_has_an_elo_and_interval_per_rule() -> None:
    board = chess.Board()
    result = MatchResult()
    for number, outcome in enumerate(["1-0", "1/2-1/2", "1-0", "0-1"], 1):
        result.add(GameRecord(number, "a", "b", outcome, "checkmate", board, board))
    rows = [Row(RuleSpan("evaluation", "material", 3, 6), result),
            Row(RuleSpan("evaluation", "x", 7, 9), MatchResult(scores=[0.5], draws=1))]
    lines = table(rows)
    assert lines[0].split() == ["rule", "games", "W-L-D", "Elo", "+/-", "LOS"]
    assert lines[1].split() == ["material", "4", "3-0-1", "+338.0", "inf", "95.8%"]
    assert lines[2].split() == ["x", "1", "0-0-1", "+0.0", "0.0", "50.0%"]
