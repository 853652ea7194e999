"""UCI mode (§10.9) in process: conformance checks K14 and K27."""

from __future__ import annotations

import dataclasses
import io

import chess
import chess.engine
import pytest
from test_eval_support import G2, M1, MT, ST, example, program

from esochess.chespel.runtime.main import run_uci
from esochess.chespel.runtime.uci import protocol_text, score_text

MATERIAL = example("material.chp")


def uci(prog: object, *lines: str) -> list[str]:
    """Run a UCI session over the given input lines; searches finish before the end."""
    out = io.StringIO()
    assert run_uci(prog, io.StringIO("".join(line + "\n" for line in lines)), out) == 0  # type: ignore[arg-type]
    return out.getvalue().splitlines()


def infos(lines: list[str], board: chess.Board) -> list[chess.engine.InfoDict]:
    """Every `info` line parsed by python-chess (K27: they must all parse)."""
    parsed = []
    for line in lines:
        if line.startswith("info ") and not line.startswith("info string"):
            info = chess.engine._parse_uci_info(line[5:], board)
            assert "depth" in info, line
            parsed.append(info)
    return parsed


def test_k27_handshake() -> None:
    assert uci(MATERIAL, "uci", "isready") == [
        "id name material",
        "id author chespel",
        "option name Hash type spin default 64 min 1 max 4096",
        "option name OwnBook type check default true",
        "option name BookFile type string default <empty>",
        "option name ShowRules type check default false",
        "uciok",
        "readyok",
    ]


def test_k27_mate_in_one() -> None:
    lines = uci(MATERIAL, f"position fen {M1}", "go depth 2")
    board = chess.Board(M1)
    assert any("score mate 1" in line and "pv h5f7" in line for line in lines)
    assert lines[-1] == "bestmove h5f7"
    assert infos(lines, board)


@pytest.mark.parametrize(("fen", "info"), [(MT, "info depth 0 score mate 0"),
                                           (ST, "info depth 0 score cp 0")])
def test_k27_no_legal_move(fen: str, info: str) -> None:
    assert uci(MATERIAL, f"position fen {fen}", "go movetime 100") == [info, "bestmove 0000"]


def test_k27_moves_after_startpos() -> None:
    lines = uci(MATERIAL, "position startpos moves e2e4 e7e5", "go depth 1")
    board = chess.Board()
    board.push_uci("e2e4")
    board.push_uci("e7e5")
    move = chess.Move.from_uci(lines[-1].split()[1])
    assert move in board.legal_moves
    infos(lines, board)


def test_k14_determinism_at_fixed_depth() -> None:
    prog = program("module search\nmaxDepth = 3\nmaxTime = 600\n"
                   + (example_path("positional.chp")))
    session = ["ucinewgame", f"position fen {G2}", "go depth 3"]
    lines = uci(prog, *session, *session)
    best = [line for line in lines if line.startswith("bestmove")]
    last_infos = [line for i, line in enumerate(lines)
                  if line.startswith("info depth 3") and lines[i + 1].startswith("bestmove")]
    assert len(best) == 2 and best[0] == best[1]
    nodes = [line.split(" nodes ")[1].split()[0] for line in last_infos]
    assert len(nodes) == 2 and nodes[0] == nodes[1]


def example_path(name: str) -> str:
    from test_eval_support import EXAMPLES

    return (EXAMPLES / name).read_text()


def test_options_position_errors_and_unknown_commands() -> None:
    lines = uci(MATERIAL, "setoption name Hash value 2", "setoption name Colour value red",
                "setoption name Hash value 0", "position fen 8/8/8 w - - 0 1",
                "position startpos moves e2e4 e2e4", "frobnicate", "go depth 1")
    assert lines[0] == "info string unknown option Colour"
    assert lines[1] == "info string error: bad value for option Hash: 0"
    assert lines[2].startswith("info string error: invalid FEN")
    assert lines[3] == "info string error: illegal move: e2e4"
    assert lines[4] == "info string unknown command: frobnicate"
    # a rejected position (here an illegal move) leaves no position to search
    assert lines[5].startswith("info string error: no position to search (illegal move: e2e4)")
    assert lines[-1] == "bestmove 0000"


def test_rejected_position_is_never_searched_until_a_valid_one() -> None:
    lines = uci(MATERIAL, "position startpos moves e2e4", "position fen 8/8/8 w - - 0 1",
                "go depth 1", "go movetime 50", f"position fen {M1}", "go depth 2")
    best = [line for line in lines if line.startswith("bestmove")]
    assert best == ["bestmove 0000", "bestmove 0000", "bestmove h5f7"]
    assert sum("no position to search (invalid FEN" in line for line in lines) == 2


def test_protocol_text_replaces_control_characters() -> None:
    assert protocol_text("plain name") == "plain name"
    assert protocol_text("evil\nbestmove a1a1\r\x00") == "evil?bestmove a1a1??"
    assert protocol_text("line\u2028sep") == "line?sep"


def test_a_newline_in_the_program_name_never_reaches_the_protocol() -> None:
    prog = dataclasses.replace(MATERIAL, name="mat\nuciok\nbestmove e2e4")  # type: ignore[type-var]
    lines = uci(prog, "uci")
    assert lines[0] == "id name mat?uciok?bestmove e2e4"
    assert lines.count("uciok") == 1


def test_opening_rule_in_uci_and_ownbook() -> None:
    full = example("full.chp")
    assert uci(full, "position startpos", "go movetime 100") == [
        "info string opening rule at line 9", "bestmove e2e4"]
    lines = uci(full, "setoption name OwnBook value false", "position startpos", "go depth 1")
    assert "info string opening rule at line 9" not in lines


@pytest.mark.parametrize(("score", "text"), [
    (0, "cp 0"), (1234, "cp 123"), (-1235, "cp -124"), (1235, "cp 124"), (5, "cp 1"),
    (-5, "cp -1"), (100_000_000 - 1, "mate 1"), (-(100_000_000 - 2), "mate -1"),
    (100_000_000 - 3, "mate 2"),
])
def test_score_text(score: int, text: str) -> None:
    assert score_text(score) == text


def test_show_rules_explains_the_root_evaluation() -> None:
    positional = example("positional.chp")
    lines = uci(positional, "setoption name ShowRules value true",
                "position startpos moves e2e4 d7d5 e4d5", "go depth 1")
    assert lines[0] == "info string rules: -0.95 for black"
    assert lines[1] == "info string rule material: -1 (me +38, foe -39)"
    assert "info string rule pawnStructure: +0.3 (me 0, foe +0.3)" in lines
    assert lines[-1].startswith("bestmove")
    board = chess.Board()
    for move in ("e2e4", "d7d5", "e4d5"):
        board.push_uci(move)
    assert positional.evaluate(board, chess.BLACK, 0) == -950
    # Off by default, and a bad value is reported.
    quiet = uci(positional, "position startpos", "go depth 1",
                "setoption name ShowRules value maybe")
    assert not any(line.startswith("info string rule") for line in quiet)
    assert quiet[-1] == "info string error: bad value for option ShowRules: maybe"
