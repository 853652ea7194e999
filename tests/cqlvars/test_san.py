"""san: the fast SAN reader gives exactly what `chess.Board.parse_san` gives (spec §7.3)."""

from __future__ import annotations

import random
from pathlib import Path

import chess
import chess.variant
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pgn_data import MASTERS, SHIPPED

from esochess.cqlvars.san import parse_san

DATA_FILES = sorted(SHIPPED.glob("*.pgn")) + ([MASTERS] if MASTERS else [])


def _outcome(board: chess.Board, san: str, *, fast: bool) -> tuple[str, object]:
    """('ok', move) or (exception class, message): errors must match word for word."""
    try:
        return "ok", parse_san(board, san) if fast else board.parse_san(san)
    except ValueError as error:
        return type(error).__name__, str(error)


def _assert_same(board: chess.Board, san: str) -> None:
    assert _outcome(board, san, fast=True) == _outcome(board, san, fast=False), (board.fen(), san)


def _random_position(seed: int, plies: int) -> chess.Board:
    """The position after `plies` uniformly random legal moves (fewer if the game ends)."""
    rng = random.Random(seed)
    board = chess.Board()
    while plies > 0 and not board.is_game_over():
        board.push(rng.choice(list(board.legal_moves)))
        plies -= 1
    return board


SAN_LIKE = st.builds(
    lambda *parts: "".join(parts),
    st.sampled_from(["", "", "N", "B", "R", "Q", "K"]),
    st.sampled_from([""] * 4 + list("abcdefgh")),
    st.sampled_from([""] * 4 + list("12345678")),
    st.sampled_from(["", "x", "-"]),
    st.sampled_from(chess.SQUARE_NAMES),
    st.sampled_from(["", "", "=Q", "n", "+", "#"]),
)


@settings(deadline=None, max_examples=150)
@given(st.integers(), st.integers(0, 150), st.lists(SAN_LIKE, min_size=1, max_size=40))
def test_any_san_like_token_reads_like_python_chess(seed: int, plies: int, tokens: list[str]) -> None:
    board = _random_position(seed, plies)
    for token in tokens:
        _assert_same(board, token)


@settings(deadline=None, max_examples=60)
@given(st.integers(), st.integers(0, 150))
def test_every_legal_move_in_every_spelling(seed: int, plies: int) -> None:
    board = _random_position(seed, plies)
    for move in board.legal_moves:
        san = board.san(move)
        assert parse_san(board, san) == move
        for spelling in (board.lan(move), san.replace("x", ""), san.rstrip("+#") + "+"):
            _assert_same(board, spelling)


@pytest.mark.parametrize(
    ("fen", "san"),
    [
        # The knight on d2 is pinned, so Nc3 means the one on b1.
        ("4r1k1/8/8/8/8/8/4N3/1N2K3 w - - 0 1", "Nc3"),
        ("4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1", "Nc3"),  # pinned: illegal
        ("4k3/8/8/8/8/8/4r3/R3K3 w - - 0 1", "Ra2"),  # in check: illegal
        ("4k3/8/8/8/8/8/4r3/R3K3 w - - 0 1", "Kxe2"),
        ("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "exd6"),  # en passant
        ("4k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a8"),  # promotion piece missing
        ("4k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a8=N"),
        ("r3k3/8/8/8/8/8/8/R3K2R w KQq - 0 1", "O-O"),
        ("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1", "Kg1"),  # castling spelled as a king move
        ("4k3/8/8/8/8/8/8/1N1NK3 w - - 0 1", "Nc3"),  # ambiguous
        ("4k3/8/8/8/8/8/8/4K3 w - - 0 1", "--"),
        ("4k3/8/8/8/8/8/8/8 w - - 0 1", "a3"),  # no king at all
    ],
)
def test_special_cases(fen: str, san: str) -> None:
    _assert_same(chess.Board(fen), san)


def test_variant_boards_keep_their_own_rules() -> None:
    # In antichess a capture is forced, so the plain push e5 is illegal there.
    board = chess.variant.AntichessBoard("8/8/8/3p4/4P3/8/8/8 w - - 0 1")
    _assert_same(board, "e5")
    with pytest.raises(chess.IllegalMoveError):
        parse_san(board, "e5")


@pytest.mark.parametrize("path", DATA_FILES, ids=[p.name for p in DATA_FILES])
def test_every_move_of_the_shared_games(path: Path) -> None:
    import chess.pgn

    class Check(chess.pgn.BaseVisitor[int]):
        def __init__(self) -> None:
            self.count = 0

        def parse_san(self, board: chess.Board, san: str) -> chess.Move:
            _assert_same(board, san)
            self.count += 1
            return board.parse_san(san)

        def result(self) -> int:
            return self.count

    total = 0
    with open(path, encoding="utf-8", errors="surrogateescape") as handle:
        for _ in range(400):
            seen = chess.pgn.read_game(handle, Visitor=Check)
            if seen is None:
                break
            total += seen
    assert total > 100
