"""The lean reader against the light reader it stands in for: the same `LightGame` (tags,
moves, bitboard snapshots, comments, NAGs) on every shipped game, on random games, and on
the layouts it must hand back (None) instead of reading."""

from __future__ import annotations

import io
import random

import chess
import chess.pgn
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pgn_data import LICHESS, PROBLEMS, STUDIES, masters, needs_masters

from esochess.cqlvars import pgnio
from esochess.cqlvars.engine import _Reader
from esochess.cqlvars.lean import read_lean
from esochess.cqlvars.light import LightGame, LightModel


def light(text: str) -> LightGame:
    game = chess.pgn.read_game(
        io.StringIO(text), Visitor=lambda: _Reader(variations=False, comments=True))
    assert game is not None
    return game


def key(game: LightGame) -> object:
    model = LightModel(game)
    return (list(game.headers.items()), game.skipped, game.chess960, repr(game.error),
            [(n.move, n.parent, n.snap, n.children, n.comment, n.starting_comment, n.nags)
             for n in game.nodes],
            (model.parents, model.children, model.plies, model.subtree_end, model.moves,
             model.comments, model.snapshots))


def agree(texts: list[str]) -> int:
    """Assert that every game the lean reader takes is read alike; return how many it took."""
    taken = 0
    for text in texts:
        lean = read_lean(text)
        if lean is not None:
            taken += 1
            assert key(lean) == key(light(text)), text[:300]
    return taken


def test_lichess_games_are_read_alike() -> None:
    texts = [g.text for g in pgnio.iter_games([str(LICHESS)])]
    assert agree(texts) >= len(texts) - 5  # nearly all of them take the lean path


def test_studies_and_problems_are_read_alike_or_handed_back() -> None:
    agree([g.text for g in pgnio.iter_games([str(STUDIES), str(PROBLEMS)])])


@pytest.mark.slow
@needs_masters
def test_masters_games_are_read_alike() -> None:
    texts = [g.text for g in pgnio.iter_games([str(masters())])]
    assert agree(texts) == len(texts)


HEAD = '[Event "e"]\n[Result "*"]\n\n'


@pytest.mark.parametrize("movetext", [
    "{ before } 1. e4 { a } { b } e5 $1 2. Nf3 !? Nc6 ?? *\n\n",
    "1. e4 {multi\nline\n\ncomment } e5 {  } 2. Ke2 {} Ke7 3. Ke3 1-0\n",
    "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. O-O Nf6 5. d4 exd4 6. e5 d5 7. exd6 Bxd6 *\n\n\n",
    "1. e4 d5 2. e5 f5 3. exf6 g5 4. fxe7 h5 5. exd8=N Kxd8 6. Qxh5 Rxh5 *",
    "1. e4 { [%clk 0:03:00] } 1... e5 { [%clk 0:02:59] } 2. Nf3+ Nc6# 1/2-1/2\n",
    "1.e4 e5 2.Nf3 Nf6 3.Nxe5 Nxe4 4.Qe2 Nf6 5.Nc6+ Ne4 6.Nxd8 *\n",
])
def test_layouts_the_lean_reader_takes(movetext: str) -> None:
    assert agree([HEAD + movetext]) == 1


@pytest.mark.parametrize("text", [
    HEAD + "1. e4 (1. d4) e5 *\n",                               # a variation
    HEAD + "1. e4 ; rest of line\ne5 *\n",                       # a ; comment
    HEAD + "1. e4 e5\n% escape\n2. Nf3 *\n",                     # a % line
    HEAD + "1. e4 -- 2. d4 *\n",                                 # a null move
    HEAD + "1. e4 e5 2. Ke3 *\n",                                # an illegal move
    HEAD + "1. e4 { never closed\n",                             # an unclosed comment
    HEAD + "1. e4 e5\n\n2. Nf3 *\n",                             # moves after the end
    '[Event "e"]\n[FEN "8/8/8/8/8/8/8/K1k5 w - - 0 1"]\n\n1. Kb1 *\n',
    '[Event "e"]\n[Variant "Atomic"]\n\n1. e4 *\n',
    '[Event "e"]\n\n\n1. e4 *\n',                                # two empty lines
    '[Event "e"]\n1. e4 *\n',                                    # no empty line
    "1. e4 e5 *\n",                                              # no tags
])
def test_layouts_handed_back_to_the_light_reader(text: str) -> None:
    assert read_lean(text) is None


def test_prefilter_skips_the_moves() -> None:
    game = read_lean(HEAD + "1. e4 e5 *\n", lambda headers: False)
    assert game is not None and game.skipped and not game.nodes
    assert read_lean(HEAD + "1. e4 e5 *\n", lambda headers: True) is not None


@given(st.integers(0, 2**32 - 1), st.integers(1, 120))
@settings(max_examples=40, deadline=None)
def test_random_games_are_read_alike(seed: int, plies: int) -> None:
    """Random legal games (promotions, castling, en passant, king walks), with comments and
    NAGs, exported by python-chess."""
    rng = random.Random(seed)
    game = chess.pgn.Game()
    node: chess.pgn.GameNode = game
    board = game.board()
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves:
            break
        special = [m for m in moves if m.promotion or board.is_en_passant(m)
                   or board.is_castling(m) or board.piece_type_at(m.from_square) == chess.KING]
        move = rng.choice(special if special and rng.random() < 0.3 else moves)
        node = node.add_variation(move, comment=rng.choice(["", "c", " two  words ", "x\ny"]),
                                  nags=rng.choice([(), (1,), (3, 14)]))
        board.push(move)
    text = str(game) + "\n\n"
    assert agree([text]) == 1
