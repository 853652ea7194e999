"""Helpers shared by the chespel back-end tests: compile a program and talk to its REPL."""

from __future__ import annotations

import io
import random
from pathlib import Path

import chess

from esochess.chespel.codegen import compile_program, generate
from esochess.chespel.frontend import compile_source
from esochess.chespel.runtime.evaluation import Program
from esochess.chespel.runtime.main import run_repl

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "chespel"

S = "startpos"
E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
G1 = "r1bqk1nr/pppp1ppp/2n5/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQ1RK1 b kq - 5 4"
G2 = "rn2kbnr/pp2pppp/2p5/q4b2/3P4/2N2N2/PPP2PPP/R1BQKB1R w KQkq - 2 6"
G3 = "4r1k1/pp3ppp/1q6/8/4NP2/2N2P2/PPP3PP/3R2K1 w - - 0 20"
M1 = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4"
MT = "r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4"
ST = "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"
KN = "8/8/4k3/8/8/3NK3/8/8 w - - 0 1"
PW = "4k3/pp6/8/8/8/8/PPP5/4K3 w - - 0 1"
PB = "4k3/pp6/8/8/8/8/PPP5/4K3 b - - 0 1"
KW = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"

START_BOARD = [
    "8 r n b q k b n r",
    "7 p p p p p p p p",
    "6 . . . . . . . .",
    "5 . . . . . . . .",
    "4 . . . . . . . .",
    "3 . . . . . . . .",
    "2 P P P P P P P P",
    "1 R N B Q K B N R",
    "  a b c d e f g h",
]


def source_of(text: str) -> str:
    """A §13 inline program: `module evaluation` is added when it has no module header."""
    has_header = any(line.startswith("module") for line in text.splitlines())
    return text if has_header else "module evaluation\n" + text


def program(text: str, path: str = "t.chp") -> Program:
    """Compile program text (which must have no errors) into a run-time Program."""
    result = compile_source(path, source_of(text))
    assert result.ok, [d.message for d in result.diagnostics]
    return compile_program(result)


def generated(text: str, path: str = "t.chp") -> str:
    """The generated Python source of program text."""
    result = compile_source(path, source_of(text))
    assert result.ok, [d.message for d in result.diagnostics]
    return generate(result)


SPEC_POSITIONAL = Path(__file__).resolve().parent / "programs" / "spec_positional.chp"
"""The specification's positional program (its conformance checks give its values)."""


def example(name: str) -> Program:
    """Compile examples/chespel/NAME (or SPEC_POSITIONAL for `spec_positional.chp`)."""
    path = SPEC_POSITIONAL if name == SPEC_POSITIONAL.name else EXAMPLES / name
    result = compile_source(f"examples/{name}", path.read_text())
    assert result.ok
    return compile_program(result)


def repl(prog: Program, *lines: str) -> list[str]:
    """Feed input lines to the REPL of `prog`; return the output lines."""
    out = io.StringIO()
    status = run_repl(prog, io.StringIO("".join(line + "\n" for line in lines)), out)
    assert status == 0
    return out.getvalue().splitlines()


def score(prog: Program, fen: str) -> str:
    """The score line of `eval FEN`."""
    lines = repl(prog, f"eval {fen}")
    assert len(lines) == 10, lines
    return lines[9]


def verbose(prog: Program, fen: str) -> list[str]:
    """The lines after the board of `eval v FEN`."""
    return repl(prog, f"eval v {fen}")[9:]


def random_walk(rng: random.Random, max_plies: int = 60) -> chess.Board:
    """The start position after fewer than `max_plies` random legal moves (drawn from `rng`)."""
    board = chess.Board()
    for _ in range(rng.randrange(0, max_plies)):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(rng.choice(moves))
    return board
