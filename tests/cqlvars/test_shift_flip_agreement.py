"""`shift flip` mate patterns agree with an independent python-chess search (issue 19).

The mate patterns are written in the style of real endgame query collections (Lolli,
Damiano, back rank, a rook mating beside the king): a pattern anywhere on the board, in
any of the eight orientations, at a checkmate.
"""

from __future__ import annotations

import io
from collections.abc import Iterator

import chess
import chess.pgn
import pytest
from pgn_data import LICHESS

from esochess.cqlvars import pgnio
from esochess.cqlvars.engine import compile_query, run_games

PATTERNS = {
    "lolli": {"g7": "Q", "f6": "P", "g8": "k"},
    "damiano": {"h7": "Q", "g6": "P", "g8": "k"},
    "back rank": {"e8": "Q", "g8": "k", "g7": "p", "h7": "p"},
    "rook beside the king": {"h8": "R", "g8": "k"},
}
SYMMETRIES = [
    lambda x, y: (x, y), lambda x, y: (7 - x, y), lambda x, y: (x, 7 - y),
    lambda x, y: (7 - x, 7 - y), lambda x, y: (y, x), lambda x, y: (7 - y, x),
    lambda x, y: (y, 7 - x), lambda x, y: (7 - y, 7 - x),
]  # fmt: skip


def _query(pattern: dict[str, str]) -> str:
    return "cql() mate shift flip { " + " ".join(p + s for s, p in pattern.items()) + " }"


def _placements(pattern: dict[str, str]) -> Iterator[dict[int, str]]:
    """Every image of the pattern under the eight symmetries and every translation."""
    for symmetry in SYMMETRIES:
        image = {symmetry(chess.square_file(chess.parse_square(s)),
                          chess.square_rank(chess.parse_square(s))): p
                 for s, p in pattern.items()}  # fmt: skip
        for dx in range(-7, 8):
            for dy in range(-7, 8):
                moved = {(x + dx, y + dy): p for (x, y), p in image.items()}
                if all(0 <= x < 8 and 0 <= y < 8 for x, y in moved):
                    yield {chess.square(x, y): p for (x, y), p in moved.items()}


def _python_chess(pattern: dict[str, str], texts: list[str]) -> list[int]:
    placements = list(_placements(pattern))
    found = []
    for number, text in enumerate(texts, 1):
        game = chess.pgn.read_game(io.StringIO(text))
        assert game is not None
        board = game.end().board()  # only a line's last position can be a checkmate
        if board.is_checkmate() and any(
            all(str(board.piece_at(sq)) == p for sq, p in place.items()) for place in placements
        ):
            found.append(number)
    return found


@pytest.fixture(scope="module")
def games() -> list[pgnio.GameText]:
    return list(pgnio.iter_games([str(LICHESS)]))


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_shift_flip_mates_agree_with_python_chess(name: str, games: list[pgnio.GameText]) -> None:
    compiled = compile_query("q.cql", _query(PATTERNS[name]))
    mine = [o.number for o in run_games(compiled, games) if o.matched]
    assert mine == _python_chess(PATTERNS[name], [g.text for g in games])
    assert mine, f"{name}: the shipped games should hold at least one"
