"""Property: whatever is done to a valid program, the front end only reports diagnostics.

The example programs are mutated by deleting, duplicating and swapping tokens and lines
and by turning tabs into spaces; `compile_source` must never raise, every diagnostic must
point inside the file, and an error-free result must annotate every expression.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from esochess.chespel import ast
from esochess.chespel.frontend import compile_source, format_report

EXAMPLES = sorted(Path("examples/chespel").glob("*.chp"))
SOURCES = [p.read_text(encoding="utf-8") for p in EXAMPLES]
TOKEN = re.compile(r"[ \t]+|\n|[A-Za-z_][A-Za-z0-9_]*|[0-9.]+|\$\w|\"[^\"\n]*\"|'[^'\n]*'|.")


def _tokens(text: str) -> list[str]:
    return TOKEN.findall(text)


def _lines(text: str) -> list[str]:
    return text.split("\n")


@st.composite
def mutated(draw: st.DrawFn) -> str:
    """A source from the examples with 1-4 random mutations."""
    text = draw(st.sampled_from(SOURCES))
    for _ in range(draw(st.integers(1, 4))):
        how = draw(
            st.sampled_from(
                ["del-tok", "dup-tok", "swap-tok", "del-line", "dup-line", "swap-line", "tabs"]
            )
        )
        parts = _tokens(text) if how.endswith("tok") else _lines(text)
        joiner = "" if how.endswith("tok") else "\n"
        if how == "tabs":
            count = draw(st.integers(1, 4))
            text = text.replace("\t", " " * count, draw(st.integers(1, 5)))
            continue
        if len(parts) < 2:
            continue
        i = draw(st.integers(0, len(parts) - 1))
        j = draw(st.integers(0, len(parts) - 1))
        if how.startswith("del"):
            del parts[i]
        elif how.startswith("dup"):
            parts.insert(i, parts[i])
        else:
            parts[i], parts[j] = parts[j], parts[i]
        text = joiner.join(parts)
    return text


def _walk(node: object) -> list[ast.Expr]:
    return list(ast.walk_expressions(node))


@settings(deadline=None, max_examples=250, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutations_give_only_diagnostics(text: str) -> None:
    result = compile_source("m.chp", text)
    line_count = text.count("\n") + 1
    for diag in result.diagnostics:
        assert diag.severity in ("error", "warning")
        assert 1 <= diag.line <= line_count + 1
        assert diag.column >= 1
        assert diag.source_line is not None
    report = format_report(result)
    if result.errors:
        assert report.splitlines()[-1].startswith("compilation failed: ")
        assert len(result.errors) <= 50
    else:
        assert result.program is not None
        for expr in _walk(result.program):
            assert result.class_of(expr) is not None


@settings(deadline=None, max_examples=60)
@given(
    st.text(
        alphabet=st.sampled_from(list("\t\n /*\"'$.e4:;()[]modulevaluationrscp1-=>")), max_size=80
    )
)
def test_arbitrary_text_gives_only_diagnostics(text: str) -> None:
    result = compile_source("m.chp", text)
    assert result.errors or result.program is not None


@pytest.mark.parametrize(
    ("expression", "header"),
    [
        ("(" * 3000 + "1" + ")" * 3000, None),
        ("1" + " + 1" * 150, None),
        (
            "1" + " + 1" * 1000,
            "F:3:8: error: expression is nested too deeply (more than 200 levels)",
        ),
        ("-" * 5000 + "1", "F:3:8: error: expression is nested too deeply (more than 200 levels)"),
        (
            "[" * 30000 + "]" * 30000,
            "F:3:8: error: expression is nested too deeply (more than 200 levels)",
        ),
    ],
    ids=["parens", "chain-150", "chain-1000", "negations", "lists-30000"],
)
def test_deep_nesting_is_a_diagnostic_not_a_crash(expression: str, header: str | None) -> None:
    result = compile_source("F", f"module evaluation\nrule r:\n\tscore {expression};\n")
    assert [d.header() for d in result.errors][:1] == ([header] if header else [])


def test_deeply_nested_blocks_are_a_diagnostic() -> None:
    def nested(count: int) -> str:
        ifs = "".join("\t" * (i + 1) + "if (true):\n" for i in range(count))
        return "module evaluation\nrule r:\n" + ifs + "\t" * (count + 1) + "score 1;\n"

    assert compile_source("F", nested(31)).ok
    deep = compile_source("F", nested(2000))
    assert [d.header() for d in deep.errors] == [
        "F:34:33: error: blocks are nested too deeply (more than 32 levels)"
    ]


def test_loop_variable_limits() -> None:
    def loop(count: int, level: int = 1, prefix: str = "v") -> str:
        names = ", ".join(f"{prefix}{i}" for i in range(count))
        return "\t" * level + f"piece {names}:\n"

    wide = compile_source("F", "module evaluation\nrule r:\n" + loop(33) + "\t\tscore 1;\n")
    assert [d.header() for d in wide.errors] == [
        "F:3:2: error: a loop may declare at most 32 variables"
    ]
    nested = "".join(loop(30, level + 1, f"l{level}_") for level in range(3))
    deep = compile_source("F", "module evaluation\nrule r:\n" + nested + "\t\t\t\tscore 1;\n")
    assert [d.header() for d in deep.errors] == [
        "F:5:4: error: too many loop variables in scope (more than 64)"
    ]
    fits = "".join(loop(32, level + 1, f"l{level}_") for level in range(2))
    assert compile_source("F", "module evaluation\nrule r:\n" + fits + "\t\t\tscore 1;\n").ok
