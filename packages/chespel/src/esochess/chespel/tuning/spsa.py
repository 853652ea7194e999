"""`chespel spsa`: tuning of a program's score numbers by play (docs/reference/chespel.md#spsa).

The numbers are grouped (a list literal is one group, any other number its own), and each
group gets a multiplier θ, 1 at the start. Every iteration perturbs all multipliers at once
by ±c, plays one colour-reversed game pair of the program at θ+cΔ against the program at
θ−cΔ, and steps θ along the pair's result (simultaneous perturbation stochastic
approximation, as engine testing frameworks run it). This module is the method; the loop
takes the pair player as a callable, so that it runs without engines in tests
(spsa_games.py plays the pairs on engines).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

from esochess.chespel import ast
from esochess.chespel.match import DEFAULT_OPENINGS
from esochess.chespel.runtime.values import format_num
from esochess.chespel.tuning.weights import (
    Weight,
    clamp_weight,
    find_weights,
    rewrite,
    score_literals,
)
from esochess.fen.suggest import with_suggestion

MAX_THETA = 3.0


class SpsaError(Exception):
    """A problem that stops the run before or after its games (nothing to tune, a bad name)."""


@dataclass(frozen=True)
class SpsaSettings:
    """The options of `chespel spsa` (docs/reference/chespel.md#spsa defaults)."""

    iterations: int = 500
    nodes: int = 1000
    perturbation: float = 0.25
    step: float = 0.01
    seed: int = 0
    max_plies: int = 200
    openings: tuple[str, ...] = DEFAULT_OPENINGS
    freeze: tuple[str, ...] = ()
    jobs: int = 2


@dataclass(frozen=True)
class Group:
    """Numbers that share one multiplier: those of one list literal, or a single number."""

    name: str
    rule: str
    weights: tuple[Weight, ...]


@dataclass(frozen=True)
class Pairing:
    """One iteration's game pair: θ+ (the first engine) against θ−, from `opening`."""

    iteration: int
    delta: tuple[int, ...]
    plus: tuple[float, ...]
    minus: tuple[float, ...]
    opening: str


def _statements(body: tuple[ast.Stmt, ...]) -> Iterator[ast.Stmt]:
    for stmt in body:
        yield stmt
        if isinstance(stmt, (ast.If, ast.Loop)):
            yield from _statements(stmt.body)


def _constant(node: ast.Expr) -> bool:
    if isinstance(node, ast.NumLit):
        return True
    if isinstance(node, ast.Unary):
        return _constant(node.operand)
    return isinstance(node, ast.Binary) and _constant(node.left) and _constant(node.right)


def _offsets(program: ast.Program) -> set[int]:
    """`id` of every literal added to something other than a number inside a product (the
    `2` of `0.05 * (p.rank - 2)`): an offset of a count or a rank, not a score."""
    found: set[int] = set()

    def visit(node: ast.Expr, scaled: bool) -> None:
        if isinstance(node, ast.Binary) and node.op in ("+", "-"):
            if scaled and not _constant(node):
                found.update(id(e) for e in ast.walk_expressions(node)
                             if isinstance(e, ast.NumLit))
                return
            visit(node.left, scaled)
            visit(node.right, scaled)
        elif isinstance(node, ast.Binary) and node.op in ("*", "/"):
            visit(node.left, True)
            if node.op == "*":
                visit(node.right, True)
        elif isinstance(node, ast.Unary):
            visit(node.operand, scaled)
        elif isinstance(node, ast.ListLit):
            for element in node.elements:
                visit(element, scaled)
        elif isinstance(node, ast.Call) and node.receiver is not None:
            visit(node.receiver, scaled if isinstance(node.receiver, ast.ListLit) else True)

    for module in program.modules:
        for rule in module.rules:
            for stmt in _statements(rule.body):
                if isinstance(stmt, (ast.Score, ast.Let)):
                    visit(stmt.value, False)
    return found


def find_groups(program: ast.Program, freeze: Sequence[str] = ()) -> list[Group]:
    """The score numbers of the rules not in `freeze`, grouped and named, in source order."""
    rules = [rule for module in program.modules for rule in module.rules]
    known = sorted({rule.name for rule in rules})
    for name in freeze:
        if name not in known:
            raise SpsaError(with_suggestion(f"{program.path} has no rule '{name}'", name, known))
    weights, ids = find_weights(program)
    wanted = score_literals(program) - _offsets(program)
    found: list[tuple[str, str, list[Weight]]] = []
    for rule in rules:
        if rule.name in freeze:
            continue
        for stmt in _statements(rule.body):
            if not isinstance(stmt, (ast.Score, ast.Let)):
                continue
            label = f":{stmt.pos.line}"
            if isinstance(stmt, ast.Score) and isinstance(stmt.justification, ast.StrLit):
                label = " " + stmt.justification.value
            lists: set[int] = set()
            for expr in ast.walk_expressions(stmt.value):
                if isinstance(expr, ast.ListLit) and id(expr) not in lists:
                    inner = [e for e in ast.walk_expressions(expr) if id(e) in wanted]
                    lists.update(id(e) for e in ast.walk_expressions(expr))
                    name = (f" {stmt.name}" if isinstance(stmt, ast.Let) and stmt.value is expr
                            else f":{expr.pos.line}")
                    if inner:
                        found.append((rule.name + name, rule.name, [weights[ids[id(e)]]
                                                                     for e in inner]))
                elif id(expr) in wanted and id(expr) not in lists:
                    found.append((rule.name + label, rule.name, [weights[ids[id(expr)]]]))
    found.sort(key=lambda entry: (entry[2][0].line, entry[2][0].column))
    names = [entry[0] for entry in found]
    firsts = [entry[2][0] for entry in found]
    # Still the same name: the line, then the column of the group's first number.
    names = [name + f":{w.line}" if names.count(name) > 1 and not name.endswith(f":{w.line}")
             else name for name, w in zip(names, firsts, strict=True)]
    names = [name + f":{w.column}" if names.count(name) > 1 else name
             for name, w in zip(names, firsts, strict=True)]
    return [Group(name, rule, tuple(ws)) for name, (_, rule, ws) in zip(names, found, strict=True)]


def scaled(weight: Weight, multiplier: float) -> int:
    """The number's new written value (milli-units, its sign included) at `multiplier`."""
    return clamp_weight(weight.written * multiplier)


def program_for(text: str, groups: Sequence[Group], theta: Sequence[float]) -> str:
    """`text` with each group's numbers multiplied by its θ (layout and comments kept)."""
    values = {w.index: -scaled(w, m) if w.negated else scaled(w, m)
              for group, m in zip(groups, theta, strict=True) for w in group.weights}
    weights = [w for group in groups for w in group.weights]
    return rewrite(text, weights, values)


def updated(theta: Sequence[float], pairing: Pairing, score: float,
            settings: SpsaSettings) -> tuple[float, ...]:
    """θ after a pair in which θ+ scored `score` (0 … 1)."""
    gain = settings.step * (2 * score - 1) / (2 * settings.perturbation)
    return tuple(min(MAX_THETA, max(0.0, t + gain * d))
                 for t, d in zip(theta, pairing.delta, strict=True))


PairPlayer = Callable[[Pairing], float]


def optimise(count: int, settings: SpsaSettings, play: PairPlayer,
             progress: Callable[[tuple[float, ...], int], None] = lambda theta, done: None,
             stop: Callable[[], None] = lambda: None) -> tuple[float, ...]:
    """The multipliers of `count` groups after `settings.iterations` pairs, `settings.jobs`
    at a time (each batch perturbed around the θ at its start, its updates applied in
    iteration order). On any exception `stop` is called before the pairs in play are
    waited for."""
    rng = random.Random(settings.seed)
    c = settings.perturbation
    theta = (1.0,) * count
    pool = ThreadPoolExecutor(max_workers=settings.jobs, thread_name_prefix="chespel-spsa")
    finished = False
    try:
        for first in range(0, settings.iterations, settings.jobs):
            batch = []
            for k in range(first, min(first + settings.jobs, settings.iterations)):
                delta = tuple(rng.choice((-1, 1)) for _ in range(count))
                batch.append(Pairing(
                    k, delta, tuple(max(0.0, t + c * d) for t, d in zip(theta, delta, strict=True)),
                    tuple(max(0.0, t - c * d) for t, d in zip(theta, delta, strict=True)),
                    settings.openings[k % len(settings.openings)]))
            futures: list[Future[float]] = [pool.submit(play, pairing) for pairing in batch]
            for pairing, future in zip(batch, futures, strict=True):
                theta = updated(theta, pairing, future.result(), settings)
            progress(theta, batch[-1].iteration + 1)
        finished = True
    finally:
        if not finished:
            stop()
        pool.shutdown(wait=True, cancel_futures=True)
    return theta


def table(groups: Sequence[Group], theta: Sequence[float]) -> list[str]:
    """One line per group: its name, how many numbers, 1 → θ, and a single number's change."""
    rows = [(g.name, str(len(g.weights)), f"1 -> {t:.3f}",
             f"{format_num(g.weights[0].written)} -> {format_num(scaled(g.weights[0], t))}"
             if len(g.weights) == 1 else "") for g, t in zip(groups, theta, strict=True)]
    width = max(len(row[0]) for row in rows + [("group", "", "", "")])
    lines = [f"{'group':<{width}}  numbers  {'multiplier':<10}  value"]
    lines += [f"{n:<{width}}  {c:>7}  {m:<10}  {v}".rstrip() for n, c, m, v in rows]
    return lines


def moves(groups: Sequence[Group], theta: Sequence[float], done: int, total: int,
          elapsed: float) -> str:
    """A progress line: iterations, time, mean |θ−1| and the three largest moves."""
    mean = sum(abs(t - 1) for t in theta) / len(theta)
    largest = sorted(zip(groups, theta, strict=True), key=lambda gt: -abs(gt[1] - 1))[:3]
    return (f"iteration {done}/{total}, {elapsed:.0f} s: mean |theta-1| {mean:.3f}; largest: "
            + ", ".join(f"{g.name} {t:.3f}" for g, t in largest))
