"""Invariants of the front end on the shipped programs (hypothesis).

* Every AST position points at the text it names (operators, names, keywords).
* A comment line or blank line may be inserted anywhere: still no diagnostic.
* Replacing the tabs of a line where a construct starts by spaces gives exactly E01 there;
  doing it on a continuation line changes nothing.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from esochess.chespel import ast
from esochess.chespel.frontend import compile_source

EXAMPLES = sorted(Path("examples/chespel").glob("*.chp"))
SOURCES = {p.name: p.read_text(encoding="utf-8") for p in EXAMPLES}


def _program(name: str) -> ast.Program:
    result = compile_source(name, SOURCES[name])
    assert result.program is not None and result.ok
    return result.program


def _construct_lines(program: ast.Program) -> set[int]:
    """Lines on which a module header, parameter, opening rule, rule or statement starts."""
    lines: set[int] = set()

    def statements(body: tuple[ast.Stmt, ...]) -> None:
        for stmt in body:
            lines.add(stmt.pos.line)
            if isinstance(stmt, ast.Loop) or (isinstance(stmt, ast.If) and not stmt.inline):
                statements(stmt.body)

    for module in program.modules:
        lines.add(module.pos.line)
        lines.update(p.pos.line for p in module.parameters)
        lines.update(o.pos.line for o in module.openings)
        for rule in module.rules:
            lines.add(rule.pos.line)
            statements(rule.body)
    return lines


def test_positions_point_at_their_text() -> None:
    for name, text in SOURCES.items():
        lines = text.split("\n")

        def at(pos: ast.Pos, lines: list[str] = lines) -> str:
            return lines[pos.line - 1][pos.column - 1 :]

        program = _program(name)
        for expr in ast.walk_expressions(program):
            if isinstance(expr, (ast.Binary, ast.Unary)):
                assert at(expr.pos).startswith(expr.op), (name, expr.pos)
            elif isinstance(expr, (ast.Call, ast.Name)):
                assert at(expr.pos).startswith(expr.name), (name, expr.pos)
            elif isinstance(expr, ast.NumLit):
                assert at(expr.pos).startswith(expr.spelling), (name, expr.pos)
        for module in program.modules:
            assert at(module.pos).startswith("module")
            assert at(module.name_pos).startswith(module.kind)
            for rule in module.rules:
                assert at(rule.name_pos).startswith(rule.name.split(" ")[0])


@settings(deadline=None, max_examples=60)
@given(st.sampled_from(sorted(SOURCES)), st.data())
def test_inserting_a_comment_or_blank_line_changes_nothing(name: str, data: st.DataObject) -> None:
    lines = SOURCES[name].split("\n")
    where = data.draw(st.integers(0, len(lines)))
    filler = data.draw(st.sampled_from(["", "// note", "\t\t// indented note", "   ", "/* c */"]))
    text = "\n".join([*lines[:where], filler, *lines[where:]])
    result = compile_source(name, text)
    assert result.ok and result.diagnostics == []


@settings(deadline=None, max_examples=60)
@given(st.sampled_from(sorted(SOURCES)), st.data(), st.integers(1, 8))
def test_spaces_instead_of_tabs(name: str, data: st.DataObject, width: int) -> None:
    lines = SOURCES[name].split("\n")
    indented = [i for i, line in enumerate(lines) if line.startswith("\t")]
    index = data.draw(st.sampled_from(indented))
    stripped = lines[index].lstrip("\t")
    tabs = len(lines[index]) - len(stripped)
    lines[index] = " " * (width * tabs) + stripped
    result = compile_source(name, "\n".join(lines))
    if index + 1 in _construct_lines(_program(name)):
        assert [d.header() for d in result.diagnostics] == [
            f"{name}:{index + 1}:1: error: indentation must use tabs only"
        ]
    else:
        assert result.ok and result.diagnostics == []
