"""HTML export (spec §6): the exact page, written atomically with a normal file mode."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from esochess.chazz.html import export_html
from esochess.chazz.loader import parse_program


def test_every_piece_has_its_entity_and_squares_alternate(tmp_path: Path) -> None:
    # The whole page, byte for byte, is checked in tests/e2e/test_chazz_acceptance.py.
    target = tmp_path / "board.html"
    export_html(parse_program(b"PNBRQK/pnbrqk/1"), target)
    cells = [line for line in target.read_text().splitlines() if line.startswith("<td")]
    assert cells[:3] == [
        '<td class="white">&#9817;</td>',
        '<td class="black">&#9816;</td>',
        '<td class="white">&#9815;</td>',
    ]
    entities = "".join(cell.split(">")[1].split("<")[0] for cell in cells)
    assert entities == "".join(f"&#{n};" for n in [*range(9817, 9811, -1), *range(9823, 9817, -1)])
    assert cells[6] == '<td class="black">&#9823;</td>'  # row 1 starts on a dark square
    assert cells[12:] == [f'<td class="{c}"></td>' for c in ["white", "black"] * 3]


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
