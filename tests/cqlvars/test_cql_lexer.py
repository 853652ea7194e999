"""Tokenizer (spec §2.1): designators first with longest match, words, operators, errors."""

from __future__ import annotations

import chess
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from esochess.cqlvars.designators import match_designator
from esochess.cqlvars.parser import tokenize
from esochess.fen import SourceError


def kinds(text: str) -> list[tuple[str, str]]:
    """(type, text) of the body tokens of `cql() TEXT`."""
    return [(t.type, str(t)) for t in tokenize("cql() " + text)[3:]]


@pytest.mark.parametrize("word", ["Rook", "ab", "K1", "bad", "x", "$foo", "this_is_fine", "Kx"])
def test_identifiers(word: str) -> None:
    assert kinds(word) == [("IDENT", word)]


@pytest.mark.parametrize("text", ["Ba3", "ab3", "_c1", "a", "b", "a-h1", "c-e2-4", "[a1,c3,e-f7-8]",
                                  "A[b-h2,d5]", "[Qq][d1,d8]", "[PqR]a-h2", ".", "[]", "_"])
def test_designators(text: str) -> None:
    assert kinds(text) == [("DESIG", text)]


def test_designator_values() -> None:
    value, end = match_designator("[Qq][d1,d8] ", 0) or (None, 0)
    assert value is not None and end == 11
    assert value.pieces == "Qq" and value.squares == chess.BB_D1 | chess.BB_D8
    rank2, _ = match_designator("a-h2", 0) or (None, 0)
    assert rank2 is not None and rank2.pieces is None and rank2.squares == chess.BB_RANK_2


@pytest.mark.parametrize(("text", "message"), [
    ("h-a1", "ascending"), ("a8-1", "ascending"), ("3x", "digit"), ('"open', "unterminated"),
    ("/* never closed", "unterminated"), ("hhdb", "not supported"), ("@", "unexpected character"),
])
def test_lexical_errors(text: str, message: str) -> None:
    with pytest.raises(SourceError) as info:
        tokenize("cql() " + text)
    assert message in info.value.message
    assert info.value.line == 1 and info.value.column >= 7


def test_operators_longest_match() -> None:
    assert [t for t, _ in kinds("x <= y == z =? w += 1 ~~ \"a\"")] == [
        "IDENT", "CMP", "IDENT", "CMP", "IDENT", "ASSIGNQ", "IDENT", "OPASSIGN", "NUMBER",
        "REGEX", "STRING",
    ]
    assert kinds("x <-3")[1:] == [("CMP", "<"), ("MINUS", "-"), ("NUMBER", "3")]


def test_strings_escapes_and_comments() -> None:
    toks = tokenize('cql() // line comment\n /* block */ "a\\"b\\\\c\\d"')
    assert [t.extra for t in toks if t.type == "STRING"] == ['a"b\\c\\d']
    assert toks[-1].line == 2


def test_result_tokens_only_after_result() -> None:
    assert kinds("result 1-0")[1] == ("RESULTTOK", "1-0")
    assert kinds("1 - 0")[0] == ("NUMBER", "1")


def test_castling_and_capture_refs() -> None:
    assert kinds("move o-o-o o-o \\3") == [("MOVE", "move"), ("OOO", "o-o-o"), ("OO", "o-o"),
                                           ("CAPREF", "\\3")]


def test_header_words_are_contextual() -> None:
    toks = tokenize('cql(input ../a/b.pgn matchstring "hit" quiet) check')
    assert [t.type for t in toks[:7]] == ["CQL", "LPAR", "HWORD", "HWORD", "HWORD", "STRING",
                                          "HWORD"]


@settings(deadline=None, max_examples=100)
@given(st.sets(st.sampled_from(chess.SQUARE_NAMES), min_size=1, max_size=6))
def test_square_lists_round_trip(squares: set[str]) -> None:
    text = "[" + ",".join(sorted(squares)) + "]"
    found = match_designator(text, 0)
    assert found is not None and found[1] == len(text)
    assert found[0].squares == sum(chess.BB_SQUARES[chess.parse_square(s)] for s in squares)


@pytest.mark.parametrize(("text", "types"), [
    ("x--y", ["IDENT", "MOVEARROW", "IDENT"]),
    ("x-->y", ["IDENT", "RARROW", "IDENT"]),
    ("x[x]y", ["IDENT", "CAPTUREARROW", "IDENT"]),
    ("A->k", ["DESIG", "ATTACKS", "DESIG"]),
    ("k<-A", ["DESIG", "ATTACKEDBY", "DESIG"]),
    ("k<--A", ["DESIG", "LARROW", "DESIG"]),
    ("x--3", ["IDENT", "MINUS", "MINUS", "NUMBER"]),
    ("♔g1→♜", ["DESIG", "ATTACKS", "DESIG"]),
    ("◭ ∩ ▦", ["DESIG", "AMP", "DESIG"]),
    ("△――□", ["DESIG", "MOVEARROW", "DESIG"]),
    ("♕×♟", ["DESIG", "CAPTUREARROW", "DESIG"]),
    # a set is the dash's own only when written against it (CQL 6.2)
    ("Q -- g5", ["DESIG", "DASHANY", "DESIG"]),
    ("Q-- g5", ["DESIG", "DASHFROM", "DESIG"]),
    ("Q --g5", ["DESIG", "DASHTO", "DESIG"]),
    ("Q [x]", ["DESIG", "DASHANY"]),
    ("(Q--)", ["LPAR", "DESIG", "DASHFROM", "RPAR"]),
    ("Q--(a1|h8)", ["DESIG", "MOVEARROW", "LPAR", "DESIG", "BAR", "DESIG", "RPAR"]),
    ("Q ―― g5", ["DESIG", "DASHANY", "DESIG"]),
    ("✵ ⬓ ∙", ["FLIP", "FLIPCOLOR", "FILTER"]),
    ("≤ ≥ ≠ ∪", ["CMP", "CMP", "CMP", "BAR"]),
])
def test_62_arrows_and_unicode(text: str, types: list[str]) -> None:
    tokens = tokenize(f"cql() {text}")[3:]
    assert [t.type for t in tokens] == types


def test_unicode_keeps_source_columns() -> None:
    tokens = tokenize("cql() ♔g1 → ▲")[3:]
    assert [(t.column, t.length) for t in tokens] == [(7, 3), (11, 1), (13, 1)]

