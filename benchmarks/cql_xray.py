"""The x-ray query (three nested piece loops around a ray) on the shipped lichess file.

Run from the repo root: `python benchmarks/cql_xray.py [--jobs N] [--literal]`. `--literal`
writes the loop bodies so that they cannot be fused (docs/performance.md, "Nested loops
over ray"), which shows what the loops cost when evaluated one iteration at a time. Prints
the CPU time of the `cql` process and its workers, the wall time and the load average.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LICHESS = ROOT / "examples" / "pgn" / "lichess-carlsen-2018.pgn"
FUSED = "cql()\npiece Attacker in [QRB]\n  piece Front in a\n    piece Behind in a\n" \
        "      ray (Attacker Front Behind)\n"
LITERAL = "cql()\npiece Attacker in [QRB]\n  { piece Front in a\n" \
          "      { piece Behind in a { ray (Attacker Front Behind) true } true } true }\n"


def main() -> int:
    """Run the query once and print the measurements."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--literal", action="store_true", help="loops that cannot be fused")
    parser.add_argument("pgn", nargs="?", default=str(LICHESS))
    args = parser.parse_args()
    cql = Path(sys.executable).with_name("cql")
    with tempfile.TemporaryDirectory() as tmp:
        query = Path(tmp) / "xray.cql"
        query.write_text(LITERAL if args.literal else FUSED, encoding="utf-8")
        load_before = os.getloadavg()[0]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.monotonic()
        subprocess.run(
            [str(cql), "--jobs", str(args.jobs), "-o", str(Path(tmp) / "out.pgn"), str(query),
             args.pgn],
            check=True,
        )
        wall = time.monotonic() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    print(f"cpu {cpu:.2f} s  wall {wall:.2f} s  load {load_before:.2f} -> {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
