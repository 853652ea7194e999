"""Streaming evaluation (spec §7.3 lever 3) gives exactly the outcomes of the light path."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from esochess.cqlvars.engine import CompiledQuery, GameOutcome, compile_query, run_games
from esochess.cqlvars.pgnio import GameText, games_in_text, iter_games

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "pgn"

EDGE_CASES = (
    "1. e4 e5 2. Ke3 Nf6 *\n\n"  # illegal move: skipped, even after a match at ply 0
    '[Variant "Atomic"]\n\n1. e4 d5 2. exd5 *\n\n'  # unsupported variant
    "1. f3 e5 2. g4 Qh4# 0-1\n\n"
    '[Result "*"]\n\n1. f3 e5 2. g4 (2. Nc3 Qh4+ 3. g3) 2... Qh4# { mate } 0-1\n\n'
    '[SetUp "1"]\n[FEN "8/P6k/8/8/8/8/8/K7 w - - 0 1"]\n\n1. a8=N Kg6 2. Nb6 *\n\n'
    "*\n\n"
    "1. e4 Nf6 2. e5 d5 3. exd6 e6 4. dxc7 Bd6 5. cxb8=Q Rxb8 *\n\n"
    "1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. O-O Nf6 5. d3 O-O 6. Bg5 h6 7. Bxf6 Qxf6 *\n\n"
)


def _games() -> list[GameText]:
    games = list(games_in_text("edge.pgn", EDGE_CASES))
    for path in sorted(DATA.glob("*.pgn")):
        games += itertools.islice(iter_games([str(path)]), 30)
    return games


GAMES = _games()

STREAMING = [
    "cql() check",
    "cql() mate or stalemate",
    "cql() flipcolor { R attacks q }",
    'cql() player white "DrDrunkenstein" check',
    "cql() function Hit(S) { S attackedby a }  Hit(e4)",
    "cql() initial",
    "cql() terminal",
    "cql() move capture . move to _",
    "cql(quiet) move promote A",
    "cql(matchcount 2 3) check",
    'cql() sort "plies" ply  comment("at " ply)  btm',
    "cql(silent) move castle",
    "cql() if check then X = ply  isbound X  X > 20",
    'cql() check message("check at " ply)',
    "cql() ply == 5 x = 1000000000 x += x",  # a run-time error
    "cql() sort min \"n\" #A  terminal",
    "cql(variations) check",  # variations in scope: the light path, whatever the flag
]


def _both(query: str) -> tuple[list[GameOutcome], list[GameOutcome], CompiledQuery]:
    compiled = compile_query("q.cql", query)
    streamed = list(run_games(compiled, GAMES))
    light = compile_query("q.cql", query)
    light.streams = False
    return streamed, list(run_games(light, GAMES)), compiled


@pytest.mark.parametrize("query", STREAMING)
def test_streamed_outcomes_equal_the_light_path(query: str) -> None:
    streamed, light, compiled = _both(query)
    assert compiled.streams
    assert streamed == light
    assert any(o.matched for o in light) or "x += x" in query
    assert any(o.error for o in light) or "player" in query  # prefiltered games are not read


@pytest.mark.parametrize(
    "query",
    [
        "cql() line --> check --> check",
        "cql() find check",
        "cql() echo (s t) ply",
        "cql() parent : check",
        "cql() move previous capture .",
        'cql() originalcomment "mate"',
        "cql() result 1-0 check",
        "cql() piece Pc in A Pc attacks k",
        "cql() persistent Cnt += 1",
        "cql() function F() { find check } F()",
    ],
)
def test_queries_that_look_elsewhere_do_not_stream(query: str) -> None:
    text = query if query.startswith("cql(") else "cql() " + query
    assert not compile_query("q.cql", text).streams


ATOMS = [
    "check", "mate", "K", "k", "A", "_", ".", "e4", "[a1,h8]", "Ra1", "ply", "3", "wtm",
    "move", "move legal count", "pin", "terminal", "initial", "Q attacks k", "power A", "#A",
    "x = 3", "S = K", 'T = "ab"', "square Sq in A Sq attacks k", "between(K k)", "ray (R k)",
    "comment(ply)", "str(K)", "player white", "elo", "year", "abs ply", "max(ply 3)",
    "flipcolor K", "shift Ka1", "sort ply", "move capture .", "btm", "movenumber",
]  # fmt: skip


@settings(deadline=None, max_examples=40)
@given(st.lists(st.sampled_from(ATOMS), min_size=1, max_size=4))
def test_random_streaming_queries_agree(parts: list[str]) -> None:
    try:
        compiled = compile_query("q.cql", "cql() " + "  ".join(parts))
    except Exception:  # noqa: BLE001 - an ill-typed random query has nothing to compare
        return
    if not compiled.streams:
        return
    sample = GAMES[:24]
    light = compile_query("q.cql", "cql() " + "  ".join(parts))
    light.streams = False
    assert list(run_games(compiled, sample)) == list(run_games(light, sample))
