"""The search (§11): mates, draws, quiescence, limits, determinism, move choice."""

from __future__ import annotations

import random
import threading

import chess
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_eval_support import M1, example, program, random_walk

from esochess.chespel.runtime.engine import Engine, Game
from esochess.chespel.runtime.ordering import (
    king_attacked,
    quiet_gives_check,
    quiet_moves,
    quiet_promotions,
    sorted_captures,
    typed_captures,
)
from esochess.chespel.runtime.search import (
    MATE,
    Limits,
    Searcher,
    _exposure,
    _from_tt,
    _to_tt,
    mate_in,
)

MATERIAL = example("material.chp")
NO_QUIESCENCE = program("module search\nquiescence = false\nmodule evaluation\n"
                        "sym rule material:\n\tpiece p with p.player == me:\n\t\tscore p.value;\n")


def search(fen: str, depth: int, prog: object = MATERIAL, **kw: object) -> object:
    board = chess.Board(fen)
    searcher = Searcher(prog)  # type: ignore[arg-type]
    return searcher.search(board, 0, [], Limits(depth=depth, **kw))  # type: ignore[arg-type]


def test_mate_in_one() -> None:
    result = search(M1, 2)
    assert result.move == chess.Move.from_uci("h5f7")  # type: ignore[attr-defined]
    assert result.score == MATE - 1  # type: ignore[attr-defined]
    assert mate_in(result.score) == 1  # type: ignore[attr-defined]


def test_mate_in_two() -> None:
    # 1.Kb6 Kb8 2.Rh8# (1.Rh8+ Ka7 escapes)
    fen = "k7/8/2K5/8/8/8/8/7R w - - 0 1"
    result = search(fen, 4)
    assert mate_in(result.score) == 2  # type: ignore[attr-defined]


def test_quiescence_sees_the_recapture() -> None:
    # Qxd5 wins a pawn at depth 1 but loses the queen to exd5.
    fen = "4k3/8/4p3/3p4/8/8/8/3QK3 w - - 0 1"
    greedy = search(fen, 1, NO_QUIESCENCE)
    careful = search(fen, 1)
    assert greedy.move == chess.Move.from_uci("d1d5")  # type: ignore[attr-defined]
    assert careful.move != chess.Move.from_uci("d1d5")  # type: ignore[attr-defined]


def test_fifty_move_rule_draws() -> None:
    # White is a queen up, but the next move reaches the fifty-move limit.
    fen = "4k3/8/8/8/8/8/8/3QK3 w - - 99 80"
    assert search(fen, 2).score == 0  # type: ignore[attr-defined]


def test_repetition_in_game_history_draws() -> None:
    prog = MATERIAL
    board = chess.Board("7k/8/8/8/8/8/q7/K7 w - - 0 1")  # White is lost on material
    game = Game.start(board)
    # shuffle the king so that Ka1->b1 would repeat the earlier position
    for uci in ("a1b1", "a2a3", "b1a1", "a3a2"):
        game.push(chess.Move.from_uci(uci))
    engine = Engine(prog, lambda message: None)
    choice = engine.choose(game, Limits(depth=2))
    # repeating the position scores 0, better than any other move
    assert choice.result is not None and choice.result.score == 0


def test_node_limit_and_stop() -> None:
    board = chess.Board()
    searcher = Searcher(MATERIAL)
    result = searcher.search(board, 0, [], Limits(nodes=300))
    assert 300 <= result.nodes < 400 and result.move in board.legal_moves
    stop = threading.Event()
    stop.set()
    stopped = searcher.search(board, 0, [], Limits(infinite=True), stop=stop)
    assert stopped.move in board.legal_moves and stopped.depth == 0


def test_determinism_at_fixed_depth() -> None:
    positional = example("positional.chp")
    fen = "rn2kbnr/pp2pppp/2p5/q4b2/3P4/2N2N2/PPP2PPP/R1BQKB1R w KQkq - 2 6"
    first, second = search(fen, 3, positional), search(fen, 3, positional)
    assert (first.move, first.score, first.nodes) == (  # type: ignore[attr-defined]
        second.move, second.score, second.nodes)  # type: ignore[attr-defined]


def test_only_move_is_played_without_search() -> None:
    game = Game.start(chess.Board("7k/8/6K1/8/8/8/8/R7 b - - 0 1"))  # only Kg8
    engine = Engine(MATERIAL, lambda message: None)
    choice = engine.choose(game, Limits(budget=1.0))
    assert choice.result is None and choice.move == chess.Move.from_uci("h8g8")
    searched = engine.choose(game, Limits(depth=2))  # `go depth` searches normally (§11.1)
    assert searched.result is not None and searched.move == chess.Move.from_uci("h8g8")


