"""UCI mode (§10.9): protocol lines on standard output, the search in a background thread."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import chess

from esochess.chespel.runtime.engine import Engine, Game
from esochess.chespel.runtime.positions import FenError, parse_fen
from esochess.chespel.runtime.repl import Output
from esochess.chespel.runtime.search import Iteration, Limits, mate_in


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


class LockedOutput(Output):
    """Output shared by the reader thread and the search thread."""

    def __init__(self, out: Output) -> None:
        super().__init__(out.stream)
        self._lock = threading.Lock()

    def line(self, text: str) -> None:
        """Write one whole line, never interleaved with the other thread's."""
        with self._lock:
            super().line(text)


class UciSession:
    """One UCI conversation over the engine of a program."""

    def __init__(self, engine: Engine, out: Output) -> None:
        self.engine = engine
        self.out = LockedOutput(out)
        engine.report = lambda message: self.out.line(f"info string {message}")
        self.game = Game.start(chess.Board())
        self.thread: threading.Thread | None = None
        self.infinite = False
        self.stop_event = threading.Event()

    def run(self, lines: Iterator[str], first: str | None = None) -> int:
        """Answer commands until `quit` or the end of input; returns the exit status 0."""
        if first is not None and not self.handle(first):
            return 0
        for line in lines:
            if not self.handle(line):
                return 0
        self.finish()
        return 0

    def handle(self, line: str) -> bool:
        """Answer one command; False after `quit`."""
        word, _, rest = line.partition(" ")
        rest = rest.strip()
        try:
            if word == "quit":
                self.stop()
                return False
            self.command(word, rest, line)
        except Exception as exc:  # never a traceback (§10.1)
            self.out.line(f"info string error: internal error: {exc}")
        return True

    def command(self, word: str, rest: str, line: str) -> None:
        """Dispatch one UCI command."""
        program = self.engine.program
        if word == "uci":
            self.out.line(f"id name {program.name}")
            self.out.line("id author chespel")
            self.out.line(f"option name Hash type spin default {program.hash_size} min 1 max 4096")
            self.out.line("option name OwnBook type check default true")
            self.out.line("uciok")
        elif word == "isready":
            self.out.line("readyok")
        elif word == "setoption":
            self.set_option(rest)
        elif word == "ucinewgame":
            self.finish()
            self.engine.searcher.clear()
        elif word == "position":
            self.finish()
            self.position(rest)
        elif word == "go":
            start = time.monotonic()
            self.finish()
            self.go(rest.split(), start)
        elif word == "stop":
            self.stop()
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
            self.finish()
            self.engine.searcher.resize(int(value))
        elif option == "ownbook" and value.lower() in ("true", "false"):
            self.engine.use_book = value.lower() == "true"
        elif option in ("hash", "ownbook"):
            self.out.line(f"info string error: bad value for option {name}: {value}")
        else:
            self.out.line(f"info string unknown option {name}")

    def position(self, rest: str) -> None:
        """`position startpos|fen F [moves …]`; keeps the moves before a bad one."""
        spec, _, moves = rest.partition("moves")
        spec = spec.strip()
        if spec == "startpos":
            board = chess.Board()
        elif spec.startswith("fen "):
            try:
                board = parse_fen(spec[4:].strip())
            except FenError as exc:
                self.out.line(f"info string error: invalid FEN: {exc}")
                return
        else:
            self.out.line(f"info string error: invalid position command: {rest}")
            return
        game = Game.start(board)
        for text in moves.split():
            try:
                move = chess.Move.from_uci(text)
            except ValueError:
                move = None
            if move is None or move not in game.board.legal_moves:
                self.out.line(f"info string error: illegal move: {text}")
                break
            game.push(move)
        self.game = game

    def limits(self, args: list[str]) -> Limits:
        """The limits of a `go` command (§11.8)."""
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
        budget: float | None = None
        if "movetime" in values:
            budget = values["movetime"] / 1000
        elif "wtime" in values or "btime" in values:
            white = self.game.board.turn == chess.WHITE
            remaining = values.get("wtime" if white else "btime", 0) / 1000
            increment = values.get("winc" if white else "binc", 0) / 1000
            moves_to_go = values.get("movestogo") or 30
            budget = min(remaining / moves_to_go + 0.8 * increment, remaining / 4) - 0.050
            budget = min(max(budget, 0.010), max_time)
        elif not infinite and "depth" not in values and "nodes" not in values:
            budget = max_time
        depth = values.get("depth")
        return Limits(budget=budget, depth=max(1, depth) if depth is not None else None,
                      nodes=values.get("nodes"), infinite=infinite)

    def go(self, args: list[str], start: float) -> None:
        """Start a search in the background."""
        limits = self.limits(args)
        self.infinite = limits.infinite
        self.stop_event = threading.Event()
        game = Game(self.game.board.copy(), self.game.flags, list(self.game.keys))
        self.thread = threading.Thread(
            target=self._search, args=(game, limits, start, self.stop_event), daemon=True)
        self.thread.start()

    def _search(self, game: Game, limits: Limits, start: float, stop: threading.Event) -> None:
        try:
            choice = self.engine.choose(game, limits, start, stop,
                                        lambda it: self.out.line(info_line(it)))
            if choice.move is None:
                mated = game.board.is_check()
                self.out.line("info depth 0 score mate 0" if mated else "info depth 0 score cp 0")
            elif choice.book_line is not None:
                self.out.line(f"info string opening rule at line {choice.book_line}")
            elif choice.result is None or not choice.result.iterations:
                # The only legal move, or a search stopped before depth 1 completed.
                self.out.line(f"info depth 1 score cp 0 nodes 0 pv {choice.move.uci()}")
            if limits.infinite:
                stop.wait()
            self.out.line(f"bestmove {choice.move.uci() if choice.move else '0000'}")
        except Exception as exc:  # never a traceback (§10.1)
            self.out.line(f"info string error: internal error: {exc}")
            self.out.line("bestmove 0000")

    def finish(self) -> None:
        """Let a finite search end by itself (an infinite one is stopped) and wait for it."""
        if self.thread is not None:
            if self.infinite:
                self.stop_event.set()
            self.thread.join()
            self.thread = None

    def stop(self) -> None:
        """End a running search (its thread prints `bestmove`) and wait for it."""
        if self.thread is not None:
            self.stop_event.set()
            self.thread.join()
            self.thread = None
