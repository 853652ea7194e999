"""The HTML board of `chazz FILE true` opened in a real browser (headless Chromium):
the rendered page has one table cell per square, row by row."""

from __future__ import annotations

import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

from browser_helpers import BROWSER, BROWSER_MARKS

CHAZZ = Path(sys.executable).with_name("chazz")

pytestmark = BROWSER_MARKS


class _Cells(HTMLParser):
    """Counts <td> cells per <tr> row and remembers the glyphs they show."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self.in_cell = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "tr":
            self.rows.append([])
        elif tag == "td":
            self.rows[-1].append("")
            self.in_cell = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "td":
            self.in_cell = False

    def handle_data(self, data: str) -> None:
        if self.in_cell:
            self.rows[-1][-1] += data


def test_browser_shows_one_cell_per_square(tmp_path: Path) -> None:
    (tmp_path / "prog.fen").write_text("4PPQ1/PR6/qPR5/q1PR4/q2PR3/N2PBn2/pRN5/pbKBrRkb/K9 w\n")
    run = subprocess.run(
        [str(CHAZZ), "prog.fen", "true"], input=b"a", capture_output=True, cwd=tmp_path, timeout=60
    )
    assert run.returncode == 0
    page = tmp_path / "output_chess_board.html"
    assert BROWSER is not None
    dom = subprocess.run(
        [
            BROWSER,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--dump-dom",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert dom.returncode == 0, dom.stderr
    cells = _Cells()
    cells.feed(dom.stdout)
    # 9 ranks, padded to the widest (10 squares): the browser built every one of them.
    assert [len(row) for row in cells.rows] == [10] * 9
    assert cells.rows[0][4:7] == ["\u2659", "\u2659", "\u2655"]
    assert cells.rows[8][0] == "\u2654"
    assert sum(glyph == "" for row in cells.rows for glyph in row) == 90 - 30  # 30 pieces
