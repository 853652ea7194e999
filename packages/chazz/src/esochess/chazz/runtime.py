"""The CHAZZ machine's shared contract: constants, run-time errors and the I/O hooks.

Both engines (the literal interpreter and the compiler) run against the same
`MachineIO` and end the same way: by returning (normal end), by raising
`LoopError` (the reference's loop errors, whose bytes belong on stdout) or by raising
`StepLimitReached` (`--max-steps`). Program output is handed to `MachineIO.write` in
chunks, and every engine hands over what it has before it returns or raises.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

MASK32 = 0xFFFFFFFF
MAX_CELLS = 30000
MAX_LOOP_DEPTH = 256
PROMPT = b"\nInput a character: "
# Output is handed over in chunks of about this size (and always before reading input).
FLUSH_AT = 1 << 16

LOOP_START_NOT_FOUND = b"Error: Loop start not found\n"
LOOP_STACK_OVERFLOW = b"Error: Loop stack overflow\n"
LOOP_STACK_UNDERFLOW = b"Error: Loop stack underflow\n"


class LoopError(Exception):
    """A run-time error of the reference machine; `message` is written to stdout as is."""

    def __init__(self, message: bytes) -> None:
        super().__init__(message.decode("ascii").strip())
        self.message = message


class StepLimitReached(Exception):
    """Raised instead of executing instruction `limit + 1`."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"step limit {limit} reached")
        self.limit = limit


@dataclass
class MachineIO:
    """Where a running program writes its bytes, reads its input and traces its steps.

    `read_byte` returns 0–255, or -1 at end of input. `trace`, when set, receives one
    line (without newline) per executed instruction. `interactive` says that reading
    waits for a person, who must see the output (the prompt) first: output is then
    handed to `write` before every read. Otherwise it is handed over at the end and once
    `flush_at` bytes are waiting (checked at reads, and on loop back-edges by compiled
    code).
    """

    write: Callable[[bytes | bytearray], object]
    read_byte: Callable[[], int]
    prompt: bool = True
    trace: Callable[[str], object] | None = None
    interactive: bool = False
    # Output is handed over when this much is waiting (1 for a terminal: promptly).
    flush_at: int = FLUSH_AT


def signed32(value: int) -> int:
    """Return a cell value as the reference's 32-bit two's-complement integer."""
    value &= MASK32
    return value - (1 << 32) if value & 0x80000000 else value


def trace_line(step: int, row: int, col: int, piece: str, ptr: int, cell: int) -> str:
    """Return the `--trace` line of one instruction, with the state it starts from."""
    return f"step={step} sq={row},{col} piece={piece} ptr={ptr} cell={signed32(cell)}"


def start_index(cells: tuple[str, ...], side: str) -> int:
    """Return the reading-order index of the first square that executes
    (docs/reference/chazz.md#machine).

    That is the first piece of the side's colour, or square 0 when the side has none.
    """
    white = side == "w"
    for index, cell in enumerate(cells):
        if cell and cell.isupper() == white:
            return index
    return 0
