"""The REPL and play mode of docs/reference/chespel.md#repl-commands and
docs/reference/chespel.md#the-engine."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import TextIO

import chess

from esochess.chespel.runtime.engine import Engine, Game
from esochess.chespel.runtime.evaluation import Program
from esochess.chespel.runtime.positions import (
    FenError,
    format_fen,
    parse_fen,
    parse_move,
    render_board,
)
from esochess.chespel.runtime.search import Limits
from esochess.chespel.runtime.values import ChespelRuntimeError, format_num, str_color

HELP = """commands:
  FEN | startpos     show the position, its score, the engine's move and the result
  fen FEN            print the FEN after the engine's move
  eval FEN           print the board and the score for the side to move
  eval v FEN         the same with the justification lines
  play [FEN]         play a game (answer 'ai' or 'human' for each colour; 'l' lists moves)
  uci                switch to UCI mode
  help               this text
  quit | exit        end the program"""

PLAY_HELP = """in a game:
  MOVE               play a move: SAN (e4, Nf3, exd5, O-O, e8=Q) or coordinates (e2e4)
  l                  list the legal moves
  help               this text
  quit               abandon the game (back to the commands)
  exit               end the program"""


class Output:
    """Line-oriented standard output, flushed after every line
    (docs/reference/chespel.md#the-engine)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def line(self, text: str) -> None:
        """Write one line and flush."""
        self.stream.write(text + "\n")
        self.stream.flush()

    def prompt(self, text: str) -> None:
        """Write a prompt without a newline."""
        self.stream.write(text)
        self.stream.flush()


class EndOfInput(Exception):
    """The input ended (or `quit`/`exit` was read): the program ends with status 0."""


def input_lines(stream: TextIO) -> Iterator[str]:
    """The non-empty input lines, stripped (docs/reference/chespel.md#the-engine)."""
    for raw in stream:
        line = raw.strip()
        if line:
            yield line


class Repl:
    """Reads REPL commands and answers them; `run` returns when the input ends."""

    def __init__(self, program: Program, stdin: TextIO, stdout: TextIO,
                 interactive: bool = False) -> None:
        self.program = program
        self.out = Output(stdout)
        self.interactive = interactive
        self.lines = input_lines(stdin)
        self.engine = Engine(program, self.out.line)
        self.read_at = time.monotonic()
        self.failures = 0
        """Error lines printed for invalid FENs and run-time errors (`chespel eval` exits 1)."""

    def read(self, prompt: str = "> ") -> str:
        """The next input line; raises EndOfInput at the end."""
        if self.interactive and prompt:
            self.out.prompt(prompt)
        try:
            line = next(self.lines)
        except StopIteration:
            raise EndOfInput from None
        self.read_at = time.monotonic()
        return line

    def run(self) -> str | None:
        """Run until the end of input; returns `uci` when the engine switches to UCI mode."""
        if self.interactive:
            self.out.line(f"Chespel engine '{self.program.name}'. Type 'help' for commands.")
        while True:
            try:
                line = self.read()
            except EndOfInput:
                return None
            word, _, rest = line.partition(" ")
            rest = rest.strip()
            if word == "uci":
                return "uci"
            if word in ("quit", "exit"):
                return None
            try:
                self.command(word, rest, line)
            except EndOfInput:
                return None
            # the engine never shows a traceback (docs/reference/chespel.md#the-engine)
            except Exception as exc:
                self.out.line(f"error: internal error: {exc}")

    def command(self, word: str, rest: str, line: str) -> None:
        """Dispatch one REPL command."""
        if word == "help":
            for text in HELP.split("\n"):
                self.out.line(text)
        elif word == "eval":
            verbose = rest == "v" or rest.startswith("v ")
            board = self.fen_argument(rest[1:].strip() if verbose else rest)
            if board is not None:
                self.show_position(Game.start(board), verbose)
        elif word == "fen":
            board = self.fen_argument(rest)
            if board is not None:
                self.fen_command(board)
        elif word == "play":
            board = self.fen_argument(rest) if rest else chess.Board()
            if board is not None:
                self.play(board)
        elif "/" in word or word == "startpos":
            board = self.fen_argument(line)
            if board is not None:
                self.engine.searcher.clear()
                self.engine_move(Game.start(board))
        else:
            self.out.line(f"error: unknown command '{word}' (type 'help')")

    def fen_argument(self, text: str) -> chess.Board | None:
        """Parse a FEN argument, printing the error line when it is missing or invalid."""
        if not text:
            self.failures += 1
            self.out.line("error: missing FEN")
            return None
        try:
            return parse_fen(text)
        except FenError as exc:
            self.failures += 1
            self.out.line(f"error: invalid FEN: {exc}")
            return None

    def limits(self) -> Limits:
        """The REPL budget: `maxTime` from when the command was read
        (docs/reference/chespel.md#the-search)."""
        return Limits(budget=self.program.max_time)

    # ------------------------------------------------------------------ outputs

    def score_line(self, game: Game, color: bool, verbose: bool = False) -> None:
        """Print the score line for `color` (and justifications), or the run-time error."""
        program = self.program
        try:
            if verbose:
                score, lines = program.evaluate_verbose(game.board, color, game.flags)
            else:
                score, lines = program.evaluate(game.board, color, game.flags), []
        except ChespelRuntimeError as exc:
            self.failures += 1
            self.out.line(exc.render(program.source_path))
            return
        self.out.line(f"score for {str_color(color)}: {format_num(score)}")
        for text in lines:
            self.out.line(text)

    def show_position(self, game: Game, verbose: bool) -> None:
        """Board then score line for the side to move."""
        for text in render_board(game.board):
            self.out.line(text)
        self.score_line(game, game.board.turn, verbose)

    def fen_command(self, board: chess.Board) -> None:
        """`fen FEN`: one line, the FEN after the engine's move."""
        self.engine.searcher.clear()
        game = Game.start(board)
        choice = self.engine.choose(game, self.limits(), self.read_at)
        if choice.move is None:
            reason = "checkmate" if board.is_check() else "stalemate"
            self.out.line(f"error: no legal moves ({reason})")
            return
        game.push(choice.move)
        self.out.line(format_fen(game.board))

    def engine_move(self, game: Game) -> bool:
        """Items 1–6 of the `{FEN}` command; plays the move in `game`. False: no move."""
        # The move is chosen first, so that errors met by the search (reported once per
        # process) come before the command's output (docs/reference/chespel.md#repl-commands).
        choice = self.engine.choose(game, self.limits(), self.read_at)
        self.show_position(game, False)
        if choice.move is None:
            self.out.line(f"game over: {game_result(game, claim_draws=False)}")
            return False
        mover = game.board.turn
        san = game.board.san(choice.move)
        game.push(choice.move)
        self.out.line(f"move: {san}" + (" (opening)" if choice.book_line is not None else ""))
        self.out.line(format_fen(game.board))
        for text in render_board(game.board):
            self.out.line(text)
        self.score_line(game, mover)
        self.read_at = time.monotonic()
        return True

    # ------------------------------------------------------------------ play mode

    def ask_player(self, color: str) -> bool:
        """Ask whether a colour is played by the engine; True for `ai`."""
        while True:
            self.out.line(f"{color} player (ai/human)?")
            answer = self.read(prompt="").lower()
            if answer in ("ai", "a"):
                return True
            if answer in ("human", "h"):
                return False
            self.out.line("error: please answer 'ai' or 'human'")

    def play(self, board: chess.Board) -> None:
        """Play mode: one board per half-move (before the engine's move it comes with the
        score for the side to move), `help` and `l` at a human's turn."""
        ai = {chess.WHITE: self.ask_player("white"), chess.BLACK: self.ask_player("black")}
        self.engine.searcher.clear()
        game = Game.start(board)
        self.read_at = time.monotonic()
        shown = False
        while True:
            result = game_result(game, claim_draws=True)
            if result is not None:
                self.out.line(f"game over: {result}")
                return
            engine_turn = ai[game.board.turn]
            if not shown:
                for text in render_board(game.board):
                    self.out.line(text)
                if engine_turn:
                    self.score_line(game, game.board.turn)
                shown = True
            if engine_turn:
                choice = self.engine.choose(game, self.limits(), self.read_at)
                assert choice.move is not None  # the game is not over
                san = game.board.san(choice.move)
                game.push(choice.move)
                self.out.line(f"move: {san}" + (" (opening)" if choice.book_line is not None else ""))
                self.read_at = time.monotonic()
            elif not self.human_move(game):
                self.out.line("game abandoned")
                return
            shown = False

    def human_move(self, game: Game) -> bool:
        """Read moves until a legal one is played; False when the human quits."""
        colour = str_color(game.board.turn)
        while True:
            self.out.line(f"{colour} to move:")
            text = self.read(prompt="")
            if text == "quit":
                return False
            if text in ("exit",):
                raise EndOfInput
            if text == "l":
                self.out.line(" ".join(sorted(game.board.san(m) for m in game.board.legal_moves)))
                continue
            if text == "help":
                for line in PLAY_HELP.split("\n"):
                    self.out.line(line)
                continue
            move = parse_move(game.board, text)
            if move is None:
                what = "illegal move" if looks_like_a_move(text) else "not a move"
                self.out.line(f"error: {what}: {text}")
                continue
            game.push(move)
            self.read_at = time.monotonic()
            return True


_MOVE_SHAPE = re.compile(
    r"([a-h][1-8][a-h][1-8][qrbnQRBN]?"
    r"|[NBRQK]?[a-h]?[1-8]?x?[a-h][1-8](=?[QRBNqrbn])?"
    r"|[O0]-[O0](-[O0])?)[+#]?\Z")


def looks_like_a_move(text: str) -> bool:
    """Whether `text` is written like a move (SAN or coordinates), legal or not."""
    return bool(_MOVE_SHAPE.match(text))


def game_result(game: Game, claim_draws: bool) -> str | None:
    """`1-0 (checkmate)` … when the game is over (draw claims only in play mode)."""
    board = game.board
    if not any(board.generate_legal_moves()):
        if board.is_check():
            return "0-1 (checkmate)" if board.turn == chess.WHITE else "1-0 (checkmate)"
        return "1/2-1/2 (stalemate)"
    if board.is_insufficient_material():
        return "1/2-1/2 (insufficient material)"
    if claim_draws:
        if board.halfmove_clock >= 100:
            return "1/2-1/2 (fifty-move rule)"
        if game.repetitions() >= 3:
            return "1/2-1/2 (threefold repetition)"
    return None
