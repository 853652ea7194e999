"""Issue 23 for the Chespel run-time, in process: an evaluation is interrupted from inside
its rule loops, a resource error in a program is a located run-time error, tiny clocks
still get a real search, and the clock arithmetic."""

from __future__ import annotations

import chess
import pytest
from test_eval_support import program

from esochess.chespel.runtime import library
from esochess.chespel.runtime.engine import Engine, Game
from esochess.chespel.runtime.search import Limits, Searcher
from esochess.chespel.runtime.timing import MARGIN, another_iteration, clock_limits
from esochess.chespel.runtime.values import ChespelRuntimeError

SLOW_SOURCE = "module evaluation\nrule slow:\n\tcell a, b, c, d, e with a != e:\n\t\tscore 0.001;\n"
"""The 4-line program of issue 23: 64^5 loop iterations per evaluation (hours)."""
SLOW = program(SLOW_SOURCE)


class Interrupted(Exception):
    pass


def test_the_deadline_check_reaches_inside_the_rule_loops() -> None:
    calls = 0

    def interrupt() -> None:
        nonlocal calls
        calls += 1
        if calls == 3:
            raise Interrupted

    with pytest.raises(Interrupted):
        SLOW.rule_score(chess.Board(), chess.WHITE, 0, interrupt)
    assert calls == 3


def test_a_search_with_the_slow_program_ends_at_its_budget_with_a_legal_move() -> None:
    board = chess.Board()
    result = Searcher(SLOW).search(board, 0, [], Limits(budget=0.1))
    assert result.move in board.legal_moves
    assert result.depth == 0  # not even one evaluation can finish: the best ordered move


@pytest.mark.parametrize(("error", "text"), [
    (MemoryError, "out of memory in rule mine"),
    (RecursionError, "computation nested too deeply (Python's recursion limit) in rule mine"),
])
def test_resource_errors_in_a_program_are_located_runtime_errors(
        monkeypatch: pytest.MonkeyPatch, error: type[Exception], text: str) -> None:
    prog = program("module evaluation\nsym rule material:\n\tscore 1;\n"
                   "rule mine:\n\tscore me.pieces.length;\n")

    def exhausted(mask: int) -> list[int]:
        raise error

    monkeypatch.setattr(library, "squares", exhausted)
    with pytest.raises(ChespelRuntimeError) as caught:
        prog.rule_score(chess.Board(), chess.WHITE, 0)
    assert (caught.value.line, caught.value.column, caught.value.message) == (4, 6, text)
    with pytest.raises(ChespelRuntimeError):
        prog.evaluate_verbose(chess.Board(), chess.WHITE, 0)
    reported: list[str] = []
    engine = Engine(prog, reported.append)
    choice = engine.choose(Game.start(chess.Board()), Limits(depth=1))
    assert choice.move in chess.Board().legal_moves
    assert reported == [f"error: t.chp:4:6: runtime error: {text}"]


@pytest.mark.parametrize("remaining", [0.05, 0.3, 1.0, 2.0])
def test_tiny_clocks_still_search(remaining: float) -> None:
    prog = program("module evaluation\nsym rule material:\n\tpiece p with p.player == me:\n"
                   "\t\tscore p.value;\n")
    limits = clock_limits(remaining, 0.01, None, 4.0)
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    result = Searcher(prog).search(board, 0, [], limits)
    # How deep a tiny clock gets depends on the machine's load; that it searches (and so
    # never answers with the first generated move unexamined) does not.
    assert result.nodes > 0 and result.move in board.legal_moves
    assert limits.first is not None and limits.first >= limits.budget / 2


def test_clock_budgets() -> None:
    limits = clock_limits(1.0, 0.01, None, 4.0)
    # 10 ms per move still to play (30 assumed) is kept back from the clock.
    assert limits.budget == pytest.approx(0.7 / 30 + 0.005)
    assert limits.hard == pytest.approx(limits.budget / 2)  # 20 ms would be most of it
    assert clock_limits(10.0, 0.1, None, 4.0).hard == pytest.approx(9.7 / 30 + 0.05 - MARGIN)
    assert limits.first == pytest.approx(0.035)  # depth 1 may use a twentieth of the rest
    low = clock_limits(0.25, 0.01, None, 4.0)  # only the reserve left: answer at once
    assert low.budget == pytest.approx(0.005) and low.first == pytest.approx(0.005)
    assert clock_limits(600.0, 0, None, 4.0).budget == 4.0  # maxTime caps the budget
    assert clock_limits(10.0, 0, 2, 60.0).budget == pytest.approx(2.0)  # a fifth at most
    assert clock_limits(0.0, 0, None, 4.0).budget == 0.001
    assert Limits(budget=0.03).hard == pytest.approx(0.015)  # half the budget at least


def test_another_iteration_uses_the_observed_branching_factor() -> None:
    assert another_iteration(0.05, 0.02, 0.005, 0.2)  # 0.05 + 0.02 * 4 <= 0.2
    assert not another_iteration(0.05, 0.04, 0.01, 0.2)  # 0.05 + 0.16 > 0.2
    assert not another_iteration(0.0, 0.1, None, 0.3)  # default factor 4
    assert another_iteration(0.0, 0.1, 0.1, 0.3)  # factor clamped to 1.5 at least
