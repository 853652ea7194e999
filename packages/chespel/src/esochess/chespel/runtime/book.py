"""The opening module at run time (docs/reference/chespel.md#opening): origin keys mapped to their
destination."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

import chess

from esochess.chespel.runtime.evaluation import OpeningRule
from esochess.chespel.runtime.positions import parse_fen, position_key


@dataclass(frozen=True)
class BookAnswer:
    """A matching rule: the move it leads to, or None when no single legal move reaches it."""

    rule: OpeningRule
    move: chess.Move | None


class Book:
    """Opening rules indexed by the key of their origin position."""

    def __init__(self, rules: tuple[OpeningRule, ...]) -> None:
        self._table: dict[Hashable, tuple[OpeningRule, Hashable]] = {}
        for rule in rules:
            # The compiler has validated both FENs (E21), so parsing cannot fail here.
            origin = position_key(parse_fen(rule.origin))
            self._table.setdefault(origin, (rule, position_key(parse_fen(rule.destination))))

    def __bool__(self) -> bool:
        return bool(self._table)

    def lookup(self, board: chess.Board) -> BookAnswer | None:
        """The rule whose origin is this position, with the unique move reaching its destination."""
        entry = self._table.get(position_key(board))
        if entry is None:
            return None
        rule, destination = entry
        reaching = []
        for move in board.generate_legal_moves():
            board.push(move)
            if position_key(board) == destination:
                reaching.append(move)
            board.pop()
        return BookAnswer(rule, reaching[0] if len(reaching) == 1 else None)
