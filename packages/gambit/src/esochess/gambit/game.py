"""The game model on top of the machine: turns, legal options by look-ahead, results
(docs/reference/gambit.md#the-game).

A `Machine` pauses at every `choose`. This module decides which of a decision's options
are *legal* (docs/reference/gambit.md#turns-illegal-and-commit): an option is legal when at least
one completion of it reaches the end of the turn without `illegal`. Completions are explored on
forks of the machine, depth-first, stopping at the first legal one. Each legal option keeps the fork
that chose it, already run to its next outcome, so a caller without I/O (playouts, AI
simulations) can continue from that fork instead of executing the same step again.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from esochess.fen import source_line_at
from esochess.gambit.machine import Machine
from esochess.gambit.predicate import OptionFailed, legal_keys, predicate_stop, resume
from esochess.gambit.results import Committed, Decision, GambitRuntimeError, Illegal, Result

Key = int | tuple[int, ...]
"""An option key: a 1-based option index, or a sorted index tuple for `choose[K]`."""

Outcome = Decision | Result | Illegal | Committed
"""What `Machine.run_until_pause` returns (no `Committed` from `run_until_decision`)."""


@dataclass
class LegalOption:
    """A legal option of a decision and the fork that chose it, paused at `outcome`.

    The outcome may be a commit pause: pass it through `advance` before using it. An
    option found legal by a predicate (predicate.py) has no fork: `machine` and `outcome`
    are None, and playing it runs the option on the deciding machine.
    """

    key: Key
    machine: Machine | None
    outcome: Outcome | None
    # For an option found legal by a predicate: where its test stopped and the locals it
    # left there, so a machine without I/O plays it without running the test again.
    resume: tuple[int, list[Any]] | None = None


def candidates(decision: Decision) -> list[Key]:
    """Every option key of a decision in option order (lexicographic K-combinations)."""
    n = len(decision.options)
    if decision.k is None:
        return list(range(1, n + 1))
    return [tuple(c) for c in itertools.combinations(range(1, n + 1), decision.k)]


def key_text(key: Key) -> str:
    """A key as the user writes it: `5`, or `3+4` for a combination."""
    if isinstance(key, tuple):
        return "+".join(str(i) for i in key)
    return str(key)


def pausing_fork(machine: Machine, seat: int) -> Machine:
    """A fork exploring the turn of `seat`: it pauses where the turn ends (docs/reference/gambit.md#turns-illegal-and-commit) -- right
    after a `commit`, or at a decision of another turn before its options are computed --
    instead of running on through the next decision, and skips `print` arguments."""
    f = machine.fork()
    f.pause_at_commit = True
    f.lookahead_seat = seat
    f.silent = True
    f.skipped_print = False
    return f


def advance(machine: Machine, outcome: Outcome) -> Decision | Result | Illegal:
    """Adopt a look-ahead fork as the continuing execution: run past its turn-end pause to
    the next real outcome (decision, result or illegal)."""
    machine.lookahead_seat = None
    if isinstance(outcome, Committed):
        return machine.run_until_decision()
    return outcome


def adopt(machine: Machine, option: LegalOption) -> tuple[Machine, Decision | Result | Illegal]:
    """Play `option` of the decision `machine` is paused at, without I/O: continue the fork
    that explored it, or -- when its look-ahead skipped a `print` that `machine` would
    evaluate -- run the option again on `machine` itself, as a real game would.
    Returns the continuing machine and its next outcome; `machine` may be changed."""
    if option.machine is None or option.outcome is None or (
        option.machine.skipped_print and not machine.silent
    ):
        if option.resume is not None and machine.io is None and not machine.tracing:
            resume(machine, option.key, option.resume[1], option.resume[0])
        else:
            machine.choose(option.key)
        return machine, machine.run_until_decision()
    option.machine.silent = machine.silent
    return option.machine, advance(option.machine, option.outcome)


def ends_turn(outcome: Outcome, seat: int) -> bool | None:
    """Whether `outcome` ends the turn of `seat` (True), is illegal (False), or is a
    further decision of the same turn (None) (docs/reference/gambit.md#turns-illegal-and-commit)."""
    if isinstance(outcome, (Result, Committed)):
        return True
    if isinstance(outcome, Illegal):
        # An empty choose of another turn is that turn's problem, not this one's.
        return outcome.seat is not None and (outcome.seat != seat or outcome.new_turn)
    if outcome.seat != seat or outcome.new_turn:
        return True
    return None


MAX_TURN_DECISIONS = 256
"""Look-ahead explores at most this many nested decisions of one turn (see `_completes`)."""


def endless_turn(machine: Machine, decision: Decision) -> GambitRuntimeError:
    """The run-time error for a turn whose look-ahead never reaches its end."""
    path = machine.program.path
    return GambitRuntimeError(
        path,
        decision.line,
        decision.col,
        f"the turn of Player {decision.seat} does not end within {MAX_TURN_DECISIONS} "
        "decisions (a turn ends at 'commit' or when another player decides)",
        severity="runtime error",
        source_line=source_line_at(machine.program.source, decision.line),
    )


def _completes(machine: Machine, outcome: Outcome, seat: int, depth: int = 1) -> bool:
    """True when some completion from this paused state ends the turn legally.

    A turn that never ends (one player deciding for ever, no `commit`) would make the
    depth-first search endless; past `MAX_TURN_DECISIONS` nested decisions it is a
    run-time error of the program rather than Python running out of stack.
    """
    verdict = ends_turn(outcome, seat)
    if verdict is not None:
        return verdict
    assert isinstance(outcome, Decision)
    if depth >= MAX_TURN_DECISIONS:
        raise endless_turn(machine, outcome)
    for key in candidates(outcome):
        f = pausing_fork(machine, seat)
        f.choose(key)
        if _completes(f, f.run_until_pause(), seat, depth + 1):
            return True
    return False


def exploring_error(err: GambitRuntimeError, decision: Decision, key: Key) -> GambitRuntimeError:
    """Add the `while exploring option I of the choice at F:L:C` line
    (docs/reference/gambit.md#run-time-errors)."""
    where = f"{err.path}:{decision.line}:{decision.col}"
    line = f"  while exploring option {key_text(key)} of the choice at {where}"
    return dataclasses.replace(err, trace_lines=(*err.trace_lines, line))


def legal_options(machine: Machine, decision: Decision) -> list[LegalOption]:
    """The legal options of the decision `machine` is paused at, in option order
    (docs/reference/gambit.md#turns-illegal-and-commit).

    `decision` must be the outcome that paused `machine`. The machine itself is not
    changed. Raises `GambitRuntimeError` (with the exploring note) when a completion
    fails at run time.
    """
    stop = predicate_stop(machine)
    if stop is not None:
        return [LegalOption(key, None, None, None if L is None else (stop, L))
                for key, L in predicate_keys(machine, decision, candidates(decision), stop)]  # fmt: skip
    found: list[LegalOption] = []
    for key in candidates(decision):
        option = try_option(machine, decision, key)
        if option is not None:
            found.append(option)
    return found


def legal_keys_of(machine: Machine, decision: Decision) -> list[Key]:
    """The keys of `legal_options(machine, decision)`, without making the LegalOptions
    where the legality is a predicate (MCTS expands a node with its keys alone)."""
    stop = predicate_stop(machine)
    if stop is None:
        return [o.key for o in legal_options(machine, decision)]
    return [key for key, _ in predicate_keys(machine, decision, candidates(decision), stop)]


def random_pick(machine: Machine, decision: Decision, rng: random.Random) -> LegalOption | None:
    """`legal_options(machine, decision)` and then `legal[rng.randrange(len(legal))]`
    (None when no option is legal), making only the picked option's LegalOption."""
    stop = predicate_stop(machine)
    if stop is None:
        legal = legal_options(machine, decision)
        return legal[rng.randrange(len(legal))] if legal else None
    found = predicate_keys(machine, decision, candidates(decision), stop)
    if not found:
        return None
    key, L = found[rng.randrange(len(found))]
    return LegalOption(key, None, None, None if L is None else (stop, L))


def play_random(
    machine: Machine, decision: Decision, rng: random.Random, *, rejection: bool = False
) -> tuple[Machine, Decision | Result | Illegal] | None:
    """Play a random legal option of `decision` without I/O: `random_pick` (or, with
    `rejection`, `random_legal_option`) and then `adopt`; None when no option is legal.

    An option a predicate found legal is resumed on `machine` itself, as `adopt` resumes
    it, without making its LegalOption first (a random playout plays one per decision).
    """
    stop = predicate_stop(machine)
    if stop is None or machine.io is not None or machine.tracing:
        pick = (random_legal_option if rejection else random_pick)(machine, decision, rng)
        return None if pick is None else adopt(machine, pick)
    keys = candidates(decision)
    if rejection:
        found: list[tuple[Key, list[Any] | None]] = []
        while keys and not found:
            found = predicate_keys(machine, decision, [keys.pop(rng.randrange(len(keys)))], stop)
        if not found:
            return None
        key, L = found[0]
    else:
        found = predicate_keys(machine, decision, keys, stop)
        if not found:
            return None
        key, L = found[rng.randrange(len(found))]
    if L is None:
        machine.choose(key)
    else:
        resume(machine, key, L, stop)
    return machine, machine.run_until_decision()


def predicate_keys(
    machine: Machine, decision: Decision, keys: list[Key], stop: int
) -> list[tuple[Key, list[Any] | None]]:
    """`legal_keys` with a failing option's error named as look-ahead names it."""
    try:
        return legal_keys(machine, keys, stop)
    except OptionFailed as failed:
        raise exploring_error(failed.error, decision, failed.key) from None


def random_legal_option(machine: Machine, decision: Decision, rng: random.Random) -> LegalOption | None:
    """A uniformly random legal option, found by rejection: draw options without
    replacement until one has a legal completion (None when none has).

    Each legal option is equally likely, but only the drawn options are explored, so
    AI simulations avoid the full look-ahead of `legal_options`.
    """
    keys = candidates(decision)
    stop = predicate_stop(machine)
    while keys:
        key = keys.pop(rng.randrange(len(keys)))
        if stop is not None:
            for _, L in predicate_keys(machine, decision, [key], stop):
                return LegalOption(key, None, None, None if L is None else (stop, L))
            continue
        option = try_option(machine, decision, key)
        if option is not None:
            return option
    return None


def try_option(machine: Machine, decision: Decision, key: Key) -> LegalOption | None:
    """Explore one option on a fork: the LegalOption when it is legal, else None."""
    f = pausing_fork(machine, decision.seat)
    f.choose(key)
    try:
        out = f.run_until_pause()
        legal = ends_turn(out, decision.seat)
        if legal is None:
            assert isinstance(out, Decision)
            legal = _completes(f, out, decision.seat)
    except GambitRuntimeError as err:
        raise exploring_error(err, decision, key) from None
    return LegalOption(key, f, out) if legal else None


def listed_indices(decision: Decision, legal: Sequence[LegalOption]) -> list[int]:
    """Option indices shown to a human: those in at least one legal option
    (docs/reference/gambit.md#gambit-run)."""
    if decision.k is None:
        return [k for o in legal if isinstance(k := o.key, int)]
    seen: set[int] = set()
    for o in legal:
        assert isinstance(o.key, tuple)
        seen.update(o.key)
    return sorted(seen)


def chosen_label(decision: Decision, key: Key) -> str:
    """The display form of a chosen option: a list display for `choose[K]`
    (docs/reference/gambit.md#gambit-run)."""
    if isinstance(key, tuple):
        return "[" + ", ".join(decision.labels[i - 1] for i in key) + "]"
    return decision.labels[key - 1]


def decision_header(decision: Decision) -> str:
    """`[Player N] PROMPT` (or `Choose:`), with ` (choose K)` for `choose[K]`
    (docs/reference/gambit.md#gambit-run)."""
    text = decision_header_plain(decision)
    if decision.k is not None:
        text += f" (choose {decision.k})"
    return text


def option_lines(decision: Decision, legal: Sequence[LegalOption]) -> list[str]:
    """The `  I) LABEL` lines of the legal options, in option order
    (docs/reference/gambit.md#gambit-run)."""
    return [f"  {i}) {decision.labels[i - 1]}" for i in listed_indices(decision, legal)]


def echo_line(decision: Decision, key: Key) -> str:
    """The one-line echo of an AI or replayed decision (docs/reference/gambit.md#gambit-run)."""
    shown = "(secret)" if decision.secret else chosen_label(decision, key)
    return f"{decision_header_plain(decision)} -> {shown}"


def decision_header_plain(decision: Decision) -> str:
    """The echo's header: `[Player N] PROMPT` without the `(choose K)` suffix."""
    return f"[Player {decision.seat}] {decision.prompt if decision.prompt is not None else 'Choose:'}"


def parse_key(text: str, decision: Decision) -> Key | None:
    """Parse one line of human input into a key; None when it is not well formed.

    A plain decision takes one index; `choose[K]` takes K distinct indices separated
    by spaces and/or commas, in any order.
    """
    parts = [p for p in text.replace(",", " ").split() if p]
    # ASCII digits only, and no more of them than an option index can have: a line of
    # thousands of digits is a bad choice like any other, not an int to convert.
    if not parts or not all(p.isascii() and p.isdigit() and len(p) <= 9 for p in parts):
        return None
    nums = [int(p) for p in parts]
    if decision.k is None:
        return nums[0] if len(nums) == 1 else None
    if len(nums) != decision.k or len(set(nums)) != len(nums):
        return None
    return tuple(sorted(nums))


def parse_after(text: str) -> list[Key]:
    """Parse `gambit moves --after` (`5,1,3+4`); raises ValueError when malformed."""
    keys: list[Key] = []
    if not text.strip():
        return keys
    for part in text.split(","):
        part = part.strip()
        if "+" in part:
            nums = [int(p) for p in part.split("+")]
            if any(n < 1 for n in nums):
                raise ValueError(part)
            keys.append(tuple(sorted(nums)))
        else:
            n = int(part)
            if n < 1:
                raise ValueError(part)
            keys.append(n)
    return keys
