"""Unit tests of the controllers (players.py) against scripted games."""

from __future__ import annotations

import io

import pytest
from gambit_scripted import ScriptMachine, decision, nim, two_step

from esochess.gambit.game import legal_options
from esochess.gambit.players import (
    HumanPlayer,
    InputEnded,
    MctsPlayer,
    PlayerSpec,
    RandomPlayer,
    make_controller,
    parse_player,
    parse_players,
    seat_rng,
)
from esochess.gambit.results import Illegal, Result


class FakeTerminal:
    """Collects what a human controller writes and feeds it scripted lines."""

    def __init__(self, lines: list[str], echo: bool = True) -> None:
        self.lines = list(lines)
        self.out = io.StringIO()
        self._echo = echo

    @property
    def echo_input(self) -> bool:
        return self._echo

    def write(self, text: str) -> None:
        self.out.write(text)

    def read_line(self) -> str | None:
        return self.lines.pop(0) if self.lines else None


def _root(machine: ScriptMachine):  # type: ignore[no-untyped-def]
    d = machine.run_until_decision()
    return d, legal_options(machine, d)  # type: ignore[arg-type]


def test_seat_rng_is_the_documented_string_seed() -> None:
    import random

    assert seat_rng(7, 2).random() == random.Random("gambit:7:seat:2").random()


def test_random_player_picks_by_randrange_over_legal_options() -> None:
    m = ScriptMachine(two_step, seats=1)
    d, legal = _root(m)
    rng_a, rng_b = seat_rng(5, 1), seat_rng(5, 1)
    key = RandomPlayer(rng_a).decide(m, d, legal)  # type: ignore[arg-type]
    assert key == legal[rng_b.randrange(len(legal))].key
    assert key in (1, 3)


def test_human_protocol_reprompts_and_echoes() -> None:
    m = ScriptMachine(two_step, seats=1)
    d, legal = _root(m)
    term = FakeTerminal(["2", "0", "abc", "3"])
    key = HumanPlayer(term).decide(m, d, legal)  # type: ignore[arg-type]
    assert key == 3
    bad = "Please enter one of the listed numbers.\n"
    assert term.out.getvalue() == (
        "[Player 1] First\n  1) 1\n  3) 3\n"
        f"> 2\n{bad}> 0\n{bad}> abc\n{bad}> 3\n"
    )


def test_human_without_echo_on_a_terminal() -> None:
    m = ScriptMachine(two_step, seats=1)
    d, legal = _root(m)
    term = FakeTerminal(["1"], echo=False)
    assert HumanPlayer(term).decide(m, d, legal) == 1  # type: ignore[arg-type]
    assert term.out.getvalue().endswith("> ")


def test_human_end_of_input() -> None:
    m = ScriptMachine(two_step, seats=1)
    d, legal = _root(m)
    with pytest.raises(InputEnded, match="input ended while waiting for Player 1"):
        HumanPlayer(FakeTerminal([])).decide(m, d, legal)  # type: ignore[arg-type]


def test_human_choose_k_lists_every_option_of_a_legal_combination() -> None:
    def script(h):  # type: ignore[no-untyped-def]
        if not h:
            return decision(1, ("a", "b", "c"), "Pick", k=2)
        return Result(1, winners=(1,)) if "c" not in h[0] else Illegal(1, 1)

    m = ScriptMachine(script, seats=1)
    d, legal = _root(m)
    assert [o.key for o in legal] == [(1, 2)]
    term = FakeTerminal(["1 3", "2,1"])
    assert HumanPlayer(term).decide(m, d, legal) == (1, 2)  # type: ignore[arg-type]
    assert term.out.getvalue().startswith("[Player 1] Pick (choose 2)\n  1) a\n  2) b\n> 1 3\n")


@pytest.mark.parametrize("heap,best", [(5, 1), (6, 2), (7, 3)])
def test_mcts_finds_the_winning_nim_move(heap: int, best: int) -> None:
    m = ScriptMachine(nim(heap))
    d, legal = _root(m)
    key = MctsPlayer(seat_rng(1, 1), iterations=300).decide(m, d, legal)  # type: ignore[arg-type]
    assert key == best


def test_mcts_is_deterministic_for_a_seed() -> None:
    m = ScriptMachine(nim(9))
    d, legal = _root(m)
    picks = {
        MctsPlayer(seat_rng(3, 1), iterations=50).decide(m, d, legal)  # type: ignore[arg-type]
        for _ in range(3)
    }
    assert len(picks) == 1


def test_parse_players() -> None:
    assert parse_players("human,random,mcts:500,mcts") == [
        PlayerSpec("human"),
        PlayerSpec("random"),
        PlayerSpec("mcts", 500),
        PlayerSpec("mcts", 1000),
    ]
    assert str(parse_player("mcts:500")) == "mcts:500"
    assert str(parse_player("mcts")) == "mcts"
    for bad in ("robot", "mcts:0", "mcts:x", ""):
        with pytest.raises(ValueError):
            parse_player(bad)


def test_make_controller_kinds() -> None:
    assert make_controller(PlayerSpec("random"), 1, 1, None).name == "random"
    assert make_controller(PlayerSpec("mcts", 20), 1, 2, None).name == "mcts:20"
    with pytest.raises(ValueError):
        make_controller(PlayerSpec("human"), 1, 1, None)


def test_mcts_error_in_a_simulation_names_the_option_explored() -> None:
    # §13.2: a run-time error met during AI search gets the "while exploring" line.
    from esochess.gambit.results import GambitRuntimeError

    class Boom(ScriptMachine):
        def run_until_decision(self):  # type: ignore[no-untyped-def]
            if len(self.history) == 2 and self.history[1] == 2:
                raise GambitRuntimeError("p.gmb", 3, 9, "division by zero", severity="runtime error")
            return super().run_until_decision()

        def fork(self) -> ScriptMachine:
            return Boom(self.script, self.seats, tuple(self.history))

    m = Boom(nim(9))
    d = m.run_until_decision()
    legal = [o for o in legal_options(m, d)]  # type: ignore[arg-type]
    with pytest.raises(GambitRuntimeError) as info:
        MctsPlayer(seat_rng(1, 1), iterations=200).decide(m, d, legal)  # type: ignore[arg-type]
    assert info.value.trace_lines[-1].startswith("  while exploring option ")
    assert info.value.trace_lines[-1].endswith("of the choice at p.gmb:1:1")
