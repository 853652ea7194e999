"""Unit tests of the machine API: decisions, forks, turns, errors, state enumeration."""

from __future__ import annotations

import dataclasses
import random

import pytest
from gambit_lang_helpers import compiled

from esochess.gambit.hashing import state_items
from esochess.gambit.machine import Machine
from esochess.gambit.results import Committed, Decision, GambitRuntimeError, Illegal, Result
from esochess.gambit.values import UNSET, Inst


class Recorder:
    """An I/O object that keeps output and trace events."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.events: list[str] = []

    def output(self, text: str) -> None:
        self.lines.append(text)

    def trace(self, line: int, col: int, event: str) -> None:
        self.events.append(f"{line}:{col}: {event}")


COUNTER = """players 2
state int [Player score]
main() {
    p = Player[1]
    loop {
        n = p choose ("How many?") [1, 2, 3]
        p.score += n
        print(p, p.score)
        if p.score >= 5: p wins
        p = next_player(p)
    }
}
"""


def test_decision_fields_and_choose() -> None:
    io = Recorder()
    m = Machine(compiled(COUNTER), seed=1, players=2, io=io)
    d = m.run_until_decision()
    assert isinstance(d, Decision)
    assert (d.seat, d.options, tuple(d.labels), d.k, d.secret, d.prompt) == (
        1, (1, 2, 3), ("1", "2", "3"), None, False, "How many?",
    )  # fmt: skip
    assert (d.line, d.col) == (6, 15) and not d.new_turn
    m.choose(3)
    d2 = m.run_until_decision()
    assert isinstance(d2, Decision) and d2.seat == 2
    assert io.lines == ["Player 1 3"]


def test_fork_is_independent_and_silent() -> None:
    io = Recorder()
    m = Machine(compiled(COUNTER), seed=1, players=2, io=io)
    m.run_until_decision()
    f = m.fork()
    f.choose(3)
    f.run_until_decision()
    f.choose(1)
    assert isinstance(f.run_until_decision(), Decision)
    assert io.lines == []  # the fork printed nothing
    assert m.read("score", (Inst("Player", 1),)) == 0
    assert f.read("score", (Inst("Player", 1),)) == 3
    m.choose(2)
    m.run_until_decision()
    assert m.read("score", (Inst("Player", 1),)) == 2
    assert f.read("score", (Inst("Player", 1),)) == 3


def test_playing_to_the_end() -> None:
    m = Machine(compiled(COUNTER), seed=1, players=2)
    out = m.run_until_decision()
    while isinstance(out, Decision):
        m.choose(3)
        out = m.run_until_decision()
    assert isinstance(out, Result)
    assert out.line == "Player 1 wins" and out.scores() == (1.0, 0.0)
    assert m.run_until_decision() is out


def test_illegal_and_empty_choose() -> None:
    src = """players 2
main() {
    a = Player[1] choose [1, 2]
    if a == 1: illegal
    b = Player[2] choose []
}
"""
    m = Machine(compiled(src), seed=0, players=2)
    m.run_until_decision()
    f = m.fork()
    f.choose(1)
    out = f.run_until_decision()
    assert isinstance(out, Illegal) and out.seat is None and (out.line, out.col) == (4, 16)
    m.choose(2)
    out2 = m.run_until_decision()
    assert isinstance(out2, Illegal) and out2.seat == 2


def test_commit_marks_new_turns_and_can_pause() -> None:
    src = """players 1
main() {
    p = Player[1]
    commit
    a = p choose ("First") [1, 2]
    commit
    print("after")
    b = p choose ("Second") [1, 2]
    p wins
}
"""
    io = Recorder()
    m = Machine(compiled(src), seed=0, players=1, io=io)
    d = m.run_until_decision()
    assert isinstance(d, Decision) and not d.new_turn  # commit before any decision: no effect
    f = m.fork()
    f.pause_at_commit = True
    f.choose(1)
    assert isinstance(f.run_until_pause(), Committed)
    d2 = f.run_until_pause()
    assert isinstance(d2, Decision) and d2.new_turn and d2.prompt == "Second"
    m.choose(2)
    d3 = m.run_until_decision()
    assert isinstance(d3, Decision) and d3.new_turn
    assert io.lines == ["after"]


def test_runtime_error_has_call_trail() -> None:
    src = """fn inner(int x) -> num => 10 / x + 0
fn outer(int x) -> int {
    return round(inner(x))
}
main() {
    print(outer(0))
}
"""
    m = Machine(compiled(src), seed=0, players=2, io=Recorder())
    with pytest.raises(GambitRuntimeError) as exc:
        m.run_until_decision()
    err = exc.value
    assert (err.line, err.column, err.message) == (1, 30, "division by zero")
    assert err.severity == "runtime error"
    assert err.trace_lines == (
        "  called from outer at prog.gmb:3:18",
        "  called from main at prog.gmb:6:11",
    )
    extended = dataclasses.replace(err, trace_lines=(*err.trace_lines, "  while exploring x"))
    assert extended.render(src).splitlines()[-1] == "  while exploring x"


def test_trace_events() -> None:
    src = """enum Suit { HEARTS }
