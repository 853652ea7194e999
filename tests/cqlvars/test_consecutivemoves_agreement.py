"""`consecutivemoves` (issue 19) agrees with an independent python-chess computation on
the shipped studies: for every pair of line ends of a game with variations, the longest
run of identical consecutive moves on the two paths below their latest common ancestor."""

from __future__ import annotations

import io
from itertools import combinations

import chess.pgn
from pgn_data import STUDIES

from esochess.cqlvars import pgnio
from esochess.cqlvars.engine import compile_query, run_games

QUERY = (
    "cql(variations quiet) echo (s t) { s:terminal t:terminal "
    'positionid < s:positionid message (s:positionid " " positionid " " '
    "consecutivemoves (s t)) } false"
)


def _small_games_with_variations(limit: int = 12) -> list[pgnio.GameText]:
    out = []
    for item in pgnio.iter_games([str(STUDIES)]):
        game = chess.pgn.read_game(io.StringIO(item.text))
        nodes = list(_preorder(game)) if game is not None else []
        if game is not None and not game.errors and 20 <= len(nodes) <= 150 and any(
            len(n.variations) > 1 for n in nodes
        ):
            out.append(item)
        if len(out) == limit:
            break
    return out


def _preorder(node: chess.pgn.GameNode) -> list[chess.pgn.GameNode]:
    """Positions numbered as the query numbers them: pre-order, variations in PGN order."""
    out = [node]
    for child in node.variations:
        out.extend(_preorder(child))
    return out


def _path(node: chess.pgn.GameNode) -> list[chess.pgn.GameNode]:
    out = []
    while node.parent is not None:
        out.append(node)
        node = node.parent
    return out[::-1]


def _longest_common_run(a: list[chess.Move], b: list[chess.Move]) -> int:
    """By brute force over every pair of start points (not the query's algorithm)."""
    best = 0
    for i in range(len(a)):
        for j in range(len(b)):
            k = 0
            while i + k < len(a) and j + k < len(b) and a[i + k] == b[j + k]:
                k += 1
            best = max(best, k)
    return best


def _expected(text: str) -> list[str]:
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None
    nodes = _preorder(game)
    ends = [i for i, n in enumerate(nodes) if not n.variations]
    lines = []
    for t, s in combinations(ends, 2):  # t < s, as the query asks
        ps, pt = _path(nodes[s]), _path(nodes[t])
        common = 0
        while common < min(len(ps), len(pt)) and ps[common] is pt[common]:
            common += 1
        moves_s = [n.move for n in ps[common:]]
        moves_t = [n.move for n in pt[common:]]
        lines.append(f"{s} {t} {_longest_common_run(moves_s, moves_t)}")
    return sorted(lines)


def test_consecutivemoves_agrees_with_python_chess_on_studies() -> None:
    games = _small_games_with_variations()
    assert len(games) >= 5
    compiled = compile_query("q.cql", QUERY)
    found_a_run = False
    for item, outcome in zip(games, run_games(compiled, games), strict=True):
        mine = sorted(outcome.messages)
        assert mine == _expected(item.text), item.number
        found_a_run = found_a_run or any(not line.endswith(" 0") for line in mine)
    assert found_a_run  # the studies do repeat moves across lines
