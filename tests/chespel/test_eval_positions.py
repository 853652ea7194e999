"""Run-time positions (§10.2, §10.4, §8.6, §9): FEN input/output, layout, flags, keys."""

from __future__ import annotations

import random

import chess
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_eval_support import random_walk

from esochess.chespel.runtime.positions import (
    BLACK_QUEEN_SIDE,
    WHITE_KING_SIDE,
    FenError,
    castle_bit,
    format_fen,
    parse_fen,
    parse_move,
    placement_flags,
    position_key,
    render_board,
)
from esochess.fen import render_ascii


def test_fen_fields_and_defaults() -> None:
    assert parse_fen("startpos") == chess.Board()
    four = parse_fen("4k3/8/8/8/8/8/8/4K3 w - -")
    assert format_fen(four) == "4k3/8/8/8/8/8/8/4K3 w - - 0 1"
    assert format_fen(parse_fen("4k3/8/8/8/8/8/8/4K3 b - - 7")) == "4k3/8/8/8/8/8/8/4K3 b - - 7 1"
    # impossible castling rights are dropped, not rejected
    assert parse_fen("4k3/8/8/8/8/8/8/4K3 w KQkq - 0 1").castling_rights == 0


@pytest.mark.parametrize(("fen", "reason"), [
    ("8/8/8 w - - 0 1", "expected 8 rows"),
    ("4k3/8/8/8/8/8/8/4K3 w", "expected 4 to 6 fields, found 2"),
    ("4k3/8/8/8/8/8/8/8 w - - 0 1", "White has no king"),
    ("4k3/8/8/8/8/8/8/P3K3 w - - 0 1", "pawns on row 1 or 8"),
    ("4k3/8/8/8/8/8/8/4K2r b - - 0 1", "the side not to move is in check"),
    ("4k3/8/8/8/8/8/8/4K3 w - e3 0 1", "en passant"),
])
def test_invalid_fens_say_why(fen: str, reason: str) -> None:
    with pytest.raises(FenError, match=reason):
        parse_fen(fen)


def test_en_passant_printed_after_every_double_step() -> None:
    board = chess.Board()
    board.push_san("e4")
    assert format_fen(board) == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"


def test_keys_ignore_clocks_and_useless_en_passant() -> None:
    a = parse_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1")
    b = parse_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 5 9")
    assert position_key(a) == position_key(b)


def test_castling_flags() -> None:
    g1 = parse_fen("r1bqk1nr/pppp1ppp/2n5/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQ1RK1 b kq - 5 4")
    assert placement_flags(g1) == WHITE_KING_SIDE
    worked = parse_fen("2kr4/5p2/1b3p2/8/8/P1P4P/P1P4P/5RK1 w - - 0 1")
    assert placement_flags(worked) == WHITE_KING_SIDE | BLACK_QUEEN_SIDE
    board = parse_fen("r3k3/8/8/8/8/8/8/4K2R w Kq - 0 1")
    assert castle_bit(board, chess.Move.from_uci("e1g1")) == WHITE_KING_SIDE
    assert castle_bit(board, chess.Move.from_uci("e1f1")) == 0
    board.push_uci("e1g1")
    assert castle_bit(board, chess.Move.from_uci("e8c8")) == BLACK_QUEEN_SIDE


def test_human_moves() -> None:
    board = parse_fen("r3k3/8/8/8/8/8/8/4K2R w Kq - 0 1")
    assert parse_move(board, "0-0") == chess.Move.from_uci("e1g1")
    assert parse_move(board, "O-O") == chess.Move.from_uci("e1g1")
    assert parse_move(board, "e1f2") == chess.Move.from_uci("e1f2")
    assert parse_move(board, "Rh8+") == chess.Move.from_uci("h1h8")
    assert parse_move(board, "e5") is None and parse_move(board, "zz") is None


@settings(deadline=None, max_examples=40)
@given(st.integers(0, 10**6))
def test_board_layout_is_the_shared_ascii_renderer(seed: int) -> None:
    board = random_walk(random.Random(seed), 80)
    assert render_board(board) == render_ascii(board).split("\n")
    # and a printed FEN reads back as the same position
    assert position_key(parse_fen(format_fen(board))) == position_key(board)
