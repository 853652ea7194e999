"""Evaluator (spec §3.4, §4.4) on single positions, with python-chess as the oracle."""

from __future__ import annotations

import math

import chess
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from esochess.cqlvars.engine import compile_query
from esochess.cqlvars.model import Ctx, GameModel
from esochess.cqlvars.variables import format_set


def evaluate(query: str, board: chess.Board) -> bool:
    """Does the body of `query` match at `board` (a one-position game)?"""
    compiled = compile_query("q", query)
    model = GameModel({}, board, [-1], [None])
    ctx = Ctx(model, 1, [None] * compiled.slot_count, compiled.new_state().persistent)
    return bool(compiled.body(ctx))


@st.composite
def boards(draw: st.DrawFn) -> chess.Board:
    """A position reached by up to 40 random legal moves from the start."""
    board = chess.Board()
    for _ in range(draw(st.integers(min_value=0, max_value=40))):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(draw(st.sampled_from(moves)))
    return board.copy(stack=False)


@settings(deadline=None, max_examples=60)
@given(st.integers(-1000, 1000), st.integers(-50, 50).filter(lambda v: v != 0))
def test_division_truncates_like_c(a: int, b: int) -> None:
    q = math.trunc(a / b)
    r = a - b * q
    assert evaluate(f"cql() x = {abs(a)}  x = {'-' if a < 0 else ''}x  y = {b}"
                    f"  x / y == {q}  x % y == {r}".replace("y = -", "y = 0 - "),
                    chess.Board())


def test_division_by_zero_does_not_match() -> None:
    assert not evaluate("cql() x = 1  y = 0  x / y == 0", chess.Board())
    assert evaluate("cql() x = 1  y = 0  not x % y", chess.Board())


@settings(deadline=None, max_examples=40)
@given(boards())
def test_attacks_agree_with_python_chess(board: chess.Board) -> None:
    attackers = [
        sq for sq in chess.scan_forward(board.occupied_co[chess.WHITE])
        if board.attacks_mask(sq) & board.occupied_co[chess.BLACK]
    ]
    assert evaluate(f"cql() #(A attacks a) == {len(attackers)}", board)
    hit = 0
    for sq in chess.scan_forward(board.occupied_co[chess.BLACK]):
        hit |= board.attacks_mask(sq)
    assert evaluate(f"cql() #(. attackedby a) == {chess.popcount(hit)}", board)


@settings(deadline=None, max_examples=40)
@given(boards(), st.sampled_from(["K", "Q", "R", "B", "N", "P", "A"]))
def test_flipcolor_is_the_mirrored_position(board: chess.Board, piece: str) -> None:
    # flipcolor D matches iff D matches here or in the colour-mirrored position.
    query = f"cql() {piece}[a-d1-4]"
    expected = evaluate(query, board) or evaluate(query, board.mirror())
    assert evaluate(f"cql() flipcolor {piece}[a-d1-4]", board) == expected


@settings(deadline=None, max_examples=40)
@given(boards())
def test_state_filters(board: chess.Board) -> None:
    assert evaluate("cql() check", board) == board.is_check()
    assert evaluate("cql() mate", board) == board.is_checkmate()
    assert evaluate("cql() stalemate", board) == board.is_stalemate()
    assert evaluate("cql() wtm", board) == (board.turn == chess.WHITE)
    n = board.legal_moves.count()
    assert evaluate(f"cql() move legal count == {n}", board)
    material = sum(
        {1: 1, 2: 3, 3: 3, 4: 5, 5: 9, 6: 0}[p.piece_type] for p in board.piece_map().values()
    )
    assert evaluate(f"cql() power . == {material}", board)


def test_set_formatting() -> None:
    assert format_set(0) == "[]"
    assert format_set(chess.BB_E4) == "e4"
    assert format_set(chess.BB_A1 | chess.BB_E4) == "[a1,e4]"


@pytest.mark.parametrize(("query", "fen", "expected"), [
    ("cql() between(a1 h8) == [b2,c3,d4,e5,f6,g7]", chess.STARTING_FEN, True),
    ('cql() x = "abc"  x[5]', chess.STARTING_FEN, False),
    ('cql() x = "abc"  x[-1] == "c"', chess.STARTING_FEN, True),
    ("cql() max(1 ply 7) == 7  min(ply 3) == 0", chess.STARTING_FEN, True),
    ('cql() (int "12") + (int "-2") == 10  not int "1x"', chess.STARTING_FEN, True),
    ("cql() Q == 0", "4k3/8/8/8/8/8/8/4K3 w - - 0 1", True),
    ("cql() [BbNn] == 0  #[Aa] == 2", "4k3/8/8/8/8/8/8/4K3 w - - 0 1", True),
    ("cql() square all S in [a1,b1] S & _", "4k3/8/8/8/8/8/8/4K3 w - - 0 1", True),
    ("cql() (square S in A check) == []", "4k3/8/8/8/8/8/8/4K3 w - - 0 1", False),
    ("cql() (square S in . { S & K }) == e1", "4k3/8/8/8/8/8/8/4K3 w - - 0 1", True),
    ("cql() pieceid K == 4  pieceid k == 60", "4k3/8/8/8/8/8/8/4K3 w - - 0 1", True),
    ("cql() X = . attackedby K  #X == 5  not K in X", "4k3/8/8/8/8/8/8/4K3 w - - 0 1", True),
])
def test_filters(query: str, fen: str, expected: bool) -> None:
    assert evaluate(query, chess.Board(fen)) is expected