def test_iteration_callback_and_pv_legality() -> None:
    board = chess.Board("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    seen = []
    Searcher(MATERIAL).search(board, 0, [], Limits(depth=3), on_iteration=seen.append)
    assert [it.depth for it in seen] == [1, 2, 3]
    for iteration in seen:
        copy = board.copy()
        for move in iteration.pv:
            assert move in copy.legal_moves
            copy.push(move)


@pytest.mark.parametrize("score", [MATE - 3, -(MATE - 4), 1234, -10_000_000])
def test_tt_mate_scores_are_relative(score: int) -> None:
    for ply in (0, 1, 7):
        assert _from_tt(_to_tt(score, ply), ply) == score


@settings(deadline=None, max_examples=15)
@given(st.integers(0, 10**6))
def test_search_returns_a_legal_move(seed: int) -> None:
    import random

    board = random_walk(random.Random(seed), 40)
    if board.is_game_over():
        return
    result = Searcher(MATERIAL).search(board, 0, [], Limits(depth=1))
    assert result.move in board.legal_moves


PINNED_FENS = {
    "start": chess.STARTING_FEN,
    "kiwipete": "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "italian": "r1bqk1nr/pppp1ppp/2n5/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQ1RK1 b kq - 5 4",
    "qgd": "r1bq1rk1/pp2bppp/2n1pn2/2pp4/2PP4/2N1PN2/PP2BPPP/R1BQ1RK1 w - - 0 8",
    "sicilian": "r1b1kb1r/1pqp1ppp/p1n1pn2/8/3NP3/2N1B3/PPP1BPPP/R2QK2R w KQkq - 4 8",
    "endgame": "8/5pk1/6p1/3P4/2K5/6P1/8/8 w - - 0 40",
}
PINNED = [
    ("material.chp", "start", 4, "g1h3", 0, 480),
    ("material.chp", "kiwipete", 4, "e2a6", 0, 6749),
    ("material.chp", "italian", 4, "g8e7", 0, 1559),
    ("material.chp", "qgd", 4, "d4c5", 0, 1852),
    ("material.chp", "sicilian", 4, "d4c6", 0, 1318),
    ("material.chp", "endgame", 4, "c4c5", 0, 384),
    ("positional.chp", "start", 4, "e2e4", 0, 1319),
    ("positional.chp", "kiwipete", 4, "e2a6", 700, 5345),
    ("positional.chp", "italian", 4, "g8f6", 0, 1557),
    ("positional.chp", "qgd", 4, "d1b3", 50, 4068),
    ("positional.chp", "sicilian", 4, "e1g1", 1230, 2099),
    ("positional.chp", "endgame", 4, "d5d6", 1450, 427),
]


@pytest.mark.parametrize(("name", "position", "depth", "move", "score", "nodes"), PINNED)
def test_pinned_fixed_depth_results(name: str, position: str, depth: int, move: str,
                                    score: int, nodes: int) -> None:
    """A change in search behaviour (or in the example programs) changes these numbers:
    update them deliberately, with the benchmark's before/after in the commit message."""
    result = Searcher(example(name)).search(chess.Board(PINNED_FENS[position]), 0, [],
                                            Limits(depth=depth))
    assert (result.move.uci(), result.score, result.nodes) == (move, score, nodes)


def test_positional_opens_with_a_central_move() -> None:
    choice = Engine(example("positional.chp"), lambda _: None).choose(
        Game.start(chess.Board()), Limits(depth=4))
    assert choice.move is not None
    assert chess.Board().san(choice.move) in ("e4", "d4", "c4", "Nf3")


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=10_000))
def test_quiet_gives_check_agrees_with_python_chess(seed: int) -> None:
    board = random_walk(random.Random(seed), 120)
    them = board.occupied_co[not board.turn]
    for move in board.generate_pseudo_legal_moves():
        if them & chess.BB_SQUARES[move.to_square] or move.promotion or board.is_en_passant(move):
            continue
        assert quiet_gives_check(board, move) == board.gives_check(move), (board.fen(), move)


