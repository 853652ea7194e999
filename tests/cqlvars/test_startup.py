"""What `cql` loads at start-up: not the modules a query run never uses (no timing here;
docs/performance.md has the CPU figures), and the stand-ins behave as the real modules."""

from __future__ import annotations

import importlib.metadata
import io
import subprocess
import sys
from pathlib import Path

import chess.pgn

import esochess.cqlvars

#: Modules an ordinary query run does not need at start-up.
NOT_AT_START_UP = (
    "asyncio",
    "ssl",
    "importlib.metadata",
    "xml.etree.ElementTree",
    "esochess.fen.render",
    "esochess.fen.svgboard",
    "esochess.fen.grid",
    "zstandard",  # and the other decompressors: loaded with the first compressed file
    "re2",  # loaded by the first `~~`
    "difflib",  # only for "did you mean"
    "importlib.resources",  # the grammar tables are read with pkgutil
)
#: Modules a whole run of a query without `~~` over an index (or a plain PGN file) does
#: not load either.
NOT_IN_A_RUN = ("zstandard", "re2", "importlib.resources", "zipfile", "asyncio")


def test_a_run_leaves_out_what_it_does_not_use(tmp_path: Path) -> None:
    (tmp_path / "q.cql").write_text("cql() move promote [RBN]\n")
    (tmp_path / "g.pgn").write_text("1. e4 e5 *\n")
    code = (
        "import sys\n"
        "from esochess.cqlvars.cli import main\n"
        "try:\n"
        "    main(['--jobs', '1', '--output', 'out.pgn', 'q.cql', 'g.pgn'])\n"
        "except SystemExit:\n"
        "    pass\n"
        f"print('loaded:', *(m for m in {NOT_IN_A_RUN!r} if m in sys.modules))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=tmp_path)
    assert "loaded:" in run.stdout.splitlines(), run.stdout


def test_cli_import_leaves_out_what_a_run_does_not_use() -> None:
    code = (
        "import sys, esochess.cqlvars.cli\n"
        f"print(' '.join(m for m in {NOT_AT_START_UP!r} if m in sys.modules))\n"
        "print(type(sys.modules['chess.engine']).__name__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert out == ["", "_Deferred"]


def test_stand_ins_load_the_real_modules_on_use() -> None:
    game = chess.pgn.read_game(io.StringIO("1. e4 { [%eval 0.30] [%cal Ge2e4] } e5 *"))
    assert game is not None
    node = game.next()
    assert node is not None
    score = node.eval()
    assert score is not None and score.white() == chess.engine.Cp(30)
    assert [(a.tail, a.head) for a in node.arrows()] == [(chess.E2, chess.E4)]
    from chess.engine import Mate

    assert Mate(1).mate() == 1


def test_version_is_the_installed_one() -> None:
    assert esochess.cqlvars.__version__ == importlib.metadata.version("esochess-cqlvars")
