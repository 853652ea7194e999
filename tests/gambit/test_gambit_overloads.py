"""Overload sets that differ by entity, by enum-valued selector and by union (§7.1-§7.5).

Overloads may differ at entity positions, and the entities themselves may differ there
(`fn g(A a)` beside `fn g(B b)`): the checker's cells carry the entity, the call accepts
any of the position's entities, and the run-time dispatch tests the instance's entity.
"""

from __future__ import annotations

from pathlib import Path

from gambit_lang_helpers import DECK, DECK_MAIN, check_source, run_source

TWO_ENTITIES = "entity A\nentity B\nfn g(A a) => 1\nfn g(B b) => 2\n"


def stdout_of(tmp_path: Path, source: str) -> list[str]:
    r = run_source(tmp_path, source)
    assert r.exit_code == 0, r.stderr
    return r.lines


def test_overloads_by_entity_run(tmp_path: Path) -> None:
    src = TWO_ENTITIES + "main() {\n    a = A()\n    b = B()\n    print(g(a), g(b))\n}\n"
    assert stdout_of(tmp_path, src)[0] == "1 2"


def test_a_union_argument_reaches_both_overloads(tmp_path: Path) -> None:
    src = TWO_ENTITIES + (
        "main() {\n    a = A()\n    b = B()\n"
        "    for x in [a, b, a]: print(g(x))\n}\n"
    )  # fmt: skip
    assert stdout_of(tmp_path, src)[:3] == ["1", "2", "1"]


def test_an_optional_entity_position_takes_none(tmp_path: Path) -> None:
    src = "entity A\nentity B\nfn g(A? a) => 1\nfn g(B b) => 2\n"
    src += "main() {\n    A? n = none\n    print(g(n), g(B()))\n}\n"
    assert stdout_of(tmp_path, src)[0] == "1 2"


def test_entities_and_selectors_mix(tmp_path: Path) -> None:
    src = DECK + "entity Joker\nfn v(Card c) => 1\nfn v(Card<rank: ACE> c) => 11\n"
    src += "fn v(Joker j) => 50\nmain() {\n" + DECK_MAIN
    src += "    print(v(Card<rank: ACE, suit: SPADES>), v(Card<rank: TWO, suit: CLUBS>), v(Joker()))\n}\n"
    assert stdout_of(tmp_path, src)[0] == "11 1 50"


def test_overloads_by_enum_value(tmp_path: Path) -> None:
    src = DECK + "fn colour(Card<suit: HEARTS> c) => \"red\"\nfn colour(Card<suit: DIAMONDS> c) => \"red\"\n"
    src += "fn colour(Card<suit: CLUBS> c) => \"black\"\nfn colour(Card<suit: SPADES> c) => \"black\"\n"
    src += "main() {\n" + DECK_MAIN
    src += "    print(colour(Card<rank: ACE, suit: HEARTS>), colour(Card<rank: TWO, suit: CLUBS>))\n}\n"
    assert stdout_of(tmp_path, src)[0] == "red black"


def test_overloads_by_union_of_values(tmp_path: Path) -> None:
    src = DECK + "fn colour(Card<suit: HEARTS|DIAMONDS> c) => \"red\"\n"
    src += "fn colour(Card<suit: CLUBS|SPADES> c) => \"black\"\n"
    src += "main() {\n" + DECK_MAIN
    src += "    print(colour(Card<rank: ACE, suit: DIAMONDS>), colour(Card<rank: TWO, suit: SPADES>))\n}\n"
    assert stdout_of(tmp_path, src)[0] == "red black"


def test_an_entity_outside_the_set_is_a_type_mismatch(tmp_path: Path) -> None:
    src = TWO_ENTITIES + "entity C\nmain() {\n    print(g(C()))\n}\n"
    r = check_source(tmp_path, src)
    assert r.exit_code == 2
    assert r.first_error == "prog.gmb:7:13: error: type mismatch: expected A|B, found C"


def test_the_same_entity_twice_is_still_a_duplicate(tmp_path: Path) -> None:
    src = "entity A\nentity B\nfn g(A a) => 1\nfn g(B b) => 2\nfn g(A x) => 3\nmain() { }\n"
    r = check_source(tmp_path, src)
    assert r.exit_code == 2
    assert r.first_error == (
        "prog.gmb:5:1: error: duplicate overload of 'g': same parameters as line 3"
    )


def test_the_ambiguity_error_is_unchanged(tmp_path: Path) -> None:
    src = DECK + "entity Joker\nfn v(Card<rank: ACE> c) => 1\nfn v(Card<suit: SPADES> c) => 2\n"
    src += "fn v(Card c) => 0\nfn v(Joker j) => 9\nfn w(Card c) => v(c)\nmain() { }\n"
    r = check_source(tmp_path, src)
    assert r.exit_code == 2
    assert r.first_error == (
        "prog.gmb:11:17: error: ambiguous call to 'v': a Card with suit SPADES and rank ACE "
        "matches v(Card<rank: ACE> c) and v(Card<suit: SPADES> c), and neither is more specific"
    )
