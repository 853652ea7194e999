"""Variables support (spec §5.5, §5.9, §4.4.28): persistent store, range, formatting."""

from __future__ import annotations

import chess
import pytest

from esochess.cqlvars.variables import (
    CqlRuntimeError,
    PersistentStore,
    Slots,
    check_range,
    format_set,
    format_value,
)


def test_persistent_store_initial_values_and_lines() -> None:
    store = PersistentStore.fresh(
        {"N": "numeric", "S": "string", "Q": "set"}, {"N": False, "S": True, "Q": False}
    )
    assert store.values == {"N": 0, "S": "", "Q": 0}
    store.values["Q"] = chess.BB_E4 | chess.BB_A1
    assert store.lines() == ["N: 0", "Q: [a1,e4]"]


def test_range_limits() -> None:
    assert check_range(1_000_000_000, 1, 1) == 1_000_000_000
    assert check_range(-1_000_000_000, 1, 1) == -1_000_000_000
    with pytest.raises(CqlRuntimeError) as info:
        check_range(1_000_000_001, 3, 7)
    assert (info.value.line, info.value.column) == (3, 7)


def test_formatting_and_slots() -> None:
    assert format_set(0) == "[]" and format_value(chess.BB_H8, "set") == "h8"
    assert format_value(42, "numeric") == "42" and format_value("x", "string") == "x"
    slots = Slots()
    assert [slots.slot("a"), slots.slot("b"), slots.slot("a")] == [0, 1, 0]
