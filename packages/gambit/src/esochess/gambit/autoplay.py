"""Random legal options played where the compiled engine decides, without pausing.

A random playout (`gambit playout`) and an MCTS simulation answer every decision with a
uniformly random legal option. Where the legality of a decision's options is a
predicate (compiler/legality.py), the compiled engine's generated step
(codegen/steps.py) hands the decision to the machine's `autoplay` instead of pausing:
it tests the options (predicate.py's scan), draws the option from the seat's RNG
exactly as `game.play_random` would -- the same RNG calls, the same option, the same
locals where the test stopped -- and the step goes on from there. No `Decision`, no
labels, no trip through the game layer. Everything else pauses as before and the caller
plays it the usual way: a decision whose legality needs look-ahead, one at the decision
limit, one with no legal option (found before anything was drawn), and every decision of
a machine with I/O or tracing, which never gets an autoplay.

Run-time errors are those of the usual path: an option's failing test is reported as
look-ahead reports it (`while exploring option …`), a bad `choose[K]` as the machine does.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from typing import Any

from esochess.gambit.codegen.steps import Site
from esochess.gambit.game import exploring_error
from esochess.gambit.labels import Labels
from esochess.gambit.machine import Machine
from esochess.gambit.predicate import Failed, option_error, scanner
from esochess.gambit.program import Frame
from esochess.gambit.results import Decision, IllegalSignal, RunError, decision


class RandomAutoplay:
    """Plays uniformly random legal options: drawn from all the legal options of a
    decision (`gambit playout`, with each seat's RNG) or, with `rejection`, by drawing
    options without replacement until one is legal (MCTS simulations, one RNG)."""

    def __init__(self, rngs: Sequence[random.Random], limit: int, rejection: bool) -> None:
        self.rngs = rngs
        self.limit = limit
        self.rejection = rejection
        # Set when a rejection draw found no legal option: the caller stops there.
        self.stuck = False

    def play(self, m: Machine, frame: Frame, L: list[Any], site: Site) -> Any:
        """Answer the decision of `site` in `frame` (whose locals are `L`): the new locals
        when the option goes on from its test's stop, True when it goes on after the
        `choose` (`L` holds the chosen value), the Decision when the machine paused, None
        to pause as usual (nothing evaluated yet)."""
        if site.callee:
            frames = m.frames
            if len(frames) < 2 or frames[-2].pc not in frames[-2].code.horizon_returns:
                return None
        player, k, prompt, options = site.spec(m, L)
        # `Machine._decide`'s checks, in its order.
        if k is not None and k < 1:
            raise RunError(site.pos, f"choose[{k}] needs K of at least 1")
        if not options or (k is not None and k > len(options)):
            raise IllegalSignal(site.pos, player.index, m.committed)
        n = len(options)
        if k is None:
            keys: Any = list(range(1, n + 1)) if self.rejection else range(1, n + 1)
        else:
            keys = [tuple(c) for c in itertools.combinations(range(1, n + 1), k)]
        scan = site.scan
        if scan is None:
            scan = site.scan = scanner(site.instrs, site.after, site.stop)
        rng = self.rngs[player.index - 1]
        # `rng.randrange(n)` is `rng._randbelow(n)` for n >= 1 (CPython's random.py), one
        # Python call fewer: the same draws as the game layer's.
        # As `predicate.legal_keys`: the test neither traces nor prints, at no call depth.
        silent, depth, peak, skipped = m.silent, m.depth, m.peak, m.skipped_print
        m.silent, m.depth, m.peak = True, 0, 0
        try:
            if self.rejection:
                found: list[Any] = scan(m, L, options, (keys.pop(rng._randbelow(len(keys))),))
                while not found and keys:
                    m.depth, m.peak = 0, 0  # each test as on its own (`play_random`)
                    found = scan(m, L, options, (keys.pop(rng._randbelow(len(keys))),))
            else:
                found = scan(m, L, options, keys)
        except Failed as failed:
            d = self._decision(m, site, player, k, prompt, options)
            raise exploring_error(option_error(m, failed.exc), d, failed.key) from None
        finally:
            m.silent, m.depth, m.peak = silent, depth, peak
            m.skipped_print = skipped
        if not found:
            self.stuck = self.rejection
            frame.pc = site.after
            return self._decision(m, site, player, k, prompt, options)
        key, locals_ = found[0] if self.rejection else found[rng._randbelow(len(found))]
        m.decisions_made += 1
        m.committed = False
        if locals_ is None:  # the test skipped a `print`: run the option from the start
            if site.dest >= 0:
                L[site.dest] = options[key - 1] if type(key) is int else \
                    tuple(options[i - 1] for i in key)  # fmt: skip
            return True
        frame.locals = locals_
        return locals_

    @staticmethod
    def _decision(m: Machine, site: Site, player: Any, k: int | None, prompt: Any,
                  options: tuple[Any, ...]) -> Decision:  # fmt: skip
        """The decision as `Machine._decide` makes it (the machine pauses at it)."""
        m.pending = (site.dest, options, k)
        return decision(player.index, options, Labels(m, options), k, site.secret, prompt,
                        site.pos[0], site.pos[1], m.committed)  # fmt: skip


def autoplay(
    machine: Machine, rngs: Sequence[random.Random], limit: int, *, rejection: bool
) -> RandomAutoplay | None:
    """An autoplay for `machine`'s silent game, or None where it would answer nothing: the
    reference interpreter, one seat (a decision's legality is a predicate only with two or
    more), I/O or tracing. (The game layer's unit tests pass a stand-in machine: None.)"""
    if not isinstance(machine, Machine) or machine.program.drive is None or machine.seats < 2:
        return None
    if machine.io is not None or machine.tracing:
        return None
    return RandomAutoplay(rngs, limit, rejection)
