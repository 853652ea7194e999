"""The REPL and play mode (§10): conformance checks K09–K12, K20, K25, K26, K32."""

from __future__ import annotations

import chess
from test_eval_support import E4, KW, M1, MT, ST, START_BOARD, example, program, repl

FAST = "module search\nmaxDepth = 2\n"
MATERIAL_TEXT = "sym rule material:\n\tpiece p with p.player == me:\n\t\tscore p.value;\n"
MATERIAL = program(FAST + "module evaluation\n" + MATERIAL_TEXT, "material.chp")


def test_k09_mate_in_one_layout() -> None:
    assert repl(example("material.chp"), M1) == [
        "8 r . b q k b . r",
        "7 p p p p . p p p",
        "6 . . n . . n . .",
        "5 . . . . p . . Q",
        "4 . . B . P . . .",
        "3 . . . . . . . .",
        "2 P P P P . P P P",
        "1 R N B . K . N R",
        "  a b c d e f g h",
        "score for white: 0",
        "move: Qxf7#",
        "r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4",
        "8 r . b q k b . r",
        "7 p p p p . Q p p",
        "6 . . n . . n . .",
        "5 . . . . p . . .",
        "4 . . B . P . . .",
        "3 . . . . . . . .",
        "2 P P P P . P P P",
        "1 R N B . K . N R",
        "  a b c d e f g h",
        "score for white: 10000",
    ]


def _successor(fen_line: str, origin: chess.Board) -> bool:
    return any(_after(origin, m) == fen_line for m in origin.legal_moves)


def _after(board: chess.Board, move: chess.Move) -> str:
    copy = board.copy()
    copy.push(move)
    return copy.fen(en_passant="fen")


def test_k10_fen_prints_one_successor() -> None:
    prog = program("module search\nmaxTime = 0.2\nmodule evaluation\n" + MATERIAL_TEXT)
    lines = repl(prog, "fen startpos")
    assert len(lines) == 1
    assert _successor(lines[0], chess.Board())


