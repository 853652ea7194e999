"""What the compiler knows about memory at one point of straight-line code.

A `Block` is the compile-time state the code generator (`codegen.py`) carries through
straight-line code: where the machine pointer is relative to `p`, and what is known of
each cell — a pending addition or store not yet written, a value memory is known to hold,
or nothing. `meet` is what two such states have in common (`loop_analysis.py`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from esochess.chazz.runtime import signed32

# What the compiler knows about a cell: ("add", d) an addition not yet written,
# ("set", v) a value not yet written, ("known", v) memory holds v (mod 2**32),
# ("dirty", 0) memory holds something unknown and nothing is pending.
Cell = tuple[str, int]
DIRTY: Cell = ("dirty", 0)
ZERO: Cell = ("known", 0)


@dataclass
class Block:
    """Compile-time state of straight-line code.

    `shift` is the machine pointer's offset from `p`; `cells` maps offsets from `p` to
    what is known of them; when `zeros` holds, cells not in `cells` are known to be 0.
    `memory` keeps, for a cell with a pending "set", the value memory is known to hold
    (so a store of that same value is dropped). `steps` are executed steps not yet added
    to `st`; `text` is constant output not yet appended to `out`.
    """

    shift: int = 0
    cells: dict[int, Cell] = field(default_factory=dict)
    zeros: bool = False
    memory: dict[int, int] = field(default_factory=dict)
    steps: int = 0
    text: bytearray = field(default_factory=bytearray)

    def state(self, offset: int) -> Cell:
        """What is known of the cell at `offset`."""
        return self.cells.get(offset, ZERO if self.zeros else DIRTY)

    def value(self, offset: int) -> int | None:
        """The cell's value if it is known (written or pending), else None."""
        kind, value = self.state(offset)
        return value if kind in ("set", "known") else None

    def add(self, offset: int, delta: int) -> None:
        """Record `cell += delta`."""
        kind, value = self.state(offset)
        if kind in ("dirty", "add"):
            self.cells[offset] = ("add", signed32(value + delta if kind == "add" else delta))
        else:
            self.set(offset, value + delta)

    def set(self, offset: int, value: int) -> None:
        """Record `cell = value` (dropped if memory already holds it)."""
        value = signed32(value)
        kind, old = self.state(offset)
        if kind == "known":
            self.memory[offset] = old
        elif kind != "set":
            self.memory.pop(offset, None)
        if self.memory.get(offset) == value:
            del self.memory[offset]
            self.cells[offset] = ("known", value)
        else:
            self.cells[offset] = ("set", value)

    def overwrite(self, offset: int) -> None:
        """Memory at `offset` gets an unknown value (input, the buffer)."""
        self.cells[offset] = DIRTY
        self.memory.pop(offset, None)

    def clean(self) -> Block:
        """What is known once pending effects are written, with nothing pending: the
        start state of code that begins here."""
        cells: dict[int, Cell] = {}
        for offset, (kind, value) in self.cells.items():
            # A pending store is as good as done: whoever starts here writes it first.
            if kind in ("known", "set"):
                cells[offset] = ("known", value)
            elif self.zeros:
                cells[offset] = DIRTY
        return Block(self.shift, cells, self.zeros)

    def same_knowledge(self, other: Block) -> bool:
        """Whether two clean states know the same things."""
        keys = set(self.cells) | set(other.cells)
        return self.zeros == other.zeros and all(self.state(o) == other.state(o) for o in keys)


def meet(a: Block, b: Block) -> Block:
    """What holds in both clean states a and b (at the same `p`)."""
    zeros = a.zeros and b.zeros
    cells: dict[int, Cell] = {}
    for offset in set(a.cells) | set(b.cells):
        state = a.state(offset)
        if state == b.state(offset) and state[0] == "known":
            cells[offset] = state
        elif zeros:
            cells[offset] = DIRTY
    return Block(a.shift, cells, zeros)
