"""Gambit playout speed of both engines against hand-written pure-Python random playouts.

Runs, in one process on the same machine:

* `gambit playout examples/gambit/tic-tac-toe.gmb -n N --seed 0` (session.playout, called in
  this process so that start-up is excluded and CPU time can be measured) on the compiled
  engine (the default, generated Python) and on the reference interpreter
  (`--engine interpreter`), and the same for Connect Four;
* a hand-written pure-Python random playout of the same two games (the baseline);
* the time `mcts:N` takes to choose the first move of each game, on both engines.

Both engines play the same games (the script checks that their summaries agree). It
prints playouts/s, the slowdown against the baseline and the compiled engine's speed-up.
Targets: at least 5 000 random playouts/s (CPU) on tic-tac-toe, 1 500/s on Connect Four,
`mcts:1000` first move on Connect Four within 0.5 s CPU.
Usage: python benchmarks/gambit_playouts.py [--games N] [--mcts N]

`--play WHAT` does one piece of that work and measures nothing, for an instruction
counter, whose counts do not depend on what else the machine runs:
`valgrind --tool=callgrind --callgrind-out-file=/dev/null python
benchmarks/gambit_playouts.py --play tic-tac-toe --games N` for N = 10 and N = 210 gives
the instructions of 200 playouts as the difference of the two totals (start-up and
compilation cancel out). WHAT is tic-tac-toe, connect-four (compiled engine), the same
with -baseline (the hand-written playout), or mcts (N iterations of `mcts:N` for the first
move of Connect Four).
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "gambit"

TTT_LINES = [
    (0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6),
]


def ttt_playout(rng: random.Random) -> int:
    """One random tic-tac-toe game; 1 or 2 for the winner, 0 for a draw."""
    board = [0] * 9
    player = 1
    for _ in range(9):
        free = [i for i in range(9) if board[i] == 0]
        board[free[rng.randrange(len(free))]] = player
        if any(board[a] == board[b] == board[c] == player for a, b, c in TTT_LINES):
            return player
        player = 3 - player
    return 0


def c4_playout(rng: random.Random) -> int:
    """One random Connect Four game on 7 columns x 6 rows; winner or 0 for a draw."""
    rows, cols = 6, 7
    grid = [[0] * cols for _ in range(rows)]
    height = [0] * cols
    player = 1
    for _ in range(rows * cols):
        open_cols = [c for c in range(cols) if height[c] < rows]
        c = open_cols[rng.randrange(len(open_cols))]
        r = height[c]
        grid[r][c] = player
        height[c] += 1
        for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
            n = 1
            for sign in (1, -1):
                rr, cc = r + sign * dr, c + sign * dc
                while 0 <= rr < rows and 0 <= cc < cols and grid[rr][cc] == player:
                    n += 1
                    rr += sign * dr
                    cc += sign * dc
            if n >= 4:
                return player
        player = 3 - player
    return 0


def baseline_rate(playout: Callable[[random.Random], int], games: int) -> tuple[float, float]:
    """Hand-written playouts per second: (wall clock, CPU time)."""
    rng = random.Random(0)
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(games):
        playout(rng)
    return games / (time.perf_counter() - wall), games / (time.process_time() - cpu)


def compile_game(game: Path, engine: str) -> Any:
    """The checked program of an example game, for `engine`."""
    from esochess.gambit.frontend import compile_source

    program, errors = compile_source(game.read_text(encoding="utf-8"), str(game), engine)
    if program is None:
        raise SystemExit(f"{game} does not compile: {errors[0].message}")
    return program


def gambit_rate(game: Path, games: int, engine: str) -> tuple[float, float, list[str]]:
    """`gambit playout GAME -n N --engine E` (in this process): (wall, CPU) playouts/s and
    the summary's untimed lines."""
    from esochess.gambit.session import playout

    program = compile_game(game, engine)
    wall, cpu = time.perf_counter(), time.process_time()
    stats, report = playout(program, games, 0, program.players_range[0])
    if report.exit_code != 0:
        raise SystemExit(report.message)
    rates = games / (time.perf_counter() - wall), games / (time.process_time() - cpu)
    return *rates, [line for line in stats.lines() if not line.startswith(("sec", "play"))]


