"""The light game model of docs/performance.md#cql: a python-chess visitor that builds no `GameNode`
tree.

`LightVisitor` keeps, per in-scope position, the move that led to it and a compact board
snapshot (a tuple of bitboards and state); `chess.Board` objects are built only when asked
for, and cached. Variations are skipped unless in scope, comments are kept only when asked
for, and a header prefilter can reject a game before any move is parsed.

Streaming evaluation (docs/performance.md#cql lever 3: evaluate each position on the reader's live
board, store nothing) was built and measured, and is not used: see docs/performance.md.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import chess
import chess.pgn

from esochess.cqlvars.model import GameModel
from esochess.cqlvars.san import parse_san

#: pawns, knights, bishops, rooks, queens, kings, white, black, promoted, turn,
#: castling rights, ep square, halfmove clock, fullmove number.
Snapshot = tuple[int, int, int, int, int, int, int, int, int, bool, int, int | None, int, int]

HeaderFilter = Callable[[Mapping[str, str]], bool]


def snapshot(board: chess.Board) -> Snapshot:
    """The compact, immutable state of `board` (no move stack)."""
    return (
        board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings,
        board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK], board.promoted,
        board.turn, board.castling_rights, board.ep_square, board.halfmove_clock,
        board.fullmove_number,
    )


def board_from(snap: Snapshot, *, chess960: bool = False) -> chess.Board:
    """Build a `chess.Board` (with an empty move stack) from a snapshot.

    The board is assembled attribute by attribute instead of through `Board.__init__` or
    `copy()`: about 7x cheaper, and this runs once per position a query looks at.
    """
    board = chess.Board.__new__(chess.Board)
    (board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings,
     white, black, board.promoted, board.turn, board.castling_rights, board.ep_square,
     board.halfmove_clock, board.fullmove_number) = snap
    board.occupied_co = [black, white]  # indexed by colour: BLACK = 0, WHITE = 1
    board.occupied = white | black
    board.chess960 = chess960
    board.move_stack = []
    board._stack = []
    return board


@dataclass(slots=True)
class LightNode:
    """One in-scope position: how it was reached, its snapshot and its place in the tree."""

    move: chess.Move | None
    parent: int
    snap: Snapshot
    children: list[int] = field(default_factory=list)
    comment: str = ""
    starting_comment: str = ""
    nags: list[int] = field(default_factory=list)


@dataclass
class LightGame:
    """A game read without a `GameNode` tree: headers, positions, the first PGN error.

    `nodes` are in PGN reading order, node 0 being the initial position. `skipped` is set
    when the header prefilter rejected the game; then no move was parsed.
    """

    headers: chess.pgn.Headers
    nodes: list[LightNode] = field(default_factory=list)
    error: Exception | None = None
    skipped: bool = False
    chess960: bool = False
    #: Every node but the last has exactly one child, node i+1 (the lean reader's games).
    linear: bool = False
    _boards: dict[int, chess.Board] = field(default_factory=dict, repr=False)

    def board(self, index: int) -> chess.Board:
        """The position of node `index` as a `chess.Board`, built on first use and cached."""
        board = self._boards.get(index)
        if board is None:
            board = self._boards[index] = board_from(
                self.nodes[index].snap, chess960=self.chess960
            )
        return board

    def mainline(self) -> list[int]:
        """Node indices of the mainline, from the initial position to the end."""
        line = [0] if self.nodes else []
        while line and self.nodes[line[-1]].children:
            line.append(self.nodes[line[-1]].children[0])
        return line

    def preorder(self) -> list[int]:
        """Node indices in position-id order: pre-order, children in PGN order
        (docs/reference/cql.md#evaluation-model)."""
        if self.linear:
            return list(range(len(self.nodes)))
        order: list[int] = []
        stack = [0] if self.nodes else []
        while stack:
            index = stack.pop()
            order.append(index)
            stack.extend(reversed(self.nodes[index].children))
        return order

    def ply(self, index: int) -> int:
        """Number of moves from the initial position to node `index`."""
        depth = 0
        while self.nodes[index].parent >= 0:
            index = self.nodes[index].parent
            depth += 1
        return depth


class LightVisitor(chess.pgn.BaseVisitor[LightGame]):
    """Reads one game into a `LightGame`; see the module docstring."""

    def __init__(
        self,
        *,
        variations: bool = False,
        comments: bool = False,
        prefilter: HeaderFilter | None = None,
    ) -> None:
        self.variations = variations
        self.comments = comments
        self.prefilter = prefilter
        self.game = LightGame(chess.pgn.Headers({}))
        self._current = -1
        self._pending: chess.Move | None = None
        self._branch: list[int] = []
        self._starting = ""
        self._in_variation = False

    def begin_headers(self) -> chess.pgn.Headers:
        """Headers are collected into the game's own `Headers`, which read_game then uses."""
        return self.game.headers

    def visit_header(self, tagname: str, tagvalue: str) -> None:
        """Store one tag."""
        self.game.headers[tagname] = tagvalue

    def end_headers(self) -> chess.pgn.SkipType | None:
        """Apply the header prefilter: a rejected game is skipped without parsing moves."""
        if self.prefilter is not None and not self.prefilter(self.game.headers):
            self.game.skipped = True
            return chess.pgn.SKIP
        self.game.chess960 = self.game.headers.is_chess960()
        return None

    def parse_san(self, board: chess.Board, san: str) -> chess.Move:
        """Read a move through the fast path of `san.parse_san` (same moves, same errors)."""
        return parse_san(board, san)

    def visit_move(self, board: chess.Board, move: chess.Move) -> None:
        """Remember the move; its node is made when the board after it is visited."""
        self._pending = move

    def visit_board(self, board: chess.Board) -> None:
        """Snapshot the initial position and the position after each parsed move."""
        nodes = self.game.nodes
        if not nodes:
            nodes.append(LightNode(None, -1, snapshot(board)))
            self._current = 0
            return
        if self._pending is None:
            return  # python-chess also calls this after a move it could not parse
        node = LightNode(self._pending, self._current, snapshot(board))
        if self._starting:
            node.starting_comment, self._starting = self._starting, ""
        nodes.append(node)
        self._current = len(nodes) - 1
        nodes[node.parent].children.append(self._current)
        self._pending = None
        self._in_variation = True

    def visit_comment(self, comment: str) -> None:
        """Keep comments only when the query reads them (`originalcomment`).

        Placement follows python-chess's GameBuilder: after a move, on that move's node;
        before any move, on the game; right after `(`, on the variation's first move.
        """
        if not self.comments or self._current < 0:
            return
        node = self.game.nodes[self._current]
        if self._in_variation or (node.parent < 0 and not node.children):
            node.comment = " ".join(filter(None, (node.comment, comment)))
        else:
            self._starting = " ".join(filter(None, (self._starting, comment)))

    def visit_nag(self, nag: int) -> None:
        """NAGs belong to the node of the move they follow."""
        if self._current >= 0:
            self.game.nodes[self._current].nags.append(nag)

    def begin_variation(self) -> chess.pgn.SkipType | None:
        """Skip variations unless they are in scope; else branch from the parent."""
        if not self.variations:
            return chess.pgn.SKIP
        self._branch.append(self._current)
        self._current = self.game.nodes[self._current].parent
        self._in_variation = False
        return None

    def end_variation(self) -> None:
        """Return to the node the variation branched beside."""
        # python-chess also ends variations it skipped (and stray ones after an error).
        if self._branch:
            self._current = self._branch.pop()

    def handle_error(self, error: Exception) -> None:
        """Record the first PGN error; python-chess then skips the rest of that line."""
        if self.game.error is None:
            self.game.error = error

    def result(self) -> LightGame:
        """The game read so far."""
        return self.game


def read_light(
    text: str,
    *,
    variations: bool = False,
    comments: bool = False,
    prefilter: HeaderFilter | None = None,
) -> LightGame | None:
    """Read the first game of `text` into a `LightGame` (None when there is no game)."""
    return chess.pgn.read_game(
        io.StringIO(text),
        Visitor=lambda: LightVisitor(variations=variations, comments=comments,
                                     prefilter=prefilter),
    )


class LightModel(GameModel):
    """The evaluator's `GameModel` over a `LightGame`: boards come from the snapshots.

    Positions are in position-id order (docs/reference/cql.md#evaluation-model). A board is built
    from its snapshot on first use, instead of being replayed from the parent's board, so a position
    nobody looks at costs nothing and one that is looked at costs no move generation.
    """

    def __init__(self, game: LightGame) -> None:
        order = game.preorder()
        nodes = game.nodes
        if game.linear:
            parents = list(range(-1, len(nodes) - 1))
        else:
            position = {node: pid for pid, node in enumerate(order)}
            parents = [-1] + [position[nodes[i].parent] for i in order[1:]]
        self.snapshots = [nodes[i].snap for i in order]
        self.chess960 = game.chess960
        super().__init__(
            game.headers,
            board_from(self.snapshots[0], chess960=game.chess960),
            parents,
            [nodes[i].move for i in order],
            [nodes[i].comment for i in order],
        )

    def board(self, i: int) -> chess.Board:
        """The board at position i, built from its snapshot on first use."""
        board = self.boards[i]
        if board is None:
            board = self.boards[i] = board_from(self.snapshots[i], chess960=self.chess960)
        return board
