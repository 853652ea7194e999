"""The filter table (filters.py) against every stage that reads it: lexer, grammar,
parser, checker, transforms, evaluator and the reference. A filter added to the table
and missed by a stage (or a stage that still special-cases a table keyword) fails here."""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

import chess
import pytest

from esochess.cqlvars import ast, lexer
from esochess.cqlvars.checker import check_query
from esochess.cqlvars.engine import compile_query
from esochess.cqlvars.filters import FILTERS, FilterSpec, Syntax
from esochess.cqlvars.model import Ctx, GameModel
from esochess.cqlvars.parser import parse_query, tokenize
from esochess.cqlvars.qtypes import LOGICAL, NUMERIC, POSITION, SET, STRING
from esochess.cqlvars.transforms import expand_body

ROOT = Path(__file__).resolve().parents[2]
#: An argument of each type that always has a value on the test game.
SAMPLE = {SET: "e1", NUMERIC: "1", POSITION: "currentposition", STRING: '"12"', LOGICAL: "check"}
SPECS = sorted(FILTERS.values(), key=lambda s: s.keyword)


def _call(spec: FilterSpec) -> str:
    """The filter written with one sample argument per parameter."""
    args = [SAMPLE[types[0]] for types in spec.params]
    if spec.syntax is Syntax.BARE:
        return spec.keyword
    if spec.syntax in (Syntax.ARGS, Syntax.OPTIONAL_ARGS):
        return f"{spec.keyword} ({' '.join(args)})"
    return f"{spec.keyword} {args[0]}"


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.keyword)
def test_lexer_gives_the_token_of_its_syntax(spec: FilterSpec) -> None:
    assert spec.keyword in lexer.KEYWORDS and spec.keyword not in lexer.TIER2_KEYWORDS
    assert spec.keyword not in lexer.SYNTAX_KEYWORDS  # no second, special-cased meaning
    token = tokenize(f"cql() {spec.keyword}")[-1]
    assert (token.type, str(token)) == (spec.syntax.value, spec.keyword)


def test_the_grammar_names_no_table_keyword() -> None:
    grammar = resources.files("esochess.cqlvars").joinpath("grammar.lark").read_text()
    terminals = set(re.findall(r"\b[A-Z][A-Z0-9]+\b", grammar))
    assert not terminals & {name.upper() for name in FILTERS}
    assert {syntax.value for syntax in Syntax} <= terminals


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.keyword)
def test_parser_and_checker_follow_the_entry(spec: FilterSpec) -> None:
    query = parse_query(f"cql() {_call(spec)}")
    node = query.body[0]
    assert isinstance(node, ast.Filter) and node.name == spec.keyword
    assert len(node.args) == len(spec.params)
    checked = check_query(query, "q", "")
    assert checked.type_of(checked.body[0]) == spec.result


@pytest.mark.parametrize("spec", [s for s in SPECS if s.params and
                                  any(t not in s.params[0] for t in (STRING, SET, NUMERIC))],
                         ids=lambda s: s.keyword)
def test_checker_refuses_a_wrong_argument(spec: FilterSpec) -> None:
    wrong = next(t for t in (STRING, SET, NUMERIC) if t not in spec.params[0])
    text = _call(spec).replace(SAMPLE[spec.params[0][0]], SAMPLE[wrong], 1)
    with pytest.raises(Exception, match=f"'{spec.keyword}' requires"):
        compile_query("q", f"cql() {text}")


@pytest.mark.parametrize("spec", [s for s in SPECS if s.syntax is Syntax.ARGS],
                         ids=lambda s: s.keyword)
def test_checker_counts_arguments(spec: FilterSpec) -> None:
    with pytest.raises(Exception, match=f"'{spec.keyword}' takes"):
        compile_query("q", f"cql() {spec.keyword} ({SAMPLE[spec.params[0][0]]})")


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.keyword)
def test_colour_reversal_follows_the_entry(spec: FilterSpec) -> None:
    query = parse_query(f"cql() flipcolor {_call(spec)}")
    checked = check_query(query, "q", "")
    variants = expand_body(checked.body, checked.types)[0]
    assert isinstance(variants, ast.Variants)
    mirrored = variants.variants[1]
    if spec.keyword == "currenttransform":  # it becomes the name of its variant
        assert mirrored == ast.TransformName(mirrored.span, ("reversecolor",))
        return
    assert isinstance(mirrored, ast.Filter)
    assert mirrored.name == (spec.reversed or spec.keyword)
    if spec.reversed is not None:
        assert FILTERS[spec.reversed].reversed == spec.keyword


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.keyword)
def test_evaluator_compiles_and_runs_the_entry(
    spec: FilterSpec, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "12").write_text("twelve\n")  # the sample string names a file readfile reads
    compiled = compile_query("q", f"cql() {_call(spec)}")
    board = chess.Board()
    move = chess.Move.from_uci("e2e4")
    model = GameModel({"Date": "2018.01.01"}, board, [-1, 0], [None, move])
    for pos in (0, 1):
        ctx = Ctx(model, 1, [None] * compiled.slot_count, compiled.new_state().persistent, pos=pos)
        compiled.body(ctx)  # any value or none, but no exception


def test_every_table_filter_is_documented() -> None:
    reference = (ROOT / "docs" / "reference" / "cql.md").read_text()
    missing = [name for name in FILTERS if f"`{name}" not in reference]
    assert not missing
