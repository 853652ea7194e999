"""The studio's one door into CHAZZ: load a board, edit it, step it with the interpreter.

Calls only `esochess.chazz.loader.parse_program` (the board, with the command line's
exact error lines), `esochess.chazz.interpreter.interpret` (the literal reference
engine, the one `chazz --engine interpreter --trace` runs) and the `runtime` contract
(`MachineIO`, `LoopError`, `StepLimitReached`, `MAX_CELLS`).

A debugger snapshot "at step k" is the machine after k executed instructions, about to
execute the highlighted square. The interpreter keeps its memory to itself, but its
trace line gives, before every instruction, the pointer and the value of the cell under
it; an instruction changes only that cell and never moves the pointer at the same
time, so the trace lines up to k+1 reconstruct the whole tape after k steps.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from esochess.chazz.interpreter import interpret
from esochess.chazz.loader import LoadError, parse_program
from esochess.chazz.runtime import MAX_CELLS, LoopError, MachineIO, StepLimitReached
from esochess.fen import Grid
from esochess.fen.render import render_svg
from esochess.studio.jobs import Report, UserError

PIECES = "PNBRQKpnbrqk"
#: The studio's step limit when the page asks for none; the page may ask for up to MAX_STEPS.
DEFAULT_STEPS = 100_000
MAX_STEPS = 2_000_000
#: Cells shown on each side of the pointer.
TAPE_RADIUS = 8
SQUARE_PX = 32


@dataclass(frozen=True)
class Board:
    """A loaded program: its normalised FEN, size and SVG drawing."""

    fen: str
    rows: int
    cols: int
    svg: str


@dataclass(frozen=True)
class Snapshot:
    """The machine after `step` instructions (see the module docstring)."""

    step: int
    square: tuple[int, int] | None
    piece: str | None
    pointer: int
    tape: tuple[tuple[int, int], ...]
    output: str
    finished: bool
    status: str


def load(fen: str) -> Grid:
    """Parse a program line; a bad one raises UserError with the CLI's stderr lines."""
    try:
        return parse_program(fen.encode("latin-1", "replace"), path="<studio>")
    except LoadError as exc:
        raise UserError("\n".join(exc.lines)) from None


def board(fen: str) -> Board:
    """The program `fen` as the page draws it."""
    grid = load(fen)
    return Board(grid.text(), grid.rows, grid.cols, render_svg(grid, square_px=SQUARE_PX))


def edit(fen: str, row: int, col: int, piece: str) -> Board:
    """Put `piece` (or nothing, for "") on square (row, col) of the program."""
    grid = load(fen)
    if piece and piece not in PIECES:
        raise UserError(f"error: '{piece}' is not a CHAZZ piece (one of {PIECES})")
    if not (0 <= row < grid.rows and 0 <= col < grid.cols):
        raise UserError(f"error: square {row},{col} is outside the {grid.rows}x{grid.cols} board")
    cells = list(grid.cells)
    cells[row * grid.cols + col] = piece
    return board(replace(grid, cells=tuple(cells)).text())


def resize(fen: str, rows: int, cols: int) -> Board:
    """The program cut or padded with empty squares to rows × cols."""
    if rows < 1 or cols < 1 or rows * cols > MAX_CELLS:
        raise UserError(f"error: a board needs 1 to {MAX_CELLS} squares, not {rows}x{cols}")
    grid = load(fen)
    cells = tuple(
        grid[r, c] if r < grid.rows and c < grid.cols else ""
        for r in range(rows)
        for c in range(cols)
    )
    return board(Grid(rows, cols, cells, grid.side).text())


def _fields(line: str) -> dict[str, str]:
    return dict(part.split("=", 1) for part in line.split(" "))


def snapshot(_report: Report, fen: str, data: bytes, step: int, prompt: bool) -> Snapshot:
    """Run the interpreter until just before instruction `step + 1` (or the end)."""
    grid = load(fen)
    if not 0 <= step <= MAX_STEPS:
        raise UserError(f"error: the step must be between 0 and {MAX_STEPS}")
    output = bytearray()
    tape: dict[int, int] = {}
    seen = 0
    cut: int | None = None
    last: dict[str, str] = {}
    pending = list(data[::-1])

    def trace(line: str) -> None:
        nonlocal seen, cut, last
        seen += 1
        last = _fields(line)
        tape[int(last["ptr"])] = int(last["cell"])
        if seen == step + 1:
            cut = len(output)

    def read_byte() -> int:
        return pending.pop() if pending else -1

    io = MachineIO(output.extend, read_byte, prompt=prompt, trace=trace, flush_at=1)
    status = "ended"
    try:
        interpret(grid, io, step + 1)
    except StepLimitReached:
        pass
    except LoopError as exc:
        # The command line writes a loop error's bytes to stdout, like output.
        status = exc.message.decode("ascii").strip()
        output += exc.message
    else:
        output += b"\n"  # the command line ends a normal run with a newline
    # Instruction step + 1 was reached (whether it then ended the run or not): pause before it.
    finished = seen <= step
    if not finished:
        row, col = last["sq"].split(",")
        square: tuple[int, int] | None = (int(row), int(col))
        piece: str | None = last["piece"]
        shown = output[:cut]
        executed = step
        status = "paused"
    else:
        square, piece, shown, executed = None, None, output, seen
    pointer = int(last["ptr"]) if last else 0
    size = len(grid.cells)
    window = sorted({(pointer + d) % size for d in range(-TAPE_RADIUS, TAPE_RADIUS + 1)})
    cells = tuple((i, tape.get(i, 0)) for i in window)
    return Snapshot(
        executed, square, piece, pointer, cells, shown.decode("latin-1"), finished, status
    )
