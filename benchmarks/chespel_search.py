"""Chespel search speed: nodes per CPU-second and completed depth.

For the material and positional example programs, each of five standard middlegame
positions is searched until 4 CPU-seconds have been used; the script reports the depth
completed within 1 and within 4 CPU-seconds and the nodes per CPU-second. The yardstick,
measured in the same run, is a plain python-chess perft (legal move generation with
push/pop, no evaluation): the ratio says how close the engine is to bare move generation.

Targets: material >= 20 000 nodes/s and depth >= 5 within 4 s from the start
position; positional >= 8 000 nodes/s.

The strength work added "nodes to depth 5": each position searched to depth 5 from a cleared
state (capped at --cap CPU-seconds), nodes and CPU-seconds summed over the set. To compare
with an older checkout, run the same script with PYTHONPATH pointing at that checkout's
packages (the script only uses Searcher, Limits and the example programs).

Usage: python benchmarks/chespel_search.py [--seconds 4] [--quick] [--cap 120]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import chess

from esochess.chespel.codegen import compile_program
from esochess.chespel.frontend import compile_source
from esochess.chespel.runtime.evaluation import Program
from esochess.chespel.runtime.search import Iteration, Limits, Searcher

ROOT = Path(__file__).resolve().parents[1]
POSITIONS = {
    "start": chess.STARTING_FEN,
    "kiwipete": "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "italian": "r1bqk1nr/pppp1ppp/2n5/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQ1RK1 b kq - 5 4",
    "qgd": "r1bq1rk1/pp2bppp/2n1pn2/2pp4/2PP4/2N1PN2/PP2BPPP/R1BQ1RK1 w - - 0 8",
    "sicilian": "r1b1kb1r/1pqp1ppp/p1n1pn2/8/3NP3/2N1B3/PPP1BPPP/R2QK2R w KQkq - 4 8",
}


class CpuDeadline:
    """Duck-types threading.Event for the searcher: set once the process CPU time is up."""

    def __init__(self, seconds: float) -> None:
        self.end = time.process_time() + seconds

    def is_set(self) -> bool:
        return time.process_time() >= self.end


def load(name: str, directory: Path = ROOT / "examples" / "chespel") -> Program:
    path = directory / name
    result = compile_source(str(path), path.read_text())
    assert result.ok
    return compile_program(result)


def perft_rate(seconds: float) -> float:
    """Leaf-visits per CPU-second of a plain python-chess perft from the start position."""
    board = chess.Board(POSITIONS["kiwipete"])
    nodes = 0

    def perft(depth: int) -> None:
        nonlocal nodes
        for move in board.generate_legal_moves():
            nodes += 1
            if depth > 1:
                board.push(move)
                perft(depth - 1)
                board.pop()

    start = time.process_time()
    while time.process_time() - start < seconds:
        perft(2)
    return nodes / (time.process_time() - start)


def measure(program: Program, fen: str, seconds: float) -> tuple[int, int, float]:
    """(depth within 1 s, depth within `seconds`, nodes per CPU-second)."""
    searcher = Searcher(program)
    marks: list[tuple[float, Iteration]] = []
    start = time.process_time()

    def record(iteration: Iteration) -> None:
        marks.append((time.process_time() - start, iteration))

    result = searcher.search(chess.Board(fen), 0, [], Limits(infinite=True),
                             stop=CpuDeadline(seconds),  # type: ignore[arg-type]
                             on_iteration=record)
    used = time.process_time() - start
    within_one = max((it.depth for t, it in marks if t <= 1.0), default=0)
    within_all = max((it.depth for t, it in marks if t <= seconds), default=0)
    return within_one, within_all, result.nodes / used


def to_depth(program: Program, fen: str, depth: int, cap: float) -> tuple[int, float, bool]:
    """(nodes, CPU-seconds, completed) of a fixed-depth search from a cleared state."""
    searcher = Searcher(program)
    start = time.process_time()
    result = searcher.search(chess.Board(fen), 0, [], Limits(depth=depth),
                             stop=CpuDeadline(cap))  # type: ignore[arg-type]
    return result.nodes, time.process_time() - start, result.depth >= depth


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--quick", action="store_true", help="1 CPU-second per position")
    parser.add_argument("--cap", type=float, default=120.0,
                        help="CPU-seconds allowed per position for the depth-5 search")
    parser.add_argument("--programs", type=Path, default=ROOT / "examples" / "chespel",
                        help="directory holding material.chp and positional.chp")
    args = parser.parse_args()
    seconds = 1.0 if args.quick else args.seconds
    yardstick = perft_rate(2.0)
    print(f"yardstick: python-chess perft {yardstick:,.0f} nodes/CPU-s")
    targets = {"material.chp": 20_000, "positional.chp": 8_000}
    for name, target in targets.items():
        program = load(name, args.programs)
        rates = []
        print(f"{name} (target {target:,} nodes/s)")
        for label, fen in POSITIONS.items():
            one, full, rate = measure(program, fen, seconds)
            rates.append(rate)
            print(f"  {label:9s} depth@1s {one}  depth@{seconds:g}s {full}  "
                  f"{rate:8,.0f} nodes/s  = {rate / yardstick:.3f} x perft  "
                  f"= {rate / target:.2f} x target")
        mean = statistics.mean(rates)
        print(f"  mean {mean:,.0f} nodes/s = {mean / yardstick:.3f} x perft = "
              f"{mean / target:.2f} x target")
        total_nodes, total_cpu = 0, 0.0
        for label, fen in POSITIONS.items():
            nodes, cpu, done = to_depth(program, fen, 5, args.cap)
            total_nodes += nodes
            total_cpu += cpu
            print(f"  {label:9s} depth 5: {nodes:9,} nodes {cpu:7.2f} CPU-s"
                  + ("" if done else f"  (not reached within {args.cap:g} CPU-s)"))
        print(f"  nodes to depth 5, all positions: {total_nodes:,} in {total_cpu:.1f} CPU-s")


if __name__ == "__main__":
    main()
