"""`chespel match` (docs/reference/chespel.md#match): two UCI engines play a series of games from
opening lines.

Engines are driven with python-chess's `chess.engine`; a `.chp` program runs as its own
process (`python -m esochess.chespel uci FILE`), exactly as a built engine would.
"""

from __future__ import annotations

import hashlib
import io
import os
import random
import shlex
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from queue import SimpleQueue

import chess
import chess.engine
import chess.pgn

from esochess.chespel.runtime.values import printable
from esochess.chespel.stats import Sprt, elo_text, los
from esochess.fen.diagnostics import SourceError
from esochess.fen.files import UnreadableFile, read_source, write_atomic

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
    payload: bytes | None = None
    """A built engine (the bytes of `chespel build`): written to a temporary folder for the
    match and run as `python ENGINE --uci` — on this machine, or on a cluster's worker."""

    def materialised(self, folder: str) -> EngineSpec:
        """This engine with its payload written into `folder` (the same spec without one)."""
        if self.payload is None:
            return self
        path = os.path.join(folder, hashlib.sha256(self.payload).hexdigest()[:16] + ".pyz")
        if not os.path.exists(path):
            write_atomic(path, self.payload)
        return replace(self, command=(sys.executable, path, "--uci"), payload=None)

    def built(self, executable: bytes) -> EngineSpec:
        """This engine, run from `executable` (its built file) instead of its source."""
        return replace(self, command=("(built engine)",), payload=executable)

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
    nodes: int | None = None
    max_plies: int = 300
    openings: tuple[str, ...] = DEFAULT_OPENINGS
    seed: int | None = None
    jobs: int = 1
    sprt: Sprt | None = None
    scheduler: str | None = None
    """A Dask scheduler's address: the game pairs are played on its workers (cluster.py)."""

    @property
    def fixed(self) -> bool:
        """Whether moves are limited by depth or nodes, not by time (no time forfeits)."""
        return self.depth is not None or self.nodes is not None


@dataclass
class GameRecord:
    """One finished game, with each engine move's thinking time and (with --tc) the clock
    the mover had left after it."""

    number: int
    white: str
    black: str
    result: str
    reason: str
    board: chess.Board
    start: chess.Board
    times: list[float] = field(default_factory=list)
    clocks: list[float] | None = None

    def score(self) -> float:
        """The first engine's points (it has White in odd-numbered games)."""
        white = {"1-0": 1.0, "0-1": 0.0}.get(self.result, 0.5)
        return white if self.number % 2 else 1 - white


@dataclass
class MatchResult:
    """E1's wins, losses and draws, and the games."""

    wins: int = 0
    losses: int = 0
    draws: int = 0
    scores: list[float] = field(default_factory=list)
    games: list[GameRecord] = field(default_factory=list)
    pairs: list[int] = field(default_factory=lambda: [0] * 5)
    """Complete colour-reversed pairs by the first engine's points ×2 (0 … 4)."""
    llr: float | None = None
    accepted: str | None = None
    """'H0' or 'H1' once an SPRT stopped the match."""

    def add(self, record: GameRecord) -> None:
        """Count a game (games arrive in order of their numbers)."""
        score = record.score()
        self.scores.append(score)
        if score == 1:
            self.wins += 1
        elif score == 0:
            self.losses += 1
        else:
            self.draws += 1
        self.games.append(record)
        if record.number % 2 == 0:
            self.pairs[round(2 * (self.scores[-2] + score))] += 1

    def sprt_counts(self, sprt: Sprt) -> list[int]:
        """The outcome counts the SPRT's model reads, worst to best."""
        if sprt.model == "pentanomial":
            return list(self.pairs)
        return [self.losses, self.draws, self.wins]


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
    if path.lower().endswith(".pgn"):
        return _pgn_openings(path, text)
    lines = tuple(line.strip() for line in text.splitlines() if line.strip())
    for number, line in enumerate(lines, 1):
        try:
            opening_board(line)
        except ValueError as exc:
            raise MatchError(f"{path}:{number}: bad opening: {exc}") from None
    if not lines:
        raise MatchError(f"{path}: no openings")
    return lines


