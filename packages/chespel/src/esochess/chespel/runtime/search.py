"""The search of §11: iterative-deepening negamax alpha-beta with quiescence.

Scores are integers in milli-units from the side to move's point of view. The search
works on a private copy of the board, so that a time-out can unwind by an exception
without restoring anything.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field

import chess
from chess import BB_SQUARES

from esochess.chespel.runtime.evaluation import Program
from esochess.chespel.runtime.positions import castle_bit
from esochess.chespel.runtime.values import ChespelRuntimeError

MATE = 100_000_000
INFINITY = MATE + 1
MATE_BOUND = MATE - 1000
"""Scores beyond this are mates (a path is never 1000 plies long)."""
MAX_DEPTH = 64
EXACT, LOWER, UPPER = 0, 1, 2
EVAL_CACHE_LIMIT = 200_000
# MVV-LVA weights: victim value dominates, attacker value breaks ties (king last).
_VICTIM = (0, 1, 3, 3, 5, 9, 0)
_ATTACKER = (0, 1, 3, 3, 5, 9, 10)
_TT_MOVE_BONUS = 1 << 20
_CAPTURE_BONUS = 1 << 16
_KILLER_BONUS = 1 << 12


class SearchStopped(Exception):
    """Raised inside the search when the deadline, node limit or a stop request is reached."""


@dataclass(frozen=True)
class Limits:
    """What ends a search: a wall-clock budget, a depth, a node count, or only `stop`."""

    budget: float | None = None
    depth: int | None = None
    nodes: int | None = None
    infinite: bool = False

    @property
    def stops_at_mate(self) -> bool:
        """Whether a proven mate ends the search early (§11.5)."""
        return not (self.infinite or self.depth is not None or self.nodes is not None)


@dataclass(frozen=True)
class Iteration:
    """The result of one completed iteration, as reported in UCI `info` lines."""

    depth: int
    score: int
    nodes: int
    elapsed: float
    pv: tuple[chess.Move, ...]


@dataclass
class SearchResult:
    """The move chosen by a search and the last completed iteration."""

    move: chess.Move
    score: int
    depth: int
    nodes: int
    iterations: list[Iteration] = field(default_factory=list)


def mate_in(score: int) -> int | None:
    """Moves to mate (negative: being mated) for a mate score, else None."""
    if score >= MATE_BOUND:
        return (MATE - score + 1) // 2
    if score <= -MATE_BOUND:
        return -((MATE + score) // 2)
    return None


class Searcher:
    """Search state that persists between searches: transposition table and killers."""

    def __init__(self, program: Program, hash_size: int | None = None,
                 on_error: Callable[[ChespelRuntimeError], None] | None = None) -> None:
        self.program = program
        self.on_error = on_error
        self.resize(program.hash_size if hash_size is None else hash_size)

    def resize(self, hash_size: int) -> None:
        """Set the table size in MiB (§2.2: hashSize × 4096 entries) and clear everything."""
        self.capacity = hash_size * 4096
        self.clear()

    def clear(self) -> None:
        """Forget the transposition table, killers and cached evaluations."""
        self.tt: dict[Hashable, tuple[int, int, int, chess.Move | None]] = {}
        self.killers: list[list[chess.Move | None]] = [[None, None] for _ in range(MAX_DEPTH + 2)]
        self.eval_cache: dict[tuple[Hashable, int], int] = {}

    # ------------------------------------------------------------------ driver

    def search(self, board: chess.Board, flags: int, history: list[Hashable], limits: Limits,
               start: float | None = None, stop: threading.Event | None = None,
               on_iteration: Callable[[Iteration], None] | None = None) -> SearchResult:
        """Search `board` (which must have a legal move) and return the chosen move.

        `history` holds the keys of the game's earlier positions (repetitions, §11.4);
        `start` is when the command was read (time.monotonic), for the budget of §11.8.
        """
        self.board = board.copy(stack=False)
        self.start = time.monotonic() if start is None else start
        self.deadline = (self.start + limits.budget - 0.020) if limits.budget is not None else None
        self.stop_event = stop
        self.node_limit = limits.nodes
        self.nodes = 0
        self.repetitions: dict[Hashable, int] = {}
        for key in history:
            self.repetitions[key] = self.repetitions.get(key, 0) + 1
        root_moves = self._order(self.board, list(self.board.generate_legal_moves()), None, 0)
        max_depth = min(limits.depth, MAX_DEPTH) if limits.depth is not None else self.program.max_depth
        if limits.infinite or limits.nodes is not None:
            max_depth = MAX_DEPTH if limits.depth is None else max_depth
        result = SearchResult(root_moves[0], 0, 0, 0)
        completed = False
        try:
            for depth in range(1, max_depth + 1):
                if (completed and limits.budget is not None
                        and time.monotonic() - self.start >= limits.budget / 2):
                    break
                root_moves, score = self._root(root_moves, depth, flags, result)
                completed = True
                iteration = Iteration(depth, score, self.nodes, time.monotonic() - self.start,
                                      self._pv(root_moves[0], depth))
                result.move, result.score, result.depth = root_moves[0], score, depth
                result.iterations.append(iteration)
                if on_iteration is not None:
                    on_iteration(iteration)
                if limits.stops_at_mate and abs(score) >= MATE - depth:
                    break
        except SearchStopped:
            pass
        result.nodes = self.nodes
        return result

    def _root(self, moves: list[chess.Move], depth: int, flags: int,
              result: SearchResult) -> tuple[list[chess.Move], int]:
        board = self.board
        key = board._transposition_key()
        self.repetitions[key] = self.repetitions.get(key, 0) + 1
        alpha = -INFINITY
        best_index = 0
        for index, move in enumerate(moves):
            bit = castle_bit(board, move)
            board.push(move)
            try:
                score = -self._negamax(depth - 1, -INFINITY, -alpha, 1, flags | bit)
            except SearchStopped:
                # §11.8: once the first root move (the previous best) is fully searched, a
                # later move that scored strictly better replaces it; in the first iteration
                # the best fully searched move is played.
                if index > 0:
                    result.move, result.score = moves[best_index], alpha
                raise
            finally:
                board.pop()
            if score > alpha:
                alpha = score
                best_index = index
        self.repetitions[key] -= 1
        ordered = [moves[best_index]] + moves[:best_index] + moves[best_index + 1:]
        self._store(key, depth, EXACT, alpha, moves[best_index], 0)
        return ordered, alpha

    # ------------------------------------------------------------------ nodes

    def _poll(self) -> None:
        if self.deadline is not None and time.monotonic() >= self.deadline:
            raise SearchStopped
        if self.stop_event is not None and self.stop_event.is_set():
            raise SearchStopped
        if self.node_limit is not None and self.nodes >= self.node_limit:
            raise SearchStopped

    def _negamax(self, depth: int, alpha: int, beta: int, ply: int, flags: int) -> int:
        self.nodes += 1
        if not self.nodes & 15:
            self._poll()
        board = self.board
        key = board._transposition_key()
        if key in self.repetitions and self.repetitions[key]:
            return 0
        if board.halfmove_clock >= 100:
            if board.is_check() and not any(board.generate_legal_moves()):
                return -(MATE - ply)
            return 0
        if board.is_insufficient_material():
            return 0
        if depth <= 0:
            return self._quiesce(alpha, beta, ply, flags, key)
        entry = self.tt.get(key)
        tt_move = None
        if entry is not None:
            e_depth, e_bound, e_score, tt_move = entry
            if e_depth >= depth:
                e_score = _from_tt(e_score, ply)
                if (e_bound == EXACT or (e_bound == LOWER and e_score >= beta)
                        or (e_bound == UPPER and e_score <= alpha)):
                    return e_score
        moves = list(board.generate_legal_moves())
        if not moves:
            return -(MATE - ply) if board.is_check() else 0
        original_alpha = alpha
        best = -INFINITY
        best_move = None
        self.repetitions[key] = self.repetitions.get(key, 0) + 1
        first = True
        for move in self._order(board, moves, tt_move, ply):
            bit = castle_bit(board, move)
            board.push(move)
            if first:
                score = -self._negamax(depth - 1, -beta, -alpha, ply + 1, flags | bit)
                first = False
            else:
                # Principal-variation search: prove later moves worse with a null window,
                # and search again with the full window only when one is not.
                score = -self._negamax(depth - 1, -alpha - 1, -alpha, ply + 1, flags | bit)
                if alpha < score < beta:
                    score = -self._negamax(depth - 1, -beta, -alpha, ply + 1, flags | bit)
            board.pop()
            if score > best:
                best = score
                best_move = move
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        if not board.is_capture(move) and move.promotion is None:
                            killers = self.killers[min(ply, MAX_DEPTH + 1)]
                            if killers[0] != move:
                                killers[1] = killers[0]
                                killers[0] = move
                        break
        self.repetitions[key] -= 1
        bound = LOWER if best >= beta else (EXACT if best > original_alpha else UPPER)
        self._store(key, depth, bound, best, best_move, ply)
        return best

    def _quiesce(self, alpha: int, beta: int, ply: int, flags: int, key: Hashable) -> int:
        board = self.board
        if board.is_check():
            moves = list(board.generate_legal_moves())
            if not moves:
                return -(MATE - ply)
            best = -INFINITY
            if not self.program.quiescence:
                return self._static(key, flags)
        else:
            stand = self._static(key, flags)
            if not self.program.quiescence:
                return stand
            if stand >= beta:
                return stand
            best = stand
            if stand > alpha:
                alpha = stand
            moves = [m for m in board.generate_legal_moves(
                chess.BB_ALL, board.occupied_co[not board.turn] | _ep_mask(board))]
            moves += [m for m in board.generate_legal_moves(
                board.pawns & board.occupied_co[board.turn], ~board.occupied)
                if m.promotion == chess.QUEEN]
        self.repetitions[key] = self.repetitions.get(key, 0) + 1
        for move in self._order(board, moves, None, ply):
            self.nodes += 1
            if not self.nodes & 15:
                self._poll()
            board.push(move)
            child = board._transposition_key()
            if self.repetitions.get(child):
                score = 0
            elif board.is_insufficient_material():
                score = 0
            else:
                # Castling is never legal in check, so quiescence moves keep the flags.
                score = -self._quiesce(-beta, -alpha, ply + 1, flags, child)
            board.pop()
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break
        self.repetitions[key] -= 1
        return best

    def _static(self, key: Hashable, flags: int) -> int:
        cache_key = (key, flags)
        score = self.eval_cache.get(cache_key)
        if score is not None:
            return score
        board = self.board
        if not any(board.generate_legal_moves()):
            score = 0  # stalemate: checkmate never reaches here (in check is handled before)
        else:
            try:
                score = self.program.rule_score(board, board.turn, flags)
            except ChespelRuntimeError as exc:
                score = 0
                if self.on_error is not None:
                    self.on_error(exc)
        if len(self.eval_cache) >= EVAL_CACHE_LIMIT:
            self.eval_cache.clear()
        self.eval_cache[cache_key] = score
        # An evaluation may take milliseconds: check the clock after each one too, so the
        # move is out within 50 ms of the budget (§11.8) even with a slow program.
        self._poll()
        return score

    # ------------------------------------------------------------------ helpers

    def _order(self, board: chess.Board, moves: list[chess.Move], tt_move: chess.Move | None,
               ply: int) -> list[chess.Move]:
        killers = self.killers[min(ply, MAX_DEPTH + 1)]
        them = board.occupied_co[not board.turn]
        scored = []
        for index, move in enumerate(moves):
            if move == tt_move:
                weight = _TT_MOVE_BONUS
            elif them & BB_SQUARES[move.to_square] or move.promotion:
                victim = board.piece_type_at(move.to_square) or 0
                attacker = board.piece_type_at(move.from_square) or 0
                weight = (_CAPTURE_BONUS + _VICTIM[victim] * 16 - _ATTACKER[attacker]
                          + (_VICTIM[move.promotion] * 16 if move.promotion else 0))
            elif board.ep_square == move.to_square and board.pawns & BB_SQUARES[move.from_square]:
                weight = _CAPTURE_BONUS + 16 - 1
            elif move == killers[0]:
                weight = _KILLER_BONUS + 1
            elif move == killers[1]:
                weight = _KILLER_BONUS
            else:
                weight = 0
            scored.append((-weight, index, move))
        scored.sort(key=lambda entry: (entry[0], entry[1]))
        return [entry[2] for entry in scored]

    def _store(self, key: Hashable, depth: int, bound: int, score: int,
               move: chess.Move | None, ply: int) -> None:
        if len(self.tt) >= self.capacity and key not in self.tt:
            self.tt.clear()
        self.tt[key] = (depth, bound, _to_tt(score, ply), move)

    def _pv(self, first: chess.Move, depth: int) -> tuple[chess.Move, ...]:
        board = self.board.copy(stack=False)
        pv = [first]
        board.push(first)
        seen = {board._transposition_key()}
        while len(pv) < depth:
            entry = self.tt.get(board._transposition_key())
            if entry is None or entry[3] is None or not board.is_legal(entry[3]):
                break
            board.push(entry[3])
            key = board._transposition_key()
            if key in seen:
                break
            seen.add(key)
            pv.append(entry[3])
        return tuple(pv)


def _ep_mask(board: chess.Board) -> int:
    return BB_SQUARES[board.ep_square] if board.ep_square is not None else 0


def _to_tt(score: int, ply: int) -> int:
    if score >= MATE_BOUND:
        return score + ply
    if score <= -MATE_BOUND:
        return score - ply
    return score


def _from_tt(score: int, ply: int) -> int:
    if score >= MATE_BOUND:
        return score - ply
    if score <= -MATE_BOUND:
        return score + ply
    return score
