"""Num arithmetic in milli-units, string forms of values, and the run-time error
(docs/reference/chespel.md#classes and docs/reference/chespel.md#operators)."""

from __future__ import annotations

NUM_MAX = 10_000_000
"""The largest Num, 10000, in milli-units."""


class ChespelRuntimeError(Exception):
    """A run-time error of a Chespel program, at the position of the failing operator
    (docs/reference/chespel.md#run-time-errors)."""

    def __init__(self, line: int, column: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.column = column
        self.message = message

    def render(self, path: str) -> str:
        """Return `error: FILE:LINE:COL: runtime error: MESSAGE`."""
        return f"error: {path}:{self.line}:{self.column}: runtime error: {self.message}"


def clamp(value: int) -> int:
    """Saturate a milli-unit value into -10000 … 10000."""
    if value > NUM_MAX:
        return NUM_MAX
    if value < -NUM_MAX:
        return -NUM_MAX
    return value


def _trunc_div(a: int, b: int) -> int:
    """Integer division truncating toward zero (Python's // floors)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def num_mul(a: int, b: int) -> int:
    """`a * b` on milli-units: trunc(A·B / 1000), clamped."""
    return clamp(_trunc_div(a * b, 1000))


def num_div(a: int, b: int, line: int, column: int) -> int:
    """`a / b` on milli-units: trunc(A·1000 / B), clamped; division by zero is an error."""
    if b == 0:
        raise ChespelRuntimeError(line, column, "division by zero")
    return clamp(_trunc_div(a * 1000, b))


def format_num(value: int) -> str:
    """Canonical Num form (docs/reference/chespel.md#string-forms): `10`, `0.25`, `-3.5`, never
    `-0`."""
    sign = "-" if value < 0 else ""
    whole, frac = divmod(abs(value), 1000)
    if frac == 0:
        return f"{sign}{whole}"
    return f"{sign}{whole}.{frac:03d}".rstrip("0")


def format_signed(value: int) -> str:
    """Canonical Num form with a leading `+` when positive (justification lines,
    docs/reference/chespel.md#justification-lines)."""
    text = format_num(value)
    return "+" + text if value > 0 else text


TYPE_NAMES = ("", "pawn", "knight", "bishop", "rock", "queen", "king")
"""Long type names indexed by python-chess piece type (docs/reference/chespel.md #5)."""

TYPE_VALUES = (0, 1000, 3000, 3000, 5000, 9000, 0)
"""Type values in milli-units indexed by python-chess piece type
(docs/reference/chespel.md#lib-type)."""

TYPE_LETTERS = ("", "P", "N", "B", "R", "Q", "K")
"""Upper-case type letters indexed by python-chess piece type (Piece string form)."""

COL_NAMES = "abcdefgh"


def str_bool(value: bool) -> str:
    """String form of a Bool."""
    return "true" if value else "false"


def str_row(row: int) -> str:
    """String form of a Row (1 … 8)."""
    return f"${row}"


def str_col(col: int) -> str:
    """String form of a Col (1 … 8)."""
    return "$" + COL_NAMES[col - 1]


def str_cell(square: int) -> str:
    """String form of a Cell (python-chess square index)."""
    return COL_NAMES[square & 7] + str((square >> 3) + 1)


def str_type(piece_type: int) -> str:
    """String form of a Type (the long name)."""
    return TYPE_NAMES[piece_type]


def str_color(color: bool) -> str:
    """String form of a Color."""
    return "white" if color else "black"


def str_player(color: bool, me: bool) -> str:
    """String form of a Player, which is relative to the perspective colour `me`."""
    return "me" if color == me else "foe"


def printable(text: str) -> str:
    """`text` with every character that is not printable (newlines, carriage returns,
    other controls and separators) replaced by `?`, for protocol lines and PGN headers."""
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else "?" for char in text)
