"""End-to-end `gambit check` (§14.3, §17.38)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "gambit"
GAMBIT = Path(sys.executable).with_name("gambit")
GAMES = sorted(p.name for p in EXAMPLES.glob("*.gmb"))


def check(path: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run `gambit check PATH`."""
    return subprocess.run([str(GAMBIT), "check", path], capture_output=True, text=True, cwd=cwd,
                          timeout=120)  # fmt: skip


@pytest.mark.parametrize("game", GAMES)
def test_example_games_check_clean(game: str) -> None:
    r = check(game, EXAMPLES)
    assert r.returncode == 0, r.stderr
    assert r.stdout == ""


def test_check_reports_every_error_sorted(tmp_path: Path) -> None:
    (tmp_path / "prog.gmb").write_text(
        'main() {\n    print("never printed")\n    y = 2 * "b"\n}\n'
        'unused() {\n    x = 1 + "a"\n}\n'
    )
    r = check("prog.gmb", tmp_path)
    assert r.returncode == 2
    assert r.stdout == ""
    headers = [line for line in r.stderr.splitlines() if ": error: " in line]
    assert headers == [
        "prog.gmb:3:11: error: operator '*' cannot be applied to int and str",
        "prog.gmb:6:11: error: operator '+' cannot be applied to int and str",
    ]


def test_check_success_prints_nothing(tmp_path: Path) -> None:
    (tmp_path / "ok.gmb").write_text("main() { }\n")
    r = check("ok.gmb", tmp_path)
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")


def test_missing_main(tmp_path: Path) -> None:
    (tmp_path / "nomain.gmb").write_text("entity Card\n")
    r = check("nomain.gmb", tmp_path)
    assert r.returncode == 2
    assert "no 'main' procedure" in r.stderr
