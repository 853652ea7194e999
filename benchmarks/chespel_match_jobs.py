"""Games per hour of `chespel match --jobs N` against `--jobs 1`, on the same fixed-depth match.

Both runs play the same games (fixed depth, so the results must be identical, which the
script checks); the ratio is wall-clock games per hour, so it depends on how many cores are
free: the load average before and after each run is printed with it. Usage:

    python benchmarks/chespel_match_jobs.py [GAMES] [DEPTH] [JOBS]
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def run(games: int, depth: int, jobs: int) -> tuple[float, str]:
    """Wall seconds and the output of one match."""
    command = [sys.executable, "-m", "esochess.chespel", "match",
               "examples/chespel/material.chp", "examples/chespel/positional.chp",
               "--games", str(games), "--depth", str(depth), "--max-plies", "100",
               "--jobs", str(jobs)]
    began = time.monotonic()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True)
    return time.monotonic() - began, done.stdout


def main() -> None:
    games, depth, jobs = (int(x) for x in (sys.argv[1:] + ["12", "2", "2"][len(sys.argv) - 1:]))
    results = {}
    for n in (1, jobs):
        before = load()
        seconds, output = run(games, depth, n)
        results[n] = (seconds, output)
        print(f"--jobs {n}: {games} games in {seconds:.1f} s = {3600 * games / seconds:.0f} "
              f"games/hour (load before {before}, after {load()})")
    assert results[1][1] == results[jobs][1], "fixed-depth results differ"
    print(f"ratio --jobs {jobs} / --jobs 1: {results[1][0] / results[jobs][0]:.2f}x "
          "(identical games)")


if __name__ == "__main__":
    main()
