"""Engine API (the seam used by the CLI and the parallel drivers)."""

from __future__ import annotations

import pickle

import pytest

from esochess.cqlvars.engine import RunOptions, compile_query, run_games
from esochess.cqlvars.pgnio import GameText, games_in_text
from esochess.fen import SourceError

PGN = (
    '[Event "a"]\n[Result "1-0"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n'
    '[Event "b"]\n[Result "0-1"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n\n'
    '[Event "c"]\n\n1. e4 e5 2. Ke3 *\n'
)


def games() -> list[GameText]:
    return list(games_in_text("g.pgn", PGN))


def test_games_in_text_numbers_and_lines() -> None:
    found = games()
    assert [(g.number, g.line) for g in found] == [(1, 1), (2, 6), (3, 11)]
    assert found[1].text.startswith('[Event "b"]')


def test_outcomes_are_picklable_and_complete() -> None:
    compiled = compile_query("q.cql", 'cql() mate message("mate at " ply)')
    outcomes = list(run_games(compiled, games()))
    assert [o.matched for o in outcomes] == [True, True, False]
    assert outcomes[0].messages == ("mate at 7",)
    assert outcomes[2].error is not None
    assert outcomes[2].error.startswith("g.pgn:11: game 3: error: illegal san: 'Ke3'")
    assert outcomes[2].error.endswith("(game skipped)")
    assert pickle.loads(pickle.dumps(outcomes)) == outcomes
    assert outcomes[0].pgn is not None and outcomes[0].pgn.endswith("4. Qxf7# { CQL } 1-0\n\n")


def test_header_prefilter_skips_move_parsing() -> None:
    compiled = compile_query("q.cql", "cql() result 0-1 mate")
    outcomes = list(run_games(compiled, games()))
    assert [o.prefiltered for o in outcomes] == [True, False, True]
    # The broken third game is never move-parsed, so its error goes undetected (§1.7.3).
    assert outcomes[2].error is None and outcomes[1].matched


def test_persistent_state_sums() -> None:
    compiled = compile_query("q.cql", "cql(quiet) persistent Plies += 1  false")
    assert compiled.uses_persistent and compiled.reducible_error is None
    state = compiled.new_state()
    list(run_games(compiled, games()[:2], state))
    assert state.persistent_lines() == ["Plies: 13"]  # 8 + 5 positions
    taken = state.take_sums()
    assert taken == {"Plies": 13} and state.persistent_lines() == ["Plies: 0"]
    state.add_sums({"Plies": 5})
    state.add_sums(taken)
    assert state.persistent_lines() == ["Plies: 18"]


def test_options_override_the_header() -> None:
    compiled = compile_query("q.cql", "cql(matchcount 1 1) check", options=RunOptions(
        quiet=True, matchcount=(2, None)))
    assert compiled.quiet and compiled.matchcount == (2, None)
    (first, second, _) = run_games(compiled, games())
    assert not first.matched and not second.matched


def test_runtime_error_is_returned_not_raised() -> None:
    compiled = compile_query("err.cql", "cql() x = 1000000000 x += 1")
    (outcome, *_) = run_games(compiled, games())
    assert outcome.runtime_error is not None
    err = outcome.runtime_error
    assert (err.line, err.column, err.severity) == (1, 24, "runtime error")
    assert "(g.pgn game 1, ply 0)" in err.message


def test_prefilter_looks_under_flipcolor() -> None:
    compiled = compile_query("q.cql", 'cql() flipcolor { result 1-0 } mate')
    outcomes = list(run_games(compiled, games()))
    assert [o.prefiltered for o in outcomes] == [False, False, True]
    assert [o.matched for o in outcomes] == [True, True, False]


def test_absurd_nesting_is_a_query_error() -> None:
    text = "cql() " + "(" * 3000 + "check" + ")" * 3000
    with pytest.raises(SourceError) as info:
        compile_query("deep.cql", text)
    assert info.value.message == "the query is nested too deeply (more than 200 brackets)"
    assert (info.value.line, info.value.column) == (1, 207)


def test_running_out_of_memory_costs_one_game_with_a_message(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from esochess.cqlvars import engine

    compiled = compile_query("q.cql", "cql() check")
    games = list(games_in_text("g.pgn", "1. e4 e5 *\n\n1. d4 d5 *\n"))

    def exhausted(*_: object) -> None:
        raise MemoryError

    monkeypatch.setattr(engine, "_run_game", exhausted)
    outcome = engine.run_game(compiled, games[1], compiled.new_state())
    assert outcome.error == (
        "g.pgn:3: game 2: error: ran out of memory evaluating this game "
        "(a string or a set of positions grew too large) (game skipped)"
    )
