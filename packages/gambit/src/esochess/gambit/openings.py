"""The opening of silent games: what every `gambit playout` game of a program reaches
before its first decision, computed once (docs/reference/gambit.md#gambit-playout).

A game runs the same code from the same start until its first decision; only the seed
differs, and the seed matters only once the game draws from its chance RNG. When the
run to the first decision draws nothing, every later game starts from a fork of that
paused machine, reseeded with its own seed -- the state it would have reached itself
(set-up loops and entity creations are not run again). A run that draws, ends, fails or
is `illegal` before deciding is not kept: each game runs it as before.
"""

from __future__ import annotations

import dataclasses

from esochess.gambit.labels import Labels
from esochess.gambit.machine import Machine
from esochess.gambit.program import Program
from esochess.gambit.results import Decision, Illegal, Result


def opening(program: Program, seed: int, seats: int) -> tuple[Machine, Decision | Result | Illegal]:
    """A silent machine for game seed `seed` (`quiet`: prints that cannot fail are
    skipped), run to its first outcome, and that outcome."""
    kept = program.openings.get(seats)
    if kept is not None:
        start, first = kept
        m = start.fork()
        m.reseed(seed)
        return m, first
    m = Machine(program, seed=seed, players=seats)
    m.quiet = True  # nothing is shown: skip the `print`s that cannot fail
    out = m.run_until_decision()
    if isinstance(out, Decision) and not m.drew_chance:
        start = m.fork()
        # The decision's labels read the machine they belong to: the one kept unplayed.
        program.openings[seats] = (start, dataclasses.replace(out, labels=Labels(start, out.options)))
    return m, out
