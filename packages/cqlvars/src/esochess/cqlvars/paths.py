"""Compiling `path` (CQL 6.2's successor of `line`, docs/reference/cql.md#path).

A path matches sequences of moves of the game tree from the current position. Its
constituents are moves (`S--T`, `S[x]T`, each with filters tested after the move),
filters tested where the path stands, and groups, each possibly repeated. As for `line`,
the constituents run as a set-of-states automaton over the tree: a state is a position
with the number of moves matched to reach it, and each (constituent, position) pair is
evaluated at most once, so repetitions cost no exponential search. With `atomic`
variables a state also carries their values: each branch sees only the assignments made
along it, and the chosen path's values remain.

With `focus S` only the moves of the pieces on S at the start count: a move constituent
skips any number of moves by other pieces (down every branch) to the next focused move;
the first move must be played from the start itself.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import chess

from esochess.cqlvars import ast
from esochess.cqlvars.closures import Fn, Test
from esochess.cqlvars.compile_base import CompilerBase
from esochess.cqlvars.model import Ctx, GameModel, PathFrame, position_text

#: A state of the automaton: (position, moves matched so far, the atomic variables' values).
State = tuple[int, int, tuple[object, ...]]


@dataclass(frozen=True)
class _Step:
    """A compiled constituent (see ast.PathStep)."""

    key: int
    kind: str
    left: Fn | None
    right: Fn | None
    capture: bool
    promote: str | None
    targets: tuple[Test, ...]
    steps: tuple[_Step, ...]
    low: int
    high: int | None


class PathFilters(CompilerBase):
    """Compiling `path`."""

    def c_Path(self, node: ast.Path) -> Fn:
        """`path`: its constituents matched along the moves from here."""
        steps = tuple(self._path_step(s) for s in node.steps)
        focus = self.set_value(node.focus) if node.focus is not None else None
        maximize = self.value(node.maximize) if node.maximize is not None else None
        if focus is not None or "singlecolor" in node.params:
            self.uses_piece_ids = True
        atomic = tuple(self.slots.slot(name) for name in sorted(self.checked.atomic))
        walk = _Walk(node, steps, focus, maximize, atomic)
        return walk.run

    def _path_step(self, step: ast.PathStep) -> _Step:
        return _Step(
            id(step), step.kind,
            self.set_value(step.left) if step.left is not None else None,
            self.set_value(step.right) if step.right is not None else None,
            step.capture,
            step.promote.pieces if isinstance(step.promote, ast.Designator) else None,
            tuple(self.test(t) for t in step.targets),
            tuple(self._path_step(s) for s in step.steps), step.low, step.high,
        )  # fmt: skip


class _Walk:
    """One compiled path; `run` evaluates it at the current position."""

    def __init__(self, node: ast.Path, steps: tuple[_Step, ...], focus: Fn | None,
                 maximize: Fn | None, atomic: tuple[int, ...]) -> None:
        self.steps = steps
        self.atomic = atomic
        self.focus = focus
        self.focus_capture = node.focus_capture
        self.maximize = maximize
        self.params = node.params
        self.low, self.high = node.low, node.high
        self.title = node.title
        self.key = id(node)

    def run(self, ctx: Ctx) -> int | None:
        start = ctx.pos
        params = self.params
        if "nestban" in params and start in ctx.line_bans.get(self.key, ()):
            return None
        frame = PathFrame(start)
        mark = len(ctx.comments)
        ctx.paths.append(frame)
        before = tuple(ctx.slots[i] for i in self.atomic)
        try:
            search = _Search(ctx, frame, self, self._focused(ctx))
            ends = search.sequence(self.steps, {(start, 0, before)})
            best = self._best(search, [s for s in ends if s[1] >= 1])
        finally:
            ctx.paths.pop()
            ctx.pos = start
        if best is None:
            del ctx.comments[mark:]
            search.restore(before)
            return None
        (end, count, values), value, others = best
        search.restore(values)
        game = ctx.game
        on_path = set(_between(game, start, end))
        # Comments made while trying other branches are dropped; those on the path stay.
        ctx.comments[mark:] = [c for c in ctx.comments[mark:] if c[0] in on_path]
        self._comment(ctx, search, start, end, count, value, others)
        if "nestban" in params:
            ctx.line_bans.setdefault(self.key, set()).update(p for p in on_path if p != start)
        ctx.last_path = PathFrame(start, count, game.plies[end] - game.plies[start], end)
        if "lastposition" in params:
            return end
        return value

    def _focused(self, ctx: Ctx) -> frozenset[int] | None:
        """The ids of the focused pieces (None: every move is in focus)."""
        game = ctx.game
        if self.focus is not None:
            squares = self.focus(ctx) or 0
        elif "singlecolor" in self.params:
            board = game.board(ctx.pos)
            squares = board.occupied_co[board.turn]
        else:
            return None
        ids = game.piece_ids(ctx.pos)
        return frozenset(ids[sq] for sq in chess.scan_forward(squares) if sq in ids)

    def _best(self, search: _Search, ends: list[State]
              ) -> tuple[State, int, list[int]] | None:
        """The chosen end, the path's value and the other ends as good (`keepallbest`)."""
        scored: list[tuple[int, State]] = []
        maximize = self.maximize
        if maximize is not None:
            for state in ends:
                v = search.at(state, maximize)
                if isinstance(v, int):
                    scored.append((v, state))
        else:
            scored = [(state[1], state) for state in ends]
        if not scored:
            return None
        sign = -1 if "firstmatch" in self.params and maximize is None else 1
        top = max(sign * v for v, _ in scored)
        winners = sorted((s for v, s in scored if sign * v == top), key=lambda s: s[:2])
        value = sign * top
        high = self.high if self.high is not None else self.low
        if self.low is not None and high is not None and not self.low <= value <= high:
            return None
        return winners[0], value, [s[0] for s in winners[1:]]

    def _comment(self, ctx: Ctx, search: _Search, start: int, end: int, count: int,
                 value: int, others: list[int]) -> None:
        game, add = ctx.game, ctx.comments.append
        if self.title is not None:
            add((start, self.title))
        moves = [p for p in _between(game, start, end) if p != start and search.in_focus(p)]
        if "piecepath" in self.params:
            sans = [game.board(game.parents[p]).san(m) for p in moves if (m := game.moves[p])]
            add((start, "Focus path: " + " ".join(sans)))
        if "verbose" in self.params:
            prefix = f"{self.title}: " if self.title is not None else ""
            for i, p in enumerate(moves, 1):
                add((p, f"{prefix}move {i} of {count}"))
        if "quiet" in self.params:
            return
        text = f"End path of length {count} that starts at {position_text(game, start)}"
        add((end, text + (f" Max value: {value}" if self.maximize is not None else "")))
        add((start, f"Start path that ends at {position_text(game, end)}"))
        if "keepallbest" in self.params:
            for p in others:
                add((p, "alternative"))


