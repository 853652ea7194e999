"""Unit tests of types.py: subtyping, join, well-formedness helpers (§3)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from esochess.gambit import types as T

SUIT = T.EnumT("Suit")
COLOUR = T.EnumT("Colour")
CARD = T.EntityT("Card")
BASE = [T.INT, T.NUM, T.BOOL, T.STR, T.NONE, SUIT, COLOUR, CARD, T.ListT(T.INT),
        T.MultiT(SUIT), T.FUNCTION, T.PROCEDURE]  # fmt: skip
types = st.recursive(
    st.sampled_from(BASE),
    lambda inner: st.one_of(
        st.builds(T.ListT, inner),
        st.lists(inner, min_size=2, max_size=3).map(T.union),
    ),
    max_leaves=4,
)


def test_subtyping_rules() -> None:
    assert T.is_subtype(T.INT, T.NUM) and not T.is_subtype(T.NUM, T.INT)
    assert T.is_subtype(CARD, T.optional(CARD)) and T.is_subtype(T.NONE, T.optional(CARD))
    assert T.is_subtype(SUIT, T.MultiT(SUIT))
    assert T.is_subtype(T.MultiT(SUIT), T.optional(T.MultiT(SUIT)))
    assert T.is_subtype(T.ListT(T.INT), T.ListT(T.NUM))
    assert T.is_subtype(T.FUNCTION, T.PROCEDURE) and not T.is_subtype(T.PROCEDURE, T.FUNCTION)
    assert T.is_subtype(T.SelT("Card", 1, "Card<x>"), CARD)
    assert not T.is_subtype(T.INT, T.MultiT(SUIT))


def test_union_flattens_and_displays() -> None:
    u = T.union([T.INT, T.STR, T.INT])
    assert u == T.union([T.STR, T.INT]) and T.show(u) == "int|str"
    assert T.show(T.optional(CARD)) == "Card?"
    assert T.show(T.MultiT(SUIT)) == "Suit!"


def test_join() -> None:
    assert T.join(T.INT, T.NUM) == T.NUM
    assert T.join(CARD, T.NONE) == T.optional(CARD)
    assert T.join(T.INT, T.STR) == T.union([T.INT, T.STR])


@settings(max_examples=150, deadline=None)
@given(types, types)
def test_join_is_an_upper_bound(a: T.Type, b: T.Type) -> None:
    j = T.join(a, b)
    assert T.is_subtype(a, j) and T.is_subtype(b, j)


@settings(max_examples=150, deadline=None)
@given(types)
def test_subtyping_is_reflexive_and_any_is_top(a: T.Type) -> None:
    assert T.is_subtype(a, a) and T.is_subtype(a, T.ANY)
    assert T.overlap(a, a)


def test_element_types() -> None:
    assert T.element_type(T.ListT(CARD)) == CARD
    assert T.element_type(T.STR) == T.STR
    assert T.element_type(T.MultiT(SUIT)) == SUIT
    assert T.element_type(T.INT) is None
