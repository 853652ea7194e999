"""Properties of `path` (issue 19) on shipped games: random paths agree with a brute-force
backtracking matcher written over python-chess game trees (the way CQL 6.2 describes
the search), `firstmatch` takes the shortest match, and focusing on every piece changes
nothing."""

from __future__ import annotations

import functools
import io
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import chess
import chess.pgn
from hypothesis import given, settings
from hypothesis import strategies as st
from pgn_data import LICHESS, STUDIES

from esochess.cqlvars import pgnio
from esochess.cqlvars.engine import compile_query, run_games

GAMES = (list(pgnio.iter_games([str(STUDIES)], last=4))
         + list(pgnio.iter_games([str(LICHESS)], last=3)))


@dataclass(frozen=True)
class Step:
    """A constituent for the brute-force matcher and its query text."""

    text: str
    kind: str  # move, filter, group
    test: Callable[[chess.Board, chess.Move | None], bool]
    steps: tuple[Step, ...] = ()
    low: int = 1
    high: int | None = 1


MOVES = [
    Step("--", "move", lambda b, m: True),
    Step("[x]", "move", lambda b, m: m is not None and b.is_capture(m)),
    Step("-- check", "move", lambda b, m: m is not None and b.gives_check(m)),
    Step("P--", "move", lambda b, m: m is not None and b.piece_at(m.from_square) == chess.Piece(chess.PAWN, chess.WHITE)),
    Step("--_", "move", lambda b, m: m is not None and not b.is_capture(m)),
]  # fmt: skip
FILTERS = [
    Step("check", "filter", lambda b, m: b.is_check()),
    Step("wtm", "filter", lambda b, m: b.turn == chess.WHITE),
]
REPS = [("", 1, 1), ("*", 0, None), ("+", 1, None), ("?", 0, 1), ("{1,2}", 1, 2), ("{2}", 2, 2)]


@st.composite
def paths(draw: st.DrawFn) -> list[Step]:
    steps: list[Step] = []
    if draw(st.booleans()):
        steps.append(draw(st.sampled_from(FILTERS)))
    for _ in range(draw(st.integers(1, 3))):
        if draw(st.integers(0, 3)) == 0:
            inner = tuple(draw(st.lists(st.sampled_from(MOVES), min_size=1, max_size=2)))
            base = Step("(" + " ".join(s.text for s in inner) + ")", "group",
                        lambda b, m: True, inner)
        else:
            base = draw(st.sampled_from(MOVES))
        rep, low, high = draw(st.sampled_from(REPS))
        steps.append(Step(base.text + (" " if rep.startswith("{") else "") + rep, base.kind,
                          base.test, base.steps, low, high))
    return steps


Node = chess.pgn.GameNode


def _seq(steps: tuple[Step, ...], node: Node, count: int) -> Iterator[tuple[Node, int]]:
    if not steps:
        yield node, count
        return
    for end, n in _rep(steps[0], 0, node, count):
        yield from _seq(steps[1:], end, n)


def _rep(step: Step, k: int, node: Node, count: int) -> Iterator[tuple[Node, int]]:
    if k >= step.low:
        yield node, count
    if step.high is None or k < step.high:
        for end, n in _once(step, node, count):
            if n > count or k < step.low:  # repeating what consumes nothing adds nothing
                yield from _rep(step, k + 1, end, n)


def _once(step: Step, node: Node, count: int) -> Iterator[tuple[Node, int]]:
    if step.kind == "filter":
        if step.test(BOARDS[node], None):
            yield node, count
    elif step.kind == "group":
        yield from _seq(step.steps, node, count)
    else:
        for child in node.variations:
            if step.test(BOARDS[node], child.move):
                yield child, count + 1


#: The board at each node of the games' trees (filled by `_trees`); node.board() would
#: replay the game from its start at every call.
BOARDS: dict[Node, chess.Board] = {}


@functools.cache
def _trees() -> tuple[tuple[Node, ...], ...]:
    """Each game's nodes in PGN order (depth first, main line first), read once."""
    trees = []
    for item in GAMES:
        game = chess.pgn.read_game(io.StringIO(item.text))
        assert game is not None
        BOARDS[game] = game.board()
        order: list[Node] = []
        stack: list[Node] = [game]
        while stack:
            node = stack.pop()
            order.append(node)
            for child in node.variations:
                BOARDS[child] = BOARDS[node].copy(stack=False)
                BOARDS[child].push(child.move)
            stack.extend(reversed(node.variations))
        trees.append(tuple(order))
    return tuple(trees)


def _brute(steps: list[Step], pick: Callable[[list[int]], int]) -> list[str]:
    out = []
    for number, order in enumerate(_trees(), 1):
        for pid, node in enumerate(order):
            counts = [n for _, n in _seq(tuple(steps), node, 0) if n >= 1]
            if counts:
                out.append(f"{number} {pid} {pick(counts)}")
    return out


def _engine(path: str) -> list[str]:
    query = f"cql(variations) v = {{{path}}} message(positionid \" \" v) false"
    compiled = compile_query("q.cql", query)
    outcomes = enumerate(run_games(compiled, GAMES), 1)
    return [f"{number} {line}" for number, o in outcomes for line in o.messages]


@given(paths())
@settings(max_examples=25, deadline=None)
def test_random_paths_agree_with_backtracking(steps: list[Step]) -> None:
    text = " ".join(s.text for s in steps)
    assert _engine("path " + text) == _brute(steps, max)
    assert _engine("path firstmatch " + text) == _brute(steps, min)


@given(paths())
@settings(max_examples=10, deadline=None)
def test_focus_on_every_piece_changes_nothing(steps: list[Step]) -> None:
    text = " ".join(s.text for s in steps)
    assert _engine("path focus . " + text) == _engine("path " + text)
