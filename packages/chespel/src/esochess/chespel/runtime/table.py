"""The transposition table: two-slot buckets, depth-preferred slot and always-replace slot,
entries of older searches replaced first (issue 17: no more clearing when full).

The bucket index comes from the position key's hash, which for a tuple of ints is the
same in every run, so a fixed-depth search visits the same nodes every time.
"""

from __future__ import annotations

from collections.abc import Hashable

import chess

EXACT, LOWER, UPPER = 0, 1, 2

Entry = tuple[Hashable, int, int, int, "chess.Move | None", int]
"""(key, depth, bound, score, move, age)."""


class Table:
    """A fixed-size table of `capacity` entries (rounded to an even number of slots)."""

    def __init__(self, capacity: int) -> None:
        self.buckets = max(1, capacity // 2)
        self.slots: list[Entry | None] = [None] * (2 * self.buckets)
        self.age = 0
        self.used = 0

    def new_search(self) -> None:
        """Entries stored before now belong to an older search."""
        self.age += 1

    def probe(self, key: Hashable) -> Entry | None:
        """The entry for `key`, or None."""
        at = (hash(key) % self.buckets) * 2
        slots = self.slots
        entry = slots[at]
        if entry is not None and entry[0] == key:
            return entry
        entry = slots[at + 1]
        if entry is not None and entry[0] == key:
            return entry
        return None

    def store(self, key: Hashable, depth: int, bound: int, score: int,
              move: chess.Move | None) -> None:
        """Keep the deeper (or current-search) entry in the first slot, the newest in the
        second; an entry for the same position is updated in place."""
        at = (hash(key) % self.buckets) * 2
        slots = self.slots
        first = slots[at]
        entry = (key, depth, bound, score, move, self.age)
        if first is None:
            slots[at] = entry
            self.used += 1
            return
        if first[0] == key:
            if move is None and first[4] is not None and depth <= first[1]:
                entry = (key, depth, bound, score, first[4], self.age)
            slots[at] = entry
            return
        if depth >= first[1] or first[5] != self.age:
            second = slots[at + 1]
            if second is None or second[0] != key:
                slots[at + 1] = first  # the displaced entry stays in the other slot
                if second is None:
                    self.used += 1
            else:
                slots[at + 1] = first
            slots[at] = entry
            return
        if slots[at + 1] is None:
            self.used += 1
        slots[at + 1] = entry

    def permille(self) -> int:
        """How full the table is, in thousandths (UCI `hashfull`)."""
        return min(1000, self.used * 1000 // len(self.slots))
