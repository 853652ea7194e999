"""Every query in examples/cql runs over real games without error: a slice of the shipped
lichess file always, the whole masters file when it can be found (slow)."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from click.testing import CliRunner
from pgn_data import LICHESS, MASTERS, needs_masters

from esochess.cqlvars.cli import main

ROOT = Path(__file__).resolve().parents[2]

EXAMPLES = sorted((ROOT / "examples" / "cql").glob("*.cql"))


def _run(tmp_path: Path, query: Path, extra: list[str], games: Path) -> str:
    with contextlib.chdir(tmp_path):
        result = CliRunner().invoke(main, ["-o", "out.pgn", *extra, str(query), str(games)])
    assert result.exit_code == 0, result.output + result.stderr
    assert "error" not in result.stderr
    assert (tmp_path / "out.pgn").exists()
    return result.stdout


def test_there_are_at_least_twenty_examples() -> None:
    assert len(EXAMPLES) >= 20
    for query in EXAMPLES:
        assert query.read_text().startswith("//"), f"{query.name} needs a comment saying its use"


@pytest.mark.parametrize("query", EXAMPLES, ids=[q.stem for q in EXAMPLES])
def test_example_runs_on_a_slice(tmp_path: Path, query: Path) -> None:
    out = _run(tmp_path, query, ["--gamenumber", "1-40"], LICHESS)
    assert "cql: 40 games read" in out


@pytest.mark.slow
@needs_masters
@pytest.mark.parametrize("query", EXAMPLES, ids=[q.stem for q in EXAMPLES])
def test_example_runs_on_the_whole_file(tmp_path: Path, query: Path) -> None:
    assert MASTERS is not None
    out = _run(tmp_path, query, [], MASTERS)
    assert "cql: 12902 games read" in out
