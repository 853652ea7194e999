"""`output.known_san`: the SAN taken from light snapshots equals python-chess's `Board.san`."""

from __future__ import annotations

import random

import chess

from esochess.cqlvars.light import board_from, snapshot
from esochess.cqlvars.output import known_san


def _check_all_moves(board: chess.Board) -> int:
    given = 0
    for move in list(board.legal_moves):
        after = board.copy(stack=False)
        after.push(move)
        san = known_san(board_from(snapshot(board), chess960=board.chess960),
                        board_from(snapshot(after), chess960=board.chess960), move)
        if san is not None:
            given += 1
            assert san == board.san(move), (board.fen(), move)
    return given


def test_known_san_equals_board_san_on_random_playouts() -> None:
    rng = random.Random(20261122)
    given = 0
    for _ in range(60):
        board = chess.Board()
        while not board.is_game_over() and board.ply() < 200:
            given += _check_all_moves(board)
            board.push(rng.choice(list(board.legal_moves)))
    assert given > 10000


def test_known_san_special_positions() -> None:
    fens = [
        "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1",  # promotion, with check
        "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2",  # en passant
        "6k1/5ppp/8/8/8/8/8/R3K2R w KQ - 0 1",  # castling (not given), back-rank mate
        "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1",  # rooks that both reach d1
        "k7/8/8/8/8/1N3N2/8/K7 w - - 0 1",  # two knights to d4
        "7k/8/8/8/Q7/8/8/Q3Q2K w - - 0 1",  # three queens
    ]
    for fen in fens:
        _check_all_moves(chess.Board(fen))
    board = chess.Board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")
    move = chess.Move.from_uci("a1a8")
    after = board.copy()
    after.push(move)
    assert known_san(board, after, move) == "Ra8#"
    assert known_san(board, board, chess.Move.null()) is None
    castle = chess.Board(fens[2])
    assert known_san(castle, castle, chess.Move.from_uci("e1g1")) is None


def test_known_san_chess960() -> None:
    board = chess.Board.from_chess960_pos(518 - 100)
    rng = random.Random(7)
    for _ in range(40):
        if board.is_game_over():
            break
        _check_all_moves(board)
        board.push(rng.choice(list(board.legal_moves)))
