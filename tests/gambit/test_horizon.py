"""Horizon look-ahead: where it applies (compiler/horizon.py) and that it changes nothing.

The reference is the look-ahead of the spec before the horizon: every option explored to
the real end of its turn (the next decision of another player, `commit`, the game's end),
print arguments evaluated. Differential property: over the nine example games and random
seeds, both give the same legal options at every decision of a random game, and the same
result, decision count and state hash.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

import pytest
from gambit_lang_helpers import compiled
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from esochess.gambit import game, predicate
from esochess.gambit.frontend import compile_source
from esochess.gambit.game import adopt, legal_options
from esochess.gambit.hashing import state_hash
from esochess.gambit.machine import Machine
from esochess.gambit.program import OP_HORIZON, Program
from esochess.gambit.results import Decision, GambitRuntimeError, Result

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "gambit"
GAMES = sorted(p.stem for p in EXAMPLES.glob("*.gmb"))
DECISION_CAP = 60  # checkers and minichess run long; the cap keeps the test quick


def _program(name: str) -> Program:
    path = EXAMPLES / f"{name}.gmb"
    program, errors = compile_source(path.read_text(encoding="utf-8"), str(path))
    assert program is not None, errors
    return program


def _horizons(program: Program) -> list[int]:
    """Source lines of the horizons compiled into `main`."""
    return [ins[1][0] for ins in program.main.instrs if ins[0] == OP_HORIZON]


def _full_fork(machine: Machine, seat: int) -> Machine:
    """The reference look-ahead fork: it pauses only at a `commit`."""
    f = machine.fork()
    f.pause_at_commit = True
    return f


def _keys(machine: Machine, decision: Decision, reference: bool) -> list[object]:
    if reference:
        with mock.patch.object(game, "pausing_fork", _full_fork):
            return [o.key for o in legal_options(machine, decision)]
    return [o.key for o in legal_options(machine, decision)]


def _play(program: Program, seed: int, seats: int, reference: bool) -> tuple[list[list[object]], str, int, str]:
    """A random game: legal keys per decision, result line, decisions, state hash."""
    m = Machine(program, seed=seed, players=seats)
    rng = random.Random(seed)
    seen: list[list[object]] = []
    out = m.run_until_decision()
    while isinstance(out, Decision) and m.decisions_made < DECISION_CAP:
        if reference:
            with mock.patch.object(game, "pausing_fork", _full_fork):
                legal = legal_options(m, out)
        else:
            legal = legal_options(m, out)
        seen.append([o.key for o in legal])
        if not legal:
            break
        m, out = adopt(m, legal[rng.randrange(len(legal))])
    line = out.line if isinstance(out, Result) else type(out).__name__
    return seen, line, m.decisions_made, state_hash(m)


def test_the_turn_loops_of_the_examples_get_a_horizon() -> None:
    found = {name: _horizons(_program(name)) for name in GAMES}
    assert found["tic-tac-toe"] and found["connect-four"] and found["nim"]
    assert found["checkers"] and found["minichess"]
    # Two players decide in one loop: the next decision may be the explored player's.
    assert found["rock-paper-scissors"] == []


def test_a_loop_that_does_not_advance_the_player_gets_no_horizon() -> None:
    src = """main() {
    current = Player[1]
    loop {
        x = current choose [1, 2]
        if x == 2: current wins
    }
}
"""
    assert _horizons(compiled(src)) == []


def test_an_illegal_before_the_next_decision_keeps_the_horizon_away() -> None:
    src = """state int [count]
main() {
    current = Player[1]
    loop {
        if count > 3: illegal
        x = current choose [1, 2]
        count += x
        current = next_player(current)
    }
}
"""
    assert _horizons(compiled(src)) == []


def test_with_one_player_the_horizon_is_ignored() -> None:
    # next_player(p) is p with one player: the turn goes on, so look-ahead must see the
    # next decision, exactly as the full look-ahead does.
    src = """players 1..2
