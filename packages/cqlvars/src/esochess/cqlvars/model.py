"""The game model the evaluator reads (docs/reference/cql.md#evaluation-model): in-scope positions and per-game state.

`GameModel` is the game tree restricted to in-scope positions, numbered in pre-order,
with boards, check status, legal moves and piece-id maps computed lazily per position.
`Ctx` is the per-game evaluation state every compiled closure shares.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import chess

from esochess.cqlvars import ast
from esochess.cqlvars.variables import CqlRuntimeError, PersistentStore

#: Loop iterations one game may need (see `Ctx.spend`).
MAX_STEPS = 20_000_000


class GameModel:
    """The in-scope positions of one game, in position-id (pre-order) order.

    Built from parent links and moves; boards are made on demand by replaying the move
    from the parent's board, so a builder only needs `parents`, `moves` and `comments`.
    """

    def __init__(
        self,
        headers: Mapping[str, str],
        root: chess.Board,
        parents: Sequence[int],
        moves: Sequence[chess.Move | None],
        comments: Sequence[str] | None = None,
    ) -> None:
        self.headers = headers
        self.parents = list(parents)
        self.moves = list(moves)
        self.comments = list(comments) if comments is not None else [""] * len(self.parents)
        n = len(self.parents)
        if self.parents == list(range(-1, n - 1)):
            # One line of moves (most games when variations are out of scope).
            self.children: list[list[int]] = [[i] for i in range(1, n)] + [[]]
            self.plies = list(range(n))
            self.subtree_end = [n] * n
        else:
            self.children = [[] for _ in range(n)]
            self.plies = [0] * n
            for i in range(1, n):
                p = self.parents[i]
                self.children[p].append(i)
                self.plies[i] = self.plies[p] + 1
            # Pre-order numbering: the subtree of i is the id range [i, subtree_end[i]).
            self.subtree_end = list(range(1, n + 1))
            for i in range(n - 1, 0, -1):
                p = self.parents[i]
                self.subtree_end[p] = max(self.subtree_end[p], self.subtree_end[i])
        self.boards: list[chess.Board | None] = [None] * n
        self.boards[0] = root
        self.cache: list[dict[str, Any]] = [{} for _ in range(n)]

    def __len__(self) -> int:
        return len(self.parents)

    def board(self, i: int) -> chess.Board:
        """The board at position i (built from the nearest known ancestor)."""
        board = self.boards[i]
        if board is not None:
            return board
        chain = []
        j = i
        while self.boards[j] is None:
            chain.append(j)
            j = self.parents[j]
        for k in reversed(chain):
            parent_board = self.boards[self.parents[k]]
            assert parent_board is not None
            b = parent_board.copy(stack=False)
            move = self.moves[k]
            assert move is not None
            b.push(move)
            self.boards[k] = b
        result = self.boards[i]
        assert result is not None
        return result

    def piece_ids(self, i: int) -> dict[int, int]:
        """square -> piece id at position i (docs/reference/cql.md#power), computed lazily from the parent."""
        cache = self.cache[i]
        ids: dict[int, int] | None = cache.get("ids")
        if ids is not None:
            return ids
        if i == 0:
            ids = {sq: sq for sq in chess.scan_forward(self.board(0).occupied)}
        else:
            chain = []
            j = i
            while "ids" not in self.cache[j] and j != 0:
                chain.append(j)
                j = self.parents[j]
            current = self.piece_ids(j) if j == 0 else self.cache[j]["ids"]
            for k in reversed(chain):
                current = _move_ids(current, self.board(self.parents[k]), self.moves[k])
                self.cache[k]["ids"] = current
            ids = current
        cache["ids"] = ids
        return ids

    def piece_squares(self, i: int) -> dict[int, int]:
        """piece id -> its square bitboard at position i (the inverse of `piece_ids`)."""
        cache = self.cache[i]
        squares: dict[int, int] | None = cache.get("squares")
        if squares is None:
            squares = cache["squares"] = {
                pid: chess.BB_SQUARES[sq] for sq, pid in self.piece_ids(i).items()
            }
        return squares


def _move_ids(ids: dict[int, int], board: chess.Board, move: chess.Move | None) -> dict[int, int]:
    new = dict(ids)
    if move is None or not move:
        return new
    if board.is_en_passant(move):
        new.pop(move.to_square + (-8 if board.turn == chess.WHITE else 8), None)
    if board.is_castling(move):
        rank = chess.square_rank(move.from_square)
        kingside = chess.square_file(move.to_square) > chess.square_file(move.from_square)
        rook_from = chess.square(7 if kingside else 0, rank)
        rook_to = chess.square(5 if kingside else 3, rank)
        king_id = new.pop(move.from_square, None)
        rook_id = new.pop(rook_from, None)
        if king_id is not None:
            new[move.to_square] = king_id
        if rook_id is not None:
            new[rook_to] = rook_id
        return new
    moving = new.pop(move.from_square, None)
    new.pop(move.to_square, None)
    if moving is not None:
        new[move.to_square] = moving
    return new


@dataclass
class PathFrame:
    """The status of a `path` (docs/reference/cql.md#path): one being evaluated, or the
    last one that matched in this game."""

    start: int
    #: Moves matched so far (with `focus`: moves of the focused pieces).
    count: int = 0
    #: All moves from the start so far, out-of-focus ones included.
    unfocused: int = 0
    #: The position the matched path ends at (None while it is being evaluated).
    last: int | None = None


def position_text(game: GameModel, p: int) -> str:
    """How a position is named in comments and messages: `move N (wtm)`."""
    board = game.board(p)
    side = "wtm" if board.turn == chess.WHITE else "btm"
    return f"move {board.fullmove_number or 1} ({side})"


@dataclass
class Ctx:
    """Per-game evaluation state shared by every closure (docs/reference/cql.md#evaluation-model)."""

    game: GameModel
    number: int
    slots: list[Any]
    persistent: PersistentStore
    pos: int = 0
    captures: tuple[str | None, ...] = ()
    comments: list[tuple[int, str]] = field(default_factory=list)
    sorts: list[tuple[int, int]] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    #: Loop iterations (`find`, `echo`, `square`, `piece`) spent on this game so far.
    steps: int = 0
    #: `line nestban`: per line filter, the positions its earlier matches consumed.
    line_bans: dict[int, set[int]] = field(default_factory=dict)
    #: The `path` filters being evaluated, innermost last, and the last one that matched.
    paths: list[PathFrame] = field(default_factory=list)
    last_path: PathFrame | None = None

    def spend(self, steps: int, span: ast.Span) -> None:
        """Count loop iterations; a game that needs more than MAX_STEPS stops the run.

        Nested loops multiply (`square` in `square` in `find` …), so without a bound a
        query could run for ever on one game.
        """
        self.steps += steps
        if self.steps > MAX_STEPS:
            raise CqlRuntimeError(
                span.line, span.column,
                f"this game needs more than {MAX_STEPS:,} loop iterations "
                "(nested find/echo/square/piece loops)",
            )  # fmt: skip

    def board(self) -> chess.Board:
        """The board at the current position."""
        return self.game.board(self.pos)
