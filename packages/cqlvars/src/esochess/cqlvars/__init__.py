"""CQL-style chess queries over PGN files (see docs/cql.md).

`chess.pgn` imports `chess.engine` (and with it asyncio, ssl and socket) and `chess.svg`
(with xml.etree) only for methods cql never calls (`eval`, `arrows`): every `cql` run paid
≈ 30 ms of start-up for them. The package therefore puts a stand-in for each in
`sys.modules` before any of its modules imports `chess.pgn`; the first attribute read from a
stand-in imports the real module, so code that does use one (another tool in the same
process) sees no difference. (`importlib.util.LazyLoader` cannot do this: the import
statement in `chess.pgn` reads the lazy module's `__spec__`, which loads it.)
"""

from __future__ import annotations

import importlib
import sys
import types

import chess

#: This package's version (the one its metadata carries: pyproject.toml reads it here).
__version__ = "0.1.0"

#: python-chess submodules that `chess.pgn` imports but cql does not use.
DEFERRED = ("chess.engine", "chess.svg")


class _Deferred(types.ModuleType):
    """Stands in for a module until one of its attributes is read."""

    def __getattr__(self, attr: str) -> object:
        name = self.__name__
        if sys.modules.get(name) is self:
            del sys.modules[name]
        # importing it names the real module in sys.modules and on its parent package
        return getattr(importlib.import_module(name), attr)


def _defer(name: str) -> None:
    if name not in sys.modules:
        stand_in = _Deferred(name)
        sys.modules[name] = stand_in
        setattr(chess, name.rpartition(".")[2], stand_in)


for _name in DEFERRED:
    _defer(_name)
