"""Match statistics: LOS, the SPRT's log-likelihood ratio and its bounds, result counting."""

from __future__ import annotations

import math

import chess
import pytest
from hypothesis import given
from hypothesis import strategies as st

from esochess.chespel.match import GameRecord, MatchResult, game_pgn, summary_lines
from esochess.chespel.stats import Sprt, elo, expected_score, los


def test_los() -> None:
    assert los(0, 0) == 0.5
    assert los(5, 5) == 0.5
    assert los(10, 0) > 0.99
    assert math.isclose(los(3, 1), 0.5 * (1 + math.erf(2 / math.sqrt(8))))


@given(st.floats(-800, 800))
def test_elo_and_expected_score_are_inverse(difference: float) -> None:
    assert math.isclose(elo(expected_score(difference)), difference, abs_tol=1e-6)


def test_sprt_parse_and_bounds() -> None:
    sprt = Sprt.parse("0,5")
    assert (sprt.elo0, sprt.elo1, sprt.alpha, sprt.beta) == (0, 5, 0.05, 0.05)
    assert math.isclose(sprt.upper, math.log(19)) and math.isclose(sprt.lower, -math.log(19))
    assert Sprt.parse("-5,5,0.1,0.2", "trinomial") == Sprt(-5, 5, 0.1, 0.2, "trinomial")
    for bad in ("5", "5,0", "a,b", "0,5,0.7,0.1", "0,5,0.1"):
        with pytest.raises(ValueError, match="bad SPRT bounds"):
            Sprt.parse(bad)


def test_sprt_accepts_the_right_hypothesis() -> None:
    sprt = Sprt(0, 50)
    assert sprt.decision(sprt.llr([0, 0, 0, 0, 1])) is None  # one pair never decides
    assert Sprt.parse("0,400,0.2,0.2").llr([0, 0, 0, 0, 0]) == 0.0  # nor no pair at all
    assert sprt.decision(sprt.llr([0, 0, 0, 0, 10])) == "H1"
    assert sprt.decision(sprt.llr([0, 0, 40, 0, 0])) == "H0"
    tri = Sprt(0, 50, model="trinomial")
    assert tri.decision(tri.llr([0, 0, 20])) == "H1"
    assert tri.decision(tri.llr([20, 0, 0])) == "H0"


@given(st.lists(st.integers(0, 30), min_size=5, max_size=5))
def test_llr_is_antisymmetric_for_symmetric_hypotheses(counts: list[int]) -> None:
    sprt = Sprt(-20, 20)
    assert math.isclose(sprt.llr(counts), -sprt.llr(counts[::-1]), abs_tol=1e-9)


@given(st.lists(st.integers(0, 20), min_size=5, max_size=5), st.integers(0, 4))
def test_a_better_pair_never_lowers_the_llr(counts: list[int], bin: int) -> None:
    sprt = Sprt(0, 10)
    better = list(counts)
    better[4] += 1
    worse = list(counts)
    worse[0] += 1
    assert sprt.llr(better) >= sprt.llr(worse)


def record(number: int, result: str) -> GameRecord:
    board = chess.Board()
    return GameRecord(number, "a" if number % 2 else "b", "b" if number % 2 else "a", result,
                      "checkmate", board, board.copy())


def test_results_count_games_and_pairs() -> None:
    result = MatchResult()
    for number, outcome in enumerate(["1-0", "1-0", "1/2-1/2", "0-1", "0-1", "1-0"], 1):
        result.add(record(number, outcome))
    assert result.scores == [1.0, 0.0, 0.5, 1.0, 0.0, 0.0]
    assert (result.wins, result.losses, result.draws) == (2, 3, 1)
    assert result.pairs == [1, 0, 1, 1, 0]
    assert result.sprt_counts(Sprt(0, 5, model="trinomial")) == [3, 1, 2]
    lines = summary_lines(("a", "b"), result, Sprt(0, 5))
    assert lines[0] == "Score of a vs b: 2 - 3 - 1 [0.417] 6"
    assert lines[1].startswith("Elo difference: -58.5 +/- ") and lines[1].endswith(
        f", LOS: {100 * los(2, 3):.1f} %")
    assert lines[2].startswith("SPRT (pentanomial, elo0 0, elo1 5, alpha 0.05, beta 0.05): llr ")


def test_game_pgn_records_times_clocks_and_termination() -> None:
    start = chess.Board()
    start.push_san("e4")
    board = start.copy()
    for san in ("e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"):
        board.push_san(san)
    game = GameRecord(1, "a", "b", "1-0", "checkmate", board, start,
                      times=[0.5] * 6, clocks=[59.0, 58.0, 57.5, 57.0, 56.0, 55.0])
    text = game_pgn(game)
    assert '[Termination "normal"]' in text
    assert "1. e4 e5 { [%emt 0:00:00.5] [%clk 0:00:59] }" in text
    assert "checkmate } 1-0" in text
    game.reason, game.clocks = "forfeit: time", None
    assert '[Termination "time forfeit"]' in game_pgn(game)
    assert "%clk" not in game_pgn(game)
