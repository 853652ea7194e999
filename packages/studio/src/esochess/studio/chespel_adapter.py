"""The studio's one door into Chespel: check a program, evaluate a position, play the engine.

Calls only what `chespel`'s command line calls: `frontend.compile_source` and
`frontend.format_report` (check, with the CLI's diagnostic text), `codegen.generate_checked`
and `codegen.load` with `runtime.evaluation.Program.from_module` (the in-memory engine of
`chespel eval/run/uci`), `runtime.repl.Repl` (`eval v FEN`, word for word what `chespel
eval -v` prints) and `runtime.main.run_uci` (a move: the UCI conversation a chess GUI has
with the engine, so its `info depth … score …` lines give the evaluation and depth).
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import chess

from esochess.chespel.codegen import CodegenError, generate_checked, load
from esochess.chespel.frontend import compile_source, format_report
from esochess.chespel.runtime.evaluation import Program
from esochess.chespel.runtime.main import run_uci
from esochess.chespel.runtime.repl import Repl
from esochess.fen import SourceError, format_diagnostic, parse_fen
from esochess.fen.render import render_svg
from esochess.studio.jobs import Report, UserError

MAX_MOVES = 600
SELECTED = "#f4d03f99"
TARGET = "#58d68d88"


@dataclass(frozen=True)
class Diagnostic:
    """One diagnostic of `chespel check`, with where to show it."""

    line: int
    column: int
    severity: str
    message: str


@dataclass(frozen=True)
class Checked:
    """What `chespel check` reports: the diagnostics and their printed text."""

    ok: bool
    diagnostics: tuple[Diagnostic, ...]
    report: str


@dataclass(frozen=True)
class Position:
    """A game position as the page draws it."""

    fen: str
    svg: str
    moves: tuple[str, ...]
    san: tuple[str, ...]
    turn: str
    result: str | None


@dataclass(frozen=True)
class EngineMove:
    """The engine's answer: its move, the last search depth and score, its info lines."""

    move: str | None
    depth: int | None
    score: str | None
    lines: tuple[str, ...]


def check(_report: Report, name: str, text: str) -> Checked:
    """Check a program like `chespel check NAME`."""
    result = compile_source(name, text)
    diagnostics = tuple(
        Diagnostic(d.line, d.column, d.severity, d.message) for d in result.diagnostics
    )
    return Checked(result.ok, diagnostics, format_report(result))


def _program(name: str, text: str) -> Program:
    result = compile_source(name, text)
    if not result.ok:
        raise UserError(format_report(result))
    try:
        return Program.from_module(load(generate_checked(result), name))
    except CodegenError as exc:
        raise UserError(f"chespel: error: {name}: program too complex to compile ({exc})") from None


def evaluate(_report: Report, name: str, text: str, fen: str) -> str:
    """What `chespel eval -v NAME FEN` prints: board, score and one line per rule."""
    repl_out = io.StringIO()
    Repl(_program(name, text), io.StringIO(), repl_out).command("eval", f"v {fen}", "")
    return repl_out.getvalue()


def start_board(fen: str) -> chess.Board:
    """The strict FEN (or `startpos`) a game starts from; UserError with the diagnostic."""
    try:
        return parse_fen(fen or "startpos", path="<fen>")
    except SourceError as exc:
        raise UserError(format_diagnostic(exc)) from None


def replay(fen: str, moves: list[str]) -> chess.Board:
    """The board after the UCI `moves` from `fen`; UserError for an illegal move."""
    if len(moves) > MAX_MOVES:
        raise UserError(f"error: a game here has at most {MAX_MOVES} moves")
    board = start_board(fen)
    for text in moves:
        try:
            move = chess.Move.from_uci(text)
        except ValueError:
            raise UserError(f"error: illegal move: {text}") from None
        if move not in board.legal_moves:
            raise UserError(f"error: illegal move: {text}")
        board.push(move)
    return board


def human_move(board: chess.Board, origin: str, target: str) -> str:
    """The UCI move from `origin` to `target` (a pawn reaching the last rank becomes a queen)."""
    try:
        move = chess.Move(chess.parse_square(origin), chess.parse_square(target))
    except ValueError:
        raise UserError(f"error: illegal move: {origin}{target}") from None
    piece = board.piece_at(move.from_square)
    if (
        piece is not None
        and piece.piece_type == chess.PAWN
        and chess.square_rank(move.to_square) in (0, 7)
    ):
        move.promotion = chess.QUEEN
    if move not in board.legal_moves:
        raise UserError(f"error: illegal move: {move.uci()}")
    return move.uci()


def position(fen: str, moves: list[str], selected: str | None = None) -> Position:
    """The board after `moves`, with `selected` and its legal targets highlighted."""
    board = replay(fen, moves)
    fill: dict[chess.Square, str] = {}
    if selected:
        try:
            square = chess.parse_square(selected)
        except ValueError:
            raise UserError(f"error: '{selected}' is not a square") from None
        fill[square] = SELECTED
        for move in board.legal_moves:
            if move.from_square == square:
                fill[move.to_square] = TARGET
    last = board.peek() if board.move_stack else None
    san: list[str] = []
    walk = start_board(fen)
    for move in board.move_stack:
        san.append(walk.san(move))
        walk.push(move)
    result = board.result(claim_draw=True) if board.is_game_over(claim_draw=True) else None
    return Position(
        board.fen(),
        render_svg(board, lastmove=last, fill=fill),
        tuple(moves),
        tuple(san),
        "white" if board.turn == chess.WHITE else "black",
        result,
    )


def place(fen: str, square: str, piece: str, turn: str) -> Position:
    """A position being set up: `piece` (or nothing, for "") put on `square`, `turn` to move.

    The position need not be legal yet (a king may be missing while pieces are placed);
    evaluating or playing it checks it strictly.
    """
    try:
        board = chess.Board(start_board("startpos").fen() if fen == "startpos" else fen)
    except ValueError as exc:
        raise UserError(f"error: invalid FEN: {exc}") from None
    try:
        target = chess.parse_square(square)
    except ValueError:
        raise UserError(f"error: '{square}' is not a square") from None
    if piece:
        if piece not in "PNBRQKpnbrqk" or len(piece) != 1:
            raise UserError(f"error: '{piece}' is not a piece letter (PNBRQK, pnbrqk)")
        board.set_piece_at(target, chess.Piece.from_symbol(piece))
    else:
        board.remove_piece_at(target)
    board.turn = turn == "white"
    board.castling_rights = board.clean_castling_rights()
    board.ep_square = None
    return Position(board.fen(), render_svg(board), (), (), turn, None)


def engine_move(
    _report: Report, name: str, text: str, fen: str, moves: list[str], movetime_ms: int
) -> EngineMove:
    """Ask the engine for a move in the UCI conversation `chespel uci` answers."""
    board = replay(fen, moves)
    program = _program(name, text)
    command = f"position fen {board.root().fen()}"
    if moves:
        command += " moves " + " ".join(moves)
    out = io.StringIO()
    run_uci(program, io.StringIO(f"{command}\ngo movetime {movetime_ms}\n"), out)
    lines = tuple(out.getvalue().splitlines())
    move: str | None = None
    depth: int | None = None
    score: str | None = None
    for line in lines:
        words = line.split()
        if words[:1] == ["bestmove"] and len(words) > 1 and words[1] != "0000":
            move = words[1]
        elif words[:2] == ["info", "depth"] and "score" in words:
            depth = int(words[2])
            at = words.index("score")
            score = " ".join(words[at + 1 : at + 3])
    return EngineMove(move, depth, score, lines)
