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


_GAME = """[Event "t"]
[White "a"]
[Black "b"]
[Result "*"]

{ Start } 1. e4 $1 { after e4 } ( 1. d4 d5 ( 1... Nf6 2. c4 ) 2. c4 { qg } ) 1... e5
2. Nf3 ( { sc } 2. f4 exf4 3. Nf3 ( 3. Bc4 Qh4+ 4. Kf1 ) 3... g5 ) 2... Nc6 3. Bb5 a6
4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 8. c3 O-O 9. h3 Nb8 10. d4 Nbd7 11. Nbd2 Bb7
12. Bc2 Re8 13. Nf1 Bf8 14. Ng3 g6 15. a4 c5 16. d5 c4 $2 17. Bg5 h6 18. Be3 Nc5
19. Qd2 h5 20. Bg5 Be7 21. Ra3 *
"""


def test_render_light_equals_render_game() -> None:
    from io import StringIO

    import chess.pgn

    from esochess.cqlvars.light import read_light
    from esochess.cqlvars.output import render_game, render_light

    for matched in ([], [0, 1, 5], list(range(0, 60, 3))):
        for quiet, silent in ((False, False), (True, False), (False, True)):
            light = read_light(_GAME, variations=True, comments=True)
            tree = chess.pgn.read_game(StringIO(_GAME))
            assert light is not None and tree is not None
            headers = chess.pgn.Game().headers
            headers.update(light.headers)
            kwargs = dict(
                matched=matched, user_comments={2: ["u1", "u1", "u2"], 7: ["x"]},
                header_comments=["matchcount: 3"], matchstring="CQL", quiet=quiet,
                silent=silent,
            )
            expected = render_game(tree, variations=True, **kwargs)  # type: ignore[arg-type]
            assert render_light(light, headers, **kwargs) == expected  # type: ignore[arg-type]