def test_k11_opening_module() -> None:
    full = example("full.chp")
    assert repl(full, "fen startpos") == [
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"]
    assert repl(full, f"fen {E4}") == [
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2"]
    assert repl(full, "startpos")[10] == "move: e4 (opening)"


def test_k11_search_when_no_rule_matches() -> None:
    full = program(example_text("full.chp").replace("maxTime = 2", "maxTime = 0.3"), "full.chp")
    lines = repl(full, f"fen {KW}")
    assert len(lines) == 1 and _successor(lines[0], chess.Board(KW))


def example_text(name: str) -> str:
    from test_eval_support import EXAMPLES

    return (EXAMPLES / name).read_text()


def test_k12_unreachable_opening_rule() -> None:
    prog = program(
        "module search\nmaxTime = 0.2\nmodule opening\n"
        "'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1' ->\n"
        "\t'rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2';\n"
        "module evaluation\nrule r:\n\tscore 0;\n", "o.chp")
    lines = repl(prog, "fen startpos", "fen startpos")
    assert lines[0] == ("error: opening rule at line 4: the destination is not reachable "
                        "by one legal move")
    assert len(lines) == 3  # the error is printed once per rule and process
    assert _successor(lines[1], chess.Board()) and _successor(lines[2], chess.Board())


def test_k20_castling_history_in_play() -> None:
    prog = program("module search\nmaxDepth = 2\nmodule evaluation\n"
                   "sym rule c:\n\tif (me.castled) score 1;\n")
    lines = repl(prog, "play k7/8/8/8/8/8/8/4K2R w K - 0 1", "human", "ai", "O-O", "Re1",
                 "quit")
    assert lines[-1] == "game abandoned"
    # the engine's second turn: its first board shows the rock on e1, then the score line
    turns = [i for i, line in enumerate(lines) if line == "1 . . . . R . K ."]
    assert turns, lines
    assert lines[turns[0] + 2] == "score for black: -1"


def test_k25_repl_robustness() -> None:
    lines = repl(MATERIAL, "hello", "eval 8/8/8 w - - 0 1", "eval", "eval startpos")
    assert lines[0] == "error: unknown command 'hello' (type 'help')"
    assert lines[1].startswith("error: invalid FEN")
    assert lines[2] == "error: missing FEN"
    assert lines[3:] == [*START_BOARD, "score for white: 0"]


FOOLS_MATE = [
    "white player (ai/human)?",
    "black player (ai/human)?",
    *START_BOARD,
    "white to move:",
    "Na3 Nc3 Nf3 Nh3 a3 a4 b3 b4 c3 c4 d3 d4 e3 e4 f3 f4 g3 g4 h3 h4",
    "white to move:",
    "error: illegal move: e5",
    "white to move:",
    "8 r n b q k b n r",
    "7 p p p p p p p p",
    "6 . . . . . . . .",
    "5 . . . . . . . .",
    "4 . . . . . . . .",
    "3 . . . . . P . .",
    "2 P P P P P . P P",
    "1 R N B Q K B N R",
    "  a b c d e f g h",
    "black to move:",
    "8 r n b q k b n r",
    "7 p p p p . p p p",
    "6 . . . . . . . .",
    "5 . . . . p . . .",
    "4 . . . . . . . .",
    "3 . . . . . P . .",
    "2 P P P P P . P P",
    "1 R N B Q K B N R",
    "  a b c d e f g h",
    "white to move:",
    "8 r n b q k b n r",
    "7 p p p p . p p p",
    "6 . . . . . . . .",
    "5 . . . . p . . .",
    "4 . . . . . . P .",
    "3 . . . . . P . .",
    "2 P P P P P . . P",
    "1 R N B Q K B N R",
    "  a b c d e f g h",
    "black to move:",
    "game over: 0-1 (checkmate)",
]


def test_k26_play_mode_transcript() -> None:
    assert repl(MATERIAL, "play", "human", "human", "l", "e5", "f3", "e5", "g4",
                "Qh4#") == FOOLS_MATE


def test_play_answers_are_validated_and_coordinates_accepted() -> None:
    lines = repl(MATERIAL, "play", "robot", "h", "H", "e2e4", "quit")
    assert lines[:4] == ["white player (ai/human)?", "error: please answer 'ai' or 'human'",
                         "white player (ai/human)?", "black player (ai/human)?"]
    assert lines[-2:] == ["black to move:", "game abandoned"]


def test_ai_against_ai_ends_with_a_result() -> None:
    lines = repl(MATERIAL, "play 7k/8/6K1/8/8/8/8/5Q2 w - - 0 1", "ai", "ai")
    assert lines[-1].startswith("game over: ")
    assert lines[-1] == "game over: 1-0 (checkmate)"


def test_no_legal_move_in_fen_and_board_commands() -> None:
    assert repl(MATERIAL, f"fen {MT}", f"fen {ST}") == [
        "error: no legal moves (checkmate)", "error: no legal moves (stalemate)"]
    lines = repl(MATERIAL, MT)
    assert lines[9:] == ["score for black: -10000", "game over: 1-0 (checkmate)"]


def test_k32_runtime_error_reported_once_during_search() -> None:
    prog = program("module search\nmaxDepth = 2\nmodule evaluation\nrule r:\n"
                   "\tscore [1, 2].elem(me.pieces.length);\n", "rt.chp")
    lines = repl(prog, "fen startpos")
    assert lines[0] == ("error: rt.chp:5:15: runtime error: index 16 out of range for a "
                        "list of length 2")
    assert len(lines) == 2 and _successor(lines[1], chess.Board())


def test_help_quit_and_uci_switch() -> None:
    assert repl(MATERIAL, "help")[0] == "commands:"
    assert repl(MATERIAL, "quit", "eval startpos") == []
    lines = repl(MATERIAL, "uci", "isready")
    assert lines[0] == "id name material" and lines[-1] == "readyok"


def test_search_errors_come_before_the_fen_command_output() -> None:
    prog = program("module search\nmaxDepth = 1\nmodule evaluation\nrule r:\n"
                   "\tscore [1, 2].elem(me.pieces.length);\n", "rt.chp")
    lines = repl(prog, "startpos")
    error = "error: rt.chp:5:15: runtime error: index 16 out of range for a list of length 2"
    # search error first, then the board, then the displayed evaluation's own error line
    assert lines[0].startswith("error: rt.chp:5:15: runtime error: index 1")
    assert lines[1:10] == START_BOARD
    assert lines[10] == error
    assert lines[11].startswith("move: ")


def test_play_mode_shows_one_board_per_half_move() -> None:
    lines = repl(MATERIAL, "play", "human", "ai", "e4", "d4", "quit")
    boards = sum(1 for line in lines if line == "  a b c d e f g h")
    moves = sum(1 for line in lines if line.startswith("move: "))
    assert moves == 2  # the engine answered e4 and d4
    assert boards == 5  # the start, after e4, after the reply, after d4, after the reply


def test_play_mode_help_and_move_errors() -> None:
    lines = repl(MATERIAL, "play", "human", "human", "help", "xx", "e2e5", "e5", "quit")
    assert "in a game:" in lines and any(line.startswith("  l ") for line in lines)
    assert "error: not a move: xx" in lines
    assert "error: illegal move: e2e5" in lines
    assert "error: illegal move: e5" in lines
    assert lines[-1] == "game abandoned"
