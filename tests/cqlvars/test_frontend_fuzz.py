"""Random and mutated query text reaches only SourceError diagnostics (never a traceback)."""

from __future__ import annotations

from fuzzing import fuzz_settings
from hypothesis import given
from hypothesis import strategies as st

from esochess.cqlvars.engine import compile_query
from esochess.fen import SourceError

SEEDS = [
    "cql() #P == 8  #[Aa] == 32  #a-h1 == 8  K[e1,g1]",
    "cql() initial  #A + 1 == 17  1 < #A < 17  not #A == 15 or mate",
    "cql() move previous from n capture P",
    "cql() (line --> {move capture .}{2,}) == 4",
    'cql() sort "captures" line --> {move capture .}{2,}',
    "cql() flipcolor { btm check  P attacks k }",
    "cql() function Hit(S) { S attackedby a }  Hit(f6)",
    'cql() initial  X = "zug"  X += "zwang"  X[1:3] = "Z"',
    "cql(quiet) persistent Positions += 1  false",
    "cql() terminal echo (s t) { s & t == .  initial }",
    "cql() initial piece Pawn in Pa7 find { N & Pawn  Pawn == b6 }",
    "cql() ray diagonal (B k r)  pin through Q to K  #between(a1 h8) == 6",
]
TOKENS = [
    "cql", "(", ")", "{", "}", "[", "]", "-->", "<--", "=", "==", "+=", "=?", "~~", "#", ":",
    "not", "or", "and", "if", "then", "else", "find", "line", "move", "from", "to", "piece",
    "square", "in", "all", "x", "Sq", "K", "a", "a1-8", "[Qq]", "3", "1000000001", '"s"',
    "sort", "comment", "persistent", "function", "F", "echo", "flip", "count", "shift", "*",
    "+", "?", "{2,}", "\\1", "result", "1-0", "player", "white", "/*", "//", "--", "[x]", ".",
]  # fmt: skip


def _compile(text: str) -> None:
    try:
        compile_query("fuzz.cql", text)
    except SourceError as err:
        assert err.line >= 1 and err.column >= 1
        assert err.message


@fuzz_settings(150)
@given(st.text(max_size=60))
def test_random_text(text: str) -> None:
    _compile(text)


@fuzz_settings(200)
@given(st.lists(st.sampled_from(TOKENS), max_size=14))
def test_random_tokens(tokens: list[str]) -> None:
    _compile("cql() " + " ".join(tokens))


@fuzz_settings(250)
@given(
    st.sampled_from(SEEDS),
    st.integers(min_value=0, max_value=200),
    st.integers(min_value=0, max_value=6),
    st.sampled_from(TOKENS + [""]),
)
def test_mutated_queries(seed: str, at: int, cut: int, insert: str) -> None:
    at %= len(seed) + 1
    _compile(seed[:at] + insert + seed[at + cut :])
