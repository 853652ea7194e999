"""The search's own board (runtime/search_board.py): its lean push and pop leave exactly
python-chess's position, and the piece-square sums it keeps equal a fresh sum."""

from __future__ import annotations

import random

import chess
import pytest

from esochess.chespel.runtime.positions import position_key
from esochess.chespel.runtime.search_board import SearchBoard

FENS = [
    chess.STARTING_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",  # castling
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",  # en passant
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",  # promotions
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
]


def state(board: chess.Board) -> tuple[object, ...]:
    return (board.pawns, board.knights, board.bishops, board.rooks, board.queens,
            board.kings, board.occupied_co[chess.BLACK], board.occupied_co[chess.WHITE],
            board.occupied, board.promoted, board.turn, board.clean_castling_rights(),
            board.ep_square, board.halfmove_clock, board.fullmove_number,
            position_key(board))


@pytest.mark.parametrize("seed", range(5))
def test_push_and_pop_match_python_chess(seed: int) -> None:
    rng = random.Random(seed)
    main = [rng.randrange(-999, 1000) for _ in range(896)]
    endgame = [rng.randrange(-999, 1000) for _ in range(896)]
    for fen in FENS:
        for _ in range(12):
            reference = chess.Board(fen)
            board = SearchBoard.of(reference, main, endgame)
            assert state(board) == state(reference)
            for _ in range(40):
                if reference.king(chess.WHITE) is None or reference.king(chess.BLACK) is None:
                    break  # a pseudo-legal walk may take a king
                moves = list(reference.generate_pseudo_legal_moves())
                if not moves:
                    break
                move = (chess.Move.null() if rng.random() < 0.05 and not reference.is_check()
                        else rng.choice(moves))
                before = state(board)
                reference.push(move)
                board.push(move)
                assert state(board) == state(reference), (fen, move.uci())
                assert board.psq_main == board.table_sum(main)
                assert board.psq_endgame == board.table_sum(endgame)
                if rng.random() < 0.3:
                    assert board.pop() == reference.pop() == move
                    assert state(board) == before
            while reference.move_stack:
                reference.pop()
                board.pop()
                assert state(board) == state(reference)
                assert board.psq_main == board.table_sum(main)


def test_copies_and_boards_from_a_fen_are_search_boards() -> None:
    board = SearchBoard("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    board.push(chess.Move.from_uci("e1g1"))
    copy = board.copy(stack=False)
    assert isinstance(copy, SearchBoard) and copy.fen() == board.fen()
    copy.push(chess.Move.from_uci("e8c8"))
    assert copy.fen() == "2kr3r/8/8/8/8/8/8/R4RK1 w - - 2 2"
    with pytest.raises(ValueError, match="standard chess"):
        SearchBoard.of(chess.Board(chess960=True))