def mcts_first_move_seconds(game: Path, iterations: int, engine: str) -> tuple[float, float, Any]:
    """(wall, CPU) seconds `mcts:N` needs to choose the first move of a game (seed 0), and
    the move."""
    from esochess.gambit.game import legal_options
    from esochess.gambit.machine import Machine
    from esochess.gambit.players import MctsPlayer, seat_rng
    from esochess.gambit.results import Decision

    m = Machine(compile_game(game, engine), seed=0, players=2)
    d = m.run_until_decision()
    assert isinstance(d, Decision)
    wall, cpu = time.perf_counter(), time.process_time()
    legal = legal_options(m, d)
    key = MctsPlayer(seat_rng(0, d.seat), iterations).decide(m, d, legal)
    return time.perf_counter() - wall, time.process_time() - cpu, key


ENGINES = ("compiled", "interpreter")


def _playouts(file: str) -> Callable[[int], None]:
    def play(games: int) -> None:
        from esochess.gambit.session import playout

        program = compile_game(EXAMPLES / file, "compiled")
        playout(program, games, 0, program.players_range[0])

    return play


def _baseline(game: Callable[[random.Random], int]) -> Callable[[int], None]:
    def play(games: int) -> None:
        rng = random.Random(0)
        for _ in range(games):
            game(rng)

    return play


def _mcts(iterations: int) -> None:
    mcts_first_move_seconds(EXAMPLES / "connect-four.gmb", iterations, "compiled")


PLAY: dict[str, Callable[[int], None]] = {
    "tic-tac-toe": _playouts("tic-tac-toe.gmb"),
    "connect-four": _playouts("connect-four.gmb"),
    "tic-tac-toe-baseline": _baseline(ttt_playout),
    "connect-four-baseline": _baseline(c4_playout),
    "mcts": _mcts,
}


def main() -> None:
    """Measure and print the figures."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--games", type=int, default=200, help="gambit playouts per game (default 200)")
    ap.add_argument("--mcts", type=int, default=1000, help="MCTS iterations (default 1000)")
    ap.add_argument("--play", choices=sorted(PLAY), help="only play (for an instruction counter)")
    args = ap.parse_args()
    if args.play:
        PLAY[args.play](args.games)
        return
    print(f"load average at the start: {load_average()}")
    print(f"Gambit random playouts vs hand-written Python ({args.games} Gambit games each);")
    print("rates as wall clock / CPU time of this process (the machine may be shared)")
    for title, file, base in (
        ("tic-tac-toe", "tic-tac-toe.gmb", ttt_playout),
        ("Connect Four", "connect-four.gmb", c4_playout),
    ):
        # The baseline is far faster: time enough games to get past timer noise.
        base_wall, base_cpu = baseline_rate(base, max(args.games, 20_000))
        print(f"{title:13} hand-written            {base_wall:8.0f} / {base_cpu:8.0f} per s")
        cpus, summaries = [], []
        for engine in ENGINES:
            wall, cpu, summary = gambit_rate(EXAMPLES / file, args.games, engine)
            cpus.append(cpu)
            summaries.append(summary)
            print(
                f"{title:13} {engine:11} playout {wall:8.1f} / {cpu:8.1f} per s"
                f"   slowdown {base_wall / wall:6.1f}x / {base_cpu / cpu:6.1f}x"
            )
        same = "same games" if summaries[0] == summaries[1] else "GAMES DIFFER"
        print(f"{title:13} compiled engine {cpus[0] / cpus[1]:.1f}x the interpreter (CPU; {same})")
    for title, file in (("tic-tac-toe", "tic-tac-toe.gmb"), ("Connect Four", "connect-four.gmb")):
        keys = []
        for engine in ENGINES:
            wall, cpu, key = mcts_first_move_seconds(EXAMPLES / file, args.mcts, engine)
            keys.append(key)
            print(f"{title:13} {engine:11} mcts:{args.mcts} first move "
                  f"{wall:6.2f} s wall / {cpu:6.2f} s CPU (option {key})")  # fmt: skip
        if keys[0] != keys[1]:
            print(f"{title:13} THE ENGINES CHOSE DIFFERENT MOVES")
    print(f"load average at the end: {load_average()}")


def load_average() -> str:
    """The 1, 5 and 15 minute load averages (the machine may be shared), where known."""
    try:
        return " ".join(Path("/proc/loadavg").read_text(encoding="utf-8").split()[:3])
    except OSError:
        return "unknown"


if __name__ == "__main__":
    main()
