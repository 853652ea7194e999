"""Every language front end rejects a source file that is not UTF-8 with a positioned error."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
LATIN1 = b"// caf\xe9\n"


@pytest.mark.parametrize(
    ("argv", "name"),
    [(["cql"], "q.cql"), (["chespel", "check"], "e.chp"), (["gambit", "check"], "g.gmb")],
)
def test_a_latin1_byte_is_a_positioned_error(tmp_path: Path, argv: list[str], name: str) -> None:
    (tmp_path / name).write_bytes(LATIN1)
    (tmp_path / "g.pgn").write_text("1. e4 *\n")
    extra = ["g.pgn"] if argv == ["cql"] else []
    done = subprocess.run(
        [str(BIN / argv[0]), *argv[1:], name, *extra],
        cwd=tmp_path, capture_output=True, text=True, errors="replace", check=False,
    )
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"{name}:1:7: error: the file is not UTF-8 text (byte 0xe9)",
        "// caf\ufffd",
        "      ^",
    ]
    assert "Traceback" not in done.stderr
