"""Matching game numbers on real games versus an independent python-chess computation.

Each case runs a query through the engine over the first few hundred games of the
shipped lichess file and compares the set of matching game numbers with a direct computation
over the mainline boards.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from functools import cache

import chess
import chess.pgn
import pytest
from pgn_data import LICHESS

from esochess.cqlvars.engine import compile_query, run_games
from esochess.cqlvars.pgnio import games_in_text

GAMES = 400  # game 359 is a stalemate


@cache
def subset() -> str:
    """The text of the first GAMES games of the shipped lichess file."""
    lines: list[str] = []
    seen = 0
    with open(LICHESS, encoding="utf-8", errors="surrogateescape") as handle:
        for line in handle:
            if line.startswith("[Event ") and seen == GAMES:
                break
            if line.startswith("[Event "):
                seen += 1
            lines.append(line)
    return "".join(lines)


@cache
def boards() -> list[tuple[list[chess.Board], list[chess.Move]]]:
    """Every game's mainline boards (root first) and moves."""
    out = []
    handle = io.StringIO(subset())
    while (game := chess.pgn.read_game(handle)) is not None:
        board = game.board()
        seq = [board.copy()]
        moves = list(game.mainline_moves())
        for move in moves:
            board.push(move)
            seq.append(board.copy())
        out.append((seq, moves))
    return out


def engine_matches(query: str) -> set[int]:
    """Game numbers the engine writes for `query`."""
    compiled = compile_query("q.cql", query)
    games = games_in_text("lichess.pgn", subset())
    return {o.number for o in run_games(compiled, games) if o.matched}


def reference(pred: Callable[[list[chess.Board], list[chess.Move]], bool]) -> set[int]:
    """Game numbers for which the python-chess predicate holds."""
    return {i + 1 for i, (seq, moves) in enumerate(boards()) if pred(seq, moves)}


def any_board(test: Callable[[chess.Board], bool]) -> Callable[..., bool]:
    return lambda seq, moves: any(test(b) for b in seq)


def any_move(test: Callable[[chess.Board, chess.Move], bool]) -> Callable[..., bool]:
    return lambda seq, moves: any(test(seq[i], m) for i, m in enumerate(moves))


def _rook_ray(b: chess.Board) -> bool:
    for r in b.pieces(chess.ROOK, chess.WHITE):
        for k in b.pieces(chess.KING, chess.BLACK):
            aligned = chess.square_file(r) == chess.square_file(k) or (
                chess.square_rank(r) == chess.square_rank(k)
            )
            if aligned and not chess.between(r, k) & b.occupied:
                return True
    return False


def _any_pin(b: chess.Board) -> bool:
    for sq in chess.scan_forward(b.occupied & ~b.kings):
        color = b.color_at(sq)
        assert color is not None
        if b.is_pinned(color, sq):
            return True
    return False


def _between_kings(b: chess.Board) -> bool:
    k1, k2 = b.king(chess.WHITE), b.king(chess.BLACK)
    return k1 is not None and k2 is not None and chess.popcount(chess.between(k1, k2)) >= 5


def _three_checks(seq: list[chess.Board], moves: list[chess.Move]) -> bool:
    checks = [b.is_check() for b in seq]
    return any(checks[i] and checks[i + 1] and checks[i + 2] for i in range(len(checks) - 2))


def _knight_on_e5(seq: list[chess.Board], moves: list[chess.Move]) -> bool:
    sq: int | None = chess.G1 if seq[0].piece_at(chess.G1) == chess.Piece.from_symbol("N") else None
    if sq is None:
        return False
    for move in moves:
        if move.to_square == sq:
            return False
        if move.from_square == sq:
            sq = move.to_square
            if sq == chess.E5:
                return True
    return False


CASES: list[tuple[str, str, Callable[..., bool]]] = [
    ("mate", "cql() mate", any_board(chess.Board.is_checkmate)),
    ("stalemate", "cql() stalemate", any_board(chess.Board.is_stalemate)),
    ("check", "cql() check", any_board(chess.Board.is_check)),
    ("move promote", "cql() move promote [QRBNqrbn]", any_move(lambda b, m: m.promotion is not None)),
    ("move enpassant", "cql() move enpassant", any_move(chess.Board.is_en_passant)),
    (
        "attacks",
        "cql() Q attacks k",
        any_board(
            lambda b: any(
                b.attacks_mask(q) & b.pieces_mask(chess.KING, chess.BLACK)
                for q in b.pieces(chess.QUEEN, chess.WHITE)
            )
        ),
    ),
    ("pin", "cql() pin", any_board(_any_pin)),
    ("ray", "cql() ray orthogonal (R k)", any_board(_rook_ray)),
    ("between", "cql() #between(K k) >= 5", any_board(_between_kings)),
    ("line", "cql() line --> check --> check --> check", _three_checks),
    (
        "find",
        "cql() initial (find all check) >= 20",
        lambda seq, moves: sum(b.is_check() for b in seq) >= 20,
    ),
    ("piece ids", "cql() initial piece X in Ng1 find { X == e5 }", _knight_on_e5),
    (
        "move castle",
        "cql() move o-o-o",
        any_move(chess.Board.is_queenside_castling),
    ),
]


@pytest.mark.parametrize(("name", "query", "pred"), CASES, ids=[c[0] for c in CASES])
def test_matches_agree_with_python_chess(
    name: str, query: str, pred: Callable[..., bool]
) -> None:
    expected = reference(pred)
    assert engine_matches(query) == expected
    # A comparison of empty sets proves nothing: every case must find something here.
    assert expected, f"no game in the subset exercises {name}"
