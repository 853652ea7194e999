"""`path` and `focus` (issue 19) agree with independent python-chess computations on the
shipped games: runs of checks and captures over whole game trees (studies with their
variations), and the moves of focused pieces, tracked square by square, along main lines.
"""

from __future__ import annotations

import io
from collections.abc import Callable

import chess
import chess.pgn
import pytest
from pgn_data import LICHESS, STUDIES

from esochess.cqlvars import pgnio
from esochess.cqlvars.engine import compile_query, run_games

LICHESS_GAMES = list(pgnio.iter_games([str(LICHESS)], last=40))
STUDY_GAMES = list(pgnio.iter_games([str(STUDIES)], last=25))


def _engine(query: str, games: list[pgnio.GameText], header: str = "") -> list[str]:
    """`positionid value` for every position where the path matches (value: its value)."""
    text = f"cql({header}) v = {{{query}}} message(positionid \" \" v) false"
    compiled = compile_query("q.cql", text)
    return [f"{o.number} {line}" for o in run_games(compiled, games) for line in o.messages]


def _nodes(text: str, variations: bool) -> list[chess.pgn.GameNode]:
    """The positions of a game in position-id order (pre-order, PGN order of moves)."""
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None
    out: list[chess.pgn.GameNode] = []
    stack: list[chess.pgn.GameNode] = [game]
    while stack:
        node = stack.pop()
        out.append(node)
        kids = node.variations if variations else node.variations[:1]
        stack.extend(reversed(kids))
    return out


def _expected(games: list[pgnio.GameText], variations: bool,
              value: Callable[[chess.pgn.GameNode], int]) -> list[str]:
    out = []
    for number, item in enumerate(games, 1):
        for pid, node in enumerate(_nodes(item.text, variations)):
            v = value(node)
            if v >= 1:
                out.append(f"{number} {pid} {v}")
    return out


def _run(node: chess.pgn.GameNode, step: Callable[[chess.Board, chess.Move], bool],
         variations: bool) -> int:
    """The most consecutive moves from node, down any line, each meeting `step`."""
    best = 0
    for child in node.variations if variations else node.variations[:1]:
        if step(node.board(), child.move):
            best = max(best, 1 + _run(child, step, variations))
    return best


def _gives_check(board: chess.Board, move: chess.Move) -> bool:
    return board.gives_check(move)


def test_runs_of_checks_over_game_trees() -> None:
    expected = _expected(STUDY_GAMES, True, lambda n: _run(n, _gives_check, True))
    assert expected  # the studies have checks
    assert _engine("path (-- check)+", STUDY_GAMES, "variations") == expected


def test_runs_of_captures_along_main_lines() -> None:
    expected = _expected(LICHESS_GAMES, False,
                         lambda n: _run(n, lambda b, m: b.is_capture(m), False))
    assert len(expected) > 100
    assert _engine("path [x]+", LICHESS_GAMES) == expected
    two = [line for line in expected if int(line.split()[-1]) >= 2]
    assert _engine("path 2 100 [x]+", LICHESS_GAMES) == two


def _focused_moves(node: chess.pgn.GameNode, keep: Callable[[chess.Piece], bool],
                   capture: bool) -> int:
    """Moves along the main line from node by the pieces `keep` selects on its board
    (with `capture`, also moves capturing one of them); 0 unless the first move is one."""
    board = node.board()
    squares = {sq for sq, piece in board.piece_map().items() if keep(piece)}
    count = 0
    first = True
    while node.variations:
        move = node.variations[0].move
        taken = move.to_square
        if board.is_en_passant(move):
            taken = move.to_square + (-8 if board.turn == chess.WHITE else 8)
        by_focused = move.from_square in squares
        if board.is_castling(move):
            rank = chess.square_rank(move.from_square)
            kingside = chess.square_file(move.to_square) > chess.square_file(move.from_square)
            rook_from = chess.square(7 if kingside else 0, rank)
            rook_to = chess.square(5 if kingside else 3, rank)
            by_focused = by_focused or rook_from in squares
            if rook_from in squares:
                squares = squares - {rook_from} | {rook_to}
        in_focus = by_focused or (capture and board.is_capture(move) and taken in squares)
        if first and not in_focus:
            return 0
        first = False
        squares.discard(taken)
        if move.from_square in squares:
            squares = squares - {move.from_square} | {move.to_square}
        count += in_focus
        board.push(move)
        node = node.variations[0]
    return count


@pytest.mark.parametrize(("query", "keep", "capture"), [
    ("path focus N (--)+", lambda p: p.symbol() == "N", False),
    ("path focus [Qq] --+", lambda p: p.piece_type == chess.QUEEN, False),
    ("path focus capture r --+", lambda p: p.symbol() == "r", True),
    ("path focus [Kk] (--)+", lambda p: p.piece_type == chess.KING, False),
])  # fmt: skip
def test_focused_moves_along_main_lines(query: str, keep: Callable[[chess.Piece], bool],
                                        capture: bool) -> None:
    expected = _expected(LICHESS_GAMES, False, lambda n: _focused_moves(n, keep, capture))
    assert len(expected) > 50
    assert _engine(query, LICHESS_GAMES) == expected


def _side_checks(node: chess.pgn.GameNode) -> int:
    """Consecutive checking moves by the side to move at node, skipping the other side's
    moves, along the main line (singlecolor)."""
    side = node.board().turn
    count = 0
    while node.variations:
        board, move = node.board(), node.variations[0].move
        if board.turn == side:
            if not board.gives_check(move):
                break
            count += 1
        node = node.variations[0]
    return count


def test_singlecolor_runs_of_checks() -> None:
    expected = _expected(LICHESS_GAMES, False, _side_checks)
    assert any(int(line.split()[-1]) >= 3 for line in expected)
    assert _engine("path singlecolor (-- check)+", LICHESS_GAMES) == expected


def test_lastposition_and_firstmatch() -> None:
    """`lastposition` is where the longest run ends; `firstmatch` takes the shortest."""
    checks = {line.rsplit(" ", 1)[0]: int(line.split()[-1])
              for line in _expected(STUDY_GAMES, True, lambda n: _run(n, _gives_check, True))}
    shortest = [f"{key} 1" for key in checks]
    assert _engine("path firstmatch (-- check)+", STUDY_GAMES, "variations") == shortest
    ends = _engine("path lastposition (-- check)+", STUDY_GAMES, "variations")
    assert len(ends) == len(checks)


def test_an_atomic_counter_ends_at_the_path_value() -> None:
    """An atomic variable keeps the values of the chosen path only: counting the moves of
    `(-- check)+` gives its value, the longest run of checks found independently above."""
    query = ("cql(variations) atomic C = 0 v = {path (-- C += 1 check)+} "
             'message(positionid " " C) C = 0 false')
    compiled = compile_query("q.cql", query)
    got = [f"{o.number} {line}" for o in run_games(compiled, STUDY_GAMES) for line in o.messages]
    assert got == _expected(STUDY_GAMES, True, lambda n: _run(n, _gives_check, True))
