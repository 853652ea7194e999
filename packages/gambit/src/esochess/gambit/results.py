"""What a run of the machine reports to the game layer: decisions, results, illegal
turns, commits, run-time errors, and the console protocol."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from esochess.fen import SourceError, format_diagnostic

Pos = tuple[int, int]


class GambitIO(Protocol):
    """The console side of a real execution, supplied by cli.py or the game layer."""

    def output(self, text: str) -> None:
        """Write one line of program output (`print`), without its newline."""

    def trace(self, line: int, col: int, event: str) -> None:
        """Report one engine event of docs/reference/gambit.md#gambit-run (write, create, call
        dispatch, chance)."""


@dataclass
class GambitRuntimeError(SourceError):
    """A run-time error (docs/reference/gambit.md#run-time-errors): a `SourceError` plus indented
    `called from` lines.

    `trace_lines` are rendered after the caret line exactly as given (each already
    starts with two spaces); the game layer may append a `while exploring …` line with
    `dataclasses.replace`. `exit_code` is 1 (4 is used for end of human input).
    """

    trace_lines: tuple[str, ...] = field(default=())
    exit_code: int = 1

    def render(self, source: str | None = None) -> str:
        """The full diagnostic text (no trailing newline)."""
        return "\n".join([format_diagnostic(self, source), *self.trace_lines])


class RunError(Exception):
    """Raised by compiled code: a run-time error at a source position."""

    def __init__(self, pos: Pos, message: str) -> None:
        super().__init__(message)
        self.pos = pos
        self.message = message
        # (callee name, call position) of the synchronous calls it left, innermost first.
        self.trail: list[tuple[str, Pos]] = []
        # Related places, rendered as `FILE:LINE:COL: note: …` lines.
        self.notes: list[tuple[Pos, str]] = []


class GameEnd(Exception):
    """Raised by `wins`/`loses`/`draw`: the game ends from any call depth
    (docs/reference/gambit.md#ending-the-game)."""

    def __init__(self, result: Result) -> None:
        super().__init__(result.line)
        self.result = result


class IllegalSignal(Exception):
    """Raised by `illegal` (or an empty `choose`): the current option is not legal."""

    def __init__(self, pos: Pos, seat: int | None = None, new_turn: bool = False) -> None:
        super().__init__("illegal")
        self.pos = pos
        self.seat = seat
        self.new_turn = new_turn


@dataclass(frozen=True)
class Decision:
    """A pending `choose` (docs/reference/gambit.md#choose).

    `options` is the full option list (duplicates kept); `labels` their display forms;
    `k` is None for a plain choose, K for `choose[K]`; `new_turn` is True when a
    `commit` ran since the previous decision (seat changes are the caller's to see).
    """

    seat: int
    options: tuple[Any, ...]
    labels: Sequence[str]
    k: int | None
    secret: bool
    prompt: str | None
    line: int
    col: int
    new_turn: bool


def decision(
    seat: int, options: tuple[Any, ...], labels: Sequence[str], k: int | None, secret: bool,
    prompt: str | None, line: int, col: int, new_turn: bool,
) -> Decision:  # fmt: skip
    """`Decision(...)`, made without the frozen dataclass's one `object.__setattr__` call
    per field: the machine makes one at every decision of every game and simulation."""
    d = object.__new__(Decision)
    d.__dict__.update(seat=seat, options=options, labels=labels, k=k, secret=secret,
                      prompt=prompt, line=line, col=col, new_turn=new_turn)  # fmt: skip
    return d


@dataclass(frozen=True)
class Result:
    """The end of the game (docs/reference/gambit.md#ending-the-game): winners/losers by seat, or a
    draw, or no result.

    `line`/`col` locate the ending statement (None when `main` returned or the decision
    limit was reached).
    """

    seats: int
    winners: tuple[int, ...] = ()
    draw: bool = False
    line_no: int | None = None
    col: int | None = None

    @property
    def no_result(self) -> bool:
        """True when main returned (nobody won and it was no draw,
        docs/reference/gambit.md#ending-the-game)."""
        return not self.draw and not self.winners and self.line_no is None

    @property
    def line(self) -> str:
        """The result line printed by the engine."""
        if self.draw:
            return "Draw"
        if self.winners:
            if len(self.winners) == 1:
                return f"Player {self.winners[0]} wins"
            return "Players " + ", ".join(str(w) for w in self.winners) + " win"
        if self.line_no is None:
            return "No result"
        return "Player 1 loses" if self.seats == 1 else "Nobody wins"

    def scores(self) -> tuple[float, ...]:
        """Per-seat reward for AI players: win 1, draw 0.5, loss 0, no result 0.5."""
        if self.draw or self.no_result:
            return tuple(0.5 for _ in range(self.seats))
        return tuple(1.0 if s in self.winners else 0.0 for s in range(1, self.seats + 1))


@dataclass(frozen=True)
class Committed:
    """A `commit` ran after the game's first decision (only with `pause_at_commit`).

    The machine is paused just after the `commit`; `run_until_decision` continues.
    """

    line: int
    col: int


@dataclass(frozen=True)
class Illegal:
    """`illegal` ran (or a `choose` had no options) at `line`:`col`
    (docs/reference/gambit.md#turns-illegal-and-commit).

    For an empty `choose`, `seat` is its deciding player and `new_turn` tells whether a
    `commit` ran since the previous decision; for the `illegal` statement seat is None.
    """

    line: int
    col: int
    seat: int | None = None
    new_turn: bool = False


def _line_of(source: str, line: int) -> str | None:
    lines = source.splitlines()
    return lines[line - 1] if 1 <= line <= len(lines) else None
