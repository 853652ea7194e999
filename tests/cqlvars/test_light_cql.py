"""light: the tree-less game model agrees with python-chess's GameBuilder (spec §7.3)."""

from __future__ import annotations

import io

import chess
import chess.pgn
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pgn_data import SHIPPED as DATA

from esochess.cqlvars import light, pgnio


def _builder_preorder(game: chess.pgn.Game) -> list[tuple[str, str, str, str, list[int]]]:
    """(move, fen, comment, starting comment, nags) of every node, in position-id order."""
    out = []
    stack: list[chess.pgn.GameNode] = [game]
    while stack:
        node = stack.pop()
        move = node.move.uci() if isinstance(node, chess.pgn.ChildNode) else ""
        out.append((move, node.board().fen(), node.comment, node.starting_comment,
                    sorted(node.nags)))
        stack.extend(reversed(node.variations))
    return out


def _light_preorder(game: light.LightGame) -> list[tuple[str, str, str, str, list[int]]]:
    return [
        (n.move.uci() if n.move else "", game.board(i).fen(), n.comment, n.starting_comment,
         sorted(n.nags))
        for i in game.preorder()
        for n in [game.nodes[i]]
    ]


@pytest.mark.parametrize("name", ["studies-lichess-thijscom.pgn", "problems-mate-in-2-3-4.pgn"])
def test_full_tree_with_comments_matches_game_builder(name: str) -> None:
    checked = 0
    for g in pgnio.iter_games([str(DATA / name)]):
        built = chess.pgn.read_game(io.StringIO(g.text))
        lite = light.read_light(g.text, variations=True, comments=True)
        assert built is not None and lite is not None
        if built.errors:
            assert lite.error is not None
            continue
        assert lite.error is None
        # LightGame keeps only the tags read; GameBuilder adds Seven Tag Roster defaults.
        assert dict(lite.headers).items() <= dict(built.headers).items()
        assert set(built.headers) - set(lite.headers) <= set(chess.pgn.TAG_ROSTER)
        assert _light_preorder(lite) == _builder_preorder(built)
        checked += 1
    assert checked > 50


def test_mainline_only_skips_variations_and_comments() -> None:
    text = "1. f3 e5 2. g4 (2. Nc3 { side } Qh4+ 3. g3) 2... Qh4# { mate } 0-1"
    game = light.read_light(text)
    assert game is not None
    assert len(game.nodes) == 5 and game.mainline() == [0, 1, 2, 3, 4]
    assert game.board(4).is_checkmate() and game.ply(4) == 4
    assert all(not n.comment for n in game.nodes)
    with_vars = light.read_light(text, variations=True, comments=True)
    assert with_vars is not None
    assert [with_vars.ply(i) for i in with_vars.preorder()] == [0, 1, 2, 3, 4, 3, 4, 5]
    assert with_vars.nodes[with_vars.mainline()[-1]].comment == "mate"


def test_board_is_built_once_and_cached() -> None:
    game = light.read_light("1. e4 e5 *")
    assert game is not None
    assert game.board(2) is game.board(2)
    assert game.board(1).fen() == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"


def test_prefilter_skips_move_parsing() -> None:
    text = '[White "Tal"]\n\n1. e4 e5 2. Ke3 *\n'
    game = light.read_light(text, prefilter=lambda h: "Fischer" in h.get("White", ""))
    assert game is not None and game.skipped and not game.nodes and game.error is None
    assert game.headers["White"] == "Tal"
    kept = light.read_light(text, prefilter=lambda h: h.get("White") == "Tal")
    assert kept is not None and not kept.skipped
    assert "Ke3" in str(kept.error) and len(kept.nodes) == 3


def test_fen_start_and_chess960_flag() -> None:
    text = '[SetUp "1"]\n[FEN "8/P6k/8/8/8/8/8/K7 w - - 0 1"]\n\n1. a8=N Kg6 2. Nb6 *\n'
    game = light.read_light(text)
    assert game is not None
    assert game.board(1).piece_at(chess.A8) == chess.Piece(chess.KNIGHT, chess.WHITE)
    assert game.board(1).promoted == chess.BB_A8


@settings(deadline=None, max_examples=40)
@given(st.lists(st.integers(0, 200), min_size=0, max_size=60))
def test_snapshot_round_trip_on_random_games(choices: list[int]) -> None:
    board = chess.Board()
    for pick in choices:
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(moves[pick % len(moves)])
        rebuilt = light.board_from(light.snapshot(board))
        assert rebuilt.fen() == board.fen()
        assert rebuilt.is_checkmate() == board.is_checkmate()
        assert rebuilt.promoted == board.promoted


@pytest.mark.parametrize("variations", [False, True])
def test_light_model_equals_the_engine_model(variations: bool) -> None:
    from esochess.cqlvars.engine import build_model

    for g in pgnio.iter_games([str(DATA / "studies-lichess-thijscom.pgn")]):
        built = chess.pgn.read_game(io.StringIO(g.text))
        lite = light.read_light(g.text, variations=variations, comments=True)
        assert built is not None and lite is not None
        if built.errors:
            continue
        if not variations:  # the engine's model takes the mainline of the full tree
            for node in list(built.mainline()):
                del node.variations[1:]
        reference = build_model(built, variations)
        model = light.LightModel(lite)
        assert model.parents == reference.parents
        assert model.moves == reference.moves
        assert model.plies == reference.plies
        assert model.subtree_end == reference.subtree_end
        assert model.comments == reference.comments
        for i in range(len(model)):
            assert model.board(i).fen() == reference.board(i).fen()
