"""Helpers for the language tests: run Gambit source through the real `gambit` CLI."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path

from click.testing import CliRunner

from esochess.gambit.cli import main
from esochess.gambit.frontend import compile_source
from esochess.gambit.program import Program

DECK = """\
enum Suit { CLUBS, DIAMONDS, HEARTS, SPADES }
enum Rank { TWO, THREE, FOUR, FIVE, SIX, SEVEN, EIGHT, NINE, TEN, JACK, QUEEN, KING, ACE }
entity Card
fixed Suit [Card suit]
fixed Rank [Card rank]
"""

DECK_MAIN = """\
    for s in Suit {
        for r in Rank: Card(suit: s, rank: r)
    }
"""

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "gambit"


@dataclass
class Outcome:
    """How one command ended."""

    exit_code: int
    stdout: str
    stderr: str

    @property
    def lines(self) -> list[str]:
        """Standard output split into lines."""
        return self.stdout.splitlines()

    @property
    def first_error(self) -> str:
        """The first line of standard error."""
        return self.stderr.splitlines()[0] if self.stderr else ""


def gambit(*args: str, input: str | None = None) -> Outcome:
    """Run the `gambit` click group in process."""
    result = CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)
    return Outcome(result.exit_code, result.stdout, result.stderr)


def run_source(tmp_path: Path, source: str, *args: str, input: str | None = None) -> Outcome:
    """Save `source` as prog.gmb and `gambit run` it (random players, seed 1 by default)."""
    (tmp_path / "prog.gmb").write_text(source, encoding="utf-8")
    extra = list(args) or ["--players", "random", "--seed", "1"]
    with contextlib.chdir(tmp_path):
        return gambit("run", "prog.gmb", *extra, input=input)


def check_source(tmp_path: Path, source: str) -> Outcome:
    """Save `source` as prog.gmb and `gambit check` it."""
    (tmp_path / "prog.gmb").write_text(source, encoding="utf-8")
    with contextlib.chdir(tmp_path):
        return gambit("check", "prog.gmb")


def compiled(source: str, path: str = "prog.gmb") -> Program:
    """Compile source that must be free of errors."""
    program, diags = compile_source(source, path)
    errors = [d for d in diags if d.severity != "warning"]
    assert program is not None, [d.header() for d in errors]
    return program


def errors_of(source: str, path: str = "prog.gmb") -> list[str]:
    """The headers of the compile errors of `source` (no warnings)."""
    _, diags = compile_source(source, path)
    return [d.header() for d in diags if d.severity != "warning"]


def run_both(program: str, tmp_path: Path, *args: str) -> list[tuple[int, str, str]]:
    """`gambit run` of a program (written to tmp_path/p.gmb) on both engines: exit code,
    output and error output of each."""
    path = tmp_path / "p.gmb"
    path.write_text(program, encoding="utf-8")
    seen = []
    for engine in ("compiled", "interpreter"):
        r = CliRunner().invoke(main, ["run", str(path), "--engine", engine, *args])
        seen.append((r.exit_code, r.stdout, r.stderr))
    return seen
