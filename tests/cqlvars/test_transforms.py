"""Transforms (spec §4.4.20) as AST rewrites: group sizes, square maps, directions, colours."""

from __future__ import annotations

import chess
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from esochess.cqlvars import ast
from esochess.cqlvars.checker import check_query
from esochess.cqlvars.parser import parse_query
from esochess.cqlvars.transforms import expand_body, group, named_squares


def variants(text: str) -> tuple[ast.Node, ...]:
    query = parse_query("cql() " + text)
    checked = check_query(query, "q", text)
    (node,) = expand_body(checked.body, checked.types)
    assert isinstance(node, ast.Variants)
    return node.variants


@pytest.mark.parametrize(("kind", "size"), [
    ("flipvertical", 2), ("fliphorizontal", 2), ("rotate90", 4), ("flip", 8), ("flipcolor", 2),
])
def test_group_sizes_identity_first(kind: str, size: int) -> None:
    elements = group(kind, 0)
    assert len(elements) == size
    mapping, swap = elements[0]
    assert mapping(2, 5) == (2, 5) and not swap


@settings(deadline=None, max_examples=30)
@given(st.sampled_from(["flipvertical", "fliphorizontal", "rotate90", "flip", "flipcolor"]))
def test_symmetries_permute_the_board(kind: str) -> None:
    for mapping, _ in group(kind, 0):
        image = {mapping(x, y) for x in range(8) for y in range(8)}
        assert image == {(x, y) for x in range(8) for y in range(8)}


def test_rotate90_takes_a1_around_the_corners() -> None:
    squares = [v.squares for v in variants("rotate90 Ka1") if isinstance(v, ast.Designator)]
    assert squares == [chess.BB_A1, chess.BB_A8, chess.BB_H8, chess.BB_H1]


def test_flipcolor_swaps_colours_sides_and_results() -> None:
    ident, mirrored = variants('flipcolor { wtm Ke1 result 1-0 player white "X" move promote Q }')
    assert isinstance(mirrored, ast.Compound)
    simple, desig, result, player, move = mirrored.elements
    assert isinstance(simple, ast.Filter) and simple.name == "btm"
    assert isinstance(desig, ast.Designator) and desig.pieces == "k"
    assert desig.squares == chess.BB_E8
    assert isinstance(result, ast.GameInfo) and result.literal == "0-1"
    assert isinstance(player, ast.GameInfo) and player.color == "black"
    assert isinstance(move, ast.Move) and isinstance(move.promote, ast.Designator)
    assert move.promote.pieces == "q"


def test_ray_directions_follow_the_map() -> None:
    rays = [v for v in variants("flipvertical ray up northeast (R k)") if isinstance(v, ast.Ray)]
    assert rays[0].directions == ("up", "northeast")
    assert rays[1].directions == ("down", "southeast")


def test_shift_keeps_named_squares_on_the_board() -> None:
    assert len(group("shifthorizontal", chess.BB_A2 | chess.BB_H2)) == 1
    assert len(group("shifthorizontal", chess.BB_A2)) == 8
    assert len(group("shiftvertical", chess.BB_E4 | chess.BB_E5)) == 7
    assert len(group("shift", 0)) == 1
    assert named_squares(parse_query("cql() { Pe4 pe5 K }").body[0]) == chess.BB_E4 | chess.BB_E5


@settings(deadline=None, max_examples=40)
@given(st.sampled_from(chess.SQUARE_NAMES))
def test_shift_variants_are_distinct_translations(square: str) -> None:
    translated = [v.squares for v in variants(f"shift K{square}") if isinstance(v, ast.Designator)]
    assert len(translated) == 64 and len(set(translated)) == 64


# --- compositions: T1 T2 {F} ⊇ T2 {F} whenever T1 includes the identity (issue 19); every
# transform does, so T1 T2 {F} ⊇ T1 {F} too (the one `shift flip` broke) ------------------

TRANSFORMS = ["shift", "shifthorizontal", "shiftvertical", "flip", "flipvertical",
              "fliphorizontal", "rotate90", "flipcolor"]  # fmt: skip
