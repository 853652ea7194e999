"""`esochess fen show --format html` as a browser draws it (headless Chromium
screenshots): chess positions and CHAZZ grids get the same look, and the filled pieces
stand out on light and dark squares alike."""

from __future__ import annotations

import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from browser_helpers import BROWSER, BROWSER_MARKS

ESOCHESS = Path(sys.executable).with_name("esochess")
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
LIGHT, DARK = (0xFF, 0xCE, 0x9E), (0xD1, 0x8B, 0x47)  # python-chess's square colours
PAD, MARGIN, SQUARE = 16, 0, 45  # page padding; the picture's margin and square size

pytestmark = BROWSER_MARKS

Pixels = list[list[tuple[int, int, int]]]


def _decode_png(data: bytes) -> Pixels:
    """The RGB pixels of an 8-bit RGB or RGBA PNG (what Chromium writes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, header = 8, b"", b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, color = struct.unpack(">IIBB", header[:10])
    assert depth == 8 and color in (2, 6)
    bpp = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows: list[bytearray] = []
    previous = bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = previous[i]
            c = previous[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + a) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + b) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        rows.append(line)
        previous = line
    return [[tuple(row[x * bpp : x * bpp + 3]) for x in range(width)] for row in rows]  # type: ignore[misc]


def _screenshot(tmp_path: Path, *show: str) -> Pixels:
    page = tmp_path / "board.html"
    made = subprocess.run(
        [str(ESOCHESS), "fen", "show", "--format", "html", "-o", str(page), *show],
        capture_output=True, text=True, timeout=60,
    )
    assert made.returncode == 0, made.stderr
    png = tmp_path / "board.png"
    assert BROWSER is not None
    shot = subprocess.run(
        [BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         "--no-first-run", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}",
         "--force-device-scale-factor=1", "--window-size=480,520",
         f"--screenshot={png}", page.as_uri()],
        capture_output=True, text=True, timeout=120,
    )
    assert png.exists(), shot.stderr
    return _decode_png(png.read_bytes())


def _square(pixels: Pixels, column: int, row: int) -> list[tuple[int, int, int]]:
    x0, y0 = PAD + MARGIN + column * SQUARE, PAD + MARGIN + row * SQUARE
    return [pixels[y][x] for y in range(y0 + 2, y0 + SQUARE - 2) for x in range(x0 + 2, x0 + SQUARE - 2)]


def _near(colour: tuple[int, int, int], target: tuple[int, int, int], slack: int = 24) -> bool:
    return all(abs(a - b) <= slack for a, b in zip(colour, target, strict=True))


@pytest.mark.parametrize("show", [(START, "w"), ("--grid", START + " w")], ids=["fen", "grid"])
def test_pieces_stand_out_on_both_square_colours(tmp_path: Path, show: tuple[str, ...]) -> None:
    pixels = _screenshot(tmp_path, *show)
    for (column, row), square_colour in [
        ((4, 7), DARK),  # e1: the white king on a dark square
        ((4, 0), LIGHT),  # e8: the black king on a light square
        ((0, 7), DARK),  # a1: the white rook on a dark square
        ((3, 0), DARK),  # d8: the black queen on a dark square
    ]:
        seen = _square(pixels, column, row)
        assert sum(_near(c, square_colour) for c in seen) > len(seen) // 5  # the square
        assert sum(_near(c, (255, 255, 255)) for c in seen) > 20  # white fill or details
        assert sum(_near(c, (0, 0, 0)) for c in seen) > 20  # black fill or outline
    empty = _square(pixels, 4, 4)  # e4, empty and light
    assert all(_near(c, LIGHT) for c in empty)
