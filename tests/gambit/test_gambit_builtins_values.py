"""Unit tests of values.py (display, equality, multi-values) and builtins.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from esochess.gambit import builtins as B
from esochess.gambit import types as T
from esochess.gambit.values import (
    EnumVal,
    FuncVal,
    Inst,
    StructVal,
    display,
    is_superset,
    make_multi,
    values_equal,
)

H = EnumVal("Suit", "HEARTS", 1)
S = EnumVal("Suit", "SPADES", 2)
C = EnumVal("Suit", "CLUBS", 3)


def test_display_forms() -> None:
    assert display(3.5) == "3.5" and display(2.0) == "2.0" and display(-5) == "-5"
    assert display(True) == "true" and display(None) == "none"
    assert display(("a", 1)) == '["a", 1]' and display("a") == "a"
    assert display(make_multi([S, H])) == "HEARTS&SPADES"
    assert display(Inst("Player", 2)) == "Player 2" and display(Inst("Card", 3)) == "Card#3"
    assert display(StructVal("P", ("a", "b"), (1, "x"))) == 'P(a: 1, b: "x")'
    assert display(FuncVal("double")) == "double"
    assert display(Inst("Card", 1), lambda i: "ace") == "ace"


def test_multi_values_normalise() -> None:
    assert make_multi([]) is None
    assert make_multi([H]) is H
    assert make_multi([H, H]) is H
    assert make_multi([H, S]) == make_multi([S, H])


def test_is_superset_and_equality() -> None:
    hs = make_multi([H, S])
    assert is_superset(hs, S) and not is_superset(S, hs)
    assert not values_equal(hs, S) and values_equal(2, 2.0)
    assert not values_equal(1, True) and values_equal((1, (2,)), (1, (2,)))
    assert values_equal(Inst("Card", 1), Inst("Card", 1))
    assert not values_equal(Inst("Card", 1), Inst("Token", 1))


def test_result_types() -> None:
    assert B.result_type("len", [T.STR]) == (T.INT, None)
    assert B.result_type("index_of", [T.ListT(T.INT), T.INT])[0] == T.optional(T.INT)
    assert B.result_type("pop", [T.ListT(T.STR)])[0] == T.STR
    assert B.result_type("abs", [T.NUM])[0] == T.NUM
    t, msg = B.result_type("ord", [T.INT])
    assert msg is not None and "enum member" in msg
    t, msg = B.result_type("slice", [T.ListT(T.INT)])
    assert msg is not None and "takes 3" in msg


@pytest.mark.parametrize(
    ("name", "args", "value"),
    [
        ("as_integer", [""], 0),
        ("as_integer", [" -12 "], -12),
        ("as_number", ["2.5"], 2.5),
        ("round", [2.5], 3),
        ("round", [-2.5], -3),
        ("div", [-7, 2], -4),
        ("min", [(3, 1, 2)], 1),
        ("max", [S, H], S),
        ("sort", [(C, H, S)], (H, S, C)),
        ("slice", [(1, 2, 3), 2, 3], (2, 3)),
        ("slice", [(1, 2, 3), 4, 3], ()),
        ("index_of", ["hello", "l"], 3),
        ("count", [(1, 2, 1), 1], 2),
        ("all", [()], True),
        ("some", [()], False),
        ("split", ["a,b", ","], ("a", "b")),
        ("sum", [()], 0),
    ],
)
def test_pure_builtins(name: str, args: list[object], value: object) -> None:
    assert B.PURE_IMPL[name](*args) == value


@pytest.mark.parametrize(
    ("name", "args", "phrase"),
    [
        ("as_integer", ["x1"], "is not an integer"),
        ("first", [()], "empty list"),
        ("slice", [(1,), 3, 3], "out of range"),
        ("div", [1, 0], "division by zero"),
        ("split", ["a", ""], "non-empty separator"),
    ],
)
def test_builtin_errors(name: str, args: list[object], phrase: str) -> None:
    with pytest.raises(B.BuiltinError) as exc:
        B.PURE_IMPL[name](*args)
    assert phrase in str(exc.value)


@pytest.mark.parametrize("name", sorted(B.BUILTINS))
def test_every_builtin_is_complete(name: str) -> None:
    # One table entry is the whole built-in: name, arity, signature, effects, summary and an
    # implementation of the shape its effects need. The checker and the compiler read
    # nothing else, so an entry missing a part fails here rather than in a user's program.
    b = B.BUILTINS[name]
    assert b.name == name and name.isidentifier()
    lo, hi = b.arity
    assert 0 <= lo <= hi
    assert b.summary, f"{name}: no summary"
    assert isinstance(b.impl, (B.Plain, B.Hosted, B.InPlace))
    assert callable(b.impl.fn)
    assert isinstance(b.impl, B.InPlace) == (B.Effect.MODIFIES in b.effects)
    if B.Effect.CHANCE in b.effects or B.Effect.PRINTS in b.effects:
        assert not isinstance(b.impl, B.Plain), f"{name}: effects need the host"
    if b.element_arg:
        assert hi >= 2
    # The signature answers for every allowed argument count, with a type and no crash.
    for n in range(lo, min(hi, 3) + 1):
        t, _ = B.result_type(name, [T.ERR] * n)
        assert t is not None
    if lo > 0:
        _, msg = B.result_type(name, [])
        assert msg is not None and "takes" in msg


def test_builtins_are_registered_once_and_documented() -> None:
    reference = (Path(__file__).resolve().parents[2] / "docs" / "gambit.md").read_text("utf-8")
    missing = [n for n in B.BUILTINS if f"`{n}" not in reference]
    assert not missing, f"built-ins missing from docs/gambit.md: {missing}"


@pytest.mark.parametrize("name", sorted(n for n, b in B.BUILTINS.items() if b.direct is not None))
def test_a_direct_python_builtin_gives_what_the_implementation_gives(name: str) -> None:
    import builtins
    import itertools

    b = B.BUILTINS[name]
    assert isinstance(b.impl, B.Plain) and b.direct is not None
    direct = getattr(builtins, b.direct)
    lists = [tuple(c) for n in range(4) for c in itertools.product((False, True), repeat=n)]
    for xs in lists:
        assert direct(xs) is b.impl.fn(xs)
