"""UCI mode (docs/reference/chespel.md#uci): protocol lines on standard output, the search in a
background thread.

The reader (the thread that calls `UciSession.run`) never waits for a search: `isready`,
`stop` and `quit` are answered at once in every state. While a search runs, every other
command is queued and carried out, in order, by the search thread once the search has
ended. A `position` that is rejected leaves no position: each `go` then answers
`bestmove 0000` with an `info string` saying why, until a valid `position` arrives.
"""

from __future__ import annotations

import sys
import threading
import time
from collections import deque
from collections.abc import Iterator

import chess

from esochess.chespel.runtime.engine import Engine, Game
from esochess.chespel.runtime.polyglot import BookError, PolyglotBook
from esochess.chespel.runtime.positions import FenError, parse_fen
from esochess.chespel.runtime.repl import Output
from esochess.chespel.runtime.search import Iteration, Limits, mate_in
from esochess.chespel.runtime.timing import clock_limits
from esochess.chespel.runtime.values import ChespelRuntimeError, clamp, format_signed, printable


def score_text(score: int) -> str:
    """`cp X` (1.000 = 100 cp, halves away from zero) or `mate K`."""
    moves = mate_in(score)
    if moves is not None:
        return f"mate {moves}"
    centipawns = (abs(score) + 5) // 10
    return f"cp {centipawns if score >= 0 else -centipawns}"


def info_line(iteration: Iteration) -> str:
    """The `info` line of one completed iteration."""
    millis = max(1, int(iteration.elapsed * 1000))
    nps = iteration.nodes * 1000 // millis
    pv = " ".join(move.uci() for move in iteration.pv)
    return (f"info depth {iteration.depth} score {score_text(iteration.score)} "
            f"nodes {iteration.nodes} nps {nps} time {millis} pv {pv}")


protocol_text = printable
"""Nothing from a file name or a program can start a protocol line of its own."""


class LockedOutput(Output):
    """Output shared by the reader thread and the search thread."""

    def __init__(self, out: Output) -> None:
        super().__init__(out.stream)
        self._lock = threading.Lock()

    def line(self, text: str) -> None:
        """Write one whole, sanitised line, never interleaved with the other thread's."""
        with self._lock:
            super().line(protocol_text(text))


_QUEUED = tuple[str, str, str, float, threading.Event | None]
"""A command waiting for the search to end: word, arguments, line, read time, stop event."""
SWITCH_INTERVAL = 0.001
"""Seconds between the interpreter's thread switches while a UCI session runs."""
QUIT_WAIT = 5.0
"""Seconds `quit` waits for a stopped search to end (it stops within milliseconds)."""


