"""Strict chess FEN: text -> `chess.Board`, with errors that name the field and column.

python-chess decides validity; this module only finds *where* a FEN goes wrong, so the
user sees `placement field: rank 3 has 9 squares` under the offending character rather
than python-chess's whole-string `ValueError`.
"""

from __future__ import annotations

import re

import chess

from esochess.fen.diagnostics import SourceError

FIELDS = ("placement", "side", "castling", "en passant", "halfmove", "fullmove")

_EP = re.compile(r"-|[a-h][36]\Z")
_CASTLING_ORDER = "KQkq"

# python-chess status flags -> (field, message); the first flag set wins.
_STATUS_MESSAGES: tuple[tuple[chess.Status, str, str], ...] = (
    (chess.STATUS_NO_WHITE_KING, "placement", "there is no white king"),
    (chess.STATUS_NO_BLACK_KING, "placement", "there is no black king"),
    (chess.STATUS_TOO_MANY_KINGS, "placement", "there is more than one king of a colour"),
    (chess.STATUS_TOO_MANY_WHITE_PIECES, "placement", "White has more than 16 pieces"),
    (chess.STATUS_TOO_MANY_BLACK_PIECES, "placement", "Black has more than 16 pieces"),
    (chess.STATUS_TOO_MANY_WHITE_PAWNS, "placement", "White has more than 8 pawns"),
    (chess.STATUS_TOO_MANY_BLACK_PAWNS, "placement", "Black has more than 8 pawns"),
    (chess.STATUS_PAWNS_ON_BACKRANK, "placement", "a pawn stands on the first or last rank"),
    (chess.STATUS_OPPOSITE_CHECK, "side", "the side not to move is in check"),
    (chess.STATUS_TOO_MANY_CHECKERS, "placement", "the king is attacked by too many pieces"),
    (chess.STATUS_IMPOSSIBLE_CHECK, "placement", "the check cannot have arisen from a legal move"),
    (chess.STATUS_BAD_CASTLING_RIGHTS, "castling", "castling rights do not fit the placement"),
    (
        chess.STATUS_INVALID_EP_SQUARE,
        "en passant",
        "no double pawn step can have passed this square",
    ),
)


class FenError(SourceError):
    """A FEN that is not a valid chess position."""


def _fail(path: str, text: str, column: int, field: str, message: str) -> FenError:
    return FenError(path, 1, column, f"{field} field: {message}", source_line=text)


def _check_placement(path: str, text: str, placement: str, start: int) -> None:
    ranks = placement.split("/")
    column = start
    for number, rank in enumerate(ranks, start=1):
        width = 0
        previous_digit = False
        for i, ch in enumerate(rank):
            if ch in "12345678":
                if previous_digit:
                    raise _fail(path, text, column + i, "placement", "two digits in a row")
                width += int(ch)
                previous_digit = True
            elif ch in "pnbrqkPNBRQK":
                width += 1
                previous_digit = False
            else:
                raise _fail(path, text, column + i, "placement", f"invalid character {ch!r}")
            if width > 8:
                raise _fail(
                    path,
                    text,
                    column + i,
                    "placement",
                    f"rank {9 - number} has more than 8 squares",
                )
        if width < 8:
            raise _fail(
                path,
                text,
                column + len(rank),
                "placement",
                f"rank {9 - number} has {width} squares, expected 8",
            )
        column += len(rank) + 1
        if number == 8 and number < len(ranks):
            raise _fail(path, text, column - 1, "placement", "more than 8 ranks")
    if len(ranks) < 8:
        raise _fail(
            path, text, start + len(placement), "placement", f"{len(ranks)} ranks, expected 8"
        )


def _check_castling(path: str, text: str, castling: str, start: int) -> None:
    if castling == "-":
        return
    last = -1
    for i, ch in enumerate(castling):
        where = _CASTLING_ORDER.find(ch)
        if where < 0:
            raise _fail(path, text, start + i, "castling", f"invalid character {ch!r}")
        if where <= last:
            raise _fail(
                path, text, start + i, "castling", "rights must be written in the order KQkq"
            )
        last = where


def _check_counter(path: str, text: str, value: str, start: int, field: str) -> None:
    for i, ch in enumerate(value):
        if not ch.isascii() or not ch.isdigit():
            raise _fail(path, text, start + i, field, f"invalid character {ch!r} in a number")


#: What python-chess assumes for the fields a short FEN leaves out.
_DEFAULTS = ("", "w", "-", "-", "0", "1")


def parse_fen(
    text: str,
    *,
    path: str = "<fen>",
    drop_impossible_castling: bool = False,
    min_fields: int = 4,
) -> chess.Board:
    """Parse a strict FEN of `min_fields` (1 to 4) to 6 space-separated fields into a
    valid `chess.Board`.

    Missing fields read as python-chess reads them (`w - - 0 1`: White to move, no
    castling, no en passant, clocks `0 1`); the word `startpos` is the standard start
    position.
    Raises `FenError` (a `SourceError` at line 1) naming the
    field and the column of the first bad character. With `drop_impossible_castling`,
    castling rights that the placement makes impossible are dropped instead of reported.
    """
    if text.strip() == "startpos":
        return chess.Board()
    fields = [(m.start() + 1, m.group()) for m in re.finditer(r"\S+", text)]
    if not fields:
        raise _fail(path, text, 1, "placement", "the FEN is empty")
    for (start, value), name in zip(fields, FIELDS, strict=False):
        if name == "placement":
            _check_placement(path, text, value, start)
        elif name == "side" and value not in ("w", "b"):
            raise _fail(path, text, start, "side", f"expected 'w' or 'b', found {value!r}")
        elif name == "castling":
            _check_castling(path, text, value, start)
        elif name == "en passant" and not _EP.match(value):
            raise _fail(
                path,
                text,
                start,
                "en passant",
                f"expected '-' or a square on rank 3 or 6, found {value!r}",
            )
        elif name in ("halfmove", "fullmove"):
            _check_counter(path, text, value, start, name)
    if len(fields) < min_fields:
        end = len(text.rstrip()) + 1
        raise _fail(path, text, end, FIELDS[len(fields)], "missing")
    if len(fields) > 6:
        raise _fail(path, text, fields[6][0], "fullmove", "unexpected text after the last field")

    try:
        given = [value for _, value in fields]
        board = chess.Board(" ".join(given + list(_DEFAULTS[len(given) :])))
    except ValueError as error:  # a case the field checks above did not foresee
        raise _fail(path, text, 1, "placement", str(error)) from None
    if drop_impossible_castling:
        board.castling_rights = board.clean_castling_rights()
    status = board.status()
    for flag, name, message in _STATUS_MESSAGES:
        if status & flag:
            index = FIELDS.index(name)
            # A field left out (its default is at fault) is pointed at the end of the text.
            start = fields[index][0] if index < len(fields) else len(text.rstrip()) + 1
            raise _fail(path, text, start, name, message)
    return board
