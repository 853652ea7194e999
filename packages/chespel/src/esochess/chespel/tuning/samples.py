"""Training positions for tuning: positions of finished games with the game's result, made
quiet by a capture search.

Every position of a game's main line from ply `FIRST_PLY` on, with the side to move not in
check, is a candidate labelled with the result from White's side (1, ½, 0). A candidate is
made quiet by following the principal variation of a captures-only search (stand pat,
captures by MVV-LVA, losing captures skipped) on material; the position where that line
ends is the training position. (Material, not the program's evaluation, decides which
exchange a position is in the middle of: the search then costs a few move generations,
not a few evaluations, which is what lets a million positions be prepared in minutes.) Positions whose line ends in
check, or in a position the rules do not decide (mate, stalemate, insufficient material),
are dropped.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TextIO

import chess
import chess.pgn

from esochess.chespel.runtime.evaluation import fixed_value
from esochess.chespel.runtime.ordering import SEE_VALUES, losing_capture, order_captures
from esochess.chespel.runtime.positions import castle_bit, placement_flags

FIRST_PLY = 8
"""Candidates start after the first four moves of each side (book moves, mostly)."""
QUIESCENCE_PLIES = 8
"""The capture search looks at most this many captures deep."""
RESULTS = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


@dataclass(frozen=True)
class Candidate:
    """A position of a game: its FEN, castling flags, the game's result for White, the
    game's number (counting from 0 over all the files read) and the move played there
    (UCI; empty for a position that is not a game's)."""

    fen: str
    flags: int
    result: float
    game: int
    move: str = ""


@dataclass
class GameCount:
    """What reading the games found: games used, games skipped with the reason, and the
    candidate positions."""

    used: int = 0
    unfinished: int = 0
    bad: int = 0
    bad_examples: list[str] | None = None
    candidates: int = 0

    def add(self, other: GameCount) -> None:
        """Add the counts of another part of the games."""
        self.used += other.used
        self.unfinished += other.unfinished
        self.candidates += other.candidates
        for text in other.bad_examples or []:
            _bad(self, text)
        self.bad += other.bad - len(other.bad_examples or [])


@dataclass(frozen=True)
class GameText:
    """A run of whole games of a PGN file: its text, the number (from 0, over all files) of
    its first game and how many games it holds."""

    path: str
    text: str
    first: int
    games: int


GAMES_PER_PART = 400


def split_games(path: str, text: str, first: int) -> Iterator[GameText]:
    """`text` cut into runs of `GAMES_PER_PART` games, at the tag line that starts a game
    (a `[` line after movetext), so that the parts can be read in parallel."""
    lines = text.splitlines(keepends=True)
    start = 0
    games = 0
    in_movetext = True
    for index, line in enumerate(lines):
        tag = line.startswith("[")
        if tag and in_movetext:
            if games == GAMES_PER_PART:
                yield GameText(path, "".join(lines[start:index]), first, games)
                first += games
                start, games = index, 0
            games += 1
        if line.strip():
            in_movetext = not tag
    if start < len(lines):
        yield GameText(path, "".join(lines[start:]), first, max(games, 1))


def read_candidates(handle: TextIO, name: str, count: GameCount,
                    first: int = 0) -> Iterator[Candidate]:
    """The candidates of every finished standard-chess game in a PGN stream whose first
    game has the number `first`."""
    number = 0
    while True:
        try:
            game = chess.pgn.read_game(handle)
        except (ValueError, UnicodeDecodeError) as exc:
            _bad(count, f"{name}: game {first + number + 1}: {exc}")
            number += 1
            continue
        if game is None:
            return
        number += 1
        result = RESULTS.get(game.headers.get("Result", "*"))
        if game.errors or "Variant" in game.headers and game.headers["Variant"].lower() not in (
                "standard", "chess", "from position"):
            _bad(count, f"{name}: game {first + number}: "
                        + (str(game.errors[0]) if game.errors else "not standard chess"))
            continue
        if result is None:
            count.unfinished += 1
            continue
        count.used += 1
        board = game.board()
        flags = placement_flags(board)
        for ply, move in enumerate(game.mainline_moves()):
            if ply >= FIRST_PLY and not board.is_check():
                count.candidates += 1
                yield Candidate(board.fen(), flags, result, first + number - 1, move.uci())
            flags |= castle_bit(board, move)
            board.push(move)


def _bad(count: GameCount, text: str) -> None:
    count.bad += 1
    if count.bad_examples is None:
        count.bad_examples = []
    if len(count.bad_examples) < 5:
        count.bad_examples.append(text)


def choose(candidates: Sequence[Candidate], limit: int | None, seed: int) -> list[Candidate]:
    """At most `limit` candidates, drawn at random (reproducibly) and kept in game order."""
    if limit is None or len(candidates) <= limit:
        return list(candidates)
    picked = sorted(random.Random(seed).sample(range(len(candidates)), limit))
    return [candidates[i] for i in picked]


def quiet(candidate: Candidate) -> tuple[chess.Board, int] | None:
    """The end of the capture line from the candidate's position (with its flags), or None
    when that position is in check or has a fixed value."""
    board = chess.Board(candidate.fen)
    # Most positions of a game offer no capture worth a look: they are quiet as they are.
    if any(not losing_capture(board, move) for move in board.generate_legal_captures()):
        for move in _capture_line(board, -10**9, 10**9, QUIESCENCE_PLIES)[1]:
            board.push(move)
    if board.is_check() or fixed_value(board, chess.WHITE) is not None:
        return None
    return board, candidate.flags


def material(board: chess.Board) -> int:
    """The material balance for the side to move, in milli-units (exchange values)."""
    total = 0
    mine, theirs = board.occupied_co[board.turn], board.occupied_co[not board.turn]
    for piece_type, mask in ((chess.PAWN, board.pawns), (chess.KNIGHT, board.knights),
                             (chess.BISHOP, board.bishops), (chess.ROOK, board.rooks),
                             (chess.QUEEN, board.queens)):
        total += SEE_VALUES[piece_type] * (chess.popcount(mask & mine)
                                           - chess.popcount(mask & theirs))
    return total


def _capture_line(board: chess.Board, alpha: int, beta: int,
                  plies: int) -> tuple[int, list[chess.Move]]:
    """The principal variation of a captures-only search on material: which exchanges
    the position is in the middle of."""
    stand = material(board)
    if stand >= beta or plies == 0:
        return stand, []
    best: tuple[int, list[chess.Move]] = (stand, [])
    alpha = max(alpha, stand)
    for move in order_captures(board, list(board.generate_legal_captures())):
        if losing_capture(board, move):
            continue
        board.push(move)
        score, line = _capture_line(board, -beta, -alpha, plies - 1)
        board.pop()
        if -score > best[0]:
            best = (-score, [move, *line])
            alpha = max(alpha, -score)
            if alpha >= beta:
                break
    return best
