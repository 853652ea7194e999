"""`xray` and loops over `ray` arguments (issue 19) agree with independent python-chess
computations on every main-line position of shipped lichess games, and the fused loop
(fusion.py) gives what the literal loop gives."""

from __future__ import annotations

import chess
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pgn_data import LICHESS
from test_evaluator import boards
from test_pawn_structure import _format, mainline_boards

from esochess.cqlvars import pgnio
from esochess.cqlvars.engine import compile_query, run_games
from esochess.cqlvars.model import Ctx, GameModel

GAMES = list(pgnio.iter_games([str(LICHESS)], last=60))
SLIDERS = (chess.BISHOP, chess.ROOK, chess.QUEEN)


#: The literal (unfused) loops are slow: they are compared on fewer games.
FEW = GAMES[:6]


def _messages(query: str, games: list[pgnio.GameText] = GAMES) -> list[str]:
    compiled = compile_query("q.cql", query)
    return [line for o in run_games(compiled, games) for line in o.messages]


def _boards() -> list[chess.Board]:
    return [b for item in GAMES for b in mainline_boards(item.text)]


def _next_piece_beyond(board: chess.Board, start: int, through: int) -> int | None:
    """The first occupied square on the line from `start` through `through`, beyond it."""
    beyond = [
        s for s in chess.SquareSet(chess.ray(start, through) & board.occupied)
        if chess.between(start, s) & chess.BB_SQUARES[through]
    ]  # fmt: skip
    return min(beyond, key=lambda s: chess.square_distance(through, s), default=None)


def _xray(board: chess.Board, attackers: int, fronts: int, backs: int) -> list[int]:
    hits = []
    for sq in chess.SquareSet(attackers & board.occupied):
        if board.piece_type_at(sq) not in SLIDERS:
            continue
        for front in board.attacks(sq) & chess.SquareSet(fronts & board.occupied):
            back = _next_piece_beyond(board, sq, front)
            if back is not None and chess.BB_SQUARES[back] & backs:
                hits.append(sq)
                break
    return hits


@pytest.mark.parametrize(("query", "sets"), [
    ("xray (A a a)", lambda b: (b.occupied_co[chess.WHITE], b.occupied_co[chess.BLACK],
                                b.occupied_co[chess.BLACK])),
    ("xray ([Qq] a A)", lambda b: (b.queens, b.occupied_co[chess.BLACK],
                                   b.occupied_co[chess.WHITE])),
])  # fmt: skip
def test_xray_agrees_with_python_chess(query: str, sets: object) -> None:
    mine = _messages(f"cql() message ({query}) false")
    expected = [_format(_xray(b, *sets(b))) for b in _boards()]  # type: ignore[operator]
    assert mine == expected
    assert any(line != "[]" for line in mine)


def _ray_triples(board: chess.Board) -> list[int]:
    """Line pieces X with black pieces Y then Z beyond it on one line, only empty squares
    between X and Y and between Y and Z (colours and piece kinds otherwise free)."""
    occupied, black = board.occupied, board.occupied_co[chess.BLACK]
    hits = []
    for x in chess.SquareSet(board.queens | board.rooks | board.bishops):
        found = False
        for y in chess.SquareSet(black):
            if x == y or not chess.ray(x, y) or chess.between(x, y) & occupied:
                continue
            for z in chess.SquareSet(black):
                if z not in (x, y) and chess.between(x, z) & chess.BB_SQUARES[y] and not (
                    chess.between(y, z) & occupied
                ):
                    found = True
                    break
            if found:
                break
        if found:
            hits.append(x)
    return hits


LOOP = "piece X in [QRBqrb] piece Y in a piece Z in a ray (X Y Z)"
LITERAL = "piece X in [QRBqrb] { piece Y in a { piece Z in a { ray (X Y Z) true } true } true }"


def test_fused_ray_loops_agree_with_python_chess_and_the_literal_loop() -> None:
    fused = _messages(f"cql() message ({LOOP}) false")
    assert fused == [_format(_ray_triples(b)) for b in _boards()]
    assert fused[: len(_messages("cql() message (1) false", FEW))] == _messages(
        f"cql() message ({LITERAL}) false", FEW
    )
    assert any(line != "[]" for line in fused)


def test_middle_and_inner_loops_fuse_like_the_literal_loop() -> None:
    for query, literal in [
        ("piece Y in a ray (Q Y k)", "piece Y in a { ray (Q Y k) true }"),
        ("square S in _ ray diagonal (B S a)", "square S in _ { ray diagonal (B S a) true }"),
        ("piece Y in A piece Z in a ray (R Y Z)",
         "piece Y in A { piece Z in a { ray (R Y Z) true } true }"),
    ]:
        assert _messages(f"cql() message ({query}) false", FEW) == _messages(
            f"cql() message ({literal}) false", FEW
        ), query


SETS = ["A", "a", "[QRBqrb]", "_", "[Pp]", ".", "[Kk]", "[a-h4-5]"]


def _value(query: str, board: chess.Board) -> object:
    compiled = compile_query("q.cql", f"cql() X = {query}  message (X) false")
    ctx = Ctx(GameModel({}, board, [-1], [None]), 1, [None] * compiled.slot_count,
              compiled.new_state().persistent)
    compiled.body(ctx)
    return ctx.messages


@settings(deadline=None, max_examples=60)
@given(boards(), st.sampled_from(["piece", "square"]), st.sampled_from(["piece", "square"]),
       st.lists(st.sampled_from(SETS), min_size=3, max_size=3), st.integers(0, 2),
       st.sampled_from(["", "diagonal", "orthogonal", "up"]))
def test_fused_loops_equal_literal_loops_on_random_boards(
    board: chess.Board, outer: str, inner: str, sets: list[str], place: int, direction: str
) -> None:
    # Two loops fill two of the ray's three arguments; the third is a fixed set.
    args = ["V", "W", sets[2]]
    args[place], args[2] = args[2], args[place]
    ray = f"ray {direction} ({' '.join(args)})"
    fused = f"{outer} V in {sets[0]} {inner} W in {sets[1]} {ray}"
    literal = f"{outer} V in {sets[0]} {{ {inner} W in {sets[1]} {{ {ray} true }} true }}"
    assert _value(fused, board) == _value(literal, board), fused