def _between(game: GameModel, start: int, end: int) -> list[int]:
    """The positions from start to its descendant end, both included, in order."""
    out = [end]
    while out[-1] != start:
        out.append(game.parents[out[-1]])
    return out[::-1]


class _Search:
    """The automaton of one evaluation: states advanced constituent by constituent."""

    def __init__(self, ctx: Ctx, frame: PathFrame, walk: _Walk,
                 focused: frozenset[int] | None) -> None:
        self.ctx = ctx
        self.game = ctx.game
        self.frame = frame
        self.focused = focused
        self.focus_capture = walk.focus_capture
        self.primary = "primary" in walk.params
        self.atomic = walk.atomic
        self.memo: dict[tuple[int, int, tuple[object, ...]], State | None] = {}
        self.sets: dict[tuple[int, State], tuple[int | None, int | None]] = {}
        self.moves: dict[int, list[int]] = {}

    # the automaton ---------------------------------------------------------------
    def sequence(self, steps: tuple[_Step, ...], states: set[State]) -> set[State]:
        for step in steps:
            states = self.repeated(step, states)
            if not states:
                break
        return states

    def repeated(self, step: _Step, states: set[State]) -> set[State]:
        results: set[State] = set()
        frontier, k = states, 0
        # Without an upper bound, a state reached again with as many repetitions (counted
        # up to the lower bound) adds nothing: this ends repetitions of what consumes no move.
        seen: set[tuple[int, State]] = set()
        while frontier:
            if k >= step.low:
                results |= frontier
            if step.high is not None and k >= step.high:
                break
            frontier = self.once(step, frontier)
            k += 1
            if step.high is None:
                tag = min(k, step.low)
                frontier = {s for s in frontier if (tag, s) not in seen}
                seen.update((tag, s) for s in frontier)
        return results

    def once(self, step: _Step, states: set[State]) -> set[State]:
        if step.kind == "group":
            return self.sequence(step.steps, states)
        if step.kind == "filter":
            return {new for s in states if (new := self.holds(step, s)) is not None}
        out: set[State] = set()
        for pos, n, values in states:
            for tail in self.next_moves(pos):
                if self.matches(step, tail, (pos, n, values)):
                    new = self.holds(step, (tail, n + 1, values))
                    if new is not None:
                        out.add(new)
        return out

    # evaluation --------------------------------------------------------------------
    def at(self, state: State, run: Callable[[Ctx], object]) -> object:
        """Run a closure at a state's position with the path status and the atomic
        variables set for it."""
        ctx, (pos, n, values) = self.ctx, state
        ctx.pos = pos
        self.frame.count = n
        self.frame.unfocused = self.game.plies[pos] - self.game.plies[self.frame.start]
        self.restore(values)
        return run(ctx)

    def restore(self, values: tuple[object, ...]) -> None:
        """Set the atomic variables to the values a state carries."""
        for slot, value in zip(self.atomic, values, strict=True):
            self.ctx.slots[slot] = value

    def holds(self, step: _Step, state: State) -> State | None:
        """The state after the step's filters at a state, or None when one fails
        (memoised per constituent, position and atomic values)."""
        if not step.targets:
            return state
        key = (step.key, state[0], state[2])
        if key not in self.memo:
            targets = step.targets
            ok = bool(self.at(state, lambda ctx: all(t(ctx) for t in targets)))
            after = tuple(self.ctx.slots[i] for i in self.atomic)
            self.memo[key] = (state[0], state[1], after) if ok else None
        return self.memo[key]

    def next_moves(self, pos: int) -> list[int]:
        """The positions the moves a move constituent may match from pos lead to."""
        found = self.moves.get(pos)
        if found is not None:
            return found
        children = self.game.children

        def kids(p: int) -> list[int]:
            return children[p][:1] if self.primary else children[p]

        if self.focused is None:
            found = kids(pos)
        elif pos == self.frame.start:
            found = [c for c in kids(pos) if self.in_focus(c)]
        else:
            found = []
            stack = kids(pos)[::-1]
            while stack:
                c = stack.pop()
                if self.in_focus(c):
                    found.append(c)
                else:
                    stack.extend(kids(c)[::-1])
        self.moves[pos] = found
        return found

    def in_focus(self, tail: int) -> bool:
        """Whether the move to `tail` is by (or, with `focus capture`, of) a focused piece."""
        if self.focused is None:
            return True
        game = self.game
        head, move = game.parents[tail], game.moves[tail]
        if not move:
            return False
        ids = game.piece_ids(head)
        board = game.board(head)
        if board.is_castling(move):
            rook = _castling_rook(move)
            return ids.get(move.from_square) in self.focused or ids.get(rook[0]) in self.focused
        if ids.get(move.from_square) in self.focused:
            return True
        captured = _captured_square(board, move)
        return self.focus_capture and captured is not None and ids.get(captured) in self.focused

    def matches(self, step: _Step, tail: int, state: State) -> bool:
        """Whether the move to `tail` meets the step's start and end sets and promotion;
        the sets are evaluated where the move is played from."""
        game = self.game
        head, move = game.parents[tail], game.moves[tail]
        left, right = self.step_sets(step, (head, state[1], state[2]))
        if left is None or right is None:
            return False
        if not move:
            return left == right == chess.BB_ALL and not step.capture and step.promote is None
        board = game.board(head)
        pairs = [(move.from_square, move.to_square)]
        if step.capture:
            captured = _captured_square(board, move)
            if captured is None:
                return False
            pairs = [(move.from_square, captured)]
        elif board.is_castling(move):
            rook = _castling_rook(move)
            ids = game.piece_ids(head)
            pairs = [pair for pair, sq in ((pairs[0], move.from_square), (rook, rook[0]))
                     if self.focused is None or ids.get(sq) in self.focused]
        if not any(chess.BB_SQUARES[a] & left and chess.BB_SQUARES[b] & right for a, b in pairs):
            return False
        if step.promote is not None:
            if move.promotion is None:
                return False
            letter = chess.piece_symbol(move.promotion)
            letter = letter.upper() if board.turn == chess.WHITE else letter
            mover = "A" if board.turn == chess.WHITE else "a"
            return letter in step.promote or mover in step.promote
        return True

    def step_sets(self, step: _Step, state: State) -> tuple[int | None, int | None]:
        """The step's start and end sets, evaluated where the move is played from."""
        key = (step.key, state)
        found = self.sets.get(key)
        if found is None:
            left = self.at(state, step.left) if step.left is not None else chess.BB_ALL
            right = self.at(state, step.right) if step.right is not None else chess.BB_ALL
            found = self.sets[key] = (_mask(left), _mask(right))
        return found


def _mask(value: object) -> int | None:
    return value if isinstance(value, int) else None


def _castling_rook(move: chess.Move) -> tuple[int, int]:
    """The rook's (from, to) squares of a castling move given as the king's move."""
    rank = chess.square_rank(move.from_square)
    kingside = chess.square_file(move.to_square) > chess.square_file(move.from_square)
    return chess.square(7 if kingside else 0, rank), chess.square(5 if kingside else 3, rank)


def _captured_square(board: chess.Board, move: chess.Move) -> int | None:
    if board.is_en_passant(move):
        return move.to_square + (-8 if board.turn == chess.WHITE else 8)
    if board.is_capture(move) and not board.is_castling(move):
        return move.to_square
    return None
