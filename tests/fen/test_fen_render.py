"""Board renderers: the Chespel ascii layout, unicode, the CHAZZ HTML page, SVG."""

from __future__ import annotations

import re

import chess

from esochess.fen import (
    parse_fen,
    parse_grid,
    render_ascii,
    render_html,
    render_page,
    render_svg,
    render_unicode,
)
from esochess.fen.svgboard import file_label

AFTER_E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"

# specs/chespel.md §10.4, verbatim.
CHESPEL_LAYOUT = """\
8 r n b q k b n r
7 p p p p p p p p
6 . . . . . . . .
5 . . . . . . . .
4 . . . . P . . .
3 . . . . . . . .
2 P P P P . P P P
1 R N B Q K B N R
  a b c d e f g h"""

# specs/chazz.md §6, for the grid `P1/1k`.
CHAZZ_HTML = """\
<!DOCTYPE html>
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
<td class="black"></td>
</tr>
<tr>
<td class="black"></td>
<td class="white">&#9818;</td>
</tr>
</table>
</body>
</html>
"""


def test_chess_board_ascii_is_the_chespel_layout() -> None:
    assert render_ascii(parse_fen(AFTER_E4)) == CHESPEL_LAYOUT


def test_grid_ascii_one_line_per_row() -> None:
    assert render_ascii(parse_grid("P2/1k")) == "P . .\n. k ."


def test_unicode_glyphs() -> None:
    text = render_unicode(chess.Board())
    assert text.splitlines()[0] == "8 ♜ ♞ ♝ ♛ ♚ ♝ ♞ ♜"
    assert text.splitlines()[4] == "4 · · · · · · · ·"


def test_html_is_the_chazz_export_byte_exact() -> None:
    assert render_html(parse_grid("P1/1k")) == CHAZZ_HTML


def test_html_of_any_size_has_one_cell_per_square() -> None:
    page = render_html(parse_grid("20/3q"))
    assert page.count("<td ") == 40 and page.count("<tr>") == 2


def test_html_of_chess_board_has_rank_8_first() -> None:
    page = render_html(chess.Board())
    cells = [line for line in page.splitlines() if line.startswith("<td")]
    assert len(cells) == 64
    assert cells[0] == '<td class="white">&#9820;</td>'  # a8 is light, black rook
    assert cells[63] == '<td class="white">&#9814;</td>'  # h1 is light, white rook


def test_svg() -> None:
    board_svg = render_svg(chess.Board())
    assert board_svg.startswith("<svg") and "White to move" in board_svg
    grid_svg = render_svg(parse_grid("3/1Q1 b"))
    # six squares and the side-to-move strip; the queen is python-chess's drawing
    assert grid_svg.count("<rect") == 7
    assert '<g id="white-queen"' in grid_svg and 'href="#white-queen"' in grid_svg
    assert "Black to move" in grid_svg


def test_an_eight_by_eight_grid_is_labelled_like_a_chess_board() -> None:
    grid_svg = render_svg(parse_grid("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"))
    labels = re.findall(r">([a-z]+|\d+)</text>", grid_svg)
    assert labels == list("abcdefgh87654321")
    board_labels = re.findall(r">([a-z]+|\d+)</text>", render_svg(chess.Board()))
    assert board_labels == labels  # the same coordinates as on a chess position


def test_file_labels_go_on_past_z() -> None:
    assert [file_label(i) for i in (0, 25, 26, 27, 701, 702)] == [
        "a", "z", "aa", "ab", "zz", "aaa"
    ]


def test_the_html_picture_page_shows_the_svg() -> None:
    page = render_page(chess.Board())
    assert page.startswith("<!DOCTYPE html>") and page.count("<svg") == 2  # outer + board
    assert page.endswith("</html>\n")


def test_svg_marks_a_move_and_fills_squares() -> None:
    board = chess.Board()
    move = chess.Move.from_uci("e2e4")
    board.push(move)
    svg = render_svg(board, lastmove=move, fill={chess.E4: "#cc0000cc"})
    assert "lastmove" in svg and "#cc0000" in svg and "Black to move" in svg
