"""A built engine driven by python-chess's `chess.engine` (K29) and raw UCI pipes (K28)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import chess
import chess.engine
import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "chespel"
KW = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


@pytest.fixture(scope="module")
def engine_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("uci") / "mat"
    subprocess.run([sys.executable, "-m", "esochess.chespel", "build",
                    str(EXAMPLES / "material.chp"), "-o", str(target)], check=True,
                   capture_output=True)
    return target


def test_k29_python_chess_drives_a_built_engine(engine_path: Path) -> None:
    engine = chess.engine.SimpleEngine.popen_uci([str(engine_path)])
    try:
        assert engine.id["name"] == "material"
        board = chess.Board()
        info = engine.analyse(board, chess.engine.Limit(depth=3))
        assert "score" in info and info["pv"]
        assert info["pv"][0] in board.legal_moves
        for _ in range(20):
            if board.is_game_over():
                break
            played = engine.play(board, chess.engine.Limit(time=0.2))
            assert played.move in board.legal_moves
            board.push(played.move)
    finally:
        engine.quit()
    assert engine.protocol.returncode.result() == 0


def test_stop_during_go_infinite(engine_path: Path) -> None:
    engine = chess.engine.SimpleEngine.popen_uci([str(engine_path)])
    try:
        board = chess.Board(KW)
        with engine.analysis(board) as analysis:  # `go infinite`
            time.sleep(0.5)
            analysis.stop()
            best = analysis.wait()
        assert best.move in board.legal_moves
    finally:
        engine.quit()


def test_k28_isready_and_stop_while_searching(engine_path: Path) -> None:
    process = subprocess.Popen([str(engine_path), "--uci"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True, bufsize=1)
    assert process.stdin is not None and process.stdout is not None

    def send(line: str) -> None:
        assert process.stdin is not None
        process.stdin.write(line + "\n")
        process.stdin.flush()

    def until(prefix: str) -> str:
        assert process.stdout is not None
        while True:
            line = process.stdout.readline()
            assert line, "engine ended"
            if line.startswith(prefix):
                return line.strip()

    try:
        send(f"position fen {KW}")
        send("go infinite")
        time.sleep(0.5)
        send("isready")
        assert until("readyok") == "readyok"
        send("stop")
        move = chess.Move.from_uci(until("bestmove").split()[1])
        assert move in chess.Board(KW).legal_moves
        send("go wtime 10000 btime 10000")
        assert chess.Move.from_uci(until("bestmove").split()[1]) in chess.Board(KW).legal_moves
        send("quit")
        assert process.wait(timeout=10) == 0
    finally:
        process.kill()