@settings(max_examples=80, deadline=None)
@given(st.integers(min_value=0, max_value=10**6))
def test_staged_moves_keep_the_order_of_ordering_all_moves(seed: int) -> None:
    """Captures, killers and quiet moves generated in stages come in exactly the order that
    `History.order` gives all pseudo-legal moves right after the table's move, even when
    the subtrees searched in between change the history (and halve it)."""
    rng = random.Random(seed)
    board = random_walk(rng, 120)
    if board.is_check() or board.is_game_over():
        return
    searcher = Searcher(MATERIAL)
    searcher.board = board
    history = searcher.history
    moves = list(board.generate_pseudo_legal_moves())
    elsewhere = list(random_walk(rng, 60).generate_pseudo_legal_moves())
    # The search records only quiet moves (never a promotion) as cut-offs and killers.
    cutoffs = [m for m in moves + elsewhere if not m.promotion]
    for _ in range(rng.randrange(0, 40)):
        move = rng.choice(cutoffs)
        history.cutoff(rng.random() < 0.5, move, rng.randrange(0, 6), rng.randrange(1, 8),
                       rng.sample(moves, rng.randrange(0, 4)))
    ply = rng.randrange(0, 6)
    tt_move = rng.choice([None, rng.choice(moves), rng.choice(elsewhere)])
    staged = searcher._staged(tt_move, ply)

    def subtree() -> None:  # cut-offs deeper in the tree, some halving the history
        for _ in range(rng.randrange(0, 3)):
            history.cutoff(board.turn, rng.choice(moves), ply + 2, rng.choice([1, 3, 3000]),
                           rng.sample(moves, rng.randrange(0, 4)))

    got = []
    legal_tt = tt_move is not None and board.is_pseudo_legal(tt_move)
    if legal_tt:
        got.append(next(staged))
        subtree()
    expected = history.order(board, [m for m in moves if not (legal_tt and m == tt_move)],
                             None, ply)
    for move in staged:
        got.append(move)
        subtree()
    assert got == ([tt_move] if legal_tt else []) + expected, board.fen()


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=10**6))
def test_moves_that_cannot_expose_the_king_are_legal(seed: int) -> None:
    """The search plays a pseudo-legal move out to test its legality only when it moves the
    king, lands on the en passant cell or starts on a line through the king."""
    board = random_walk(random.Random(seed), 120)
    if board.is_check():
        return
    exposed = _exposure(board)
    for move in board.generate_pseudo_legal_moves():
        if not exposed(move.from_square, move.to_square):
            assert board.is_legal(move), (board.fen(), move)


@settings(max_examples=150, deadline=None)
@given(st.integers(min_value=0, max_value=10**6))
def test_king_attacked_agrees_with_python_chess(seed: int) -> None:
    board = random_walk(random.Random(seed), 120)
    for move in list(board.generate_pseudo_legal_moves())[:12]:
        board.push(move)
        assert king_attacked(board, board.turn) == board.is_check(), board.fen()
        assert king_attacked(board, not board.turn) == board.was_into_check(), board.fen()
        board.pop()


def assert_sorted_captures_agree(board: chess.Board) -> None:
    extra = quiet_promotions(board)
    expected = typed_captures(board, list(board.generate_pseudo_legal_captures()) + extra)
    found = [(chess.Move(origin, target, promotion), victim, attacker)
             for _, _, origin, target, promotion, victim, attacker in sorted_captures(board, extra)]
    assert found == expected, board.fen()


@settings(max_examples=150, deadline=None)
@given(st.integers(min_value=0, max_value=10**6))
def test_sorted_captures_equal_typed_captures(seed: int) -> None:
    """The captures generated from the attack tables and typed from the bitboards, without a
    Move each, come in the order `typed_captures` gives python-chess's pseudo-legal captures,
    with the same piece types (the quiescence search's moves)."""
    board = random_walk(random.Random(seed), 120)
    assert_sorted_captures_agree(board)
    board.turn = not board.turn
    if board.is_valid():
        assert_sorted_captures_agree(board)


@pytest.mark.parametrize("fen", [
    "r1n1k3/1P6/8/8/8/8/8/4K3 w - - 0 1",  # captures with promotion, both sides of b7
    "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2",  # en passant
    "4k3/8/8/8/8/8/3q4/4K3 w - - 0 1",  # the king captures
    "3rk3/8/8/8/8/8/1p6/R1N1K3 b - - 0 1",  # black promotes capturing
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",  # castling both ways
])
def test_captures_with_promotion_en_passant_and_the_king(fen: str) -> None:
    board = chess.Board(fen)
    assert_sorted_captures_agree(board)
    them = board.occupied_co[not board.turn]
    assert quiet_moves(board) == [m for m in board.generate_pseudo_legal_moves()
                                  if not them & chess.BB_SQUARES[m.to_square]
                                  and not m.promotion and not board.is_en_passant(m)]


@settings(max_examples=150, deadline=None)
@given(st.integers(min_value=0, max_value=10**6))
def test_quiet_moves_are_python_chess_quiet_moves_in_its_order(seed: int) -> None:
    board = random_walk(random.Random(seed), 120)
    them = board.occupied_co[not board.turn]
    expected = [m for m in board.generate_pseudo_legal_moves()
                if not them & chess.BB_SQUARES[m.to_square] and not m.promotion
                and not board.is_en_passant(m)]
    assert quiet_moves(board) == expected, board.fen()


def test_the_garbage_collector_is_paused_while_searching_only() -> None:
    import gc

    seen = []
    Searcher(MATERIAL).search(chess.Board(), 0, [], Limits(depth=2),
                              on_iteration=lambda _: seen.append(gc.isenabled()))
    assert seen and not any(seen)
    assert gc.isenabled()
    gc.disable()
    try:
        Searcher(MATERIAL).search(chess.Board(), 0, [], Limits(depth=1))
        assert not gc.isenabled()  # a caller's choice is kept
    finally:
        gc.enable()
