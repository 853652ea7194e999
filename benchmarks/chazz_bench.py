"""CHAZZ benchmark: brainfuck workloads translated with `esochess chazz from-bf`, timed
with the compiler and with the interpreter in the same run (`make bench`).

Workloads (generated below, each checked against its expected output):
  sieve   a sieve of Eratosthenes that walks the tape, printing one 0/1 per number
  loops   nested counting loops (four levels, adding up; no output inside)
  digits  nested counting loops that print every number 000-999, many times over
  text    a long text printed line after line by a counting loop

The compiler is timed end to end (compile + run). The interpreter would take minutes on
workloads that last a second compiled, so it runs a bounded number of steps and its
full time is extrapolated from its steps per second on the same program; the step count
of the full run comes from the compiler's step-counting mode. The printed ratio is
(extrapolated interpreter time) / (compiler time). A tiny program (the README tutorial)
is timed both ways too, compile time included.

Usage: python benchmarks/chazz_bench.py [--scale F] [--interpreter-steps N]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from pathlib import Path

from esochess.chazz.brainfuck import translate
from esochess.chazz.compiler import compile_program
from esochess.chazz.engines import run
from esochess.chazz.interpreter import interpret
from esochess.chazz.loader import load_program, parse_program
from esochess.chazz.program import build_program
from esochess.chazz.runtime import MachineIO, StepLimitReached
from esochess.fen import Grid


class BF:
    """A tiny brainfuck emitter with named cells inside slots of `width` cells."""

    def __init__(self, width: int = 1) -> None:
        self.width = width
        self.parts: list[str] = []
        self.pos = 0

    def go(self, cell: int) -> None:
        step = cell - self.pos
        self.parts.append(">" * step if step > 0 else "<" * -step)
        self.pos = cell

    def add(self, cell: int, count: int) -> None:
        self.go(cell)
        self.parts.append("+" * count if count > 0 else "-" * -count)

    def emit(self, code: str) -> None:
        self.parts.append(code)

    def clear(self, cell: int) -> None:
        self.go(cell)
        self.emit("[-]")

    def move(self, src: int, *dsts: int) -> None:
        """Add cell `src` to every cell of `dsts` and clear it."""
        self.go(src)
        self.emit("[-")
        for dst in dsts:
            self.add(dst, 1)
        self.go(src)
        self.emit("]")

    def scan(self, cell: int, slots: int) -> None:
        """Move `slots` slots (negative: left) while `cell` is non-zero."""
        self.go(cell)
        step = slots * self.width
        self.emit("[" + (">" * step if step > 0 else "<" * -step) + "]")

    def code(self) -> str:
        return "".join(self.parts)


def sieve_bf(limit: int) -> str:
    """Sieve of Eratosthenes over 2..limit; prints '1' (prime) or '0' per number, '\\n'.

    The tape is a row of slots, one per number, followed by as many slack slots; a
    prime's multiples are crossed out by walking its value, slot by slot, along the tape.
    """
    width = 8
    v, f, c, d, t, r, nn, u = range(width)
    g = BF(width)
    g.emit(">" * width)  # slot -1 stays all zero: the left end for scans
    for count, cells in ((limit - 1, (v, f, r)), (limit, (r,))):
        g.add(c, count)
        g.go(c)
        g.emit("[")
        for cell in cells:
            g.add(cell, 1)
        g.add(c, -1)
        g.move(c, c + width)
        g.go(c + width)
        g.pos = c
        g.emit("]")
    g.go(r - width)
    g.pos = r
    g.scan(r, -1)  # back to slot -1
    g.go(v + width)
    g.pos = v
    g.add(nn, 2)
    g.go(v)
    g.emit("[")  # for each number n (slot with V)
    g.move(f, u, c)
    g.move(c, f)
    g.go(u)
    g.emit("[")  # n is prime
    g.add(r, -1)  # mark this slot for the way back
    g.move(nn, c, d, t)
    g.move(t, nn)

    def walk() -> None:
        g.go(c)
        g.emit("[-")
        g.move(c, c + width)
        g.move(d, d + width)
        g.go(c + width)
        g.pos = c
        g.emit("]")

    walk()
    g.go(v)
    g.emit("[")  # each multiple still on the tape
    g.clear(f)
    g.move(d, c, t)
    g.move(t, d)
    walk()
    g.go(v)
    g.emit("]")
    g.clear(d)
    g.scan(r, -1)
    g.add(r, 1)
    g.clear(u)
    g.emit("]")
    g.move(nn, nn + width)
    g.go(nn + width)
    g.pos = nn
    g.add(nn, 1)
    g.go(v)
    g.emit("]")
    g.clear(nn)
    g.go(v - width)
    g.pos = v
    g.scan(v, -1)
    g.go(v + width)
    g.pos = v
    g.emit("[")  # print pass
    g.move(f, t, c)
    g.move(c, f)
    g.add(t, 48)
    g.emit(".")
    g.clear(t)
    g.go(v + width)
    g.pos = v
    g.emit("]")
    g.add(t, 10)
    g.emit(".")
    return g.code()


def sieve_expected(limit: int) -> list[bytes]:
    prime = [True] * (limit + 1)
    for n in range(2, limit + 1):
        if prime[n]:
            for m in range(2 * n, limit + 1, n):
                prime[m] = False
    return [bytes(48 + prime[n] for n in range(2, limit + 1)) + b"\n"]


def loops_bf(a: int, b: int, c: int) -> str:
    """Nested counting loops: cell 3 counts a*b*c turns of the third level, each of which
    runs a fourth loop of 3 turns; prints cell 3 mod 256 and cell 4 mod 256."""
    g = BF()
    g.add(0, a)
    g.emit("[")
    g.add(1, b)
    g.emit("[")
    g.add(2, c)
    g.emit("[")
    g.add(3, 1)
    g.add(5, 3)
    g.emit("[")
    g.add(4, 1)
    g.add(5, -1)
    g.emit("]")
    g.add(2, -1)
    g.emit("]")
    g.add(1, -1)
    g.emit("]")
    g.add(0, -1)
    g.emit("]")
    g.go(3)
    g.emit(".>.")
    g.pos = 4
    return g.code()


def loops_expected(a: int, b: int, c: int) -> list[bytes]:
    turns = a * b * c
    return [bytes([turns % 256, 3 * turns % 256])]


def digits_bf(repeat: int) -> str:
    """Nested counting loops that print: every number 000 to 999, `repeat` times."""
    g = BF()
    newline, counter = 1, 0
    g.add(newline, 10)
    g.add(counter, repeat)
    g.emit("[")
    for digit in (2, 4, 6):  # three levels: a digit cell and its counter next to it
        g.add(digit, 48)
        g.add(digit + 1, 10)
        g.go(digit + 1)
        g.emit("[")
    for cell in (2, 4, 6, newline):
        g.go(cell)
        g.emit(".")
    for digit in (6, 4, 2):
        g.add(digit, 1)
        g.add(digit + 1, -1)
        g.go(digit + 1)
        g.emit("]")
        g.clear(digit)
    g.add(counter, -1)
    g.go(counter)
    g.emit("]")
    return g.code()


def digits_expected(repeat: int) -> list[bytes]:
    return ["".join(f"{n:03d}\n" for n in range(1000)).encode()] * repeat


TEXT = [
    "Sphinx of black quartz, judge my vow.",
    "The five boxing wizards jump quickly.",
    "Pack my box with five dozen liquor jugs!",
]


def text_bf(repeat: int) -> str:
    """Prints the lines of TEXT, `repeat` times: a counter loop around a block that
    builds each character from the previous one in one cell."""
    g = BF()
    g.add(0, repeat)
    g.emit("[")
    g.clear(1)
    value = 0
    for line in TEXT:
        for ch in line + "\n":
            g.add(1, ord(ch) - value)
            g.emit(".")
            value = ord(ch)
    g.add(0, -1)
    g.emit("]")
    return g.code()


def text_expected(repeat: int) -> list[bytes]:
    return ["".join(line + "\n" for line in TEXT).encode()] * repeat


# name -> (brainfuck source, expected output chunks), at a size factor.
WORKLOADS: dict[str, tuple[Callable[[float], str], Callable[[float], list[bytes]]]] = {
    # 1870 is the largest sieve whose tape (16 cells a number) fits in 30000 cells.
    "sieve": (
        lambda s: sieve_bf(min(1870, int(1870 * s))),
        lambda s: sieve_expected(min(1870, int(1870 * s))),
    ),
    "loops": (
        lambda s: loops_bf(max(1, int(60 * s)), 100, 100),
        lambda s: loops_expected(max(1, int(60 * s)), 100, 100),
    ),
    "digits": (lambda s: digits_bf(int(10_000 * s)), lambda s: digits_expected(int(10_000 * s))),
    "text": (lambda s: text_bf(int(3_000_000 * s)), lambda s: text_expected(int(3_000_000 * s))),
}

TUTORIAL = "4PPQ1/PR6/qPR5/q1PR4/q2PR3/N2PBn2/pRN5/pbKBrRkb w"


class Sink:
    """Program output as a byte count and a CRC-32 (workloads print up to ~100 MB)."""

    def __init__(self) -> None:
        self.size = 0
        self.crc = 0

    def write(self, data: bytes | bytearray) -> None:
        self.size += len(data)
        self.crc = zlib.crc32(data, self.crc)

    @classmethod
    def of(cls, chunks: list[bytes]) -> tuple[int, int]:
        sink = cls()
        for chunk in chunks:
            sink.write(chunk)
        return sink.size, sink.crc


def _io(sink: Sink, stdin: bytes = b"") -> MachineIO:
    data = iter(stdin)
    return MachineIO(write=sink.write, read_byte=lambda: next(data, -1), prompt=False)


def load_program_text(board: str) -> Grid:
    return parse_program(board.encode())


def translate_with_cli(source: str, folder: Path, name: str) -> Path:
    """Run `esochess chazz from-bf` on the source, as a user would."""
    program = folder / f"{name}.b"
    program.write_text(source)
    board = folder / f"{name}.fen"
    exe = Path(sys.executable).with_name("esochess")
    subprocess.run([str(exe), "chazz", "from-bf", str(program), "-o", str(board)], check=True)
    return board


def time_compiler(grid: Grid) -> tuple[float, tuple[int, int]]:
    """Seconds to compile and run (as `chazz --engine compiler` does), and the output."""
    start = time.perf_counter()
    sink = Sink()
    run(grid, _io(sink))
    return time.perf_counter() - start, (sink.size, sink.crc)


def count_steps(grid: Grid) -> int:
    steps = compile_program(build_program(grid), counted=True).run(_io(Sink()))
    assert steps is not None
    return steps


def time_interpreter(grid: Grid, steps: int) -> tuple[float, int]:
    """Run the interpreter for at most `steps` steps; return (seconds, steps run)."""
    start = time.perf_counter()
    try:
        interpret(grid, _io(Sink()), max_steps=steps)
    except StepLimitReached:
        return time.perf_counter() - start, steps
    return time.perf_counter() - start, count_steps(grid)


def input_bound(size: int = 200_000) -> tuple[float, float]:
    """Seconds of `,+[.,+]` (echo each input byte plus one) on `size` bytes of input,
    with the compiler engine and with the interpreter (both run in full)."""
    board = load_program_text(translate(",+[.,+]"))
    data = bytes(range(1, 256)) * (size // 255)
    results = []
    for engine in ("compiler", "interpreter"):
        sink = Sink()
        start = time.perf_counter()
        run(board, _io(sink, data), engine=engine)
        results.append(time.perf_counter() - start)
        if sink.size != len(data):
            raise RuntimeError("caesar: wrong output size")
    return results[0], results[1]


def tiny(repeats: int = 200, rounds: int = 15) -> tuple[float, float, float]:
    """Per-run seconds of the tutorial (best of `rounds` rounds, against the load of a
    shared machine): the compiler engine as `chazz` runs it (a short interpreted trial
    first), the same with compiling forced, and the interpreter."""
    grid = parse_program(TUTORIAL.encode())
    results = []
    for engine, tiered in (("compiler", True), ("compiler", False), ("interpreter", True)):
        best = float("inf")
        for _ in range(rounds):
            start = time.perf_counter()
            for _ in range(repeats):
                run(grid, _io(Sink(), b"a"), engine=engine, tiered=tiered)  # type: ignore[arg-type]
            best = min(best, (time.perf_counter() - start) / repeats)
        results.append(best)
    return results[0], results[1], results[2]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="workload size factor")
    parser.add_argument("--interpreter-steps", type=int, default=3_000_000)
    parser.add_argument("--only", choices=sorted(WORKLOADS), action="append")
    args = parser.parse_args()
    print("CHAZZ: compiler vs interpreter (baseline: the literal interpreter, same run)")
    print(f"{'workload':8} {'steps':>13} {'compiler s':>11} {'interp. s':>11} {'ratio':>8}")
    worst = float("inf")
    with tempfile.TemporaryDirectory() as tmp:
        for name, (make, expect) in WORKLOADS.items():
            if args.only and name not in args.only:
                continue
            board = translate_with_cli(make(args.scale), Path(tmp), name)
            grid = load_program(board)
            seconds, output = time_compiler(grid)
            if output != Sink.of(expect(args.scale)):
                print(f"{name}: WRONG OUTPUT", file=sys.stderr)
                return 1
            total = count_steps(grid)
            ran_for, ran = time_interpreter(grid, args.interpreter_steps)
            interp = ran_for * total / ran
            ratio = interp / seconds
            worst = min(worst, ratio)
            note = "" if ran == total else " (interpreter extrapolated)"
            print(f"{name:8} {total:>13,} {seconds:>11.3f} {interp:>11.1f} {ratio:>7.0f}x{note}")
    compiled, interpreted = input_bound()
    print(
        f"input    ,+[.,+] on 200 KB of input (not a target: every step waits on a read): "
        f"compiler {compiled:.3f} s, interpreter {interpreted:.3f} s, "
        f"ratio {interpreted / compiled:.1f}x"
    )
    engine, forced, interpreted = tiny()
    print(
        f"tiny     tutorial: compiler engine {engine * 1e6:.0f} us "
        f"(forced compile+run {forced * 1e6:.0f} us), interpreter {interpreted * 1e6:.0f} us, "
        f"ratio {interpreted / engine:.2f}x"
    )
    print(f"worst ratio {worst:.0f}x (target >= 50x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
