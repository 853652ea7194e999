"""Instance versions (versions.py): machines that set up the same instances share one, so
static results are computed once for all games; anything else gets its own."""

from __future__ import annotations

from esochess.gambit import versions
from esochess.gambit.frontend import compile_source
from esochess.gambit.hashing import state_items
from esochess.gambit.machine import Machine
from esochess.gambit.program import Program
from esochess.gambit.results import Decision
from esochess.gambit.values import Inst

SOURCE = """players 2
entity Cell
fixed int [Cell row]
entity Coin
fixed num [Coin weight]
main() {
    for r in 1..3: Cell(row: r)
    x = Player[1] choose [1, 2]
    Coin(weight: 0.5)
    y = Player[1] choose [1, 2]
}
"""


def test_the_same_setup_reaches_the_same_instance_version() -> None:
    prog, errors = compile_source(SOURCE, "v.gmb")
    assert prog is not None, errors
    a, b = Machine(prog, seed=1, players=2), Machine(prog, seed=2, players=2)
    assert a.inst_version == b.inst_version
    assert isinstance(a.run_until_decision(), Decision)
    assert isinstance(b.run_until_decision(), Decision)
    assert a.inst_version == b.inst_version
    assert a.version != b.version  # states are never shared
    three = Machine(prog, seed=1, players=3)
    assert three.inst_version != Machine(prog, seed=1, players=2).inst_version


def test_a_float_value_is_never_shared() -> None:
    prog, errors = compile_source(SOURCE, "v.gmb")
    assert prog is not None, errors
    ms = [Machine(prog, seed=s, players=2) for s in (1, 2)]
    for m in ms:
        assert isinstance(m.run_until_decision(), Decision)
        m.choose(1)
        assert isinstance(m.run_until_decision(), Decision)
    assert ms[0].inst_version != ms[1].inst_version


def test_different_values_give_different_versions() -> None:
    cell = Inst("Cell", 1)
    one = versions.after_writes(7, cell, [(1, 1)])
    assert one == versions.after_writes(7, cell, [(1, 1)])
    assert one != versions.after_writes(7, cell, [(1, 2)])
    assert one != versions.after_writes(7, cell, [(1, True)])
    assert one != versions.after_writes(7, cell, [(2, 1)])
    assert one != versions.after_writes(7, Inst("Cell", 2), [(1, 1)])
    assert versions.after_writes(7, cell, [(1, 1), (2, 3)]) != versions.after_writes(
        7, cell, [(1, 1), (2, 4)]
    )
    assert versions.after_writes(7, cell, [(1, 0.0)]) != versions.after_writes(7, cell, [(1, 0.0)])
    assert versions.interned((7, "Cell")) != versions.interned((8, "Cell"))


REPEATED = """players 2
entity Cell
fixed int [Cell row]
fixed int [Cell c tens] = c.row * 10
state Player? [Cell owner]
main() {
    for r in 1..3: Cell(row: r)
    x = Player[1] choose [1, 2]
    Cell(row: x)
    y = Player[1] choose [1, 2]
}
"""


def _played(prog: Program, seed: int, answers: list[int]) -> Machine:
    m = Machine(prog, seed=seed, players=2)
    for answer in answers:
        assert isinstance(m.run_until_decision(), Decision)
        m.choose(answer)
    m.run_until_decision()
    return m


def test_a_repeated_creation_leaves_what_the_first_one_left() -> None:
    # The second machine's creations repeat the first one's (same arguments, same
    # instance version), also after a choice that decides the arguments.
    prog, errors = compile_source(REPEATED, "r.gmb")
    assert prog is not None, errors
    for answers in ([], [1], [2]):
        first, second = _played(prog, 1, answers), _played(prog, 2, answers)
        assert second.inst_version == first.inst_version
        assert state_items(second) == state_items(first)
        assert second.instances == first.instances
    late = [_played(prog, s, [x]) for s, x in ((1, 1), (2, 2))]
    assert [m.read("tens", (Inst("Cell", 4),)) for m in late] == [10, 20]
    assert late[0].inst_version != late[1].inst_version
