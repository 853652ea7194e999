"""`chespel match` pieces (§12.4): engine specs, openings, the Elo line."""

from __future__ import annotations

import sys

import chess
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from esochess.chespel.match import (
    DEFAULT_OPENINGS,
    EngineSpec,
    MatchError,
    MatchResult,
    elo_line,
    opening_board,
    parse_tc,
    read_openings,
)


def result_of(scores: list[float]) -> MatchResult:
    return MatchResult(scores=scores)


def test_engine_specs() -> None:
    chp = EngineSpec.parse("examples/chespel/material.chp")
    assert chp.name == "material"
    assert chp.command == (sys.executable, "-m", "esochess.chespel", "uci",
                           "examples/chespel/material.chp")
    ext = EngineSpec.parse("uci:/usr/games/stockfish -q;Skill Level=0;Threads=1")
    assert ext.command == ("/usr/games/stockfish", "-q")
    assert ext.options == (("Skill Level", "0"), ("Threads", "1"))
    assert ext.name is None
    with pytest.raises(MatchError):
        EngineSpec.parse("uci:stockfish;Skill Level")
    with pytest.raises(MatchError):
        EngineSpec.parse("uci:")


def test_openings() -> None:
    assert len(DEFAULT_OPENINGS) == 12
    for line in DEFAULT_OPENINGS:
        assert len(opening_board(line).move_stack) == len(line.split())
    assert opening_board("e2e4 e7e5 Nf3").fen().startswith("rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2")
    fen = "4k3/8/8/8/8/8/8/4K2R w K - 0 1"
    assert opening_board(fen).fen() == chess.Board(fen).fen()


def test_read_openings(tmp_path: object) -> None:
    from pathlib import Path

    path = Path(str(tmp_path)) / "o.txt"
    path.write_text("e4 e5\n\nd4 d5\n")
    assert read_openings(str(path)) == ("e4 e5", "d4 d5")
    path.write_text("e4 e9\n")
    with pytest.raises(MatchError, match="o.txt:1: bad opening"):
        read_openings(str(path))
    with pytest.raises(MatchError, match="cannot read"):
        read_openings(str(path) + ".missing")


def test_time_control() -> None:
    assert parse_tc("60+0.5") == (60.0, 0.5)
    assert parse_tc("10") == (10.0, 0.0)
    with pytest.raises(MatchError):
        parse_tc("ten+1")


def test_elo_lines() -> None:
    assert elo_line(result_of([1.0, 1.0])) == "Elo difference: +inf"
    assert elo_line(result_of([0.0, 0.0])) == "Elo difference: -inf"
    assert elo_line(result_of([0.5, 0.5])) == "Elo difference: +0.0 +/- 0.0"
    assert elo_line(result_of([1.0, 0.0])) == "Elo difference: +0.0 +/- inf"
    # 3 wins, 1 loss, 6 draws: s = 0.6, sigma = 0.3, interval 0.414 .. 0.786
    scores = [1.0] * 3 + [0.0] + [0.5] * 6
    assert elo_line(result_of(scores)) == "Elo difference: +70.4 +/- 143.1"


@settings(deadline=None, max_examples=60)
@given(st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=1, max_size=40))
def test_elo_is_antisymmetric(scores: list[float]) -> None:
    mine = elo_line(result_of(scores))
    theirs = elo_line(result_of([1 - s for s in scores]))
    flip = {"+": "-", "-": "+"}
    body = mine.removeprefix("Elo difference: ")
    other = theirs.removeprefix("Elo difference: ")
    if body.endswith("inf") and " " not in body:
        assert other == flip[body[0]] + "inf"
    else:
        value, margin = body.split(" +/- ")
        value2, margin2 = other.split(" +/- ")
        assert margin == margin2
        if value not in ("+0.0", "-0.0"):
            assert value2 == flip[value[0]] + value[1:]
