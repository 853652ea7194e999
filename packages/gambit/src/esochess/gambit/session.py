"""Playing games: `gambit run`, `gambit playout` and `gambit moves` without the CLI
(docs/reference/gambit.md#the-game, docs/reference/gambit.md#command-line).

A session drives one machine through its decisions: it computes the legal options
(game.py), asks the seat's controller (players.py) or the replay file (replay.py),
echoes, traces, records, enforces `--max-decisions`, prints the result line and the
state hash. All console traffic goes through a `Console` that cli.py supplies; this
module never prints and never exits, it returns reports with exit codes
(docs/reference/gambit.md#exit-statuses).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, BinaryIO, Protocol, TextIO

from esochess.fen import source_line_at, write_atomic
from esochess.gambit.autoplay import autoplay
from esochess.gambit.game import (
    Key,
    LegalOption,
    adopt,
    decision_header,
    echo_line,
    key_text,
    legal_options,
    option_lines,
    play_random,
)
from esochess.gambit.hashing import state_hash
from esochess.gambit.limits import deep_python_stack
from esochess.gambit.machine import Machine
from esochess.gambit.openings import opening
from esochess.gambit.parallel import GameOutcome, parallel_playouts
from esochess.gambit.players import (
    SIMULATION_DECISION_LIMIT,
    BadInput,
    Controller,
    InputEnded,
    PlayerSpec,
    make_controller,
    seat_rng,
)
from esochess.gambit.replay import Record, ReplayDiverged, ReplaySource
from esochess.gambit.results import Decision, GambitRuntimeError, Illegal, Result

if TYPE_CHECKING:
    from esochess.gambit.program import Program

EXIT_OK = 0
EXIT_RUNTIME = 1
EXIT_USAGE = 2
EXIT_INPUT_ENDED = 4
EXIT_REPLAY = 5


class Console(Protocol):
    """Standard output, input and the trace stream of a real execution."""

    def output(self, text: str) -> None:
        """Write one line (program output, echo, result) to standard output."""

    def write(self, text: str) -> None:
        """Write text to standard output as is and flush it (prompts)."""

    def read_line(self) -> str | None:
        """Read one input line without its line end; None at end of input."""

    @property
    def echo_input(self) -> bool:
        """True when input is not a terminal, so lines read are echoed
        (docs/reference/gambit.md#gambit-run)."""

    def trace(self, line: int, col: int, event: str) -> None:
        """Write `trace: FILE:LINE:COL: EVENT` to standard error."""

    def trace_plain(self, event: str) -> None:
        """Write `trace: EVENT` (no location) to standard error."""


class StreamConsole:
    """A Console over text streams (cli.py passes sys.stdout, sys.stderr and the input)."""

    def __init__(
        self,
        out: TextIO,
        err: TextIO,
        inp: BinaryIO | TextIO | None,
        path: str,
        echo_input: bool,
    ) -> None:
        self.out = out
        self.err = err
        self.inp = inp
        self.lines_read = 0
        self.path = path
        self._echo = echo_input

    @property
    def echo_input(self) -> bool:
        """True when lines read are echoed after the `> ` prompt."""
        return self._echo

    def output(self, text: str) -> None:
        """Write one line to standard output."""
        self.out.write(text + "\n")

    def write(self, text: str) -> None:
        """Write text and flush, so a prompt is visible before input is read."""
        self.out.write(text)
        self.out.flush()

    def read_line(self) -> str | None:
        """One line of input, or None at its end."""
        if self.inp is None:
            return None
        line = self.inp.readline()
        if not line:
            return None
        self.lines_read += 1
        if isinstance(line, bytes):
            # Bytes are decoded line by line, so a bad byte is reported on its own line.
            try:
                line = line.decode("utf-8")
            except UnicodeDecodeError as err:
                raise BadInput(f"input line {self.lines_read} is not UTF-8 text (byte "
                               f"0x{line[err.start]:02x} at column {err.start + 1})") from None
        return line.rstrip("\r\n")

    def trace(self, line: int, col: int, event: str) -> None:
        """A located trace line on standard error."""
        self.err.write(f"trace: {self.path}:{line}:{col}: {event}\n")

    def trace_plain(self, event: str) -> None:
        """A trace line without a location."""
        self.err.write(f"trace: {event}\n")


@dataclass
class RunConfig:
    """Everything `gambit run` needs besides the console (docs/reference/gambit.md#gambit-run)."""

    program: Program
    program_name: str
    seats: int
    seed: int
    players: list[PlayerSpec]
    record_path: str | None = None
    replay: Record | None = None
    trace: bool = False
    quiet: bool = False
    show_hash: bool = False
    max_decisions: int | None = None


@dataclass
class Report:
    """How a command ended: its exit code and, unless it succeeded, the message for stderr."""

    exit_code: int
    message: str | None = None
    result_line: str | None = None
    state_hash: str | None = None


def runtime_error(program: Program, line: int, col: int, message: str) -> GambitRuntimeError:
    """A run-time error raised by the game layer itself
    (docs/reference/gambit.md#run-time-errors)."""
    return GambitRuntimeError(
        program.path,
        line,
        col,
        message,
        severity="runtime error",
        source_line=source_line_at(program.source, line),
    )


def no_legal_move(program: Program, seat: int, line: int, col: int) -> GambitRuntimeError:
    """The run-time error for a turn whose first decision has no legal option
    (docs/reference/gambit.md#turns-illegal-and-commit)."""
    return runtime_error(program, line, col, f"no legal move for Player {seat} (choose at line {line})")


def settle(
    program: Program, machine: Machine, outcome: Decision | Result | Illegal
) -> Decision | Result:
    """Turn an `Illegal` of the real execution into the run-time error it stands for."""
    if not isinstance(outcome, Illegal):
        return outcome
    if outcome.seat is not None:
        raise no_legal_move(program, outcome.seat, outcome.line, outcome.col)
    if machine.decisions_made == 0:
        raise runtime_error(program, outcome.line, outcome.col, "'illegal' outside of a turn")
    # Look-ahead guarantees that real execution never reaches `illegal` inside a turn;
    # an empty choose that starts a new turn is the only way here.
    raise runtime_error(program, outcome.line, outcome.col, "no legal move (empty choice)")


@dataclass
class _Turns:
    """Turn bookkeeping of a real execution (docs/reference/gambit.md#turns-illegal-and-commit)."""

    seat: int | None = None

    def starts_turn(self, decision: Decision) -> bool:
        """True when `decision` is the first of a new turn."""
        return self.seat is None or decision.new_turn or decision.seat != self.seat


class Game:
    """One real execution under a console: `gambit run` (docs/reference/gambit.md#gambit-run)."""

    def __init__(self, config: RunConfig, console: Console) -> None:
        self.config = config
        self.console = console
        self.machine = Machine(
            config.program,
            seed=config.seed,
            players=config.seats,
            io=console,
            trace=config.trace,
        )
        self.replay = ReplaySource(config.replay) if config.replay is not None else None
        self.controllers: list[Controller] = []
        if self.replay is None:
            self.controllers = [
                make_controller(spec, config.seed, seat, console, config.max_decisions)
                for seat, spec in enumerate(config.players, 1)
            ]
        self.record = Record(
            program=config.program_name,
            seed=config.seed,
            players=[str(p) for p in config.players],
        )
        self.turns = _Turns()

    def play(self) -> Report:
        """Play the game to its end and report; writes the record file if asked."""
        report: Report
        try:
            report = self._play()
        except GambitRuntimeError as err:
            self.record.result = "runtime error"
            report = Report(EXIT_RUNTIME, err.render(self.config.program.source))
        except InputEnded as err:
            self.record.result = "interrupted"
            report = Report(EXIT_INPUT_ENDED, f"gambit: error: {err}")
        except BadInput as err:
            self.record.result = "interrupted"
            report = Report(EXIT_USAGE, f"gambit: error: {err}")
        except ReplayDiverged as err:
            self.record.result = "runtime error"
            report = Report(EXIT_REPLAY, f"gambit: error: {err}")
        except KeyboardInterrupt:
            self.record.result = "interrupted"
            self._write_record()
            raise
        if self.record.state_hash is None:
            self.record.state_hash = state_hash(self.machine)
        failed = self._write_record()
        if failed is not None and report.exit_code == EXIT_OK:
            return Report(EXIT_USAGE, failed, report.result_line, report.state_hash)
        return report

    def _write_record(self) -> str | None:
        path = self.config.record_path
        if path is None:
            return None
        try:
            write_atomic(path, self.record.to_json())
        except OSError as err:
            return f"gambit: error: cannot write record file '{path}': {err.strerror or err}"
        return None

    def _play(self) -> Report:
        cfg, console, m = self.config, self.console, self.machine
        if cfg.trace:
            console.trace_plain(f"seed {cfg.seed}, players {cfg.seats}")
        outcome = settle(cfg.program, m, m.run_until_decision())
        while isinstance(outcome, Decision):
            d = outcome
            if cfg.max_decisions is not None and m.decisions_made >= cfg.max_decisions:
                outcome = Result(cfg.seats)
                break
            if self.turns.starts_turn(d):
                if cfg.trace and self.turns.seat is not None:
                    console.trace(d.line, d.col, f"turn end (Player {self.turns.seat})")
                self.turns.seat = d.seat
            legal = legal_options(m, d)
            if not legal:
                raise no_legal_move(cfg.program, d.seat, d.line, d.col)
            key = self._decide(d, legal)
            self.record.choices.append((d.seat, key))
            if cfg.trace:
                shown = ", ".join(_key_list(o.key) for o in legal)
                console.trace(
                    d.line, d.col, f"choose Player {d.seat} legal [{shown}] -> {_key_list(key)}"
                )
            m.choose(key)
            outcome = settle(cfg.program, m, m.run_until_decision())
        result = outcome
        assert isinstance(result, Result)
        if cfg.trace:
            if self.turns.seat is not None and result.line_no is not None:
                console.trace(result.line_no, result.col or 1, f"turn end (Player {self.turns.seat})")
            if result.line_no is not None:
                console.trace(result.line_no, result.col or 1, f"result {result.line}")
            else:
                console.trace_plain(f"result {result.line}")
        console.output(result.line)
        digest = state_hash(m)
        self.record.result = result.line
        self.record.state_hash = digest
        if cfg.show_hash:
            console.output(f"state hash: {digest}")
        if self.replay is not None:
            self.replay.finish(result.line, digest)
        return Report(EXIT_OK, None, result.line, digest)

    def _decide(self, d: Decision, legal: Sequence[LegalOption]) -> Key:
        if self.replay is not None:
            key = self.replay.next_choice(d.seat, [o.key for o in legal])
        else:
            controller = self.controllers[d.seat - 1]
            key = controller.decide(self.machine, d, legal)
            if controller.name == "human":
                return key
        if not self.config.quiet:
            self.console.output(echo_line(d, key))
        return key


def _key_list(key: Key) -> str:
    if isinstance(key, tuple):
        return "[" + ", ".join(str(i) for i in key) + "]"
    return str(key)


def run_game(config: RunConfig, console: Console) -> Report:
    """Play one game (`gambit run`) and report how it ended (docs/reference/gambit.md#gambit-run and
    docs/reference/gambit.md#exit-statuses)."""
    return Game(config, console).play()


@dataclass
class PlayoutStats:
    """The summary of `gambit playout` (docs/reference/gambit.md#gambit-playout)."""

    games: int
    seats: int
    seconds: float = 0.0
    decisions: int = 0
    wins: list[int] = field(default_factory=list)
    draws: int = 0
    no_result: int = 0

    def lines(self) -> list[str]:
        """The summary lines, exactly in the format of docs/reference/gambit.md#gambit-playout."""
        rate = self.games / self.seconds if self.seconds > 0 else 0.0
        per_game = self.decisions / self.games if self.games else 0.0
        out = [
            f"games: {self.games}",
            f"seconds: {self.seconds:.2f}",
            f"playouts/s: {rate:.1f}",
            f"decisions/game: {per_game:.1f}",
        ]
        out += [f"Player {s} wins: {w}" for s, w in enumerate(self.wins, 1)]
        out += [f"draws: {self.draws}", f"no result: {self.no_result}"]
        return out


def random_playout(
    program: Program, seed: int, seats: int, max_decisions: int = SIMULATION_DECISION_LIMIT
) -> tuple[Result, Machine]:
    """One silent game with a random controller on every seat, as `gambit run --players
    random --seed SEED` would play it; returns the result and the final machine."""
    m, first = opening(program, seed, seats)
    rngs = [seat_rng(seed, s) for s in range(1, seats + 1)]
    outcome = settle(program, m, first)
    # Decisions the compiled engine can answer on the spot do not pause (autoplay.py).
    auto = autoplay(m, rngs, max_decisions, rejection=False)
    # The deep stack every machine run and legality test raises, raised once for the game.
    with deep_python_stack():
        while isinstance(outcome, Decision):
            if m.decisions_made >= max_decisions:
                return Result(seats), m
            if auto is not None:
                m.autoplay = auto  # (a fork adopted by look-ahead has none)
            # The fork that explored the option is exactly the continuation: adopt it.
            played = play_random(m, outcome, rngs[outcome.seat - 1])
            if played is None:
                raise no_legal_move(program, outcome.seat, outcome.line, outcome.col)
            m, out = played
            outcome = settle(program, m, out)
    return outcome, m


def playout_game(
    program: Program, index: int, games: int, seed: int, seats: int, max_decisions: int
) -> GameOutcome:
    """Game `index` (0-based) of a playout: its seed is SEED + index."""
    game_seed = seed + index
    try:
        result, m = random_playout(program, game_seed, seats, max_decisions)
    except GambitRuntimeError as err:
        note = f"  in playout game {index + 1} of {games} (seed {game_seed})"
        return err.render(program.source) + "\n" + note
    return m.decisions_made, tuple(result.winners), result.draw


def playout(
    program: Program,
    games: int,
    seed: int,
    seats: int,
    max_decisions: int = SIMULATION_DECISION_LIMIT,
    progress: Callable[[int, int], None] | None = None,
    jobs: int = 1,
) -> tuple[PlayoutStats, Report]:
    """Play `games` silent random games with seeds SEED, SEED+1, …
    (docs/reference/gambit.md#gambit-playout), in `jobs` processes; every game depends on its seed
    alone, so the summary is the same for any number of jobs (but for the timing lines)."""
    stats = PlayoutStats(games=games, seats=seats, wins=[0] * seats)
    start = time.perf_counter()
    outcomes: Iterable[GameOutcome]
    if jobs > 1 and games > 1:
        outcomes = parallel_playouts(program, games, seed, seats, max_decisions, jobs,
                                     playout_game)  # fmt: skip
    else:
        outcomes = (playout_game(program, i, games, seed, seats, max_decisions)
                    for i in range(games))  # fmt: skip
    for i, outcome in enumerate(outcomes):
        if isinstance(outcome, str):
            return stats, Report(EXIT_RUNTIME, outcome)
        decisions, winners, draw = outcome
        stats.decisions += decisions
        if draw:
            stats.draws += 1
        elif winners:
            for w in winners:
                stats.wins[w - 1] += 1
        else:
            stats.no_result += 1
        if progress is not None:
            progress(i + 1, games)
    stats.seconds = time.perf_counter() - start
    return stats, Report(EXIT_OK)


def pending_moves(program: Program, seed: int, seats: int, after: Sequence[Key]) -> Report:
    """`gambit moves`: replay `after` silently and describe what comes next
    (docs/reference/gambit.md#gambit-moves).

    On success `Report.message` holds the lines for standard output.
    """
    m = Machine(program, seed=seed, players=seats)
    try:
        outcome = settle(program, m, m.run_until_decision())
        for n, key in enumerate(after, 1):
            if not isinstance(outcome, Decision):
                left = len(after) - n + 1
                return Report(EXIT_REPLAY, f"gambit: error: invalid --after list: the game "
                              f"ends after {n - 1} choice(s), with {left} left over")  # fmt: skip
            legal = legal_options(m, outcome)
            if not legal:
                raise no_legal_move(program, outcome.seat, outcome.line, outcome.col)
            if outcome.k is not None and isinstance(key, int):
                key = (key,)  # `--after 3` answers a choose[1] decision too
            match = [o for o in legal if o.key == key]
            if not match:
                shown = ", ".join(key_text(o.key) for o in legal)
                return Report(EXIT_REPLAY, f"gambit: error: invalid --after list: choice {n} "
                              f"({key_text(key)}) is not a legal option for Player "
                              f"{outcome.seat}; the legal options are {shown}")  # fmt: skip
            m, out = adopt(m, match[0])
            outcome = settle(program, m, out)
        if isinstance(outcome, Result):
            return Report(EXIT_OK, outcome.line, outcome.line)
        legal = legal_options(m, outcome)
        if not legal:
            raise no_legal_move(program, outcome.seat, outcome.line, outcome.col)
        return Report(EXIT_OK, "\n".join([decision_header(outcome), *option_lines(outcome, legal)]))
    except GambitRuntimeError as err:
        return Report(EXIT_RUNTIME, err.render(program.source))
    except ReplayDiverged as err:
        return Report(EXIT_REPLAY, f"gambit: error: {err}")
