"""Unit tests of the game model (game.py): turns, legality by look-ahead, option keys."""

from __future__ import annotations

import pytest
from gambit_scripted import ScriptMachine, committed, decision, nim, two_step
from hypothesis import given, settings
from hypothesis import strategies as st

from esochess.gambit.game import (
    candidates,
    decision_header,
    echo_line,
    ends_turn,
    legal_options,
    option_lines,
    parse_after,
    parse_key,
)
from esochess.gambit.results import Illegal, Result


def _keys(machine: ScriptMachine) -> list[object]:
    out = machine.run_until_decision()
    return [o.key for o in legal_options(machine, out)]  # type: ignore[arg-type]


def test_multi_level_backtracking_prunes_first_decision() -> None:
    # §17 check 35: only 1 and 3 have a legal completion.
    assert _keys(ScriptMachine(two_step, seats=1)) == [1, 3]


def test_second_decision_after_first_is_pruned() -> None:
    m = ScriptMachine(two_step, seats=1)
    m.choose(3)
    assert _keys(m) == [2]


def test_commit_ends_the_turn_so_first_options_are_all_legal() -> None:
    assert _keys(ScriptMachine(committed, seats=1)) == [1, 2]
    m = ScriptMachine(committed, seats=1)
    m.choose(1)
    assert _keys(m) == []


def test_legal_option_keeps_the_explored_continuation() -> None:
    m = ScriptMachine(two_step, seats=1)
    legal = legal_options(m, m.run_until_decision())  # type: ignore[arg-type]
    first = legal[0]
    assert first.outcome.prompt == "Second"  # type: ignore[union-attr]
    assert first.machine.history == [1]
    assert m.history == []  # the original is never changed


def test_ends_turn_rules() -> None:
    assert ends_turn(Result(2), 1) is True
    assert ends_turn(Illegal(1, 1), 1) is False
    assert ends_turn(decision(2, (1,)), 1) is True
    assert ends_turn(decision(1, (1,), new_turn=True), 1) is True
    assert ends_turn(decision(1, (1,)), 1) is None


def test_candidates_for_choose_k_are_lexicographic_combinations() -> None:
    d = decision(1, ("a", "b", "c"), k=2)
    assert candidates(d) == [(1, 2), (1, 3), (2, 3)]
    assert candidates(decision(1, ("a", "b"))) == [1, 2]
    assert candidates(decision(1, ("a",), k=2)) == []


def test_prompt_format() -> None:
    d = decision(1, (2, 3, 5), "Where do you play?")
    m = ScriptMachine(lambda h: d if not h else Result(2, winners=(1,)), seats=2)
    legal = legal_options(m, d)  # type: ignore[arg-type]
    assert decision_header(d) == "[Player 1] Where do you play?"
    assert option_lines(d, legal) == ["  1) 2", "  2) 3", "  3) 5"]
    assert echo_line(d, 3) == "[Player 1] Where do you play? -> 5"
    assert echo_line(decision(2, ("ROCK",), "Throw", secret=True), 1) == "[Player 2] Throw -> (secret)"
    assert decision_header(decision(2, (1, 2), k=2)) == "[Player 2] Choose: (choose 2)"
    assert echo_line(decision(2, ("a", "b"), k=2), (1, 2)) == "[Player 2] Choose: -> [a, b]"


def test_parse_key() -> None:
    plain = decision(1, (1, 2, 3))
    assert parse_key(" 2 ", plain) == 2
    assert parse_key("abc", plain) is None
    assert parse_key("", plain) is None
    assert parse_key("1 2", plain) is None
    pair = decision(1, (1, 2, 3), k=2)
    assert parse_key("3, 1", pair) == (1, 3)
    assert parse_key("3 3", pair) is None
    assert parse_key("1", pair) is None


def test_parse_after() -> None:
    assert parse_after("5,1,3+4") == [5, 1, (3, 4)]
    assert parse_after("") == []
    with pytest.raises(ValueError):
        parse_after("x")
    with pytest.raises(ValueError):
        parse_after("0")


def test_nim_script_sanity() -> None:
    m = ScriptMachine(nim(2))
    assert _keys(m) == [1, 2]


def test_empty_choose_of_the_next_turn_does_not_make_this_move_illegal() -> None:
    # §10.4: legality ends with the turn; the next player's empty choose is a run-time
    # error of the real game ("no legal move for Player 2"), not a reason to prune.
    def script(history):  # type: ignore[no-untyped-def]
        if not history:
            return decision(1, (1, 2), "Move")
        return Illegal(9, 5, seat=2) if history[0] == 1 else Illegal(7, 9)

    m = ScriptMachine(script)
    assert _keys(m) == [1]


def test_settle_names_the_player_without_a_legal_move() -> None:
    from esochess.gambit.frontend import compile_source
    from esochess.gambit.results import GambitRuntimeError
    from esochess.gambit.session import settle

    prog, _ = compile_source("main() {\n    illegal\n}\n", "p.gmb")
    assert prog is not None
    m = ScriptMachine(two_step, seats=1)
    with pytest.raises(GambitRuntimeError, match="no legal move for Player 2 \\(choose at line 2\\)"):
        settle(prog, m, Illegal(2, 5, seat=2))  # type: ignore[arg-type]
    with pytest.raises(GambitRuntimeError, match="'illegal' outside of a turn"):
        settle(prog, m, Illegal(2, 5))  # type: ignore[arg-type]


@settings(max_examples=60, deadline=None)
@given(
    picks=st.lists(st.integers(min_value=1, max_value=30), min_size=1, max_size=5, unique=True),
    seps=st.lists(st.sampled_from([" ", ",", ", ", "  ", " ,"]), min_size=5, max_size=5),
    data=st.data(),
)
def test_any_order_and_separator_of_k_indices_parses_to_the_sorted_key(
    picks: list[int], seps: list[str], data: st.DataObject
) -> None:
    order = data.draw(st.permutations(picks))
    text = " " + "".join(str(n) + seps[i] for i, n in enumerate(order)).rstrip(" ,") + " "
    d = decision(1, tuple(range(1, 31)), k=len(picks))
    assert parse_key(text, d) == tuple(sorted(picks))
    if len(picks) > 1:
        assert parse_after("+".join(map(str, order))) == [tuple(sorted(picks))]