def _pgn_openings(path: str, text: str) -> tuple[str, ...]:
    """Each game's main line as an opening (its end position's FEN when it has a setup)."""
    openings = []
    handle = io.StringIO(text)
    number = 0
    while (game := chess.pgn.read_game(handle)) is not None:
        number += 1
        if game.errors:
            raise MatchError(f"{path}: game {number}: bad opening: {game.errors[0]}")
        moves = list(game.mainline_moves())
        if "FEN" in game.headers:
            openings.append(game.end().board().fen())
        elif moves:
            openings.append(" ".join(move.uci() for move in moves))
    if not openings:
        raise MatchError(f"{path}: no openings")
    return tuple(openings)


def opening_board(line: str) -> chess.Board:
    """The position after an opening line (SAN or coordinate moves, a FEN or an EPD line)."""
    if "/" in line:
        try:
            return chess.Board(line)
        except ValueError:
            return chess.Board.from_epd(line)[0]
    board = chess.Board()
    for word in line.split():
        try:
            board.push_san(word)
        except ValueError:
            board.push_uci(word)
    return board


def elo_line(result: MatchResult) -> str:
    """`Elo difference: ±E +/- M` with the 95 % interval (docs/reference/chespel.md#summary)."""
    return f"Elo difference: {elo_text(result.scores)}"


def summary_lines(names: tuple[str, str], result: MatchResult,
                  sprt: Sprt | None) -> list[str]:
    """The score, Elo (interval and LOS) and SPRT lines that end a match."""
    n = len(result.scores)
    s = sum(result.scores) / n if n else 0.0
    lines = [f"Score of {names[0]} vs {names[1]}: {result.wins} - {result.losses} - "
             f"{result.draws} [{s:.3f}] {n}",
             f"{elo_line(result)}, LOS: {100 * los(result.wins, result.losses):.1f} %"]
    if sprt is not None:
        llr = sprt.llr(result.sprt_counts(sprt))
        verdict = {"H0": " - H0 was accepted", "H1": " - H1 was accepted"}.get(
            result.accepted or "", "")
        lines.append(f"SPRT ({sprt.model}, elo0 {sprt.elo0:g}, elo1 {sprt.elo1:g}, "
                     f"alpha {sprt.alpha:g}, beta {sprt.beta:g}): llr {llr:.2f}, "
                     f"lbound {sprt.lower:.2f}, ubound {sprt.upper:.2f}{verdict}")
    return lines


class _Player:
    """A running engine, restarted after it crashes or times out."""

    def __init__(self, spec: EngineSpec, timeout: float | None) -> None:
        self.spec = spec
        self.timeout = timeout
        self.engine: chess.engine.SimpleEngine | None = None
        self.name = spec.name or spec.command[0]
        self.retired = False
        self.start()

    def start(self) -> None:
        if self.retired:
            raise MatchError("the match was stopped")
        try:
            # In a process group of its own: a terminal's Ctrl-C is the match's to handle
            # (it stops every engine), and an engine still importing would otherwise print
            # its own KeyboardInterrupt traceback. An engine whose match is killed reads
            # the end of its input and quits.
            self.engine = chess.engine.SimpleEngine.popen_uci(
                list(self.spec.command), timeout=STARTUP, stderr=None, setpgrp=True)
        except (OSError, chess.engine.EngineError, TimeoutError) as exc:
            reason = str(exc) or type(exc).__name__
            raise MatchError(f"cannot start engine {' '.join(self.spec.command)}: {reason}") from None
        if self.retired:
            # Stopped while the engine was starting (a game restarting a crashed engine
            # when the match is stopped): Seats.close found no engine to close.
            self.close()
            raise MatchError("the match was stopped")
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


