"""`chespel match` (docs/reference/chespel.md#match): two UCI engines play a series of games from
opening lines.

Engines are driven with python-chess's `chess.engine`; a `.chp` program runs as its own
process (`python -m esochess.chespel uci FILE`), exactly as a built engine would.
"""

from __future__ import annotations

import math
import random
import shlex
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import chess
import chess.engine
import chess.pgn

from esochess.chespel.runtime.values import printable
from esochess.fen.diagnostics import SourceError
from esochess.fen.files import UnreadableFile, read_source

DEFAULT_OPENINGS = (
    "e4 e5", "e4 c5", "e4 e6", "e4 c6", "d4 d5", "d4 Nf6 c4 e6", "d4 Nf6 c4 g6", "c4 e5",
    "Nf3 d5", "e4 e5 Nf3 Nc6 Bb5", "e4 c5 Nf3 d6", "d4 d5 c4 c6",
)
GRACE = 1.0
"""Seconds an engine may exceed its move time before it forfeits
(docs/reference/chespel.md#match)."""
STARTUP = 30.0
"""Seconds an engine has to answer `uciok` (a .chp program is compiled first)."""


class MatchError(Exception):
    """A usage problem found before any game is played (bad engine spec, bad openings)."""


@dataclass(frozen=True)
class EngineSpec:
    """How to start one engine: its command, UCI options and (for .chp files) its name."""

    command: tuple[str, ...]
    options: tuple[tuple[str, str], ...] = ()
    name: str | None = None

    @classmethod
    def parse(cls, text: str) -> EngineSpec:
        """`FILE.chp` or `uci:COMMAND[;OPTION=VALUE]…`."""
        if text.startswith("uci:"):
            command, *pairs = text[4:].split(";")
            options = []
            for pair in pairs:
                key, sep, value = pair.partition("=")
                if not sep or not key.strip():
                    raise MatchError(f"bad engine option '{pair}' in '{text}' (use NAME=VALUE)")
                options.append((key.strip(), value.strip()))
            try:
                words = shlex.split(command)
            except ValueError as exc:
                raise MatchError(f"bad engine command in '{text}': {exc}") from None
            if not words:
                raise MatchError(f"missing command in '{text}'")
            return cls(tuple(words), tuple(options))
        return cls((sys.executable, "-m", "esochess.chespel", "uci", text), (),
                   printable(Path(text).stem))


@dataclass(frozen=True)
class Settings:
    """Match options (docs/reference/chespel.md#match defaults)."""

    games: int = 10
    movetime: float = 1.0
    tc: tuple[float, float] | None = None
    depth: int | None = None
    max_plies: int = 300
    openings: tuple[str, ...] = DEFAULT_OPENINGS
    seed: int | None = None


@dataclass
class GameRecord:
    """One finished game."""

    number: int
    white: str
    black: str
    result: str
    reason: str
    board: chess.Board
    start: chess.Board


@dataclass
class MatchResult:
    """E1's wins, losses and draws, and the games."""

    wins: int = 0
    losses: int = 0
    draws: int = 0
    scores: list[float] = field(default_factory=list)
    games: list[GameRecord] = field(default_factory=list)


def parse_tc(text: str) -> tuple[float, float]:
    """`BASE+INC` in seconds."""
    base, _, inc = text.partition("+")
    try:
        return float(base), float(inc or 0)
    except ValueError:
        raise MatchError(f"bad time control '{text}' (use BASE+INC in seconds)") from None


def read_openings(path: str) -> tuple[str, ...]:
    """One opening per non-empty line (moves from the start position, or a FEN)."""
    try:
        text = read_source(path)
    except UnreadableFile as exc:
        raise MatchError(str(exc)) from None
    except SourceError as exc:
        raise MatchError(f"{exc.path}:{exc.line}:{exc.column}: {exc.message}") from None
    lines = tuple(line.strip() for line in text.splitlines() if line.strip())
    for number, line in enumerate(lines, 1):
        try:
            opening_board(line)
        except ValueError as exc:
            raise MatchError(f"{path}:{number}: bad opening: {exc}") from None
    if not lines:
        raise MatchError(f"{path}: no openings")
    return lines


def opening_board(line: str) -> chess.Board:
    """The position after an opening line (SAN or coordinate moves, or a FEN)."""
    if "/" in line:
        return chess.Board(line)
    board = chess.Board()
    for word in line.split():
        try:
            board.push_san(word)
        except ValueError:
            board.push_uci(word)
    return board


def elo_line(result: MatchResult) -> str:
    """`Elo difference: ±E +/- M` with the 95 % interval of §12.4."""
    n = len(result.scores)
    s = sum(result.scores) / n if n else 0.5
    if s <= 0:
        return "Elo difference: -inf"
    if s >= 1:
        return "Elo difference: +inf"

    def elo(score: float) -> float:
        return -400 * math.log10(1 / score - 1)

    sigma = math.sqrt(sum((x - s) ** 2 for x in result.scores) / n)
    low, high = s - 1.96 * sigma / math.sqrt(n), s + 1.96 * sigma / math.sqrt(n)
    margin = "inf" if low <= 0 or high >= 1 else f"{(elo(high) - elo(low)) / 2:.1f}"
    return f"Elo difference: {elo(s) + 0.0:+.1f} +/- {margin}"


