"""A scripted stand-in for `Machine`, for unit tests of the game layer.

The game is a pure function from the choices made so far to the next outcome, so a
fork is a copy of the history (re-execution, Appendix C design (a)) — exactly the
behaviour the real machine must show, without depending on the interpreter.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from esochess.gambit.results import Decision, Illegal, Result

Script = Callable[[tuple[Any, ...]], "Decision | Result | Illegal"]


def decision(
    seat: int,
    options: tuple[Any, ...],
    prompt: str | None = None,
    k: int | None = None,
    new_turn: bool = False,
    secret: bool = False,
) -> Decision:
    """A Decision with labels derived from the options."""
    return Decision(
        seat=seat,
        options=options,
        labels=tuple(str(o) for o in options),
        k=k,
        secret=secret,
        prompt=prompt,
        line=1,
        col=1,
        new_turn=new_turn,
    )


class ScriptMachine:
    """Implements the parts of the Machine API the game layer uses."""

    def __init__(self, script: Script, seats: int = 2, history: tuple[Any, ...] = ()) -> None:
        self.script = script
        self.seats = seats
        self.history = list(history)
        self.decisions_made = len(history)
        self.forks = 0
        self.pause_at_commit = False

    def run_until_decision(self) -> Decision | Result | Illegal:
        return self.script(tuple(self.history))

    def run_until_pause(self) -> Decision | Result | Illegal:
        """Scripts mark commits with Decision.new_turn, so they never pause."""
        return self.script(tuple(self.history))

    def choose(self, key: Any) -> None:
        out = self.script(tuple(self.history))
        assert isinstance(out, Decision)
        if isinstance(key, tuple):
            self.history.append(tuple(out.options[i - 1] for i in key))
        else:
            self.history.append(out.options[key - 1])
        self.decisions_made += 1

    def fork(self) -> ScriptMachine:
        self.forks += 1
        return ScriptMachine(self.script, self.seats, tuple(self.history))

    def reseed(self, n: int) -> None:
        """Scripts have no chance."""


def two_step(history: tuple[Any, ...]) -> Decision | Result | Illegal:
    """§17 check 35: First [1, 2, 3], Second [10, 20]; a == 2, or a == 3 with b == 10, is illegal."""
    if len(history) == 0:
        return decision(1, (1, 2, 3), "First")
    if len(history) == 1:
        return decision(1, (10, 20), "Second")
    a, b = history
    if a == 2 or (a == 3 and b == 10):
        return Illegal(5, 5)
    return Result(1, winners=(1,), line_no=8, col=5)


def committed(history: tuple[Any, ...]) -> Decision | Result | Illegal:
    """§17 check 35, second program: a commit separates First from Second."""
    if len(history) == 0:
        return decision(1, (1, 2), "First")
    if len(history) == 1:
        return decision(1, (1, 2), "Second", new_turn=True)
    if history[0] == 1:
        return Illegal(6, 5)
    return Result(1, winners=(1,), line_no=7, col=5)


def nim(heap: int) -> Script:
    """One heap of `heap` stones, take 1-3, whoever takes the last stone wins."""

    def script(history: tuple[Any, ...]) -> Decision | Result | Illegal:
        left = heap - sum(history)
        mover = len(history) % 2 + 1
        if left <= 0:
            winner = 2 - len(history) % 2  # who made the last move
            return Result(2, winners=(winner,), line_no=1, col=1)
        return decision(mover, tuple(range(1, min(3, left) + 1)), "How many?")

    return script
