"""Pawn-structure filters (issue 19) agree with an independent python-chess computation.

Every position of the first 300 shipped lichess games: the squares cql reports (through
`message`) equal those found by walking the pawns with python-chess's square helpers.
"""

from __future__ import annotations

import io
from collections.abc import Callable

import chess
import chess.pgn
import pytest
from pgn_data import LICHESS

from esochess.cqlvars import pgnio
from esochess.cqlvars.engine import compile_query, run_games

GAMES = list(pgnio.iter_games([str(LICHESS)], last=300))
Rule = Callable[[chess.Board, chess.Square, chess.Color], bool]


def _friends(board: chess.Board, color: chess.Color) -> list[chess.Square]:
    return list(board.pieces(chess.PAWN, color))


def _passed(board: chess.Board, sq: chess.Square, color: chess.Color) -> bool:
    f, r = chess.square_file(sq), chess.square_rank(sq)
    return not any(
        abs(chess.square_file(o) - f) <= 1
        and (chess.square_rank(o) > r if color == chess.WHITE else chess.square_rank(o) < r)
        for o in _friends(board, not color)
    )


def _isolated(board: chess.Board, sq: chess.Square, color: chess.Color) -> bool:
    f = chess.square_file(sq)
    return not any(abs(chess.square_file(o) - f) == 1 for o in _friends(board, color))


def _doubled(board: chess.Board, sq: chess.Square, color: chess.Color) -> bool:
    return any(o != sq and chess.square_file(o) == chess.square_file(sq)
               for o in _friends(board, color))  # fmt: skip


RULES: dict[str, Rule] = {
    "passedpawns": _passed,
    "isolatedpawns": _isolated,
    "doubledpawns": _doubled,
    "connectedpawns": lambda b, s, c: not _isolated(b, s, c),
}


def _format(squares: list[chess.Square]) -> str:
    names = [chess.square_name(s) for s in sorted(squares)]
    return names[0] if len(names) == 1 else "[" + ",".join(names) + "]"


def mainline_boards(text: str) -> list[chess.Board]:
    """Every mainline position of one game, read by python-chess alone."""
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None
    board = game.board()
    boards = [board.copy()]
    for move in game.mainline_moves():
        board.push(move)
        boards.append(board.copy(stack=False))
    return boards


def _expected(rule: Rule) -> list[str]:
    lines = []
    for item in GAMES:
        for b in mainline_boards(item.text):
            hits = [s for c in chess.COLORS for s in b.pieces(chess.PAWN, c) if rule(b, s, c)]
            lines.append(_format(hits))
    return lines


@pytest.mark.parametrize("name", sorted(RULES))
def test_pawn_structure_agrees_with_python_chess(name: str) -> None:
    compiled = compile_query("q.cql", f"cql() message ({name}) false")
    mine = [line for o in run_games(compiled, GAMES) for line in o.messages]
    assert mine == _expected(RULES[name])
    assert any(line != "[]" for line in mine)
