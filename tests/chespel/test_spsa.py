"""`chespel spsa`'s logic without engines: the groups, θ → source, the update and batches."""

from __future__ import annotations

import random
import re
import threading
from collections.abc import Callable
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_eval_support import EXAMPLES

from esochess.chespel import ast
from esochess.chespel.frontend import compile_source
from esochess.chespel.runtime.values import format_num
from esochess.chespel.tuning.spsa import (
    Group,
    Pairing,
    SpsaError,
    SpsaSettings,
    find_groups,
    optimise,
    program_for,
    table,
    updated,
)
from esochess.chespel.tuning.weights import clamp_weight, find_weights

POSITIONAL = EXAMPLES / "positional.chp"
TEXT = POSITIONAL.read_text()


def _program(text: str = TEXT) -> ast.Program:
    result = compile_source(str(POSITIONAL), text)
    assert result.ok and result.program is not None
    return result.program


GROUPS = find_groups(_program())

EXPECTED = [
    ("pawnSquares t", 64), ("knightSquares t", 64), ("bishopSquares t", 64),
    ("kingSquares t", 64), ("kingSafety castled", 1),
    ("kingSafety enemy piece near the king", 1), ("kingShelter king shelter", 1),
    ("pawnStructure:81", 1), ("pawnStructure:82", 1), ("pawnStructure passed", 8),
    ("pieces rock on open column", 1), ("pieces rock on half-open column", 1),
    ("pieces bishop pair", 1), ("activeKing:104", 1), ("passedPawns passed", 8),
    ("passedPawns:110", 1), ("endgameRocks rock on open column", 1),
]


def test_groups_of_positional() -> None:
    # 4 piece-square tables, 2 passed-pawn tables and 11 single numbers, in source order.
    assert [(g.name, len(g.weights)) for g in GROUPS] == EXPECTED
    lines = [g.weights[0].line for g in GROUPS]
    assert lines == sorted(lines)
    # `0.05 * (p.rank - 2)`: the 0.05 is a parameter, the rank offset 2 is not.
    last = next(g for g in GROUPS if g.name == "passedPawns:110")
    assert last.weights[0].spelling == "0.05"
    numbers = {w.index for g in GROUPS for w in g.weights}
    weights, _ = find_weights(_program())
    two = [w for w in weights if w.line == 110 and w.spelling == "2"]
    assert two and two[0].index not in numbers


def test_names_stay_unique_on_one_line() -> None:
    text = ("module evaluation\nrule r:\n\tscore 0.1 * me.doubledPawns.length + "
            "0.2 * me.isolatedPawns.length;\n\tscore 0.3 \"x\";\n\tscore 0.4 \"x\";\n")
    names = [g.name for g in find_groups(_program(text))]
    assert names == ["r:3:8", "r:3:39", "r x:4", "r x:5"]


def test_theta_one_is_the_identical_source() -> None:
    assert program_for(TEXT, GROUPS, [1.0] * len(GROUPS)) == TEXT


def test_a_theta_program_checks_and_shows_its_new_numbers() -> None:
    theta = [0.0, 3.0] + [0.5] * (len(GROUPS) - 2)
    source = program_for(TEXT, GROUPS, theta)
    assert compile_source(str(POSITIONAL), source).ok
    assert "if (me.castled) score 0.15 \"castled\";" in source
    assert "score -0.075 * me.doubledPawns.length;" in source
    assert "score 0.025 * (p.rank - 2);" in source  # the 2 kept as written
    assert "// Piece-square tables, one list of 64 numbers per type." in source


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(0, 3), min_size=len(GROUPS), max_size=len(GROUPS)))
def test_rewritten_numbers_are_the_written_ones_times_theta(theta: list[float]) -> None:
    program = _program(program_for(TEXT, GROUPS, theta))
    weights, _ = find_weights(program)
    # The rewrite replaces numbers in place: the same literals, in the same order.
    assert len(weights) == len(find_weights(_program())[0])
    changed = set()
    for group, t in zip(GROUPS, theta, strict=True):
        for old in group.weights:
            changed.add(old.index)
            assert weights[old.index].line == old.line
            assert weights[old.index].written == clamp_weight(old.written * t), (group.name, old)
    unchanged = [w for w in find_weights(_program())[0] if w.index not in changed]
    assert [weights[w.index].spelling for w in unchanged] == [w.spelling for w in unchanged]


def test_the_table_shows_multipliers_and_single_numbers() -> None:
    theta = [1.0] * len(GROUPS)
    theta[4] = 1.5
    lines = table(GROUPS, theta)
    assert lines[0].split() == ["group", "numbers", "multiplier", "value"]
    assert re.fullmatch(r"pawnSquares t +64  1 -> 1\.000", lines[1])
    assert re.fullmatch(r"kingSafety castled +1  1 -> 1\.500 +0\.3 -> 0\.45", lines[5])


# ------------------------------------------------------------------ the update and the loop

SETTINGS = SpsaSettings(iterations=300, perturbation=0.25, step=0.01, seed=3, jobs=1)


def _favouring(group: int) -> tuple[list[Pairing], Callable[[Pairing], float]]:
    """A fake pair player: θ+ scores 1.5 of 2 when its multiplier of `group` is the larger,
    0.5 of 2 otherwise, whatever the other multipliers."""
    seen: list[Pairing] = []
    lock = threading.Lock()

    def play(pairing: Pairing) -> float:
        with lock:
            seen.append(pairing)
        return 0.75 if pairing.plus[group] > pairing.minus[group] else 0.25

    return seen, play


