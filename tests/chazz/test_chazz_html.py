"""HTML export (spec §6): the exact page, written atomically with a normal file mode."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from esochess.chazz.html import export_html
from esochess.chazz.loader import parse_program

PAGE = """<!DOCTYPE html>
<html>
<head>
<meta charset="UTF-8">
<title>Chess Board</title>
<style>
table { border-collapse: collapse; }
td { width: 60px; height: 60px; text-align: center; vertical-align: middle; font-size: 48px; }
.white { background-color: #eeeed2; }
.black { background-color: #769656; }
</style>
</head>
<body>
<table>
<tr>
<td class="white">&#9817;</td>
<td class="black">&#9816;</td>
<td class="white">&#9815;</td>
<td class="black">&#9814;</td>
<td class="white">&#9813;</td>
<td class="black">&#9812;</td>
</tr>
<tr>
<td class="black">&#9823;</td>
<td class="white">&#9822;</td>
<td class="black">&#9821;</td>
<td class="white">&#9820;</td>
<td class="black">&#9819;</td>
<td class="white">&#9818;</td>
</tr>
<tr>
<td class="white"></td>
<td class="black"></td>
<td class="white"></td>
<td class="black"></td>
<td class="white"></td>
<td class="black"></td>
</tr>
</table>
</body>
</html>
"""


def test_every_piece_entity_and_colour_byte_exact(tmp_path: Path) -> None:
    target = tmp_path / "board.html"
    export_html(parse_program(b"PNBRQK/pnbrqk/1"), target)
    assert target.read_bytes() == PAGE.encode()


def test_an_empty_board_is_an_empty_table(tmp_path: Path) -> None:
    target = tmp_path / "empty.html"
    export_html(parse_program(b" w"), target)
    assert b"<table>\n</table>\n</body>\n</html>\n" in target.read_bytes()


def test_replaces_atomically_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "board.html"
    target.write_text("old")
    export_html(parse_program(b"K"), target)
    assert "&#9812;" in target.read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["board.html"]


def test_the_page_gets_the_mode_of_a_plain_new_file(tmp_path: Path) -> None:
    target = tmp_path / "board.html"
    old = os.umask(0o022)
    try:
        export_html(parse_program(b"K"), target)
    finally:
        os.umask(old)
    assert stat.S_IMODE(target.stat().st_mode) == 0o644


def test_an_unwritable_place_raises_oserror(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        export_html(parse_program(b"K"), tmp_path / "missing" / "board.html")
