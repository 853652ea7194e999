"""Output is exactly python-chess's FileExporter text of each game (spec §6.1), on real files
with variations, comments, NAGs, FEN starts and Latin-1 bytes."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import chess.pgn
import pytest
from click.testing import CliRunner
from pgn_data import SHIPPED as DATA

from esochess.cqlvars.cli import main


def exported(path: Path) -> str:
    """Every game of the file through GameBuilder + FileExporter, concatenated."""
    out = io.StringIO()
    with open(path, encoding="utf-8", errors="surrogateescape") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            game.accept(chess.pgn.FileExporter(out, columns=80))
    return out.getvalue()


@pytest.mark.parametrize(
    ("name", "header"),
    [
        ("studies-lichess-thijscom.pgn", "silent variations"),
        ("studies-lichess-thijscom.pgn", "silent"),
        ("problems-mate-in-2-3-4.pgn", "silent"),
    ],
)
def test_silent_output_is_the_python_chess_export(tmp_path: Path, name: str, header: str) -> None:
    source = DATA / name
    if not source.exists():
        pytest.skip(f"{name} not present")
    (tmp_path / "q.cql").write_text(f"cql({header}) initial")
    with contextlib.chdir(tmp_path):
        result = CliRunner().invoke(main, ["-j", "1", "-o", "out.pgn", "q.cql", str(source)])
    assert result.exit_code == 0, result.stderr
    written = (tmp_path / "out.pgn").read_bytes()
    assert written == exported(source).encode("utf-8", errors="surrogateescape")
