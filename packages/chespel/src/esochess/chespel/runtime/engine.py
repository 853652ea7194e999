"""Choosing a move (docs/reference/chespel.md#the-search): no move, opening rule, the only legal
move, or the search."""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field

import chess

from esochess.chespel.runtime.book import Book
from esochess.chespel.runtime.evaluation import Program
from esochess.chespel.runtime.polyglot import PolyglotBook
from esochess.chespel.runtime.positions import castle_bit, placement_flags, position_key
from esochess.chespel.runtime.search import Iteration, Limits, Searcher, SearchResult
from esochess.chespel.runtime.values import ChespelRuntimeError


@dataclass
class Game:
    """A position with its history: castling flags (docs/reference/chespel.md#castling) and earlier
    keys (docs/reference/chespel.md#the-search)."""

    board: chess.Board
    flags: int
    keys: list[Hashable] = field(default_factory=list)

    @classmethod
    def start(cls, board: chess.Board) -> Game:
        """A game whose history starts at `board` (root flags from the placement test)."""
        return cls(board.copy(stack=False), placement_flags(board))

    def push(self, move: chess.Move) -> None:
        """Play a move, updating flags and the history of keys."""
        self.flags |= castle_bit(self.board, move)
        self.keys.append(position_key(self.board))
        self.board.push(move)

    def repetitions(self) -> int:
        """How often the current position has occurred in the game (itself included)."""
        key = position_key(self.board)
        return 1 + sum(1 for k in self.keys if k == key)


@dataclass
class Choice:
    """The engine's decision for one position."""

    move: chess.Move | None
    book_line: int | None = None
    book_entry: tuple[str, int] | None = None
    """The Polyglot book's name and the entry's weight, for a book move."""
    result: SearchResult | None = None


class Engine:
    """A program with its search state, book and once-per-process error reporting."""

    def __init__(self, program: Program, report: Callable[[str], None],
                 polyglot: PolyglotBook | None = None) -> None:
        self.program = program
        self.report = report
        self.book = Book(program.openings)
        self.use_book = True
        self.embedded = polyglot
        """The book built into the executable, used while the BookFile option is empty."""
        self.polyglot = polyglot
        self.searcher = Searcher(program, on_error=self._runtime_error)
        self._reported: set[str] = set()
        self._lock = threading.Lock()

    def report_once(self, message: str, key: str | None = None) -> None:
        """Report an error line unless one with the same key was already reported."""
        key = message if key is None else key
        with self._lock:
            if key in self._reported:
                return
            self._reported.add(key)
        self.report(message)

    def _runtime_error(self, exc: ChespelRuntimeError) -> None:
        # Once per process and program position: the values in the message may vary.
        self.report_once(exc.render(self.program.source_path), f"{exc.line}:{exc.column}")

    def choose(self, game: Game, limits: Limits, start: float | None = None,
               stop: threading.Event | None = None,
               on_iteration: Callable[[Iteration], None] | None = None) -> Choice:
        """The move to play in `game` (None when there is no legal move)."""
        board = game.board
        moves = list(board.generate_legal_moves())
        if not moves:
            return Choice(None)
        if self.use_book and self.book:
            answer = self.book.lookup(board)
            if answer is not None:
                if answer.move is not None:
                    return Choice(answer.move, book_line=answer.rule.line)
                self.report_once(f"error: opening rule at line {answer.rule.line}: "
                                 "the destination is not reachable by one legal move")
        if self.use_book and self.polyglot is not None:
            entry = self.polyglot.lookup(board)
            if entry is not None:
                return Choice(entry.move, book_entry=(self.polyglot.name, entry.weight))
        if len(moves) == 1 and limits.stops_at_mate:
            return Choice(moves[0])
        history = _since_irreversible(game)
        result = self.searcher.search(board, game.flags, history, limits, start, stop, on_iteration)
        return Choice(result.move, result=result)


def _since_irreversible(game: Game) -> list[Hashable]:
    """Keys of earlier positions that can still repeat (after the last capture or pawn move)."""
    clock = game.board.halfmove_clock
    return game.keys[-clock:] if clock else []
