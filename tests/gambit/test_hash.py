"""State hashing (hashing.py, §11.5): encoding, canonical JSON, stability across runs."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from esochess.gambit.frontend import compile_source
from esochess.gambit.hashing import encode, state_document, state_hash
from esochess.gambit.machine import Machine
from esochess.gambit.results import Decision
from esochess.gambit.session import random_playout
from esochess.gambit.values import UNSET, EnumVal, FuncVal, Inst, StructVal, make_multi

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "gambit"
CAPS = {"checkers": 24, "minichess": 16}
NAMES = [
    "nim", "tic-tac-toe", "connect-four", "rock-paper-scissors", "war", "blackjack",
    "checkers", "minichess", "card-attack",
]  # fmt: skip


def program(name: str):  # type: ignore[no-untyped-def]
    prog, errors = compile_source((EXAMPLES / f"{name}.gmb").read_text(), f"{name}.gmb")
    assert prog is not None, errors
    return prog


def test_value_encoding() -> None:
    hearts = EnumVal("Suit", "HEARTS", 3)
    spades = EnumVal("Suit", "SPADES", 4)
    assert encode(3) == 3 and encode(True) is True and encode("x") == "x"
    assert encode(2.0) == 2.0 and isinstance(encode(2.0), float)
    assert encode(None) is None
    assert encode(hearts) == {"enum": "Suit.HEARTS"}
    assert encode(make_multi([spades, hearts])) == {"multi": ["Suit.HEARTS", "Suit.SPADES"]}
    assert encode(Inst("Card", 3)) == {"e": "Card#3"}
    assert encode((1, (Inst("Card", 1),))) == [1, [{"e": "Card#1"}]]
    pool = StructVal("Pool", ("red", "green"), (1, 0))
    assert encode(pool) == {"struct": "Pool", "fields": {"red": 1, "green": 0}}
    assert encode(FuncVal("double")) == {"fn": "double"}
    assert encode(UNSET) == {"unset": True}


def test_hash_is_sha256_prefix_of_canonical_json() -> None:
    m = Machine(program("nim"), seed=0, players=2)
    m.run_until_decision()
    doc = state_document(m)
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    assert state_hash(m) == hashlib.sha256(text.encode()).hexdigest()[:16]
    assert [e["index"] for e in doc["instances"]["Heap"]] == [1, 2, 3]
    assert doc["instances"]["Player"] == [{"number": 1}, {"number": 2}]
    assert doc["state"]["size"] == [[["Heap#1"], 3], [["Heap#2"], 4], [["Heap#3"], 5]]


def _play(m: Machine, keys: list[int]) -> Machine:
    out = m.run_until_decision()
    for k in keys:
        assert isinstance(out, Decision)
        m.choose(k)
        out = m.run_until_decision()
    return m


def test_same_game_state_same_hash_whatever_the_path() -> None:
    # Nim: take 1 from heap 1 then 1 from heap 2, or the other way round.
    a = _play(Machine(program("nim"), seed=0, players=2), [1, 1, 2, 1])
    b = _play(Machine(program("nim"), seed=0, players=2), [2, 1, 1, 1])
    c = _play(Machine(program("nim"), seed=0, players=2), [2, 2, 1, 1])
    assert state_hash(a) == state_hash(b)
    assert state_hash(a) != state_hash(c)


def test_fork_has_the_same_hash() -> None:
    m = _play(Machine(program("tic-tac-toe"), seed=0, players=2), [5, 1])
    assert state_hash(m.fork()) == state_hash(m)


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=3, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_state_hash_is_stable_across_runs(name: str, seed: int) -> None:
    prog = program(name)
    seats = prog.players_range[0]
    cap = CAPS.get(name, 10_000)
    first_result, first = random_playout(prog, seed, seats, cap)
    again_result, again = random_playout(prog, seed, seats, cap)
    assert first_result.line == again_result.line
    assert state_hash(first) == state_hash(again)
    assert len(state_hash(first)) == 16
