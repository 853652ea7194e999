"""Random well-formed-looking queries either fail to compile with a SourceError or run over
real games (with variations, promotion, en passant, castling) without raising."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from esochess.cqlvars.engine import compile_query, run_games
from esochess.cqlvars.pgnio import games_in_text
from esochess.fen import SourceError

PGN = (
    "1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. O-O Nf6 5. d3 O-O 6. Bg5 h6 7. Bxf6 Qxf6 *\n\n"
    "1. e4 Nf6 2. e5 d5 3. exd6 e6 4. dxc7 Bd6 5. cxb8=Q Rxb8 *\n\n"
    "1. f3 e5 2. g4 (2. Nc3 Qh4+ 3. g3) 2... Qh4# 0-1\n"
)
GAMES = list(games_in_text("f.pgn", PGN))
ATOMS = [
    "check", "mate", "K", "k", "A", "_", ".", "e4", "[a1,h8]", "Ra1", "ply", "3", '"s"', "x",
    "S", "currentposition", "parent", "move", "move previous capture .", "move legal count",
    "pin", "wtm", "terminal", "initial", "Q attacks k", "power A", "#A", "x = 3", "S = K",
    "piece P1 = K", 'T = "ab"', "find check", "find all check", "line --> check --> not check",
    "echo (s t) ply", "square Sq in A Sq attacks k", "piece Pc in a Pc", "between(K k)",
    "ray (R k)", "originalcomment", "comment(ply)", "str(K)", "player white", "elo", "year",
    "pieceid K", "int T", 'T ~~ "a"', "abs ply", "max(ply 3)", "flipcolor K", "shift Ka1",
    "sort ply",
]  # fmt: skip
OPS = ["and", "or", "==", "!=", "<", "+", "-", "*", "/", "%", "|", "&", "in", ":", "attacks"]
PREFIXES = ["not", "#", "-", "~", "find", "flip", "if check then", "lowercase"]

expression = st.recursive(
    st.sampled_from(ATOMS),
    lambda inner: st.one_of(
        st.tuples(inner, st.sampled_from(OPS), inner).map(" ".join),
        st.tuples(st.sampled_from(PREFIXES), inner).map(" ".join),
        inner.map(lambda e: "{ " + e + " }"),
    ),
    max_leaves=4,
)


@settings(deadline=None, max_examples=150)
@given(st.booleans(), st.lists(expression, min_size=1, max_size=4))
def test_compiled_queries_run_without_raising(variations: bool, parts: list[str]) -> None:
    query = ("cql(variations) " if variations else "cql() ") + "  ".join(parts)
    try:
        compiled = compile_query("q.cql", query)
    except SourceError:
        return
    outcomes = list(run_games(compiled, GAMES))
    assert [o.number for o in outcomes] == [1, 2, 3]
    for outcome in outcomes:
        assert outcome.error is None
        assert outcome.matched == (outcome.pgn is not None)


LINE_STEPS = ["check", "not check", "move capture .", "wtm", "btm", "move", "N", "ply > 3",
              "move previous capture .", "not move capture ."]  # fmt: skip


@settings(deadline=None, max_examples=80)
@given(st.booleans(), st.booleans(), st.lists(st.sampled_from(LINE_STEPS), min_size=1, max_size=4))
def test_plain_line_equals_the_general_walk(variations: bool, backward: bool, steps: list[str]) -> None:
    # A line of single constituents takes a fast path; wrapped in a group it takes the
    # general NFA walk. Both must give the same value at every position of every game.
    arrow = " <-- " if backward else " --> "
    plain = "line" + arrow + arrow.join(steps)
    grouped = "line" + arrow + "(" + arrow.join(steps) + ")"
    header = "cql(variations) " if variations else "cql() "
    texts = []
    for query in (plain, grouped):
        compiled = compile_query("q.cql", f"{header}sort ({query})")
        texts.append([(o.matched, o.pgn) for o in run_games(compiled, GAMES)])
    assert texts[0] == texts[1]