def test_a_result_favouring_one_group_drives_it_up() -> None:
    seen, play = _favouring(2)
    theta = optimise(5, SETTINGS, play)
    assert theta[2] == 3.0  # +0.01 per pair: at the upper clamp after 200 pairs
    # The others take ±0.01 steps whose signs do not correlate with the results.
    assert all(abs(t - 1) < 0.5 for i, t in enumerate(theta) if i != 2), theta
    assert len(seen) == 300
    assert [p.opening for p in seen[:13]] == [*SETTINGS.openings, SETTINGS.openings[0]]


def test_the_update_clamps_at_zero_and_three() -> None:
    pairing = Pairing(0, (1, -1, 1), (1.25, 0.0, 3.25), (0.75, 0.5, 2.75), "e4")
    big = replace(SETTINGS, step=10.0)
    assert updated((1.0, 0.1, 2.9), pairing, 1.0, big) == (3.0, 0.0, 3.0)
    assert updated((1.0, 0.1, 2.9), pairing, 0.0, big) == (0.0, 3.0, 0.0)
    assert updated((1.0, 1.0, 1.0), pairing, 0.5, big) == (1.0, 1.0, 1.0)
    assert updated((1.0, 1.0, 1.0), pairing, 0.75, SETTINGS) == (1.01, 0.99, 1.01)


def test_theta_minus_is_never_below_zero() -> None:
    seen, play = _favouring(0)
    optimise(3, replace(SETTINGS, iterations=40, perturbation=2.0), play)
    assert all(t >= 0 for p in seen for t in p.minus + p.plus)
    assert any(t == 0 for p in seen for t in p.minus)


def _direct(count: int, s: SpsaSettings,
            score: Callable[[tuple[float, ...], tuple[float, ...], str], float],
            ) -> tuple[float, ...]:
    """The documented order, written out: Δs drawn per iteration, a batch around one θ."""
    rng = random.Random(s.seed)
    theta = [1.0] * count
    for first in range(0, s.iterations, s.jobs):
        start = list(theta)
        for k in range(first, min(first + s.jobs, s.iterations)):
            delta = [rng.choice((-1, 1)) for _ in range(count)]
            plus = tuple(max(0, t + s.perturbation * d) for t, d in zip(start, delta, strict=True))
            minus = tuple(max(0, t - s.perturbation * d) for t, d in zip(start, delta, strict=True))
            r = score(plus, minus, s.openings[k % len(s.openings)])
            theta = [min(3.0, max(0.0, t + s.step * (2 * r - 1) * d / (2 * s.perturbation)))
                     for t, d in zip(theta, delta, strict=True)]
    return tuple(theta)


def _score(plus: tuple[float, ...], minus: tuple[float, ...], opening: str) -> float:
    """θ+ does better when its first multiplier is nearer 1.1 (a result that depends on
    where θ is, so that the batch order matters); some openings are drawn."""
    if len(opening) % 3 == 0:
        return 0.5
    return 0.75 if abs(plus[0] - 1.1) < abs(minus[0] - 1.1) else 0.25


@pytest.mark.parametrize("jobs", [1, 2, 3])
def test_batches_follow_the_documented_order(jobs: int) -> None:
    s = replace(SETTINGS, iterations=41, jobs=jobs, step=0.1)

    def play(pairing: Pairing) -> float:
        return _score(pairing.plus, pairing.minus, pairing.opening)

    assert optimise(4, s, play) == _direct(4, s, _score)
    if jobs == 2:
        assert optimise(4, s, play) != optimise(4, replace(s, jobs=1), play)


def test_a_failing_pair_stops_the_others_and_propagates() -> None:
    stopped: list[bool] = []

    def play(pairing: Pairing) -> float:
        if pairing.iteration == 3:
            raise RuntimeError("engine died")
        return 0.5

    with pytest.raises(RuntimeError, match="engine died"):
        optimise(2, replace(SETTINGS, jobs=2), play, stop=lambda: stopped.append(True))
    assert stopped == [True]


def test_progress_is_called_after_each_batch() -> None:
    calls: list[int] = []
    optimise(2, replace(SETTINGS, iterations=5, jobs=2), lambda p: 0.5,
             lambda theta, done: calls.append(done))
    assert calls == [2, 4, 5]


# ------------------------------------------------------------------ freezing

def test_freeze_removes_a_rules_groups() -> None:
    frozen = find_groups(_program(), ("pawnSquares", "pieces"))
    assert [g.name for g in frozen] == [name for name, _ in EXPECTED
                                        if not name.startswith(("pawnSquares", "pieces"))]
    theta = [2.0] * len(frozen)
    source = program_for(TEXT, frozen, theta)
    assert "if (me.bishopPair) score 0.3 \"bishop pair\";" in source
    assert "0.05, 0.05, 0, -0.25, -0.25, 0.05, 0.05, 0.05," in source
    assert "score 0.6 \"castled\"" in source


def test_freeze_names_an_unknown_rule() -> None:
    with pytest.raises(SpsaError, match=r"has no rule 'piece'; did you mean 'pieces'"):
        find_groups(_program(), ("piece",))


def test_a_program_without_score_numbers_has_no_groups() -> None:
    result = compile_source("m.chp", (EXAMPLES / "material.chp").read_text())
    assert result.program is not None
    assert find_groups(result.program) == []
    assert isinstance(GROUPS[0], Group)
    assert format_num(GROUPS[4].weights[0].written) == "0.3"