state int [left]
main() {
    left = 2
    current = Player[1]
    loop {
        x = current choose 1..left
        left -= x
        current = next_player(current)
    }
}
"""
    program = compiled(src)
    assert _horizons(program)
    m = Machine(program, seed=0, players=1)
    d = m.run_until_decision()
    assert isinstance(d, Decision)
    assert _keys(m, d, reference=False) == _keys(m, d, reference=True)
    m2 = Machine(program, seed=0, players=2)
    d2 = m2.run_until_decision()
    assert isinstance(d2, Decision)
    assert _keys(m2, d2, reference=False) == _keys(m2, d2, reference=True) == [1, 2]


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000))
def test_horizon_and_full_lookahead_agree(name: str, seed: int) -> None:
    program = _program(name)
    low, high = program.players_range
    seats = low + seed % (min(high, 4) - low + 1)
    assert _play(program, seed, seats, reference=False) == _play(program, seed, seats, reference=True)


def _outcome(out: object) -> object:
    if isinstance(out, Decision):
        return ("decision", out.seat, out.options, out.line, out.col, out.new_turn)
    return repr(out)


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000))
def test_resuming_after_a_legality_predicate_is_running_the_option(name: str, seed: int) -> None:
    """A predicate-legal option is played from where its test stopped (predicate.resume);
    that leaves the same state, locals and next outcome as running the option again."""
    program = _program(name)
    low, _ = program.players_range
    m = Machine(program, seed=seed, players=low)
    rng = random.Random(seed)
    out = m.run_until_decision()
    resumed = 0
    while isinstance(out, Decision) and m.decisions_made < DECISION_CAP:
        legal = legal_options(m, out)
        if not legal:
            break
        for option in legal:
            if option.resume is None:
                continue
            resumed += 1
            a, b = m.fork(), m.fork()
            a_next = adopt(a, option)[1]
            b.choose(option.key)
            b_next = b.run_until_decision()
            assert _outcome(a_next) == _outcome(b_next)
            assert state_hash(a) == state_hash(b)
            assert [f.locals for f in a.frames] == [f.locals for f in b.frames]
        m, out = adopt(m, legal[rng.randrange(len(legal))])
    assert resumed or name not in ("tic-tac-toe", "connect-four")


@contextlib.contextmanager
def predicates(generated: bool) -> Iterator[None]:
    """Legality scans made afresh, as generated code or (False) as the instruction loop."""
    predicate._MADE.clear()
    real = predicate._generated
    try:
        with mock.patch.object(
            predicate, "_generated", real if generated else (lambda instrs, pc, stop: None)
        ):
            yield
    finally:
        predicate._MADE.clear()


def _scanned(
    program: Program, generated: bool, steps: int, last: bool
) -> tuple[list[list[object]], predicate.Scan]:
    """The legal keys of the first `steps` decisions of a two-player game (playing the
    last legal option, or option `step` modulo their number), each decided by the one
    legality scan of its `choose`, made as generated code or not; and that scan."""
    with predicates(generated):
        m = Machine(program, seed=0, players=2)
        out = m.run_until_decision()
        keys: list[list[object]] = []
        for step in range(steps):
            assert isinstance(out, Decision)
            assert predicate.predicate_stop(m) is not None
            legal = legal_options(m, out)
            keys.append([o.key for o in legal])
            m, out = adopt(m, legal[-1 if last else step % len(legal)])
        scans = [fn for _, fn in predicate._MADE.values()]
    assert len(scans) == 1
    return keys, scans[0]


def test_generated_predicates_agree_with_running_the_instructions() -> None:
    """predicate.py turns a predicate's instructions into one function; with an `if`/`else`
    in the test (a forward jump over the `else`), it decides as the instruction loop does."""
    src = """players 2
state int [total] = 0
main() {
    current = Player[1]
    loop {
        x = current choose 1..6
        if x % 2 == 0 {
            if x > total + 3: illegal
        } else {
            y = x * 2
            if y == 6: illegal
        }
        total += x
        current = next_player(current)
    }
}
"""
    program = compiled(src)
    expected, scan = _scanned(program, True, 4, last=True)
    # The `else` is a jump out of the `if`'s lines: skip-index lines (`s`) there.
    assert "s" in scan.__code__.co_varnames
    seen, _ = _scanned(program, False, 4, last=True)
    assert seen == expected == [[1, 2, 5], [1, 2, 4, 5, 6], [1, 2, 4, 5, 6], [1, 2, 4, 5, 6]]


def test_nested_ifs_in_a_predicate_become_nested_python_ifs() -> None:
    """Where each `if` of a legality test (no `else`) skips only lines inside it, the
    generated scan is nested Python `if`s with no skip index `s` (nor the jump to the next
    line a block ends with); it decides as the instruction loop does, on both engines."""
    src = """players 2
