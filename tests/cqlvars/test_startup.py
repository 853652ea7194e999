"""What `cql` loads at start-up: not the modules a query run never uses (no timing here;
docs/performance.md has the CPU figures), and the stand-ins behave as the real modules."""

from __future__ import annotations

import importlib.metadata
import io
import subprocess
import sys

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
)


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