FILTERS = ["{ Kg1 }", "{ Kg1 Rf1 }", "{ Pe4 }", "{ Q attacks k }", "{ ray up (R a1-8) }",
           "{ Nc3 btm }", "{ Ka-h1 }", "{ Bb5 Nc6 }"]  # fmt: skip


def _matching_positions(query: str, games: list[str]) -> set[tuple[int, int]]:
    from esochess.cqlvars.engine import compile_query
    from esochess.cqlvars.light import LightModel, read_light
    from esochess.cqlvars.model import Ctx

    compiled = compile_query("q.cql", query)
    found = set()
    for number, text in enumerate(games):
        game = read_light(text)
        assert game is not None
        model = LightModel(game)
        ctx = Ctx(model, number, [None] * compiled.slot_count, compiled.new_state().persistent)
        for pos in range(len(model)):
            ctx.pos = pos
            if compiled.body(ctx):
                found.add((number, pos))
    return found


def _shipped_games() -> list[str]:
    from pgn_data import LICHESS

    from esochess.cqlvars import pgnio

    return [g.text for g in pgnio.iter_games([str(LICHESS)], last=4)]


GAMES = _shipped_games()


@settings(deadline=None, max_examples=25)
@given(st.sampled_from(TRANSFORMS), st.sampled_from(TRANSFORMS), st.sampled_from(FILTERS))
def test_an_outer_transform_only_adds_matches(outer: str, inner: str, body: str) -> None:
    composed = _matching_positions(f"cql() {outer} {inner} {body}", GAMES)
    assert _matching_positions(f"cql() {inner} {body}", GAMES) <= composed
    assert _matching_positions(f"cql() {outer} {body}", GAMES) <= composed


def test_shift_flip_translates() -> None:
    # The reported case: White king on f1; `shift flip { Kg1 }` must match like `shift`.
    game = ['[SetUp "1"]\n[FEN "8/8/8/8/8/8/8/4kK2 w - - 0 1"]\n\n*\n']
    for query in ("shift { Kg1 }", "shift flip { Kg1 }", "flip shift { Kg1 }"):
        assert _matching_positions(f"cql() {query}", game) == {(0, 0)}, query


@pytest.mark.parametrize("outer", ["shift", "shifthorizontal", "shiftvertical"])
@pytest.mark.parametrize("inner", ["flip", "flipvertical", "fliphorizontal", "rotate90",
                                   "flipcolor"])  # fmt: skip
def test_shifts_of_symmetries_include_the_symmetries(outer: str, inner: str) -> None:
    composed = _matching_positions(f"cql() {outer} {inner} {{ Kg1 }}", GAMES)
    assert _matching_positions(f"cql() {inner} {{ Kg1 }}", GAMES) <= composed
    assert _matching_positions(f"cql() {outer} {{ Kg1 }}", GAMES) <= composed


#: Filters that name no square, so `rotate45` may turn them.
UNNAMED = ["{ up 1 K }", "{ ray diagonal (B k) }", "{ Q attacks k }", "{ wtm check }",
           "{ horizontal 2 P & p }"]  # fmt: skip


@settings(deadline=None, max_examples=20)
@given(st.sampled_from([*TRANSFORMS, "rotate45"]),
       st.sampled_from([*TRANSFORMS, "rotate45", "reversecolor"]), st.sampled_from(UNNAMED))
def test_rotate45_and_reversecolor_compose_like_the_others(outer: str, inner: str,
                                                           body: str) -> None:
    composed = _matching_positions(f"cql() {outer} {inner} {body}", GAMES)
    assert _matching_positions(f"cql() {inner} {body}", GAMES) <= composed


def test_rotate45_turns_directions_and_reversecolor_drops_the_identity() -> None:
    assert group("rotate45", 0)[0][0](2, 5) == (2, 5) and len(group("rotate45", 0)) == 8
    assert [swap for _, swap in group("reversecolor", 0)] == [True]
    ups = variants("rotate45 up 1 K")
    assert [v.directions for v in ups if isinstance(v, ast.Direction)] == [
        (d,) for d in ("up", "northeast", "right", "southeast", "down", "southwest", "left",
                       "northwest")
    ]
