"""Parser: the grammar of §2.6, precedence of §5.1 and the leniencies of §0.4."""

from __future__ import annotations

import pytest

from esochess.chespel import ast
from esochess.chespel.parser import parse
from esochess.fen import SourceError


def expr(text: str) -> ast.Expr:
    program = parse("t.chp", f"module evaluation\nrule r:\n\tlet x = {text};\n")
    let = program.modules[0].rules[0].body[0]
    assert isinstance(let, ast.Let)
    return let.value


def shape(e: ast.Expr) -> str:
    """A fully parenthesised rendering, to compare precedence."""
    if isinstance(e, ast.Binary):
        return f"({shape(e.left)} {e.op} {shape(e.right)})"
    if isinstance(e, ast.Unary):
        return f"({e.op} {shape(e.operand)})"
    if isinstance(e, ast.Call):
        args = ", ".join(shape(a) for a in e.args)
        head = f"{shape(e.receiver)}." if e.receiver is not None else ""
        return f"{head}{e.name}({args})"
    if isinstance(e, ast.Name):
        return e.name
    if isinstance(e, ast.NumLit):
        return e.spelling
    if isinstance(e, ast.TypeLit):
        return e.spelling
    if isinstance(e, ast.BoolLit):
        return str(e.value).lower()
    if isinstance(e, ast.ListLit):
        return "[" + ", ".join(shape(x) for x in e.elements) + "]"
    return type(e).__name__


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("abs(a - b) * 0.1", "((abs (a - b)) * 0.1)"),
        ("not x in L", "(not (x in L))"),
        ("not a == b", "(not (a == b))"),
        ("x in L == false", "((x in L) == false)"),
        (
            "knight ++ true ++ 4.0 ++ 3+7 ++ pawn == knight",
            "((((knight ++ true) ++ 4.0) ++ (3 + 7)) ++ (pawn == knight))",
        ),
        ("- -3", "(- (- 3))"),
        ("a or b and c", "(a or (b and c))"),
        ("1 - 2 - 3", "((1 - 2) - 3)"),
        ("-a.b.c(1)", "(- a.b().c(1))"),
        ("in(x, L)", "in(x, L)"),
        ("f()", "f()"),
        ("[1, 2].sum", "[1, 2].sum()"),
    ],
)
def test_precedence(text: str, expected: str) -> None:
    assert shape(expr(text)) == expected


def test_positions_and_starts() -> None:
    e = expr("(a + b) * c")
    assert isinstance(e, ast.Binary)
    assert e.pos == ast.Pos(3, 18) and e.start == ast.Pos(3, 10)
    assert e.left.start == ast.Pos(3, 10) and e.left.pos == ast.Pos(3, 13)


def test_number_literals_keep_spelling_and_truncate() -> None:
    e = expr("0.50 + 1.2349")
    assert isinstance(e, ast.Binary)
    assert isinstance(e.left, ast.NumLit) and e.left.millis == 500 and e.left.spelling == "0.50"
    assert isinstance(e.right, ast.NumLit) and e.right.millis == 1234


def test_literal_values() -> None:
    e = expr("[h8]")
    assert isinstance(e, ast.ListLit) and isinstance(e.elements[0], ast.CellLit)
    assert e.elements[0].square == 63
    t = expr("rook")
    assert isinstance(t, ast.TypeLit) and t.piece_type == 4


def test_score_forms() -> None:
    program = parse(
        "t.chp",
        'module evaluation\nrule r:\n\tscore 1;\n\tscore p.value "m";\n'
        '\tscore 1, "c " ++ me.color;\n\tscore x, ("a" ++ y);\n\tscore x -1;\n',
    )
    body = program.modules[0].rules[0].body
    assert all(isinstance(s, ast.Score) for s in body)
    scores = [s for s in body if isinstance(s, ast.Score)]
    assert scores[0].justification is None
    assert isinstance(scores[1].justification, ast.StrLit)
    assert isinstance(scores[2].justification, ast.Binary)
    assert isinstance(scores[3].justification, ast.Binary)
    # The value ends at the first token that cannot continue it: `x -1` is `x - 1`.
    assert isinstance(scores[4].value, ast.Binary) and scores[4].justification is None


def test_if_with_and_without_parentheses() -> None:
    program = parse(
        "t.chp",
        "module evaluation\nrule r:\n\tif me.check:\n\t\tscore 1;\n\tif (me.check) score 1;\n",
    )
    block, inline = program.modules[0].rules[0].body
    assert isinstance(block, ast.If) and not block.inline and block.colon == ast.Pos(3, 13)
    assert isinstance(inline, ast.If) and inline.inline


