"""How `path` is read (issue 19): spacing ties sets to moves, the filters after a move are
its targets, repetitions bind to a move or a group, and the parameters."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from esochess.cqlvars import ast, pathlex
from esochess.cqlvars.parser import parse_query


def _path(text: str) -> ast.Path:
    (node,) = parse_query("cql() " + text).body
    assert isinstance(node, ast.Path)
    return node


def _shape(step: ast.PathStep) -> str:
    """A compact spelling: move `L--R=P[targets]{lo,hi}`, filter `<f>`, group `(...)`."""
    def text(node: ast.Node | None) -> str:
        if node is None:
            return ""
        if isinstance(node, ast.Designator):
            return node.text
        if isinstance(node, ast.Filter):
            return node.name
        return type(node).__name__

    rep = "" if (step.low, step.high) == (1, 1) else f"{{{step.low},{step.high}}}"
    if step.kind == "group":
        return "(" + " ".join(_shape(s) for s in step.steps) + ")" + rep
    if step.kind == "filter":
        return "<" + text(step.targets[0]) + ">"
    arrow = "x" if step.capture else "--"
    promote = "=" + text(step.promote) if step.promote is not None else ""
    targets = "[" + " ".join(text(t) for t in step.targets) + "]" if step.targets else ""
    return f"{text(step.left)}{arrow}{text(step.right)}{promote}{targets}{rep}"


@pytest.mark.parametrize(("text", "shape"), [
    ("path Q--g5 check", "Q--g5[check]"),
    ("path Q -- g5 check", "<Q> --[g5 check]"),            # spaces: no ties
    ("path Q-- check", "Q--[check]"),
    ("path --g5", "--g5"),
    ("path B[x]ph7 check k[x]h7 N--g5 check", "Bxph7[check] kxh7 N--g5[check]"),
    ("⊢ ♗×♟h7 check ♚×h7 ♘――g5 check", "♗x♟h7[check] ♚xh7 ♘--g5[check]"),
    ("path check Q--", "<check> Q--"),
    ("path Q-- check {5,}", "Q--[check]{5,None}"),
    ("path (-- check)+ mate", "(--[check]){1,None} <mate>"),
    ("path [x]* --? --{2 3}", "x{0,None} --{0,1} --{2,3}"),
    ("path --e8=Q", "--e8=Q"),
    ("path P--=N", "P--=N"),
    ("path -- {x = 1} check", "--[Compound check]"),
])  # fmt: skip
def test_constituents(text: str, shape: str) -> None:
    assert " ".join(_shape(s) for s in _path(text).steps) == shape


def test_parameters() -> None:
    node = _path('path 2 5 quiet firstmatch nestban primary title "T" verbose keepallbest '
                 "focus capture [Nn] --")
    assert (node.low, node.high, node.title, node.focus_capture) == (2, 5, "T", True)
    assert node.params == {"quiet", "firstmatch", "nestban", "primary", "verbose", "keepallbest"}
    assert isinstance(node.focus, ast.Designator) and node.focus.pieces == "Nn"
    assert isinstance(_path("path max ply --").maximize, ast.Filter)
    assert _path("path lastposition singlecolor --").params == {"lastposition", "singlecolor"}


def test_dash_outside_a_path_is_the_move_filter() -> None:
    (node,) = parse_query("cql() Q--g5").body
    assert isinstance(node, ast.Move)
    (inner,) = parse_query("cql() path {Q--g5}").body
    assert isinstance(inner, ast.Path) and isinstance(inner.steps[0].targets[0], ast.Compound)


@given(st.sampled_from(["Q", "a3", "[Rr]", ")", "x"]), st.sampled_from(["", " ", "\n"]),
       st.sampled_from(["", " "]), st.sampled_from(["g5", "(", "*", "}", "=Q"]))
def test_ties_are_spacing(before: str, gap: str, gap2: str, after: str) -> None:
    """A side of a dash is tied exactly when nothing separates it from the dash."""
    text = before + gap + "--" + gap2 + after
    start = len(before + gap)
    prev = {"Q": "DESIG", "a3": "DESIG", "[Rr]": "DESIG", ")": "RPAR", "x": "IDENT"}[before]
    left, right = pathlex.dash_ties(text, start, start + 2, prev)
    assert left == (gap == "")
    assert right == (gap2 == "" and after[0] not in "(*}=")
