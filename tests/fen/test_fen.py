"""Strict FEN parsing: valid positions, and errors naming the field and column."""

from __future__ import annotations

import chess
import pytest
from hypothesis import given
from hypothesis import strategies as st

from esochess.fen import FenError, SourceError, parse_fen

START = chess.STARTING_FEN


def test_start_position() -> None:
    assert parse_fen(START).fen() == START
    assert parse_fen("startpos") == chess.Board()


def test_missing_clocks_default() -> None:
    assert parse_fen("8/8/8/8/8/8/8/K6k w - -").fen() == "8/8/8/8/8/8/8/K6k w - - 0 1"


@pytest.mark.parametrize(
    ("fen", "column", "message"),
    [
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", 45, "side field:"),
        ("rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 18, "placement field:"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1", 43, "placement field:"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1", 35, "placement field: 7 ranks"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQxq - 0 1", 49, "castling field:"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e5 0 1", 52, "en passant field:"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1", 54, "halfmove field:"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1a", 57, "fullmove field:"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w", 46, "castling field: missing"),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 z",
            58,
            "fullmove field: unexpected",
        ),
        ("8/8/8/8/8/8/8/8 w - - 0 1", 1, "placement field: there is no white king"),
        ("k7/8/8/8/8/8/8/Q6K w - - 0 1", 20, "side field: the side not to move is in check"),
        ("4k3/8/8/8/8/8/8/4K3 w KQ - 0 1", 23, "castling field: castling rights do not fit"),
        ("4k3/8/8/8/8/8/8/4K3 w - e6 0 1", 25, "en passant field: no double pawn step"),
        ("", 1, "placement field: the FEN is empty"),
    ],
)
def test_errors_name_the_field_and_column(fen: str, column: int, message: str) -> None:
    with pytest.raises(FenError) as info:
        parse_fen(fen, path="x.fen")
    err = info.value
    assert (err.path, err.line, err.column) == ("x.fen", 1, column)
    assert err.message.startswith(message)
    assert err.source_line == fen


def test_impossible_castling_can_be_dropped() -> None:
    board = parse_fen("4k3/8/8/8/8/8/8/4K3 w KQ - 0 1", drop_impossible_castling=True)
    assert board.castling_rights == 0


@st.composite
def random_games(draw: st.DrawFn) -> chess.Board:
    """A position reached by random legal play from the start."""
    board = chess.Board()
    for _ in range(draw(st.integers(0, 80))):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(moves[draw(st.integers(0, len(moves) - 1))])
    return board


@given(random_games())
def test_random_positions_survive_format_then_parse(board: chess.Board) -> None:
    for ep in ("legal", "fen"):
        fen = board.fen(en_passant=ep)  # type: ignore[arg-type]
        assert parse_fen(fen).fen(en_passant=ep) == fen  # type: ignore[arg-type]


FEN_ALPHABET = st.sampled_from(list("pnbrqkPNBRQK12345678/ wb-KQkqae36 09x\t"))


@given(st.one_of(st.text(), st.text(FEN_ALPHABET)))
def test_random_text_raises_only_source_errors(text: str) -> None:
    try:
        board = parse_fen(text)
    except SourceError:
        return
    assert board.is_valid()