entity Card
fixed Suit [Card suit]
state int [round] = 1
main() {
    Card(suit: HEARTS)
    round = 2
    x = roll(6)
}
"""
    io = Recorder()
    Machine(compiled(src), seed=3, players=2, io=io, trace=True).run_until_decision()
    assert io.events[0] == "6:5: create Card#1 (suit: HEARTS)"
    assert io.events[1] == "7:5: write round = 2 (was 1)"
    assert io.events[2].startswith("8:9: roll(6) -> ")


def test_state_enumeration() -> None:
    src = """enum Suit { HEARTS }
entity Card
fixed Suit [Card suit]
state Suit [Card trump]
state int [Player coins] = 2
main() {
    Card(suit: HEARTS)
    x = Player[1] choose [1]
}
"""
    m = Machine(compiled(src), seed=0, players=2)
    m.run_until_decision()
    assert m.entity_types() == ["Player", "Card"]
    assert m.fixed_unary_props("Card") == ["suit"]
    assert m.state_props() == [("trump", ("Card",)), ("coins", ("Player",))]
    card = m.instance_list("Card")[0]
    assert m.read("trump", (card,)) is UNSET
    items = state_items(m)
    assert items["instances"]["Player"] == [{"number": 1}, {"number": 2}]
    assert items["state"]["coins"] == [(["Player#1"], 2), (["Player#2"], 2)]


def test_chance_is_seeded_and_forks_share_the_future() -> None:
    src = "main() {\n    x = Player[1] choose [1]\n    print(roll(1000), roll(1000))\n}\n"
    prog = compiled(src)
    outs = []
    for _ in range(2):
        io = Recorder()
        m = Machine(prog, seed=42, players=2, io=io)
        m.run_until_decision()
        f = m.fork()
        f.choose(1)
        f.run_until_decision()
        m.choose(1)
        m.run_until_decision()
        outs.append(io.lines)
    assert outs[0] == outs[1] and len(outs[0]) == 1



def test_chance_rng_is_made_at_the_first_draw_and_copied_on_write() -> None:
    # The RNG is random.Random(seed), made when the game first rolls; a fork made after
    # a draw continues the same stream as its parent, independently of it.
    src = ("main() {\n    print(roll(1000))\n    x = Player[1] choose [1]\n"
           "    print(roll(1000), roll(1000))\n}\n")
    io, fio = Recorder(), Recorder()
    m = Machine(compiled(src), seed=42, players=2, io=io)
    m.run_until_decision()
    f = m.fork()
    f.io = fio
    f.choose(1)
    f.run_until_decision()
    m.choose(1)
    m.run_until_decision()
    r = random.Random(42)
    first, second, third = (1 + r.randrange(1000) for _ in range(3))
    assert io.lines == [str(first), f"{second} {third}"]
    assert fio.lines == io.lines[1:]
    g = Machine(compiled(src), seed=42, players=2)
    g.reseed(7)
    assert g.rng.random() == random.Random(7).random()

def run_all_first(src: str) -> tuple[list[str], list[str]]:
    """Play a program answering every decision with option 1; (prompts, output)."""
    io = Recorder()
    m = Machine(compiled(src), seed=1, players=2, io=io)
    prompts = []
    out = m.run_until_decision()
    while isinstance(out, Decision):
        prompts.append(out.prompt or "")
        m.choose(1 if out.k is None else tuple(range(1, out.k + 1)))
        out = m.run_until_decision()
    return prompts, io.lines


def test_choices_inside_expressions() -> None:
    src = """fn f(int a) => a * 10
pick(Player p) -> int => p choose ("pick") [1, 2]
twice(Player p) -> int {
    a = pick(p)
    return a + pick(p)
}
state int [Player score]
gain(Player p) { p.score += pick(p) }
main() {
    p = Player[1]
    print(f(p choose ("direct") [3, 4]) + f(pick(p)))
    print(p choose ("again") [7, 8])
    if p choose ("cond") bool { print("yes") } else { print("no") }
    for y in p choose[2] ("two") [1, 2, 3]: print(y)
    print(twice(p) + twice(p))
    Procedure g = gain
    g(p)
    p:g()
    print(p.score)
    print(match pick(p) { 1: "one", else: "two" })
}
"""
    prompts, lines = run_all_first(src)
    assert lines == ["40", "7", "no", "1", "2", "4", "2", "one"]
    assert prompts[:5] == ["direct", "pick", "again", "cond", "two"]


def test_short_circuit_does_not_ask() -> None:
    src = """pick(Player p, str why) -> bool => p choose (why) bool