class _Player:
    """A running engine, restarted after it crashes or times out."""

    def __init__(self, spec: EngineSpec, timeout: float | None) -> None:
        self.spec = spec
        self.timeout = timeout
        self.engine: chess.engine.SimpleEngine | None = None
        self.name = spec.name or spec.command[0]
        self.start()

    def start(self) -> None:
        try:
            self.engine = chess.engine.SimpleEngine.popen_uci(
                list(self.spec.command), timeout=STARTUP, stderr=None)
        except (OSError, chess.engine.EngineError, TimeoutError) as exc:
            reason = str(exc) or type(exc).__name__
            raise MatchError(f"cannot start engine {' '.join(self.spec.command)}: {reason}") from None
        self.engine.timeout = self.timeout
        for key, value in self.spec.options:
            try:
                self.engine.configure({key: value})
            except (chess.engine.EngineError, ValueError) as exc:
                self.close()
                raise MatchError(f"engine {self.name}: option {key}={value}: {exc}") from None
        if self.spec.name is None:
            self.name = self.engine.id.get("name", self.name)

    def close(self) -> None:
        if self.engine is not None:
            try:
                self.engine.quit()
            except (chess.engine.EngineError, TimeoutError, OSError):
                self.engine.close()
            self.engine = None


def _play_game(white: _Player, black: _Player, start: chess.Board,
               settings: Settings) -> tuple[str, str, chess.Board]:
    board = start.copy()
    clocks = {chess.WHITE: settings.tc[0], chess.BLACK: settings.tc[0]} if settings.tc else None
    game_id = object()
    while True:
        outcome = board.outcome(claim_draw=True)
        if outcome is not None:
            return outcome.result(), _REASONS[outcome.termination], board
        if len(board.move_stack) >= settings.max_plies:
            return "1/2-1/2", "max plies", board
        mover = white if board.turn == chess.WHITE else black
        loss = "0-1" if board.turn == chess.WHITE else "1-0"
        if settings.depth is not None:
            limit = chess.engine.Limit(depth=settings.depth)
        elif clocks is not None:
            assert settings.tc is not None
            limit = chess.engine.Limit(white_clock=clocks[True], black_clock=clocks[False],
                                       white_inc=settings.tc[1], black_inc=settings.tc[1])
        else:
            limit = chess.engine.Limit(time=settings.movetime)
        assert mover.engine is not None
        began = time.monotonic()
        try:
            played = mover.engine.play(board, limit, game=game_id)
        except (TimeoutError, chess.engine.EngineTerminatedError) as exc:
            mover.close()
            mover.start()
            reason = "forfeit: time" if isinstance(exc, TimeoutError) else "forfeit: crash"
            return loss, reason, board
        except chess.engine.EngineError:
            mover.close()
            mover.start()
            return loss, "forfeit: illegal move", board
        elapsed = time.monotonic() - began
        if clocks is not None:
            assert settings.tc is not None
            clocks[board.turn] -= elapsed
            if clocks[board.turn] < 0:
                return loss, "forfeit: time", board
            clocks[board.turn] += settings.tc[1]
        elif settings.depth is None and elapsed > settings.movetime + GRACE:
            return loss, "forfeit: time", board
        if played.move is None or played.move not in board.legal_moves:
            return loss, "forfeit: illegal move", board
        board.push(played.move)


_REASONS = {
    chess.Termination.CHECKMATE: "checkmate",
    chess.Termination.STALEMATE: "stalemate",
    chess.Termination.INSUFFICIENT_MATERIAL: "insufficient material",
    chess.Termination.SEVENTYFIVE_MOVES: "fifty-move rule",
    chess.Termination.FIFTY_MOVES: "fifty-move rule",
    chess.Termination.FIVEFOLD_REPETITION: "threefold repetition",
    chess.Termination.THREEFOLD_REPETITION: "threefold repetition",
}


def run_match(first: EngineSpec, second: EngineSpec, settings: Settings,
              emit: Callable[[str], None]) -> MatchResult:
    """Play the match, calling `emit` with each output line of §12.4."""
    openings = list(settings.openings)
    if settings.seed is not None:
        random.Random(settings.seed).shuffle(openings)
    timeout = None if settings.depth is not None or settings.tc else GRACE
    players = [_Player(first, timeout)]
    try:
        players.append(_Player(second, timeout))
        one, two = players
        result = MatchResult()
        for number in range(1, settings.games + 1):
            start = opening_board(openings[((number - 1) // 2) % len(openings)])
            white, black = (one, two) if number % 2 else (two, one)
            outcome, reason, board = _play_game(white, black, start, settings)
            emit(f"game {number}/{settings.games}: {white.name} vs {black.name}: "
                 f"{outcome} ({reason})")
            score = {"1-0": 1.0, "0-1": 0.0}.get(outcome, 0.5)
            if white is two:
                score = 1 - score
            result.scores.append(score)
            if score == 1:
                result.wins += 1
            elif score == 0:
                result.losses += 1
            else:
                result.draws += 1
            result.games.append(GameRecord(number, white.name, black.name, outcome, reason,
                                           board, start))
        n = settings.games
        s = sum(result.scores) / n if n else 0.0
        emit(f"Score of {one.name} vs {two.name}: {result.wins} - {result.losses} - "
             f"{result.draws} [{s:.3f}] {n}")
        emit(elo_line(result))
        return result
    finally:
        for player in players:
            player.close()


def write_pgn(result: MatchResult, handle: IO[str]) -> None:
    """Write the games as PGN to `handle` (from `esochess.fen.files.open_output`)."""
    for record in result.games:
        game = chess.pgn.Game.from_board(record.board)
        game.headers["Event"] = "chespel match"
        game.headers["Round"] = str(record.number)
        game.headers["White"] = record.white
        game.headers["Black"] = record.black
        game.headers["Result"] = record.result
        game.headers["Termination"] = record.reason
        print(game, file=handle, end="\n\n")
