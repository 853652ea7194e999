"""Polyglot opening books (`.bin`) read with python-chess, from a file or from bytes.

A built engine carries its book inside the executable (`chespel build --book`); the UCI
option `BookFile` opens one from disk. The book answers with its highest-weighted legal move,
so that play is reproducible.
"""

from __future__ import annotations

import mmap
from typing import cast

import chess
import chess.polyglot


class _Bytes(bytearray):
    """Book bytes with the part of the `mmap` interface the reader uses."""

    def size(self) -> int:
        return len(self)

    def close(self) -> None:
        self.clear()

    def madvise(self, option: int) -> None:
        return None


class _BytesReader(chess.polyglot.MemoryMappedReader):
    """python-chess's Polyglot reader over bytes already in memory."""

    def __init__(self, data: bytes) -> None:
        # Not super().__init__, which opens and maps a file.
        self.mmap = cast(mmap.mmap, _Bytes(data))


class BookError(Exception):
    """A book that cannot be used (the message says why)."""


class PolyglotBook:
    """A Polyglot book and the name it is reported under."""

    def __init__(self, reader: chess.polyglot.MemoryMappedReader, name: str) -> None:
        self.reader = reader
        self.name = name

    @classmethod
    def from_bytes(cls, data: bytes, name: str) -> PolyglotBook:
        if len(data) % 16:
            raise BookError(f"{name} is not a Polyglot book (its size is not a multiple of 16)")
        return cls(_BytesReader(data), name)

    @classmethod
    def open(cls, path: str) -> PolyglotBook:
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError as exc:
            raise BookError(f"cannot read {path}: {exc.strerror or exc}") from None
        return cls.from_bytes(data, path)

    def lookup(self, board: chess.Board) -> chess.polyglot.Entry | None:
        """The highest-weighted entry whose move is legal here, if any."""
        for entry in sorted(self.reader.find_all(board), key=lambda e: -e.weight):
            if entry.move in board.legal_moves:
                return entry
        return None
