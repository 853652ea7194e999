"""Controllers for the seats of a game (docs/reference/gambit.md#gambit-run and
docs/reference/gambit.md#ai-players): human, random and MCTS (UCT).

A controller sees only what the engine offers at a decision: the deciding player, the
legal options (docs/reference/gambit.md#turns-illegal-and-commit) and the paused machine, which it
may fork. AI controllers draw from their own seat RNG, `random.Random(f"gambit:{seed}:seat:{n}")`
(docs/reference/gambit.md#randomness), so a game is a deterministic function of the program, the
seed, the seat count and the controllers.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from esochess.gambit.autoplay import autoplay
from esochess.gambit.game import (
    Key,
    LegalOption,
    Outcome,
    decision_header,
    exploring_error,
    legal_keys_of,
    option_lines,
    parse_key,
    play_random,
)
from esochess.gambit.limits import deep_python_stack
from esochess.gambit.machine import Machine
from esochess.gambit.results import Decision, GambitRuntimeError, Result

DEFAULT_MCTS_ITERATIONS = 1000
SIMULATION_DECISION_LIMIT = 10_000
UCT_C = math.sqrt(2)


class Terminal(Protocol):
    """The console a human controller talks to (supplied by cli.py or a test)."""

    def write(self, text: str) -> None:
        """Write text to standard output as is and flush it."""

    def read_line(self) -> str | None:
        """Read one input line without its line end; None at end of input."""

    @property
    def echo_input(self) -> bool:
        """True when input does not come from a terminal, so lines read are echoed."""


class BadInput(Exception):
    """Human input that is not text (a byte that is not UTF-8): a usage error (exit 2)."""


class InputEnded(Exception):
    """Human input ended while a decision of `seat` was pending (exit code 4)."""

    def __init__(self, seat: int) -> None:
        super().__init__(f"input ended while waiting for Player {seat}")
        self.seat = seat


class Controller(Protocol):
    """Picks one of the legal options of a decision."""

    name: str

    def decide(self, machine: Machine, decision: Decision, legal: Sequence[LegalOption]) -> Key:
        """Return the key of one of `legal` (never empty)."""


def seat_rng(seed: int, seat: int) -> random.Random:
    """The AI RNG of a seat (docs/reference/gambit.md#randomness)."""
    return random.Random(f"gambit:{seed}:seat:{seat}")


class HumanPlayer:
    """Asks on the console, in the prompt format of docs/reference/gambit.md#gambit-run, until valid
    input arrives."""

    name = "human"

    def __init__(self, terminal: Terminal) -> None:
        self.terminal = terminal

    def decide(self, machine: Machine, decision: Decision, legal: Sequence[LegalOption]) -> Key:
        """Show the prompt and options, then read lines until one names a legal option."""
        t = self.terminal
        t.write("\n".join([decision_header(decision), *option_lines(decision, legal)]) + "\n")
        keys = [o.key for o in legal]
        while True:
            t.write("> ")
            line = t.read_line()
            if line is None:
                raise InputEnded(decision.seat)
            if t.echo_input:
                t.write(line + "\n")
            key = parse_key(line, decision)
            if key is not None and key in keys:
                return key
            t.write("Please enter one of the listed numbers.\n")


class RandomPlayer:
    """Picks `L[r.randrange(len(L))]` from the legal options L
    (docs/reference/gambit.md#ai-players)."""

    name = "random"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def decide(self, machine: Machine, decision: Decision, legal: Sequence[LegalOption]) -> Key:
        """A uniformly random legal option."""
        return legal[self.rng.randrange(len(legal))].key


class _Node:
    """An MCTS tree node: one decision with per-option visits and reward totals.

    The legal options are computed when the node is first expanded, not when it is
    created, so leaves that are never revisited cost no look-ahead.
    """

    __slots__ = ("seat", "noptions", "keys", "untried", "children", "visits", "totals", "n")

    def __init__(self, decision: Decision) -> None:
        self.seat = decision.seat
        self.noptions = len(decision.options)
        self.keys: list[Key] | None = None
        self.untried: list[Key] = []
        self.children: dict[Key, _Node] = {}
        self.visits: dict[Key, int] = {}
        self.totals: dict[Key, list[float]] = {}
        self.n = 0

    def set_keys(self, keys: list[Key], seats: int) -> None:
        """Record the node's legal options (once)."""
        self.keys = keys
        self.untried = list(keys)
        self.visits = {k: 0 for k in keys}
        self.totals = {k: [0.0] * seats for k in keys}

    def select(self) -> Key:
        """The child maximising UCT for this node's player; ties to the lowest key."""
        assert self.keys
        log_n = math.log(self.n)
        me = self.seat - 1
        best_key = self.keys[0]
        best = -math.inf
        for k in self.keys:
            n = self.visits[k]
            value = self.totals[k][me] / n + UCT_C * math.sqrt(log_n / n)
            if value > best:
                best, best_key = value, k
        return best_key


class MctsPlayer:
    """Monte-Carlo tree search with UCT, as docs/reference/gambit.md#ai-players.

    Simulations pick each uniformly random legal option by rejection (draw options
    without replacement until one is legal), which is the same distribution as drawing
    from the full legal list but explores far fewer completions.
    """

    def __init__(
        self,
        rng: random.Random,
        iterations: int = DEFAULT_MCTS_ITERATIONS,
        decision_limit: int = SIMULATION_DECISION_LIMIT,
    ) -> None:
        self.rng = rng
        self.iterations = iterations
        self.decision_limit = decision_limit
        self.name = f"mcts:{iterations}"

    def decide(self, machine: Machine, decision: Decision, legal: Sequence[LegalOption]) -> Key:
        """Run the iterations from this decision and pick the most visited option."""
        seats = machine.seats
        root = _Node(decision)
        root.set_keys([o.key for o in legal], seats)
        for _ in range(self.iterations):
            path: list[tuple[_Node, Key]] = []
            try:
                self._iterate(machine, decision, root, seats, path)
            except GambitRuntimeError as err:
                # docs/reference/gambit.md#run-time-errors: an error met in an AI simulation names
                # the option being explored.
                if any("while exploring option" in line for line in err.trace_lines):
                    raise
                raise exploring_error(err, decision, path[0][1] if path else legal[0].key) from None
        assert root.keys
        best_key = root.keys[0]
        best = -1
        for k in root.keys:
            if root.visits[k] > best:
                best, best_key = root.visits[k], k
        return best_key

    def _iterate(
        self,
        machine: Machine,
        decision: Decision,
        root: _Node,
        seats: int,
        path: list[tuple[_Node, Key]],
    ) -> None:
        """One iteration; `path` collects the (node, option) edges it takes."""
        r = self.rng
        f = machine.fork()
        f.silent = True  # search, like look-ahead, does not evaluate `print` arguments
        f.reseed(r.getrandbits(64))
        node = root
        out: Outcome = decision
        while True:
            if node.keys is None:
                assert isinstance(out, Decision)
                node.set_keys(legal_keys_of(f, out), seats)
            if not node.keys:
                break
            if node.untried:
                key = node.untried.pop(r.randrange(len(node.untried)))
                f.choose(key)
                out = f.run_until_decision()
                path.append((node, key))
                if isinstance(out, Decision):
                    node.children[key] = _Node(out)
                break
            key = node.select()
            f.choose(key)
            out = f.run_until_decision()
            path.append((node, key))
            child = node.children.get(key)
            if (
                not isinstance(out, Decision)
                or child is None
                or child.seat != out.seat
                or child.noptions != len(out.options)
            ):
                break
            node = child
        rewards = self._simulate(f, out, seats)
        for n, k in path:
            n.n += 1
            n.visits[k] += 1
            totals = n.totals[k]
            for s in range(seats):
                totals[s] += rewards[s]

    def _simulate(self, m: Machine, out: Outcome, seats: int) -> tuple[float, ...]:
        """Play uniformly random legal options to the end; the reward vector."""
        r = self.rng
        # Decisions the compiled engine can answer on the spot do not pause (autoplay.py).
        auto = autoplay(m, [r] * seats, self.decision_limit, rejection=True)
        # The deep stack every machine run and legality test raises, raised once.
        with deep_python_stack():
            while isinstance(out, Decision):
                if m.decisions_made >= self.decision_limit or (auto is not None and auto.stuck):
                    break
                if auto is not None:
                    m.autoplay = auto  # (a fork adopted by look-ahead has none)
                played = play_random(m, out, r, rejection=True)
                if played is None:
                    break
                m, out = played
        if isinstance(out, Result):
            return out.scores()
        return tuple(0.5 for _ in range(seats))


@dataclass(frozen=True)
class PlayerSpec:
    """A parsed `--players` entry: `human`, `random` or `mcts` with its iterations."""

    kind: str
    iterations: int = DEFAULT_MCTS_ITERATIONS

    def __str__(self) -> str:
        if self.kind == "mcts":
            return "mcts" if self.iterations == DEFAULT_MCTS_ITERATIONS else f"mcts:{self.iterations}"
        return self.kind


def parse_player(text: str) -> PlayerSpec:
    """Parse one controller name; raises ValueError with a message for a bad one."""
    t = text.strip()
    if t in ("human", "random", "mcts"):
        return PlayerSpec(t)
    if t.startswith("mcts:"):
        n = t[5:]
        if n.isdigit() and int(n) >= 1:
            return PlayerSpec("mcts", int(n))
        raise ValueError(f"'{t}': the MCTS iteration count must be a whole number of at least 1")
    raise ValueError(f"unknown player '{t}' (use human, random, mcts or mcts:N)")


def parse_players(text: str) -> list[PlayerSpec]:
    """Parse a comma-separated `--players` list."""
    return [parse_player(p) for p in text.split(",")]


def make_controller(
    spec: PlayerSpec,
    seed: int,
    seat: int,
    terminal: Terminal | None,
    decision_limit: int | None = None,
) -> Controller:
    """The controller for one seat; a human seat needs a terminal.

    `decision_limit` is the game's `--max-decisions`: MCTS simulations stop there too,
    because the real game ends with no result at that point (default 10 000).
    """
    if spec.kind == "human":
        if terminal is None:
            raise ValueError("a human player needs a console")
        return HumanPlayer(terminal)
    if spec.kind == "random":
        return RandomPlayer(seat_rng(seed, seat))
    limit = SIMULATION_DECISION_LIMIT if decision_limit is None else decision_limit
    return MctsPlayer(seat_rng(seed, seat), spec.iterations, min(limit, SIMULATION_DECISION_LIMIT))
