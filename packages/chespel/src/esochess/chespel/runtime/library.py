"""The built-in function library of docs/reference/chespel.md#built-in-functions over a python-chess
board, for generated code.

Representations (chosen so that generated code does integer work only):
Num = int milli-units; Bool = bool; String = str; Row and Col = int 1 … 8; Cell = square
index 0 … 63 (canonical order); Type = python-chess piece type 1 … 6; Player and Color =
python-chess colour (a Player prints as `me`/`foe` relative to the perspective); Piece =
the square it stands on (at most one piece per cell, so this is the Piece's identity);
[X] = Python list.

This module is the namespace generated code calls (`_L.Piece_passedPawn(...)`): it holds the
List functions and re-exports the others, which live by class in context.py (the
evaluation context, shared helpers, string forms), board_library.py (globals, Row, Col,
Cell, Type, Color), player_library.py and piece_library.py.

Library functions are named `<Class>_<method>` and take `(ctx, me, receiver, *args)`;
`me` is the perspective colour of the current pass. Functions that can fail also take the
source position of the call, for the error message of docs/reference/chespel.md#run-time-errors.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from esochess.chespel.runtime.board_library import *  # noqa: F403
from esochess.chespel.runtime.context import *  # noqa: F403
from esochess.chespel.runtime.piece_library import *  # noqa: F403
from esochess.chespel.runtime.player_library import *  # noqa: F403
from esochess.chespel.runtime.values import (
    NUM_MAX,
    ChespelRuntimeError,
    clamp,
    format_num,
    num_mul,
)

# ----------------------------------------------------------------------- List

def L_head(items: Sequence[Any], line: int, column: int) -> Any:
    """First element."""
    if not items:
        raise ChespelRuntimeError(line, column, "head of an empty list")
    return items[0]


def L_last(items: Sequence[Any], line: int, column: int) -> Any:
    """Last element."""
    if not items:
        raise ChespelRuntimeError(line, column, "last of an empty list")
    return items[-1]


def L_elem(items: Sequence[Any], index: int, line: int, column: int) -> Any:
    """Element at an integer index counting from 0."""
    if index % 1000 or not 0 <= index // 1000 < len(items):
        raise ChespelRuntimeError(
            line, column,
            f"index {format_num(index)} out of range for a list of length {len(items)}")
    return items[index // 1000]


def L_nub(items: Sequence[Any]) -> list[Any]:
    """Without repeated elements, first occurrences kept."""
    return list(dict.fromkeys(items))


def L_min(items: Sequence[Any], key: Callable[[Any], int], line: int, column: int) -> Any:
    """First smallest element."""
    if not items:
        raise ChespelRuntimeError(line, column, "min of an empty list")
    return min(items, key=key)


def L_max(items: Sequence[Any], key: Callable[[Any], int], line: int, column: int) -> Any:
    """First largest element."""
    if not items:
        raise ChespelRuntimeError(line, column, "max of an empty list")
    return max(items, key=key)


def L_sort(items: Sequence[Any], key: Callable[[Any], int]) -> list[Any]:
    """Stable ascending order."""
    return sorted(items, key=key)


def L_reverseSort(items: Sequence[Any], key: Callable[[Any], int]) -> list[Any]:
    """Stable descending order (equal elements keep their order)."""
    return sorted(items, key=lambda item: -key(item))


def L_sum(values: Sequence[int]) -> int:
    """Sum of milli-unit values, clamped."""
    return clamp(sum(values))


def L_product(values: Sequence[int]) -> int:
    """Product of milli-unit values, truncated and clamped at every step."""
    result = 1000
    for value in values:
        result = num_mul(result, value)
    return result


def num_abs(value: int) -> int:
    """`abs x`."""
    return min(abs(value), NUM_MAX)
