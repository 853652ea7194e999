"""`chespel ablate` end to end: a table with an Elo and interval per rule."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def ablate(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "esochess.chespel", "ablate", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)


def test_ablate_prints_a_row_per_rule() -> None:
    done = ablate("examples/chespel/positional.chp", "--games", "2", "--depth", "1",
                  "--max-plies", "16", "--jobs", "2", "--rule", "material", "--rule", "pieces")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split() == ["rule", "games", "W-L-D", "Elo", "+/-", "LOS"]
    assert [line.split()[0] for line in lines[1:]] == ["material", "pieces"]
    for line in lines[1:]:
        assert re.fullmatch(r"\w+ +2 +\d-\d-\d +([+-]\d+\.\d|[+-]inf) +(\d+\.\d|inf) +\d+\.\d%",
                            line), line
    assert done.stderr.splitlines() == ["rule material: 2 games", "rule pieces: 2 games"]


def test_ablate_names_an_unknown_rule() -> None:
    done = ablate("examples/chespel/positional.chp", "--rule", "piece")
    assert done.returncode == 2
    assert done.stderr.startswith(
        "chespel: error: examples/chespel/positional.chp has no rule 'piece'; did you mean")
