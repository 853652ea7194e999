"""The shipped examples the pages offer: programs, queries and PGN files of `examples/`.

They are found next to the source tree (an editable install, the usual way to run the
studio from a clone) or in the directory named by `ESOCHESS_EXAMPLES`; without either,
the lists are empty and the pages still take pasted programs and uploaded files.
"""

from __future__ import annotations

import os
from pathlib import Path

#: Example kind → (directory under examples/, file suffix).
KINDS = {
    "chazz": ("chazz", ".fen"),
    "chespel": ("chespel", ".chp"),
    "gambit": ("gambit", ".gmb"),
    "cql": ("cql", ".cql"),
    "pgn": ("pgn", ".pgn"),
}


def root() -> Path | None:
    """The examples directory, or None when there is none."""
    named = os.environ.get("ESOCHESS_EXAMPLES")
    if named:
        return Path(named) if Path(named).is_dir() else None
    for parent in Path(__file__).resolve().parents:
        candidate = parent / "examples"
        if (candidate / "pgn").is_dir():
            return candidate
    return None


def names(kind: str) -> list[str]:
    """The file names of one kind of example, sorted."""
    base = root()
    folder, suffix = KINDS[kind]
    if base is None or not (base / folder).is_dir():
        return []
    return sorted(p.name for p in (base / folder).iterdir() if p.suffix == suffix)


def path(kind: str, name: str) -> Path | None:
    """The path of a listed example; None for a name that is not one (no path tricks)."""
    if name not in names(kind):
        return None
    base = root()
    assert base is not None
    return base / KINDS[kind][0] / name
