"""The search of docs/reference/chespel.md#the-search with the selectivity of issue 17: iterative
deepening, aspiration windows, principal-variation search, null-move pruning, late-move reductions,
check extension, killers and history, mate-distance pruning, and a quiescence search over
pseudo-legal captures (legality checked when a move is played) with static-exchange and
delta pruning and transposition-table probes.

Scores are integers in milli-units from the side to move's point of view. The search
works on a private copy of the board, so that a time-out can unwind by an exception
without restoring anything. Everything is deterministic: a fixed-depth search from a
cleared state visits the same nodes every run.
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass, field

import chess
from chess import BB_SQUARES, Move

from esochess.chespel.runtime.evaluation import Program
from esochess.chespel.runtime.ordering import (
    SEE_VALUES,
    History,
    is_quiet,
    king_attacked,
    loses_exchange,
    move_index,
    quiet_gives_check,
    quiet_moves,
    quiet_promotions,
    sorted_captures,
)
from esochess.chespel.runtime.positions import castle_bit, position_key
from esochess.chespel.runtime.search_board import SearchBoard
from esochess.chespel.runtime.table import EXACT, LOWER, UPPER, Table
from esochess.chespel.runtime.timing import Limits, another_iteration
from esochess.chespel.runtime.values import ChespelRuntimeError

__all__ = ["INFINITY", "MATE", "Iteration", "Limits", "SearchResult", "SearchStopped",
           "Searcher", "mate_in"]

MATE = 100_000_000
INFINITY = MATE + 1
MATE_BOUND = MATE - 1000
"""Scores beyond this are mates (a path is never 1000 plies long)."""
MAX_DEPTH = 64
MAX_PLY = 128
EVAL_CACHE_LIMIT = 200_000
NULL_REDUCTION = 2
DELTA_MARGIN = 2000
"""Quiescence skips a capture that cannot lift the score within 2 pawns of alpha."""
FUTILITY_MARGIN = 1500
"""Milli-units per remaining ply by which a static score may miss alpha or beta before the
frontier nodes are pruned (1.5 pawns)."""
LATE_MOVES = 8
"""At depth 1 and 2, quiet moves after 8 × depth are not searched in non-PV nodes."""
ASPIRATION = 300
"""Half-width of the first aspiration window (0.3 pawn)."""
_NULL = chess.Move.null()


class SearchStopped(Exception):
    """Raised inside the search when the deadline, node limit or a stop request is reached."""


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
    """Search state that persists between searches: transposition table and history."""

    def __init__(self, program: Program, hash_size: int | None = None,
                 on_error: Callable[[ChespelRuntimeError], None] | None = None) -> None:
        self.program = program
        self.on_error = on_error
        self.history = History(MAX_PLY + 2)
        self.resize(program.hash_size if hash_size is None else hash_size)

    def resize(self, hash_size: int) -> None:
        """Set the table size in MiB (docs/reference/chespel.md#search: hashSize × 4096 entries) and
        clear everything."""
        self.capacity = hash_size * 4096
        self.clear()

    def clear(self) -> None:
        """Forget the transposition table, history and cached evaluations."""
        self.tt = Table(self.capacity)
        self.history.clear()
        self.eval_cache: dict[tuple[Hashable, int], int] = {}

    # ------------------------------------------------------------------ driver

    def search(self, board: chess.Board, flags: int, history: list[Hashable], limits: Limits,
               start: float | None = None, stop: threading.Event | None = None,
               on_iteration: Callable[[Iteration], None] | None = None) -> SearchResult:
        """Search `board` (which must have a legal move) and return the chosen move.

        `history` holds the keys of the game's earlier positions (repetitions,
        docs/reference/chespel.md#the-search); `start` is when the command was read
        (time.monotonic), for the budget.

        Python's cyclic garbage collector is paused while searching: a full collection
        walks every table entry (measured: 0.1 s of wall time with 44,000 entries on a
        loaded machine, enough to overrun a move's time), and the search makes no
        reference cycles worth collecting; it runs again between searches.
        """
        collecting = gc.isenabled()
        gc.disable()
        try:
            return self._search(board, flags, history, limits, start, stop, on_iteration)
        finally:
            if collecting:
                gc.enable()

    def _search(self, board: chess.Board, flags: int, history: list[Hashable], limits: Limits,
                start: float | None, stop: threading.Event | None,
                on_iteration: Callable[[Iteration], None] | None) -> SearchResult:
        program = self.program
        self.board = SearchBoard.of(board, program.psq_main, program.psq_endgame)
        self.root_flags = flags
        self.start = time.monotonic() if start is None else start
        hard, first = limits.hard, limits.first
        self.deadline = self.start + first if first is not None else None
        self.stop_event = stop
        self.node_limit = limits.nodes
        self.nodes = 0
        self.tt.new_search()
        self.history.age()
        self.repetitions: dict[Hashable, int] = {}
        for key in history:
            self.repetitions[key] = self.repetitions.get(key, 0) + 1
        root_moves = self.history.order(self.board, list(self.board.generate_legal_moves()),
                                        None, 0)
        max_depth = min(limits.depth, MAX_DEPTH) if limits.depth is not None else self.program.max_depth
        if limits.infinite or limits.nodes is not None:
            max_depth = MAX_DEPTH if limits.depth is None else max_depth
        result = SearchResult(root_moves[0], 0, 0, 0)
        durations: list[float] = []
        score = 0
        try:
            for depth in range(1, max_depth + 1):
                began = time.monotonic()
                if durations and hard is not None:
                    self.deadline = self.start + hard
                    before = durations[-2] if len(durations) > 1 else None
                    if not another_iteration(began - self.start, durations[-1], before, hard):
                        break
                root_moves, score = self._aspiration(root_moves, depth, score, result)
                durations.append(time.monotonic() - began)
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

    def _aspiration(self, moves: list[chess.Move], depth: int, guess: int,
                    result: SearchResult) -> tuple[list[chess.Move], int]:
        """The root search in a window around the last score, widened when it fails."""
        if depth < 4 or abs(guess) >= MATE_BOUND:
            return self._root(moves, depth, -INFINITY, INFINITY, result)
        delta = ASPIRATION
        alpha, beta = guess - delta, guess + delta
        while True:
            ordered, score = self._root(moves, depth, alpha, beta, result)
            if alpha < score < beta:
                return ordered, score
            moves = ordered
            delta *= 4
            if score <= alpha:
                alpha = -INFINITY if delta > 5000 else score - delta
            else:
                beta = INFINITY if delta > 5000 else score + delta

    def _root(self, moves: list[chess.Move], depth: int, alpha: int, beta: int,
              result: SearchResult) -> tuple[list[chess.Move], int]:
        board = self.board
        key = position_key(board)
        self.repetitions[key] = self.repetitions.get(key, 0) + 1
        original_alpha = alpha
        best = -INFINITY
        best_index = 0
        flags = self.root_flags
        for index, move in enumerate(moves):
            self.history.forget()  # no node below the root is open
            bit = castle_bit(board, move)
            board.push(move)
            try:
                if index == 0:
                    score = -self._negamax(depth - 1, -beta, -alpha, 1, flags | bit, True)
                else:
                    score = -self._negamax(depth - 1, -alpha - 1, -alpha, 1, flags | bit, True)
                    if alpha < score < beta:
                        score = -self._negamax(depth - 1, -beta, -alpha, 1, flags | bit, True)
            except SearchStopped:
                # Once the first root move (the previous best) is fully searched, a later
                # move that scored strictly better replaces it
                # (docs/reference/chespel.md#the-search); in the first iteration the best fully
                # searched move is played.
                if index > 0 and best > original_alpha:
                    result.move, result.score = moves[best_index], best
                raise
            finally:
                board.pop()
            if score > best:
                best = score
                best_index = index
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break
        self.repetitions[key] -= 1
        ordered = [moves[best_index]] + moves[:best_index] + moves[best_index + 1:]
        if original_alpha < best < beta:
            self.tt.store(key, depth, EXACT, best, moves[best_index])
        return ordered, best

    # ------------------------------------------------------------------ nodes

    def _poll(self) -> None:
        if self.deadline is not None and time.monotonic() >= self.deadline:
            raise SearchStopped
        if self.stop_event is not None and self.stop_event.is_set():
            raise SearchStopped
        if self.node_limit is not None and self.nodes >= self.node_limit:
            raise SearchStopped

    def _negamax(self, depth: int, alpha: int, beta: int, ply: int, flags: int,
                 null_ok: bool) -> int:
        self.nodes += 1
        if not self.nodes & 15:
            self._poll()
        board = self.board
        key = position_key(board)
        if self.repetitions.get(key):
            return 0
        if board.halfmove_clock >= 100:
            if board.is_check() and not any(board.generate_legal_moves()):
                return -(MATE - ply)
            return 0
        if _insufficient(board):
            return 0
        # Mate-distance pruning: no line from here beats a mate already found nearer the root.
        alpha = max(alpha, -(MATE - ply))
        beta = min(beta, MATE - ply - 1)
        if alpha >= beta:
            return alpha
        in_check = king_attacked(board, board.turn)
        if in_check and ply < MAX_PLY // 2:
            depth += 1  # check extension
        if depth <= 0 or ply >= MAX_PLY:
            return self._quiesce(alpha, beta, ply, flags, key, in_check)
        pv_node = beta - alpha > 1
        entry = self.tt.probe(key)
        tt_move = None
        if entry is not None:
            _, e_depth, e_bound, e_score, tt_move, _ = entry
            if e_depth >= depth and not pv_node:
                e_score = _from_tt(e_score, ply)
                if (e_bound == EXACT or (e_bound == LOWER and e_score >= beta)
                        or (e_bound == UPPER and e_score <= alpha)):
                    return e_score
        static = None
        if not pv_node and not in_check and abs(beta) < MATE_BOUND:
            static = self._static(key, flags)
            # Reverse futility: far enough above beta near the leaves, no move will drop it.
            if depth <= 3 and static - FUTILITY_MARGIN * depth >= beta:
                return static
        # Null move: if passing still holds beta, the position is good enough to cut.
        if (null_ok and static is not None and depth >= 3 and _has_pieces(board)
                and static >= beta):
            board.push(_NULL)
            try:
                score = -self._negamax(depth - 1 - NULL_REDUCTION, -beta, -beta + 1, ply + 1,
                                       flags, False)
            finally:
                board.pop()
            if score >= beta:
                return beta if score >= MATE_BOUND else score
        # In check the evasions are generated legal; otherwise pseudo-legal, and a move that
        # leaves the king attacked is taken back on use (most nodes cut off long before
        # their last move, whose legality is then never tested).
        if in_check:
            evasions = list(board.generate_legal_moves())
            if not evasions:
                return -(MATE - ply)
            moves: Iterator[chess.Move] = iter(self.history.order(board, evasions, tt_move, ply))
        else:
            moves = self._staged(tt_move, ply)
        original_alpha = alpha
        best = -INFINITY
        best_move = None
        self.repetitions[key] = self.repetitions.get(key, 0) + 1
        them = board.occupied_co[not board.turn]
        kings = board.kings
        ep = board.ep_square
        pawns = board.pawns
        exposed = _exposure(board)
        tried: list[chess.Move] = []
        # Futility: at the frontier, a quiet move cannot lift a hopeless static score.
        futile = static is not None and depth <= 2 and static + FUTILITY_MARGIN * depth <= alpha
        searched = 0  # legal moves searched
        index = 0  # moves searched or pruned: the late-move count
        try:
            for move in moves:
                # (a pawn reaches the en passant cell only by capturing en passant)
                quiet = not (them & BB_SQUARES[move.to_square]) and move.promotion is None \
                    and not (move.to_square == ep and pawns & BB_SQUARES[move.from_square])
                # Pruning waits for one legal move searched, so that "no move was searched"
                # below means mate or stalemate.
                if quiet and searched and (futile or (
                        static is not None and depth <= 2 and index >= LATE_MOVES * depth)):
                    if not quiet_gives_check(board, move):
                        index += 1
                        continue  # futility and late-move pruning
                bit = castle_bit(board, move) if kings & BB_SQUARES[move.from_square] else 0
                board.push(move)
                try:
                    if (not in_check and exposed(move.from_square, move.to_square)
                            and king_attacked(board, not board.turn)):
                        continue  # pseudo-legal only: it leaves the king attacked
                    if not searched:
                        score = -self._negamax(depth - 1, -beta, -alpha, ply + 1, flags | bit, True)
                    else:
                        reduction = 0
                        if (depth >= 3 and index >= 3 and quiet and not in_check
                                and not king_attacked(board, board.turn)):
                            reduction = 1 if index < 6 or depth < 4 else 2
                        score = -self._negamax(depth - 1 - reduction, -alpha - 1, -alpha,
                                               ply + 1, flags | bit, True)
                        if reduction and score > alpha:
                            score = -self._negamax(depth - 1, -alpha - 1, -alpha, ply + 1,
                                                   flags | bit, True)
                        if alpha < score < beta:
                            score = -self._negamax(depth - 1, -beta, -alpha, ply + 1,
                                                   flags | bit, True)
                finally:
                    board.pop()
                searched += 1
                index += 1
                if score > best:
                    best = score
                    best_move = move
                    if score > alpha:
                        alpha = score
                        if alpha >= beta:
                            if quiet:
                                self.history.cutoff(board.turn, move, ply, depth, tried)
                            break
                if quiet:
                    tried.append(move)
            if not searched:
                return 0  # stalemate (in check there was a legal move)
        finally:
            self.repetitions[key] -= 1
        bound = LOWER if best >= beta else (EXACT if best > original_alpha else UPPER)
        self.tt.store(key, depth, bound, _to_tt(best, ply), best_move)
        return best

    def _staged(self, tt_move: chess.Move | None, ply: int) -> Iterator[chess.Move]:
        """The pseudo-legal moves of a node not in check, best first, generated in stages
        so that a node cut off early never generates its quiet moves: the table's move,
        captures and promotions by MVV-LVA, the killers, then the quiet moves by history.
        The order is exactly that of `History.order` on all moves right after the table's
        move was searched (the history is read as it stood then, whatever the captures'
        subtrees changed since)."""
        board = self.board
        history = self.history
        tt_at, tt_promotion = -1, None
        if tt_move is not None and board.is_pseudo_legal(tt_move):
            yield tt_move
            tt_at, tt_promotion = move_index(tt_move), tt_move.promotion
        mark = history.mark()
        killers = [killer for killer in history.killers[min(ply, MAX_PLY + 1)]
                   if killer is not None and move_index(killer) != tt_at]
        for _, _, origin, target, promotion, _, _ in sorted_captures(board,
                                                                     quiet_promotions(board)):
            if origin * 64 + target != tt_at or promotion != tt_promotion:
                yield Move(origin, target, promotion)
        tried = [tt_at]
        for killer in killers:
            if is_quiet(board, killer) and board.is_pseudo_legal(killer):
                tried.append(move_index(killer))
                yield killer
        quiets = [move for move in quiet_moves(board)
                  if move.from_square * 64 + move.to_square not in tried]
        yield from history.order_quiets(board, quiets, mark)

    def _quiesce(self, alpha: int, beta: int, ply: int, flags: int, key: Hashable,
                 in_check: bool | None = None) -> int:
        board = self.board
        if king_attacked(board, board.turn) if in_check is None else in_check:
            evasions = list(board.generate_legal_moves())
            if not evasions:
                return -(MATE - ply)
            if not self.program.quiescence or ply >= MAX_PLY:
                return self._static(key, flags)
            best = -INFINITY
            stand = None
            moves = [(0, 0, move.from_square, move.to_square, move.promotion, 0, 0)
                     for move in self.history.order(board, evasions, None, ply)]
        else:
            stand = self._static(key, flags)
            if not self.program.quiescence or ply >= MAX_PLY or stand >= beta:
                return stand
            entry = self.tt.probe(key)
            if entry is not None:
                e_score = _from_tt(entry[3], ply)
                e_bound = entry[2]
                if (e_bound == EXACT or (e_bound == LOWER and e_score >= beta)
                        or (e_bound == UPPER and e_score <= alpha)):
                    return e_score
            if stand + SEE_VALUES[chess.QUEEN] + DELTA_MARGIN < alpha and not _promoting(board):
                return stand  # delta pruning: not even winning a queen would reach alpha
            best = stand
            if stand > alpha:
                alpha = stand
            moves = sorted_captures(board, _queen_promotions(board))
        original_alpha = alpha
        self.repetitions[key] = self.repetitions.get(key, 0) + 1
        exposed = _exposure(board)
        try:
            for _, _, origin, target, promotion, victim, attacker in moves:
                if stand is None:
                    move = Move(origin, target, promotion)
                else:
                    victim = victim or chess.PAWN
                    if not promotion and stand + SEE_VALUES[victim] + DELTA_MARGIN <= alpha:
                        continue  # delta pruning per capture (the move is not even made)
                    move = Move(origin, target, promotion)
                    if loses_exchange(board, move, victim, attacker):
                        continue  # SEE pruning
                self.nodes += 1
                if not self.nodes & 15:
                    self._poll()
                board.push(move)
                try:
                    if (stand is not None and exposed(move.from_square, move.to_square)
                            and king_attacked(board, not board.turn)):
                        continue  # a pseudo-legal capture that leaves the king attacked
                    child = position_key(board)
                    if self.repetitions.get(child) or _insufficient(board):
                        score = 0
                    else:
                        # Castling is never a capture nor legal in check: flags are kept.
                        score = -self._quiesce(-beta, -alpha, ply + 1, flags, child)
                finally:
                    board.pop()
                if score > best:
                    best = score
                    if score > alpha:
                        alpha = score
                        if alpha >= beta:
                            break
        finally:
            self.repetitions[key] -= 1
        if stand is not None:
            bound = LOWER if best >= beta else (EXACT if best > original_alpha else UPPER)
            self.tt.store(key, 0, bound, _to_tt(best, ply), None)
        return best

    def _static(self, key: Hashable, flags: int) -> int:
        cache_key = (key, flags)
        score = self.eval_cache.get(cache_key)
        if score is not None:
            return score
        board = self.board
        # Stalemate is only possible when the side to move has no piece but king and pawns
        # (or no pseudo-legal move at all): only then is the move generator asked.
        if not (board.occupied_co[board.turn] & ~board.pawns & ~board.kings) \
                and not any(board.generate_legal_moves()):
            score = 0
        else:
            try:
                score = self.program.search_score(board, board.turn, flags, board.psq_main,
                                                  board.psq_endgame, self._poll)
            except ChespelRuntimeError as exc:
                score = 0
                if self.on_error is not None:
                    self.on_error(exc)
        if len(self.eval_cache) >= EVAL_CACHE_LIMIT:
            self.eval_cache.clear()
        self.eval_cache[cache_key] = score
        self._poll()
        return score

    # ------------------------------------------------------------------ helpers

    def _pv(self, first: chess.Move, depth: int) -> tuple[chess.Move, ...]:
        board = self.board.copy(stack=False)
        pv = [first]
        board.push(first)
        seen = {position_key(board)}
        while len(pv) < depth:
            entry = self.tt.probe(position_key(board))
            if entry is None or entry[4] is None or not board.is_legal(entry[4]):
                break
            board.push(entry[4])
            key = position_key(board)
            if key in seen:
                break
            seen.add(key)
            pv.append(entry[4])
        return tuple(pv)


def _exposure(board: chess.Board) -> Callable[[int, int], bool]:
    """For the side to move, not in check: whether a pseudo-legal move from a cell to a cell
    may leave its king attacked — a king move, en passant (or anything landing on the en
    passant cell), or a piece on a line through the king (it may be pinned). Any other
    pseudo-legal move is legal without playing it out."""
    king_bb = board.kings & board.occupied_co[board.turn]
    if not king_bb:
        return lambda origin, target: True
    king = king_bb.bit_length() - 1
    rays = chess.BB_RAYS[king]
    ep = board.ep_square
    return lambda origin, target: origin == king or bool(rays[origin]) or target == ep


def _insufficient(board: chess.Board) -> bool:
    """Insufficient material, with the common case (a pawn, rook or queen) answered at once."""
    return not (board.pawns | board.rooks | board.queens) and board.is_insufficient_material()


def _has_pieces(board: chess.Board) -> bool:
    """Whether the side to move has a piece besides king and pawns (zugzwang guard)."""
    return bool(board.occupied_co[board.turn] & ~board.pawns & ~board.kings)


def _promoting(board: chess.Board) -> bool:
    seventh = chess.BB_RANK_7 if board.turn else chess.BB_RANK_2
    return bool(board.pawns & board.occupied_co[board.turn] & seventh)


def _queen_promotions(board: chess.Board) -> list[chess.Move]:
    """Quiet promotions to a queen (captures with promotion are among the captures)."""
    if not _promoting(board):
        return []
    return [move for move in board.generate_pseudo_legal_moves(
        board.pawns & board.occupied_co[board.turn], ~board.occupied)
        if move.promotion == chess.QUEEN]


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
