"""Helpers for the CHAZZ unit tests (imported by name; unique across the suite)."""

from __future__ import annotations

from dataclasses import dataclass

from esochess.chazz.engines import Engine, run
from esochess.chazz.loader import parse_program
from esochess.chazz.runtime import LoopError, MachineIO, StepLimitReached
from esochess.fen import Grid


@dataclass(frozen=True)
class Outcome:
    """What a run shows: stdout bytes as the CLI would write them, a status and the trace.

    `status` is "ok", "error" (a loop error, its bytes at the end of stdout) or "limit".
    """

    stdout: bytes
    status: str
    trace: tuple[str, ...] = ()


def run_grid(
    grid: Grid,
    stdin: bytes = b"",
    *,
    engine: Engine = "compiler",
    max_steps: int | None = None,
    trace: bool = False,
    prompt: bool = True,
    tiered: bool = False,
    interactive: bool = False,
) -> Outcome:
    """Run `grid` in process and collect what the CLI would print.

    The compiler engine compiles at once unless `tiered` (the CLI's default) is set, so
    that tests exercise the compiled code even on tiny programs.
    """
    out = bytearray()
    data = iter(stdin)
    lines: list[str] = []
    io = MachineIO(
        write=out.extend,
        read_byte=lambda: next(data, -1),
        prompt=prompt,
        trace=lines.append if trace else None,
        interactive=interactive,
    )
    try:
        run(grid, io, engine=engine, max_steps=max_steps, tiered=tiered)
    except LoopError as exc:
        return Outcome(bytes(out) + exc.message, "error", tuple(lines))
    except StepLimitReached:
        return Outcome(bytes(out), "limit", tuple(lines))
    return Outcome(bytes(out) + b"\n", "ok", tuple(lines))


def run_line(line: bytes | str, stdin: bytes = b"", **options: object) -> Outcome:
    """Parse one program line and run it (see `run_grid`)."""
    raw = line.encode("latin-1") if isinstance(line, str) else line
    return run_grid(parse_program(raw), stdin, **options)  # type: ignore[arg-type]


def both(
    line: bytes | str, stdin: bytes = b"", max_steps: int | None = None, **options: object
) -> Outcome:
    """Run with both engines, assert they agree, and return the common outcome.

    Without `max_steps` the program must end within 200000 steps (a guard against a
    test that would spin); then the compiler's uncounted code is checked too.
    """
    bound = 200_000 if max_steps is None else max_steps
    compiled = run_line(line, stdin, engine="compiler", max_steps=bound, **options)
    interpreted = run_line(line, stdin, engine="interpreter", max_steps=bound, **options)
    assert compiled == interpreted
    if max_steps is None:
        assert interpreted.status != "limit", "the test program does not end"
        assert run_line(line, stdin, engine="compiler", **options) == interpreted
    return interpreted
