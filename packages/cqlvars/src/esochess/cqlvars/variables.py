"""Variable storage and value formatting (docs/reference/cql.md#variables and
docs/reference/cql.md#comment).

Every variable name gets a slot at compile time. `Environment` holds the per-game slots
(reset at the start of each game) and a reference to the run's persistent store.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import chess

MAX_VALUE = 1_000_000_000


class CqlRuntimeError(Exception):
    """A runtime error of the query (numeric overflow); the run stops
    (docs/reference/cql.md#run-time-errors)."""

    def __init__(self, line: int, column: int, message: str):
        super().__init__(message)
        self.line = line
        self.column = column
        self.message = message


@dataclass
class Slots:
    """The name -> slot index table fixed at compile time."""

    index: dict[str, int] = field(default_factory=dict)

    def slot(self, name: str) -> int:
        """The slot of `name`, allocating one on first sight."""
        if name not in self.index:
            self.index[name] = len(self.index)
        return self.index[name]


@dataclass
class PersistentStore:
    """Persistent variable values for one run, in order of first declaration
    (docs/reference/cql.md#persistent)."""

    values: dict[str, object]
    kinds: dict[str, str]
    quiet: dict[str, bool]

    @classmethod
    def fresh(cls, kinds: Mapping[str, str], quiet: Mapping[str, bool]) -> PersistentStore:
        """A store with every variable at its initial value: 0, "" or the empty set."""
        initial: dict[str, object] = {"numeric": 0, "string": "", "set": 0}
        values = {n: {} if k == "dictionary" else initial[k] for n, k in kinds.items()}
        return cls(values, dict(kinds), dict(quiet))

    def lines(self) -> list[str]:
        """The `NAME: VALUE` lines printed at the end of a run (quiet ones omitted)."""
        out: list[str] = []
        for name, value in self.values.items():
            if not self.quiet.get(name, False):
                out.append(f"{name}: {format_value(value, self.kinds[name])}")
        return out


def check_range(value: int, line: int, column: int) -> int:
    """Return value, or raise the overflow runtime error of docs/reference/cql.md#arithmetic."""
    if -MAX_VALUE <= value <= MAX_VALUE:
        return value
    raise CqlRuntimeError(
        line, column, f"numeric value {value} is outside [-{MAX_VALUE}, {MAX_VALUE}]"
    )


def format_set(mask: int) -> str:
    """One square as `e4`, several as `[a1,e4]` in square order, none as `[]`."""
    names = [chess.square_name(sq) for sq in chess.scan_forward(mask)]
    if len(names) == 1:
        return names[0]
    return "[" + ",".join(names) + "]"


def format_value(value: object, kind: str) -> str:
    """Format a numeric, set or string value as `comment`/`message` print it."""
    if kind == "set" and isinstance(value, int):
        return format_set(value)
    if isinstance(value, dict):
        # A dictionary: {"key": value, 3: "text"} in the order the keys were first set.
        return "{" + ", ".join(f"{_literal(k)}: {_literal(v)}" for k, v in value.items()) + "}"
    return str(value)


def _literal(value: object) -> str:
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return str(value)
