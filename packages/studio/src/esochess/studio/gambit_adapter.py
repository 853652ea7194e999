"""The studio's one door into Gambit: check a program, play a game, replay a record.

Calls only what `gambit`'s command line calls: `interpreter.compile_source` (check),
`players.parse_players`, `session.RunConfig` + `session.run_game` (one game, exactly as
`gambit run --players … --seed … --record …` plays it) and `replay.parse_record`.

The server keeps no game in memory: a page sends the program, the seats' controllers,
the seed and the human answers given so far, and the game is played again from the
start with those answers (random and MCTS seats are seeded, so they choose the same).
When the answers run out at a human decision, the game stops there and that decision
— its header and option lines, as a terminal shows them — goes back to the page.
"""

from __future__ import annotations

import os
import re
import secrets
import tempfile
from dataclasses import dataclass

from esochess.fen import format_diagnostic
from esochess.gambit.frontend import compile_source
from esochess.gambit.players import parse_players
from esochess.gambit.program import Program
from esochess.gambit.replay import RecordFormatError, parse_record
from esochess.gambit.session import EXIT_INPUT_ENDED, RunConfig, run_game
from esochess.studio.jobs import Report, UserError

MAX_DECISIONS = 5_000
MAX_MCTS = 5_000
OPTION = re.compile(r"^\s*(\d+)\) (.*)$")
CHOOSE_K = re.compile(r"\(choose (\d+)\)$")


@dataclass(frozen=True)
class Checked:
    """What `gambit check` prints, and the seat range of a clean program."""

    ok: bool
    report: str
    seats: tuple[int, int] | None


@dataclass(frozen=True)
class Decision:
    """A human seat's pending decision: header, (index, label) options, `choose K`'s K."""

    header: str
    options: tuple[tuple[int, str], ...]
    choose: int | None


@dataclass(frozen=True)
class Played:
    """A game played as far as the answers go."""

    seed: int
    log: str
    pending: Decision | None
    result: str | None
    message: str | None
    record: str | None


class _Console:
    """The game's terminal: answers from a list, output kept in order."""

    def __init__(self, answers: list[str]) -> None:
        self.answers = answers[::-1]
        self.parts: list[str] = []
        self.block_at: int | None = None

    @property
    def echo_input(self) -> bool:
        return True

    def output(self, text: str) -> None:
        self.parts.append(text + "\n")

    def write(self, text: str) -> None:
        if text != "> " and not text.startswith("Please enter"):
            self.block_at = len(self.parts)
        self.parts.append(text)

    def read_line(self) -> str | None:
        return self.answers.pop() if self.answers else None

    def trace(self, line: int, col: int, event: str) -> None:
        return None

    def trace_plain(self, event: str) -> None:
        return None


def check(_report: Report, name: str, text: str) -> Checked:
    """Check a program like `gambit check NAME`."""
    program, diags = compile_source(text, name)
    source = text.lstrip("\ufeff")
    report = "\n".join(format_diagnostic(d, source) for d in diags)
    return Checked(program is not None, report, program.players_range if program else None)


def _compile(name: str, text: str) -> Program:
    program, diags = compile_source(text, name)
    if program is None:
        source = text.lstrip("\ufeff")
        raise UserError("\n".join(format_diagnostic(d, source) for d in diags))
    return program


def _decision(block: str) -> Decision:
    lines = block.rstrip("\n").split("\n")
    options = tuple(
        (int(m.group(1)), m.group(2)) for line in lines[1:] if (m := OPTION.match(line))
    )
    k = CHOOSE_K.search(lines[0])
    return Decision(lines[0], options, int(k.group(1)) if k else None)


def play(
    _report: Report,
    name: str,
    text: str,
    players: str,
    seed: int | None,
    answers: list[str],
    max_decisions: int | None = None,
    record_text: str | None = None,
) -> Played:
    """Play the game with these controllers and human answers (or replay `record_text`)."""
    program = _compile(name, text)
    record = None
    if record_text is not None:
        try:
            record = parse_record(record_text, "record")
        except RecordFormatError as exc:
            raise UserError(f"gambit: error: {exc}") from None
        seed, players = record.seed, ",".join(record.players)
    try:
        specs = parse_players(players)
    except ValueError as exc:
        raise UserError(f"gambit: error: {exc}") from None
    if any(s.kind == "mcts" and s.iterations > MAX_MCTS for s in specs):
        raise UserError(f"error: the studio allows at most mcts:{MAX_MCTS}")
    low, high = program.players_range
    if len(specs) == 1:
        specs = specs * low
    if not low <= len(specs) <= high:
        want = str(low) if low == high else f"{low} to {high}"
        raise UserError(f"gambit: error: {len(specs)} controllers, but the game has {want} seats")
    seed = secrets.randbits(32) if seed is None else seed
    limit = MAX_DECISIONS if max_decisions is None else min(max_decisions, MAX_DECISIONS)
    console = _Console(answers)
    with tempfile.TemporaryDirectory(prefix="esochess-studio-") as tmp:
        path = os.path.join(tmp, "game.json")
        config = RunConfig(
            program=program,
            program_name=name,
            seats=len(specs),
            seed=seed,
            players=specs,
            record_path=path if record is None else None,
            replay=record,
            max_decisions=limit,
        )
        report = run_game(config, console)
        saved = open(path, encoding="utf-8").read() if os.path.exists(path) else None
    parts = console.parts
    if report.exit_code == EXIT_INPUT_ENDED and console.block_at is not None:
        block = parts[console.block_at]
        return Played(seed, "".join(parts[: console.block_at]), _decision(block), None, None, saved)
    message = report.message if report.exit_code else None
    return Played(seed, "".join(parts), None, report.result_line, message, saved)


def replay_steps(
    _report: Report, name: str, text: str, record_text: str, step: int
) -> tuple[int, str]:
    """The total number of decisions of a record and the replay's output after `step` of them.

    The output is `gambit run --replay` with `--max-decisions STEP`, without the line that
    ends the game early, so step by step it grows exactly into the full replay.
    """
    try:
        total = len(parse_record(record_text, "record").choices)
    except RecordFormatError as exc:
        raise UserError(f"gambit: error: {exc}") from None
    if step >= total:
        full = play(_report, name, text, "", None, [], None, record_text)
        return total, full.log + (full.message + "\n" if full.message else "")
    played = play(_report, name, text, "", None, [], max(step, 0), record_text)
    return total, "".join(played.log.splitlines(keepends=True)[:-1])