class UciSession:
    """One UCI conversation over the engine of a program."""

    def __init__(self, engine: Engine, out: Output) -> None:
        self.engine = engine
        self.out = LockedOutput(out)
        engine.report = lambda message: self.out.line(f"info string {message}")
        self.game: Game | None = Game.start(chess.Board())
        self.rejected = ""
        """Why there is no position (the last `position` command was rejected)."""
        self._lock = threading.Lock()
        self._pending: deque[_QUEUED] = deque()
        self._stops: list[threading.Event] = []
        self._infinite: set[threading.Event] = set()
        self._worker: threading.Thread | None = None
        self._quitting = False
        self.show_rules = False
        """ShowRules: explain the root evaluation rule by rule before each search."""

    # ------------------------------------------------------------------ reader

    def run(self, lines: Iterator[str], first: str | None = None) -> int:
        """Answer commands until `quit` or the end of input; returns the exit status 0."""
        # The search thread holds the interpreter most of the time: let the reader have it
        # back within a millisecond rather than five.
        interval = sys.getswitchinterval()
        sys.setswitchinterval(SWITCH_INTERVAL)
        try:
            if first is not None and not self.handle(first):
                return 0
            for line in lines:
                if not self.handle(line):
                    return 0
            self.finish()
            return 0
        finally:
            sys.setswitchinterval(interval)

    def handle(self, line: str) -> bool:
        """Read one command: answer it, start it or queue it; False after `quit`."""
        word, _, rest = line.partition(" ")
        rest = rest.strip()
        try:
            if word == "quit":
                self.quit()
                return False
            if word == "isready":
                self.out.line("readyok")
                return True
            if word == "stop":
                self.stop()
                return True
            start = time.monotonic()
            event = threading.Event() if word == "go" else None
            with self._lock:
                if event is not None:
                    self._stops.append(event)
                    if "infinite" in rest.split():
                        self._infinite.add(event)
                if self._worker is not None:
                    self._pending.append((word, rest, line, start, event))
                    return True
            self.command(word, rest, line, start, event)
        except Exception as exc:  # never a traceback (docs/reference/chespel.md#the-engine)
            self.out.line(f"info string error: internal error: {exc}")
        return True

    def stop(self) -> None:
        """End the running search and any queued one (each still prints `bestmove`)."""
        with self._lock:
            for event in self._stops:
                event.set()

    def quit(self) -> None:
        """Stop everything, drop queued commands and wait briefly for the search thread."""
        with self._lock:
            self._quitting = True
            self._pending.clear()
        self.stop()
        worker = self._worker
        if worker is not None:
            worker.join(QUIT_WAIT)

    def finish(self) -> None:
        """At the end of input: let finite searches end by themselves (infinite ones are
        stopped) and carry out the queued commands."""
        while True:
            with self._lock:
                for event in self._infinite:
                    event.set()
                worker = self._worker
            if worker is None or not worker.is_alive():
                return
            worker.join()

    # ------------------------------------------------------------------ commands

    def command(self, word: str, rest: str, line: str, start: float,
                event: threading.Event | None) -> None:
        """Carry out one command (in the reader when idle, else in the search thread)."""
        program = self.engine.program
        if word == "uci":
            self.out.line(f"id name {program.name}")
            self.out.line("id author chespel")
            self.out.line(f"option name Hash type spin default {program.hash_size} min 1 max 4096")
            self.out.line("option name OwnBook type check default true")
            self.out.line("option name BookFile type string default <empty>")
            self.out.line("option name ShowRules type check default false")
            self.out.line("uciok")
        elif word == "setoption":
            self.set_option(rest)
        elif word == "ucinewgame":
            self.engine.searcher.clear()
        elif word == "position":
            self.position(rest)
        elif word == "go":
            assert event is not None
            self.go(rest.split(), start, event)
        elif word in ("ponderhit", "debug", "register"):
            return
        else:
            self.out.line(f"info string unknown command: {line}")

    def set_option(self, rest: str) -> None:
        """`setoption name N value V`."""
        words = rest.split()
        if "value" in words:
            at = words.index("value")
            name, value = " ".join(words[1:at]), " ".join(words[at + 1:])
        else:
            name, value = " ".join(words[1:]), ""
        option = name.lower()
        if option == "hash" and value.isdigit() and 1 <= int(value) <= 4096:
            self.engine.searcher.resize(int(value))
        elif option == "ownbook" and value.lower() in ("true", "false"):
            self.engine.use_book = value.lower() == "true"
        elif option == "showrules" and value.lower() in ("true", "false"):
            self.show_rules = value.lower() == "true"
        elif option == "bookfile":
            self.set_book_file(value)
        elif option in ("hash", "ownbook", "showrules"):
            self.out.line(f"info string error: bad value for option {name}: {value}")
        else:
            self.out.line(f"info string unknown option {name}")

    def set_book_file(self, value: str) -> None:
        """Use the Polyglot book at `value`; empty or `<empty>` goes back to the built-in one."""
        if value in ("", "<empty>"):
            self.engine.polyglot = self.engine.embedded
            return
        try:
            self.engine.polyglot = PolyglotBook.open(value)
        except BookError as exc:
            self.out.line(f"info string error: {exc}")

    def position(self, rest: str) -> None:
        """`position startpos|fen F [moves …]`; a bad FEN or move rejects the whole command."""
        spec, _, moves = rest.partition("moves")
        spec = spec.strip()
        self.game = None
        if spec == "startpos":
            board = chess.Board()
        elif spec.startswith("fen "):
            try:
                board = parse_fen(spec[4:].strip())
            except FenError as exc:
                self.reject(f"invalid FEN: {exc}")
                return
        else:
            self.reject(f"invalid position command: {rest}")
            return
        game = Game.start(board)
        for text in moves.split():
            try:
                move = chess.Move.from_uci(text)
            except ValueError:
                move = None
            if move is None or move not in game.board.legal_moves:
                self.reject(f"illegal move: {text}")
                return
            game.push(move)
        self.game = game
        self.rejected = ""

    def reject(self, reason: str) -> None:
        """Report a rejected `position`; there is no position until a valid one arrives."""
        self.rejected = reason
        self.out.line(f"info string error: {reason}")

    def limits(self, args: list[str], board: chess.Board) -> Limits:
        """The limits of a `go` command."""
        values: dict[str, int] = {}
        infinite = False
        for index, word in enumerate(args):
            if word == "infinite":
                infinite = True
            elif word in ("movetime", "wtime", "btime", "winc", "binc", "movestogo",
                          "depth", "nodes") and index + 1 < len(args):
                try:
                    values[word] = int(args[index + 1])
                except ValueError:
                    self.out.line(f"info string error: bad value for {word}")
        max_time = self.engine.program.max_time
        depth = values.get("depth")
        depth = max(1, depth) if depth is not None else None
        if "movetime" in values:
            return Limits(budget=max(values["movetime"], 1) / 1000, depth=depth,
                          nodes=values.get("nodes"))
        if "wtime" in values or "btime" in values:
            white = board.turn == chess.WHITE
            remaining = values.get("wtime" if white else "btime", 0) / 1000
            increment = values.get("winc" if white else "binc", 0) / 1000
            clock = clock_limits(remaining, increment, values.get("movestogo"), max_time)
            return Limits(budget=clock.budget, depth=depth, nodes=values.get("nodes"),
                          minimum=clock.minimum)
        budget = None if infinite or depth is not None or "nodes" in values else max_time
        return Limits(budget=budget, depth=depth, nodes=values.get("nodes"), infinite=infinite)

    def go(self, args: list[str], start: float, event: threading.Event) -> None:
        """Search the current position in the search thread (started here when idle)."""
        if self.game is None:
            self.out.line(f"info string error: no position to search ({self.rejected}); "
                          "send a valid 'position' command")
            self.out.line("bestmove 0000")
            self._done(event)
            return
        game = Game(self.game.board.copy(), self.game.flags, list(self.game.keys))
        limits = self.limits(args, game.board)
        if threading.current_thread() is self._worker:
            self._search(game, limits, start, event)
            return
        with self._lock:
            self._worker = threading.Thread(target=self._work, args=(game, limits, start, event),
                                            daemon=True)
            self._worker.start()

    def _work(self, game: Game, limits: Limits, start: float, event: threading.Event) -> None:
        """The search thread: the search, then the commands queued meanwhile, in order.

        When the output is gone (the GUI or the match died), the thread ends quietly and
        says so: `finish` would otherwise wait for a search thread that no longer runs."""
        try:
            self._search(game, limits, start, event)
            while True:
                with self._lock:
                    if not self._pending or self._quitting:
                        self._pending.clear()
                        self._worker = None
                        return
                    word, rest, line, queued_at, queued_event = self._pending.popleft()
                try:
                    self.command(word, rest, line, queued_at, queued_event)
                except OSError:
                    raise
                except Exception as exc:  # never a traceback (docs/reference/chespel.md#the-engine)
                    self.out.line(f"info string error: internal error: {exc}")
        except OSError:  # BrokenPipeError and the like: nobody reads the answers any more
            with self._lock:
                self._quitting = True
                self._pending.clear()
                self._worker = None

    def _done(self, event: threading.Event) -> None:
        with self._lock:
            if event in self._stops:
                self._stops.remove(event)
            self._infinite.discard(event)

    def rule_lines(self, game: Game) -> list[str]:
        """`info string` lines: the root evaluation for the side to move, rule by rule."""
        program = self.engine.program
        color = game.board.turn
        try:
            total, rules = program.rule_totals(game.board, color, game.flags)
        except ChespelRuntimeError as exc:
            return [f"info string error: {exc.render(program.source_path)}"]
        side = "white" if color == chess.WHITE else "black"
        lines = [f"info string rules: {format_signed(total)} for {side}"]
        for name, sides in rules.items():
            line = f"info string rule {name}: {format_signed(clamp(sum(sides.values())))}"
            if any(sides):
                line += " (" + ", ".join(f"{side} {format_signed(clamp(value))}"
                                         for side, value in sides.items()) + ")"
            lines.append(line)
        return lines

    def _search(self, game: Game, limits: Limits, start: float, stop: threading.Event) -> None:
        try:
            if self.show_rules:
                for text in self.rule_lines(game):
                    self.out.line(text)
            choice = self.engine.choose(game, limits, start, stop,
                                        lambda it: self.out.line(info_line(it)))
            if choice.move is None:
                mated = game.board.is_check()
                self.out.line("info depth 0 score mate 0" if mated else "info depth 0 score cp 0")
            elif choice.book_line is not None:
                self.out.line(f"info string opening rule at line {choice.book_line}")
            elif choice.book_entry is not None:
                name, weight = choice.book_entry
                self.out.line(f"info string book move from {name} (weight {weight})")
            elif choice.result is None or not choice.result.iterations:
                # The only legal move, or a search stopped before depth 1 completed.
                self.out.line(f"info depth 1 score cp 0 nodes 0 pv {choice.move.uci()}")
            if limits.infinite:
                stop.wait()
            self.out.line(f"bestmove {choice.move.uci() if choice.move else '0000'}")
        except Exception as exc:  # never a traceback (docs/reference/chespel.md#the-engine)
            self.out.line(f"info string error: internal error: {exc}")
            self.out.line("bestmove 0000")
        finally:
            self._done(stop)