state int [total] = 0
main() {
    current = Player[1]
    loop {
        x = current choose 1..9
        y = x * 3
        if x % 2 == 0 {
            if x > total % 7 + 2: illegal
            z = y + total
            if z % 5 == 0 {
                if x != 8: illegal
            }
        }
        if y == 9: illegal
        total += x
        current = next_player(current)
    }
}
"""
    seen = []
    for engine in ("compiled", "interpreter"):
        program, errors = compile_source(src, "p.gmb", engine)
        assert program is not None, errors
        for generated in (True, False):
            keys, scan = _scanned(program, generated, 8, last=False)
            assert not generated or "s" not in scan.__code__.co_varnames
            seen.append(keys)
    assert all(keys == seen[0] for keys in seen)
    # Each `illegal` decides somewhere: 3 (y == 9), 4 and 6 (x > total % 7 + 2), 8 (z % 5).
    assert seen[0] == [[1, 2, 5, 7, 9]] * 5 + [[1, 4, 5, 7, 9], [1, 2, 4, 5, 6, 7, 9],
                                              [1, 4, 5, 6, 7, 8, 9]]  # fmt: skip


def test_a_run_time_error_in_a_legality_predicate_names_the_option_on_both_engines() -> None:
    """The one generated scan of a decision site (its expressions pasted in on the
    compiled engine) reports an option's run-time error as the look-ahead fork would."""
    src = """players 2
main() {
    current = Player[1]
    loop {
        x = current choose 1..5
        if 12 / (x - 3) > 5: illegal
        current = next_player(current)
    }
}
"""
    seen = []
    for engine in ("compiled", "interpreter"):
        for generated in (True, False):
            program, errors = compile_source(src, "p.gmb", engine)
            assert program is not None, errors
            with predicates(generated):
                m = Machine(program, seed=0, players=2)
                out = m.run_until_decision()
                assert isinstance(out, Decision)
                assert predicate.predicate_stop(m) is not None
                with pytest.raises(GambitRuntimeError) as info:
                    legal_options(m, out)
                seen.append((info.value.message, info.value.trace_lines))
    assert all(s == seen[0] for s in seen)
    assert seen[0][0] == "division by zero"
    assert seen[0][1][-1] == "  while exploring option 3 of the choice at p.gmb:5:21"


@pytest.mark.parametrize("name", ["tic-tac-toe", "connect-four", "checkers", "nim"])
def test_a_random_pick_is_the_pick_among_all_legal_options(name: str) -> None:
    """game.random_pick draws the option `legal_options` and `randrange` would (it makes
    only the picked option), whether legality is a predicate or look-ahead on forks."""
    source = (EXAMPLES / f"{name}.gmb").read_text(encoding="utf-8")
    program, errors = compile_source(source, f"{name}.gmb")
    assert program is not None, errors
    m = Machine(program, seed=5, players=program.players_range[0])
    out = m.run_until_decision()
    for step in range(12):
        if not isinstance(out, Decision):
            break
        legal = legal_options(m, out)
        pick = game.random_pick(m, out, random.Random(step))
        assert pick is not None
        assert pick.key == legal[random.Random(step).randrange(len(legal))].key
        m, out = adopt(m, pick)


@pytest.mark.parametrize("name", ["tic-tac-toe", "connect-four", "checkers", "nim", "war"])
@pytest.mark.parametrize("rejection", [False, True])
def test_play_random_is_the_pick_then_adopt(name: str, rejection: bool) -> None:
    """game.play_random plays what `random_pick` (or `random_legal_option`) and `adopt`
    would play, drawing the same numbers, whether legality is a predicate or not."""
    source = (EXAMPLES / f"{name}.gmb").read_text(encoding="utf-8")
    program, errors = compile_source(source, f"{name}.gmb")
    assert program is not None, errors
    seats = program.players_range[0]
    machines = [Machine(program, seed=5, players=seats) for _ in range(2)]
    outs = [m.run_until_decision() for m in machines]
    rngs = [random.Random(9), random.Random(9)]
    pick = game.random_legal_option if rejection else game.random_pick
    for _ in range(60):
        if not isinstance(outs[0], Decision):
            break
        assert isinstance(outs[1], Decision)
        picked = pick(machines[0], outs[0], rngs[0])
        played = game.play_random(machines[1], outs[1], rngs[1], rejection=rejection)
        assert (picked is None) == (played is None)
        if picked is None or played is None:
            break
        machines[0], outs[0] = adopt(machines[0], picked)
        machines[1], outs[1] = played
        assert outs[0] == outs[1]
        assert state_hash(machines[0]) == state_hash(machines[1])
    assert rngs[0].random() == rngs[1].random()
