"""Code generation (§11.10): structure of the generated module, no code injection, and
properties of the compiled evaluation (sym antisymmetry, fast = verbose)."""

from __future__ import annotations

import ast as pyast
import random

import chess
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_eval_support import (
    SPEC_POSITIONAL,
    S,
    example,
    generated,
    program,
    random_walk,
    score,
    verbose,
)

from esochess.chespel.codegen import CodegenError, mangle, program_name

POSITIONAL = example("spec_positional.chp")
FULL = example("full.chp")


def imports_of(source: str) -> list[str]:
    """Every module the generated source imports."""
    tree = pyast.parse(source)
    found = []
    for node in pyast.walk(tree):
        if isinstance(node, pyast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, pyast.ImportFrom):
            found.append(node.module or "")
        elif isinstance(node, pyast.Call) and isinstance(node.func, pyast.Name):
            assert node.func.id not in ("eval", "exec", "__import__", "compile", "open")
    return found


def test_generated_module_shape() -> None:
    source = generated((example_text := SPEC_POSITIONAL.read_text()), "positional.chp")
    assert example_text
    assert imports_of(source) == ["chess", "esochess.chespel.runtime",
                                  "esochess.chespel.runtime.values"]
    for name in ("score_main", "verbose_main", "score_endgame", "verbose_endgame"):
        assert f"def {name}(ctx, c):" in source or f"def {name}(ctx, c, out):" in source
    # loops only visit the pieces their leading conditions allow (§11.10)
    assert "_scan(ctx.occupied_co[me] & ctx.board.pawns)" in source
    assert "_scan(ctx.occupied_co[me] & ctx.board.rooks)" in source
    assert "piece_map" not in source


def test_strings_and_paths_cannot_inject_code() -> None:
    hostile = "x'); import os; os._exit(3) #"
    text = (f"rule r:\n\tscore 1 \"{hostile}\";\n\tscore 2 '\"\"\" + __import__(\"os\") \\\\';\n")
    path = "we'ird\"\\name.chp"
    source = generated(text, path)
    assert imports_of(source) == ["chess", "esochess.chespel.runtime",
                                  "esochess.chespel.runtime.values"]
    prog = program(text, path)
    assert prog.source_path == path and prog.name == "we'ird\"\\name"
    assert verbose(prog, S) == [
        "score for white: 3",
        f"r: +1 {hostile}",
        "r: +2 \"\"\" + __import__(\"os\") \\\\",
    ]


def test_program_variables_cannot_clash_with_generated_names() -> None:
    prog = program("rule r:\n\tlet ctx = 1;\n\tlet _s = 2;\n\tlet _L = 3;\n\tlet c = 4;\n"
                   "\tscore ctx + _s + _L + c;\n")
    assert score(prog, S) == "score for white: 10"


def test_mangle_rejects_non_words() -> None:
    assert mangle("abc_1") == "v_abc_1"
    for bad in ("a b", "1a", "x;y", "é", ""):
        try:
            mangle(bad)
        except CodegenError:
            continue
        raise AssertionError(bad)


def test_program_names() -> None:
    assert program_name("dir/engine.chp") == "engine"
    assert program_name("engine") == "engine"


def test_loop_conditions_keep_error_order() -> None:
    # The division by zero (second condition) must be reported although the third
    # condition is false for every piece: conditions are not hoisted past one that fails.
    prog = program("rule r:\n\tpiece p with p.player == me, 1 / (p.value - p.value) > 0, "
                   "p.type == queen:\n\t\tscore 1;\n")
    lines = verbose(prog, S)
    assert lines == ["error: t.chp:3:33: runtime error: division by zero"]


def test_lifting_and_lists() -> None:
    prog = program(
        "rule r:\n\tscore me.pieces.rank.sum;\n"
        "rule q:\n\tscore [d4, e4].distance(a1).max;\n"
        "rule t:\n\tscore 0 \"\" ++ me.pieces.type.sort.reverseSort.nub ++ [$1, $2].tail;\n")
    assert verbose(prog, S) == [
        "score for white: 28",
        "r: +24",
        "q: +4",
        "t: 0 [queen, rock, knight, bishop, pawn, king][$2]",
    ]


SYMMETRIC = [POSITIONAL, example("material.chp")]


@settings(deadline=None, max_examples=40)
@given(st.integers(0, 10**6))
def test_sym_rules_are_antisymmetric(seed: int) -> None:
    # material.chp has only sym rules: the score for one colour is minus the other's.
    board = random_walk(random.Random(seed))
    prog = SYMMETRIC[1]
    assert prog.rule_score(board, chess.WHITE, 0) == -prog.rule_score(board, chess.BLACK, 0)


@settings(deadline=None, max_examples=40)
@given(st.integers(0, 10**6), st.integers(0, 15))
def test_fast_and_verbose_agree(seed: int, flags: int) -> None:
    board = random_walk(random.Random(seed))
    for prog in (POSITIONAL, FULL):
        for color in (chess.WHITE, chess.BLACK):
            fast = prog.evaluate(board, color, flags)
            assert prog.evaluate_verbose(board, color, flags)[0] == fast


def test_deeply_nested_expressions_compile() -> None:
    # CPython stops at 200 nested brackets; the front end allows 200 levels of nesting.
    nested = "1"
    for _ in range(180):
        nested = f"(1 + {nested})"
    prog = program(f"rule d:\n\tscore 0.001 * {nested} \"deep\";\n"
                   f"rule a:\n\tif (abs {'- ' * 150}me.pieces.length > 0) score 1;\n")
    assert verbose(prog, S) == ["score for white: 1.181", "d: +0.181 deep", "a: +1"]


def test_loops_with_many_variables_compile() -> None:
    # CPython refuses more than 20 nested loops in one function.
    names = [f"x{i}" for i in range(24)]
    conditions = ", ".join(f"{v} == {'abcdefgh'[i % 8]}{i // 8 + 1}" for i, v in enumerate(names))
    text = (f"rule m:\n\tcell {', '.join(names)} with {conditions}:\n"
            f"\t\tpiece p with p.cell == x23:\n\t\t\tscore 1;\n\t\tscore 2;\n")
    prog = program(text)
    assert verbose(prog, S) == ["score for white: 2", "m: +2"]
    occupied = "4k3/8/8/8/8/7p/8/4K3 w - - 0 1"  # a piece on h3, the 24th cell
    assert verbose(prog, occupied) == ["score for white: 3", "m: +1", "m: +2"]
    assert score(prog, occupied) == "score for white: 3"


def _shipped() -> list[str]:
    from test_eval_support import EXAMPLES

    return sorted(path.name for path in EXAMPLES.glob("*.chp"))


@pytest.mark.parametrize("name", _shipped())
def test_every_shipped_example_compiles_evaluates_and_searches(name: str) -> None:
    from esochess.chespel.runtime.search import Limits, Searcher

    prog = example(name)
    for seed in range(6):
        board = random_walk(random.Random(seed))
        for color in (chess.WHITE, chess.BLACK):
            fast = prog.evaluate(board, color, 0)
            assert prog.evaluate_verbose(board, color, 0)[0] == fast
    board = chess.Board("r1bqk1nr/pppp1ppp/2n5/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQ1RK1 b kq - 5 4")
    result = Searcher(prog).search(board, 0, [], Limits(depth=2))
    assert result.move in board.legal_moves
