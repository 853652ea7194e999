"""Version numbers of game states and of instance sets, the keys of memoised results.

Every game state gets a version number unique across all machines: a fork shares its
parent's version until either of them changes the state, so pure results cached under a
version are valid in every machine that has it (docs/reference/gambit.md#purity: caching
must be unobservable).

The *instance version* stands for what static code can read: the entity instances and
their `fixed` values. It is interned: every machine of a program that starts with the
same number of players and creates the same instances with the same values, in the same
order, reaches the same instance version. Games of a playout or MCTS simulations that
set up the same board therefore share what static functions computed (`at(i)`, a
selection by a fixed property) instead of computing it again in every game.
"""

from __future__ import annotations

import itertools
from typing import Any

from esochess.gambit.values import EnumVal, Inst

_COUNTER = itertools.count(1)
_INTERNED: dict[tuple[Any, ...], int] = {}
_LIMIT = 200_000
# Values whose equality means the same value (no 1 == 1.0 == True, no -0.0 == 0.0).
_SHAREABLE = frozenset({int, str, bool, type(None), EnumVal, Inst})


def fresh() -> int:
    """A version number never used before."""
    return next(_COUNTER)


def interned(step: tuple[Any, ...]) -> int:
    """The instance version reached by `step` (the previous instance version and what
    changed): the same number for the same step in any machine."""
    v = _INTERNED.get(step)
    if v is None:
        if len(_INTERNED) >= _LIMIT:
            _INTERNED.clear()  # later steps get fresh numbers: still unique, less shared
        v = _INTERNED[step] = next(_COUNTER)
    return v


def interned_writes(written: list[tuple[int, Any]]) -> bool:
    """True when `after_writes` gives an interned version for these (pid, value) pairs."""
    return all(type(value) in _SHAREABLE for _, value in written)


def after_writes(version: int, inst: Inst, written: list[tuple[int, Any]]) -> int:
    """The instance version after a new instance's properties are set to values, given
    as (pid, value) pairs."""
    step: list[Any] = [version, inst]
    for pid, value in written:
        if type(value) not in _SHAREABLE:
            return fresh()
        step += (pid, type(value), value)
    return interned(tuple(step))