def _play_game(white: _Player, black: _Player, number: int, start: chess.Board,
               settings: Settings) -> GameRecord:
    board = start.copy()
    record = GameRecord(number, white.name, black.name, "*", "", board, start)
    clocks = {chess.WHITE: settings.tc[0], chess.BLACK: settings.tc[0]} if settings.tc else None
    record.clocks = [] if clocks is not None else None

    def end(result: str, reason: str) -> GameRecord:
        record.result, record.reason = result, reason
        return record

    game_id = object()
    while True:
        outcome = board.outcome(claim_draw=True)
        if outcome is not None:
            return end(outcome.result(), _REASONS[outcome.termination])
        if len(board.move_stack) >= settings.max_plies:
            return end("1/2-1/2", "max plies")
        mover = white if board.turn == chess.WHITE else black
        loss = "0-1" if board.turn == chess.WHITE else "1-0"
        if settings.fixed:
            limit = chess.engine.Limit(depth=settings.depth, nodes=settings.nodes)
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
            return end(loss, "forfeit: time" if isinstance(exc, TimeoutError) else "forfeit: crash")
        except chess.engine.EngineError:
            mover.close()
            mover.start()
            return end(loss, "forfeit: illegal move")
        elapsed = time.monotonic() - began
        if clocks is not None:
            assert settings.tc is not None
            clocks[board.turn] -= elapsed
            if clocks[board.turn] < 0:
                return end(loss, "forfeit: time")
            clocks[board.turn] += settings.tc[1]
        elif not settings.fixed and elapsed > settings.movetime + GRACE:
            return end(loss, "forfeit: time")
        if played.move is None or played.move not in board.legal_moves:
            return end(loss, "forfeit: illegal move")
        record.times.append(elapsed)
        if record.clocks is not None and clocks is not None:
            record.clocks.append(clocks[board.turn])
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




class Seats:
    """Engine pairs, one per game being played: a pair serves one game at a time and is
    handed to the next game only when that game is over."""

    def __init__(self, first: EngineSpec, second: EngineSpec, timeout: float | None) -> None:
        self.specs = (first, second)
        self.timeout = timeout
        self.free: SimpleQueue[tuple[_Player, _Player]] = SimpleQueue()
        self.all: list[_Player] = []
        self.lock = threading.Lock()
        self.closed = False

    @contextmanager
    def seat(self) -> Iterator[tuple[_Player, _Player]]:
        """A free engine pair (started on first use), returned when the block ends."""
        if self.free.empty():
            pair = []
            for spec in self.specs:
                player = _Player(spec, self.timeout)
                with self.lock:
                    self.all.append(player)
                    if self.closed:
                        player.retired = True
                        player.close()
                        raise MatchError("the match was stopped")
                pair.append(player)
            seat = (pair[0], pair[1])
        else:
            seat = self.free.get()
        try:
            yield seat
        finally:
            self.free.put(seat)

    def close(self) -> None:
        """Stop every engine (a game still being played ends at once) and start no more."""
        with self.lock:
            self.closed = True
            players = list(self.all)
        for player in players:
            player.retired = True
            player.close()


def play_pair_on(seats: Seats, index: int, opening: str, settings: Settings,
                 stop: threading.Event) -> list[GameRecord]:
    """Pair `index` (games 2·index+1 and 2·index+2, colours reversed) from `opening`."""
    start = opening_board(opening)
    records = []
    for number in (2 * index + 1, 2 * index + 2):
        if number > settings.games or stop.is_set():
            break
        with seats.seat() as (one, two):
            white, black = (one, two) if number % 2 else (two, one)
            records.append(_play_game(white, black, number, start, settings))
    return records


def engine_timeout(settings: Settings) -> float | None:
    """How long a move may take beyond its time before python-chess gives up on it."""
    return None if settings.fixed or settings.tc else GRACE


def shuffled_openings(settings: Settings) -> list[str]:
    """The openings in the order pairs use them (pair i plays opening i modulo their number)."""
    openings = list(settings.openings)
    if settings.seed is not None:
        random.Random(settings.seed).shuffle(openings)
    return openings


def pair_count(settings: Settings) -> int:
    """How many colour-reversed pairs the match has (the last one may be a single game)."""
    return (settings.games + 1) // 2


