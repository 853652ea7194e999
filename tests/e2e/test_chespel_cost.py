"""`chespel eval --cost`: the CPU time of each rule per evaluation (issue 17)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "chespel"
ROW = re.compile(r"  (\w+) +line (\d+) +(\d+\.\d) µs +(\d+\.\d) %\Z")


def chespel(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "esochess.chespel", *args], capture_output=True,
                          text=True, timeout=600)


def test_cost_lists_every_rule_with_its_line() -> None:
    done = chespel("eval", "--cost", str(EXAMPLES / "positional.chp"))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("CPU time per evaluation over 6 position(s)")
    rows = [ROW.match(line) for line in lines[1:-1]]
    assert all(rows), lines
    names = {row.group(1): int(row.group(2)) for row in rows if row}
    assert names["material"] == 5 and "kingSafety" in names and len(names) == 13
    assert re.match(r"  whole evaluation +\d+\.\d µs\Z", lines[-1])


def test_cost_over_one_position_and_errors() -> None:
    done = chespel("eval", "--cost", str(EXAMPLES / "material.chp"), "startpos")
    assert done.returncode == 0
    assert done.stdout.splitlines()[0].startswith("CPU time per evaluation over 1 position(s)")
    bad = chespel("eval", "--cost", str(EXAMPLES / "material.chp"), "8/8/8", "w", "-", "-")
    assert bad.returncode == 1 and bad.stdout.startswith("error: invalid FEN")
    missing = chespel("eval", str(EXAMPLES / "material.chp"))
    assert missing.returncode == 2 and "missing argument 'FEN...'" in missing.stderr
