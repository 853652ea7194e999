"""`chespel eval --cost`: how long each rule of a program takes per evaluation (issue 17),
so that a program's author sees which rules make the engine slow.

Each rule is timed on its own (CPU time, a fresh position context per call, so a rule pays
for the attack sets it asks for), over a set of positions and both perspectives of a `sym`
rule, as the search calls it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import chess

from esochess.chespel.runtime.evaluation import Program
from esochess.chespel.runtime.positions import placement_flags

SAMPLE = (
    chess.STARTING_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r1bqk1nr/pppp1ppp/2n5/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQ1RK1 b kq - 5 4",
    "r1bq1rk1/pp2bppp/2n1pn2/2pp4/2PP4/2N1PN2/PP2BPPP/R1BQ1RK1 w - - 0 8",
    "r1b1kb1r/1pqp1ppp/p1n1pn2/8/3NP3/2N1B3/PPP1BPPP/R2QK2R w KQkq - 4 8",
    "8/5pk1/6p1/3P4/2K5/6P1/8/8 w - - 0 40",
)
"""Default positions: the start, four middlegames and a pawn endgame."""


@dataclass(frozen=True)
class RuleCost:
    """One rule's average CPU time per evaluation, in microseconds."""

    name: str
    line: int
    micros: float


def rule_costs(program: Program, boards: list[chess.Board], min_seconds: float = 0.2,
               ) -> tuple[list[RuleCost], float]:
    """Each rule's cost and the whole evaluation's (µs), measured over `boards`."""
    costs = []
    for function_name, (line, _, name, sym) in program.rule_positions.items():
        function = program.rule_functions[function_name]
        calls, used = 0, 0.0
        while used < min_seconds or not calls:
            start = time.process_time()
            for board in boards:
                flags = placement_flags(board)
                function(program.context(board, flags), board.turn)
                if sym:
                    function(program.context(board, flags), not board.turn)
            used += time.process_time() - start
            calls += len(boards)
        costs.append(RuleCost(name, line, used / calls * 1e6))
    calls, used = 0, 0.0
    while used < min_seconds or not calls:
        start = time.process_time()
        for board in boards:
            program.rule_score(board, board.turn, placement_flags(board))
        used += time.process_time() - start
        calls += len(boards)
    return costs, used / calls * 1e6


def cost_report(costs: list[RuleCost], total: float, positions: int) -> list[str]:
    """The lines `chespel eval --cost` prints, most expensive rule first."""
    lines = [f"CPU time per evaluation over {positions} position(s), each rule on its own "
             "(both sides of a sym rule):"]
    width = max((len(cost.name) for cost in costs), default=4)
    for cost in sorted(costs, key=lambda c: (-c.micros, c.line)):
        share = cost.micros / total * 100 if total else 0.0
        lines.append(f"  {cost.name:<{width}}  line {cost.line:<4}  {cost.micros:8.1f} µs  "
                     f"{share:5.1f} %")
    lines.append(f"  {'whole evaluation':<{width}}             {total:8.1f} µs")
    return lines