def test_modules_in_any_order_and_rule_names() -> None:
    program = parse(
        "t.chp",
        "module endgame\nthreshold = 10;\nreplace = true\nsym rule king safety e4 if:\n\tscore 1;\n"
        "module opening\nmodule search\nmaxTime = -1\nmodule evaluation\n",
    )
    kinds = [m.kind for m in program.modules]
    assert kinds == ["endgame", "opening", "search", "evaluation"]
    endgame = program.modules[0]
    assert [p.value for p in endgame.parameters] == ["10", "true"]
    assert endgame.rules[0].name == "king safety e4 if" and endgame.rules[0].sym
    assert program.modules[2].parameters[0].value == "-1"


def test_loops() -> None:
    program = parse(
        "t.chp",
        "module evaluation\nrule r:\n\tcell a, b with a.inCenter, b.inCenter:\n\t\tscore 1;\n"
        "\tpiece p:\n\t\tscore 1;\n",
    )
    first, second = program.modules[0].rules[0].body
    assert isinstance(first, ast.Loop) and first.kind == "cell"
    assert [v.name for v in first.variables] == ["a", "b"] and len(first.conditions) == 2
    assert isinstance(second, ast.Loop) and second.conditions == ()


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("\tif a == not b score 1;\n", "3:10: error: expected an expression, found 'not'"),
        ("\tif (a) score 1\n",
         "3:16: error: expected ';' at the end of the statement, found end of file"),
        ("\tlet 3 = 1;\n", "3:6: error: expected a name, found '3'"),
        ("\tscore (1;\n", "3:10: error: expected ')', found ';'"),
        (
            "\tif a == b == c score 1;\n",
            "3:12: error: comparisons cannot be chained; use parentheses",
        ),
        ("\tif (c) 3;\n", "3:9: error: an inline if may only contain a score statement"),
        ("\tfoo;\n", "3:2: error: expected a statement, found 'foo'"),
        ("\tlet x 3;\n", "3:8: error: expected '=', found '3'"),
        ("\tscore f(1,);\n", "3:12: error: expected an expression, found ')'"),
    ],
)
def test_syntax_errors(body: str, message: str) -> None:
    with pytest.raises(SourceError) as info:
        parse("F", "module evaluation\nrule r:\n" + body)
    assert info.value.header() == "F:" + message


def test_missing_colon_after_a_rule_name_is_not_an_inline_if_error() -> None:
    with pytest.raises(SourceError) as info:
        parse("F", "module evaluation\nrule r\n\tscore 1;\n")
    assert info.value.header() == "F:3:8: error: expected ':', found '1'"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "\tif 1 < 2 < 3 score 1;\n\tscore 1\n\tscore 2;\n",
            "3:11: error: comparisons cannot be chained; use parentheses",
        ),
        ("\tscore 1\n\tif 1 < 2 < 3 score 1;\n",
         "3:9: error: expected ';' at the end of the statement, found 'if' on line 4"),
    ],
)
def test_first_fatal_error_in_reading_order_wins(body: str, message: str) -> None:
    with pytest.raises(SourceError) as info:
        parse("F", "module evaluation\nrule r:\n" + body)
    assert info.value.header() == "F:" + message


def test_only_the_justification_conflicts_exist(caplog: pytest.LogCaptureFixture) -> None:
    import logging
    from importlib import resources

    import lark

    from esochess.chespel.layout import Layout

    grammar = resources.files("esochess.chespel").joinpath("grammar.lark").read_text("utf-8")
    level = lark.logger.level
    lark.logger.setLevel(logging.DEBUG)
    try:
        with caplog.at_level(logging.DEBUG, logger="lark"):
            lark.Lark(grammar, parser="lalr", lexer="basic", postlex=Layout(), debug=True)
    finally:
        lark.logger.setLevel(level)
    conflicts = {
        r.getMessage().split("terminal ")[1].split(":")[0]
        for r in caplog.records
        if "Shift/Reduce conflict" in r.getMessage()
    }
    assert conflicts == {"IN", "LPAR", "MINUS"}
    assert not [r for r in caplog.records if "Reduce/Reduce" in r.getMessage()]


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (
            "module 3\n",
            "1:8: error: expected a module name (search, evaluation, opening or endgame), "
            "found '3'",
        ),
        ("module evaluation\nrule r:\n\tscore in;\n", "3:10: error: expected '(', found ';'"),
        (
            "module evaluation\nrule r:\n\tpiece p q:\n\t\tscore 1;\n",
            "3:10: error: expected ':', found 'q'",
        ),
        ("module opening\n'a' 'b';\n", "2:5: error: expected '->', found ''b''"),
    ],
)
def test_every_e12_names_what_was_expected(source: str, message: str) -> None:
    with pytest.raises(SourceError) as info:
        parse("F", source)
    assert info.value.header() == "F:" + message