main() {
    p = Player[1]
    a = false and pick(p, "never 1")
    b = true or pick(p, "never 2")
    c = true and pick(p, "asked 1")
    x = if { c: 1, pick(p, "asked 2"): 2, else: 3 }
    y = match x { 1: pick(p, "never 3"), else: pick(p, "asked 3") }
    print(a, b, c, x, y)
}
"""
    prompts, lines = run_all_first(src)
    assert prompts == ["asked 1", "asked 2", "asked 3"]
    assert lines == ["false true false 3 false"]


def test_function_values_dispatch_at_run_time() -> None:
    src = """enum Suit { HEARTS, SPADES }
enum Rank { ACE, TWO }
entity Card
fixed Suit [Card suit]
fixed Rank [Card rank]
fn v(Card<rank: ACE> c) => 1
fn v(Card<suit: SPADES> c) => 2
fn v(Card c) => 0
fn double(int n) => n * 2
main() {
    Card c = Card(suit: HEARTS, rank: TWO)
    Card d2 = Card(suit: SPADES, rank: ACE)
    Function f = v
    Function d = double
    print(f(c), d(3))
    print(LAST)
}
"""
    io = Recorder()
    with pytest.raises(GambitRuntimeError) as exc:
        Machine(compiled(src.replace("LAST", "f(d2)")), seed=0, players=2, io=io).run_until_decision()
    assert io.lines == ["0 6"]
    assert exc.value.message.startswith("ambiguous call to 'v': v(Card<rank: ACE> c) and ")
    with pytest.raises(GambitRuntimeError) as exc2:
        Machine(compiled(src.replace("LAST", 'd("x")')), seed=0, players=2).run_until_decision()
    assert exc2.value.message == 'no overload of \'double\' accepts ("x")'


def test_notation_errors_point_at_the_literal() -> None:
    src = """struct D { num n = 0.0 }
notation D ([0-9]+)~([0-9]+) => t, a, b {
    value.n = as_integer(a) / as_integer(b)
}
main() {
    print('1~0'.n)
}
"""
    with pytest.raises(GambitRuntimeError) as exc:
        Machine(compiled(src), seed=0, players=2).run_until_decision()
    err = exc.value
    assert (err.line, err.column, err.message) == (6, 11, "division by zero")
    assert [n.render() for n in err.notes] == ["prog.gmb:3:29: note: in the notation for D"]


def test_memoised_results_respect_the_depth_limit() -> None:
    src = """fn g(int n) -> int => if { n == 0: 0, else: 1 + g(n - 1) }
main() {
    print(g(990))
    print(g(1200))
}
"""
    io = Recorder()
    with pytest.raises(GambitRuntimeError) as exc:
        Machine(compiled(src), seed=0, players=2, io=io).run_until_decision()
    assert io.lines == ["990"]
    assert exc.value.message == "call depth limit (1000) exceeded in 'g'"


def test_lookahead_forks_skip_print_arguments_other_executions_evaluate_them() -> None:
    from esochess.gambit.game import adopt, legal_options, pausing_fork

    src = """main() {
    x = Player[1] choose [1, 2]
    print([1][x])
    Player[1] wins
}
"""
    program = compiled(src)
    m = Machine(program, seed=0, players=2)
    d = m.run_until_decision()
    assert isinstance(d, Decision)
    g = m.fork()  # a plain fork evaluates print arguments like the real execution
    g.choose(2)
    with pytest.raises(GambitRuntimeError):
        g.run_until_decision()
    f = pausing_fork(m, 1)  # look-ahead does not evaluate them
    f.choose(2)
    assert isinstance(f.run_until_pause(), Result)
    # Both options are legal; the error surfaces when option 2 is played, also without
    # I/O (a playout), because a fork that skipped a print is not adopted.
    legal = legal_options(m, d)
    assert [o.key for o in legal] == [1, 2]
    assert legal[1].machine.skipped_print
    with pytest.raises(GambitRuntimeError):
        adopt(m, legal[1])


def test_a_failing_name_trait_is_a_runtime_error_when_labels_are_read() -> None:
    src = """entity Tile
fixed int [Tile n]
trait str [Tile t name] = ["a", "b"][t.n]
main() {
    Tile(n: 1)
    Tile(n: 5)
    x = Player[1] choose Tile
}
"""
    m = Machine(compiled(src), seed=0, players=2)
    d = m.run_until_decision()
    assert isinstance(d, Decision)
    with pytest.raises(GambitRuntimeError) as exc:
        list(d.labels)
    assert exc.value.message == "list index 5 out of range 1..2"


def test_the_fast_decision_maker_makes_the_dataclass() -> None:
    import dataclasses

    from esochess.gambit.results import Decision, decision

    fields = dict(seat=2, options=(1, 2), labels=("1", "2"), k=None, secret=True,
                  prompt="Which?", line=3, col=4, new_turn=False)  # fmt: skip
    made = decision(**fields)  # type: ignore[arg-type]
    assert made == Decision(**fields)  # type: ignore[arg-type]
    assert dataclasses.asdict(made) == fields
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.seat = 1  # type: ignore[misc]
