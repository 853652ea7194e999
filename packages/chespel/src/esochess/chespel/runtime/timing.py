"""Time management (issue 17's decision, replacing the fixed 50 % rule of
docs/reference/chespel.md#the-search).

A search has a hard deadline, its budget less 20 ms for answering. Another iteration is
started only when the last one's time multiplied by the observed branching factor still
fits before that deadline. Clock budgets use the increment. The first iteration has its
own, later deadline (`minimum`), so that even a tiny clock gets a real depth-1 search.
"""

from __future__ import annotations

from dataclasses import dataclass

MARGIN = 0.020
"""Seconds kept back from a budget for answering (the hard deadline is budget − 20 ms)."""
DEFAULT_MOVES_TO_GO = 30
MOVE_OVERHEAD = 0.010
"""Seconds each move still to play is assumed to cost outside the search, kept back from
the clock (30 moves to go: 0.3 s)."""
DEFAULT_BRANCHING = 4.0
"""Assumed growth of iteration time before two iterations have been measured."""


@dataclass(frozen=True)
class Limits:
    """What ends a search: a wall-clock budget, a depth, a node count, or only `stop`.

    `budget` is the time the move may take; the search stops at budget − 20 ms. `minimum`
    (seconds, at least the hard deadline) is how long depth 1 may run when even that
    deadline comes before it is complete.
    """

    budget: float | None = None
    depth: int | None = None
    nodes: int | None = None
    infinite: bool = False
    minimum: float | None = None

    @property
    def stops_at_mate(self) -> bool:
        """Whether a proven mate ends the search early (docs/reference/chespel.md#the-search)."""
        return not (self.infinite or self.depth is not None or self.nodes is not None)

    @property
    def hard(self) -> float | None:
        """Seconds after the start at which the search stops (None: no clock)."""
        if self.budget is None:
            return None
        return max(self.budget - MARGIN, self.budget / 2)

    @property
    def first(self) -> float | None:
        """Seconds after the start at which an unfinished first iteration stops."""
        hard = self.hard
        if hard is None:
            return None
        return max(hard, self.minimum or 0.0)


def clock_limits(remaining: float, increment: float, moves_to_go: int | None,
                 max_time: float) -> Limits:
    """Limits for `go wtime … winc …` (seconds): a share of the clock plus half the
    increment, never more than a fifth of the clock or the program's maxTime.

    Two reserves keep a Python engine on a loaded machine from losing on time: every move
    still to play is assumed to cost MOVE_OVERHEAD outside the search (the pipe, the GUI,
    waiting for a core), and that much of the clock is never shared out; and half the
    increment stays back, so that a clock that runs low fills up again. Once the reserve
    is all that is left, moves are answered at once.
    """
    remaining = max(remaining, 0.0)
    moves = moves_to_go or DEFAULT_MOVES_TO_GO
    usable = max(remaining - MOVE_OVERHEAD * moves, 0.0)
    share = usable / moves + 0.5 * increment
    budget = max(0.001, min(share, remaining / 5, max_time))
    # Depth 1 may overrun the share, never more than a twentieth of the usable clock.
    minimum = min(max(budget, usable / 20), max_time)
    return Limits(budget=budget, minimum=minimum)


def another_iteration(elapsed: float, last: float, before: float | None, hard: float) -> bool:
    """Whether an iteration predicted to take `last` × branching factor fits before `hard`.

    `last` and `before` are the durations of the last two completed iterations.
    """
    if before is not None and before > 0.0005:
        factor = min(max(last / before, 1.5), 10.0)
    else:
        factor = DEFAULT_BRANCHING
    return elapsed + last * factor <= hard
