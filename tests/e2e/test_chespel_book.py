"""Polyglot books: `chespel build --book` embeds one, the UCI option BookFile opens one, and
the program's own opening rules win where both answer."""

from __future__ import annotations

import struct
import subprocess
import sys
from pathlib import Path

import chess
import chess.polyglot

CHESPEL = [sys.executable, "-m", "esochess.chespel"]
PROGRAM = (
    "module opening\n"
    "'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1' ->\n"
    "\t'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1';\n"
    "module evaluation\nsym rule material:\n\tpiece p with player == me:\n\t\tscore p.value;\n")


def write_book(path: Path, lines: list[tuple[list[str], str, int]]) -> None:
    """A Polyglot book: for each (moves from the start, book move, weight) a 16-byte entry."""
    entries = []
    for moves, answer, weight in lines:
        board = chess.Board()
        for move in moves:
            board.push_uci(move)
        move = chess.Move.from_uci(answer)
        raw = (chess.square_file(move.to_square) | chess.square_rank(move.to_square) << 3
               | chess.square_file(move.from_square) << 6
               | chess.square_rank(move.from_square) << 9)
        entries.append((chess.polyglot.zobrist_hash(board), raw, weight))
    path.write_bytes(b"".join(struct.pack(">QHHI", key, raw, weight, 0)
                              for key, raw, weight in sorted(entries)))


def uci(engine: list[str], commands: list[str]) -> list[str]:
    done = subprocess.run(engine, input="\n".join(commands) + "\n",
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_built_engine_plays_from_its_book_and_the_bookfile_option(tmp_path: Path) -> None:
    (tmp_path / "prog.chp").write_text(PROGRAM)
    write_book(tmp_path / "book.bin", [
        ([], "d2d4", 50),  # the opening rule (1. e4) wins here
        (["e2e4"], "c7c5", 10), (["e2e4"], "e7e6", 30),  # the heavier entry is played
        (["d2d4"], "g8f6", 1),
    ])
    write_book(tmp_path / "other.bin", [(["e2e4"], "e7e5", 1)])
    done = subprocess.run([*CHESPEL, "build", "prog.chp", "--book", "book.bin", "-o", "eng"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    engine = [sys.executable, str(tmp_path / "eng"), "--uci"]
    out = uci(engine, ["uci", "position startpos", "go depth 1",
                       "position startpos moves e2e4", "go depth 1",
                       "position startpos moves d2d4", "go depth 1",
                       f"setoption name BookFile value {tmp_path / 'other.bin'}",
                       "position startpos moves e2e4", "go depth 1",
                       "setoption name BookFile value <empty>",
                       "position startpos moves e2e4", "go depth 1",
                       "setoption name OwnBook value false",
                       "position startpos moves d2d4", "go depth 1",
                       "setoption name BookFile value /nonexistent.bin"])
    assert "option name BookFile type string default <empty>" in out
    best = [line for line in out if line.startswith("bestmove")]
    assert best[:5] == ["bestmove e2e4", "bestmove e7e6", "bestmove g8f6", "bestmove e7e5",
                        "bestmove e7e6"]
    assert len(best) == 6  # the last one searched: OwnBook false turns every book off
    assert sum(line.startswith("info string book move") for line in out) == 4
    assert "info string book move from the built-in book (weight 30)" in out
    assert f"info string book move from {tmp_path / 'other.bin'} (weight 1)" in out
    assert out[-1].startswith("info string error: cannot read /nonexistent.bin")


def test_build_refuses_a_file_that_is_not_a_book(tmp_path: Path) -> None:
    (tmp_path / "prog.chp").write_text(PROGRAM)
    (tmp_path / "bad.bin").write_bytes(b"x" * 17)
    done = subprocess.run([*CHESPEL, "build", "prog.chp", "--book", "bad.bin"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr == ("chespel: error: bad.bin is not a Polyglot book "
                           "(its size is not a multiple of 16)\n")
    assert not (tmp_path / "prog").exists()