def run_match(first: EngineSpec, second: EngineSpec, settings: Settings,
              emit: Callable[[str], None],
              on_game: Callable[[GameRecord], None] | None = None) -> MatchResult:
    """Play the match on this machine, calling `emit` with each output line
    (docs/reference/chespel.md#match) and `on_game` with each game, both in game-number
    order whatever `settings.jobs` is.

    Games come in colour-reversed pairs on the same opening; with `jobs` > 1 that many pairs
    are played at once, each game on its own engine processes. An SPRT is checked after
    every game in number order, so a stopped match counts the same games as a serial one.
    """
    # A .chp engine runs from its built file: it starts without compiling the program.
    with tempfile.TemporaryDirectory(prefix="chespel-match-") as folder:
        return collect(_local_pairs(first.materialised(folder), second.materialised(folder),
                                    settings), settings, emit, on_game)


def _local_pairs(first: EngineSpec, second: EngineSpec,
                 settings: Settings) -> Iterator[list[GameRecord]]:
    openings = shuffled_openings(settings)
    seats = Seats(first, second, engine_timeout(settings))
    stop = threading.Event()

    def play_pair(index: int) -> list[GameRecord]:
        return play_pair_on(seats, index, openings[index % len(openings)], settings, stop)

    pool = ThreadPoolExecutor(max_workers=settings.jobs, thread_name_prefix="chespel-game")
    try:
        futures: list[Future[list[GameRecord]]] = [
            pool.submit(play_pair, index) for index in range(pair_count(settings))]
        for future in futures:
            yield future.result()
    finally:
        # Games still being played (beyond an SPRT stop, or after an error or Ctrl-C) are
        # abandoned: their engines are stopped first, so that no thread waits on them.
        stop.set()
        seats.close()
        pool.shutdown(wait=True, cancel_futures=True)


def collect(pairs: Iterator[list[GameRecord]], settings: Settings, emit: Callable[[str], None],
            on_game: Callable[[GameRecord], None] | None = None) -> MatchResult:
    """Count the games of `pairs` (in pair order), print each, stop at an SPRT decision
    (closing `pairs`, which abandons the games still running) and print the summary."""
    result = MatchResult()
    try:
        for records in pairs:
            for record in records:
                if result.accepted is not None:
                    break
                result.add(record)
                emit(f"game {record.number}/{settings.games}: {record.white} vs "
                     f"{record.black}: {record.result} ({record.reason})")
                if on_game is not None:
                    on_game(record)
                if settings.sprt is not None:
                    result.llr = settings.sprt.llr(result.sprt_counts(settings.sprt))
                    result.accepted = settings.sprt.decision(result.llr)
            if result.accepted is not None:
                break
    finally:
        close = getattr(pairs, "close", None)
        if close is not None:
            close()
    first_game = result.games[0]
    for line in summary_lines((first_game.white, first_game.black), result, settings.sprt):
        emit(line)
    return result


_TERMINATIONS = {"max plies": "adjudication", "forfeit: time": "time forfeit",
                 "forfeit: crash": "abandoned", "forfeit: illegal move": "rules infraction"}


def game_pgn(record: GameRecord) -> str:
    """The game as PGN: the standard Termination tag, the detailed reason as the last
    comment, and each engine move's `[%emt]` thinking time (and `[%clk]` clock with --tc)."""
    game = chess.pgn.Game.from_board(record.board)
    game.headers["Event"] = "chespel match"
    game.headers["Round"] = str(record.number)
    game.headers["White"] = record.white
    game.headers["Black"] = record.black
    game.headers["Result"] = record.result
    game.headers["Termination"] = _TERMINATIONS.get(record.reason, "normal")
    nodes = list(game.mainline())[len(record.start.move_stack):]
    for index, node in enumerate(nodes):
        node.set_emt(record.times[index])
        if record.clocks is not None:
            node.set_clock(record.clocks[index])
    game.end().comment = " ".join(part for part in (game.end().comment, record.reason) if part)
    return f"{game}\n\n"
