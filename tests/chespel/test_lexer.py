"""Lexical structure and layout (§1): words, literals, comments, tabs, statement starts."""

from __future__ import annotations

import pytest

from esochess.chespel.parser import parse, prepare_source, raw_tokens


def kinds(source: str) -> list[tuple[str, str]]:
    return [(t.type, str(t)) for t in raw_tokens(prepare_source(source))]


def test_words_are_classified() -> None:
    toks = kinds("module evaluation\nrule r:\n\tscore e4 e9 i4 E4 e4x rook K me.king;\n")
    assert ("SCORE", "score") in toks
    assert ("CELL", "e4") in toks
    for ident in ("e9", "i4", "E4", "e4x", "r"):
        assert ("IDENT", ident) in toks
    assert ("TYPE", "rook") in toks and ("TYPE", "K") in toks
    assert ("PLAYER", "me") in toks
    # After '.', any word is a method name, reserved or not.
    assert toks[toks.index(("DOT", ".")) + 1] == ("IDENT", "king")


def test_module_names_are_special_only_after_module() -> None:
    toks = kinds("module search\nsearch = 1\n")
    assert toks[1] == ("SEARCH", "search")
    assert toks[2] == ("IDENT", "search")


def test_literals_and_maximal_munch() -> None:
    toks = kinds("module evaluation\nrule r:\n\tif ($4 *>= $a) score 1.250 'x' ++ \"y\" -> 2;\n")
    values = [v for _, v in toks]
    assert "*>=" in values and "++" in values and "->" in values
    assert ("ROW", "$4") in toks and ("COL", "$a") in toks
    assert ("NUMBER", "1.250") in toks
    assert ("STRING", "'x'") in toks and ("STRING", '"y"') in toks


def test_indent_and_dedent_tokens() -> None:
    toks = [
        t
        for t, _ in kinds(
            "module evaluation\nrule r:\n\tif (true):\n\t\tscore 1;\nrule s:\n\tscore 2;\n"
        )
    ]
    assert toks.count("_INDENT") == 3
    assert toks.count("_DEDENT") == 3


def test_comments_k24() -> None:
    source = (
        "module evaluation /* the only module */\n/* a block comment\n   on two lines */\n"
        'rule r:\n\tscore 0 " /* not a comment */ // nor this"; // a real comment\n// last line'
    )
    program = parse("t.chp", prepare_source(source))
    score = program.modules[0].rules[0].body[0]
    assert score.justification is not None
    assert score.justification.value == " /* not a comment */ // nor this"


def test_crlf_and_bom() -> None:
    source = "\ufeffmodule evaluation\r\nrule r:\r\n\tscore 1;\r\n"
    program = parse("t.chp", prepare_source(source))
    assert program.modules[0].rules[0].name == "r"


def test_continuation_lines_are_free() -> None:
    source = (
        "module evaluation\nsym rule pawnPairs:\n"
        "\tpiece p1, p2 with p1.player == me, p2.player == me,\n"
        "\t                  p1.type == pawn, p2.type == pawn:    // free layout\n"
        "\t\tif (p1.col == p2.col)\n      score -0.3;\n"
    )
    program = parse("t.chp", prepare_source(source))
    loop = program.modules[0].rules[0].body[0]
    assert len(loop.conditions) == 4


def test_one_line_block_comment_before_a_construct_is_allowed() -> None:
    program = parse("t.chp", "module evaluation\n/* c */ rule r:\n\t/* c */ score 1;\n")
    assert program.modules[0].rules[0].name == "r"


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (
            "module evaluation\nrule r:\n/* a\n*/\tscore 1;\n",
            "4:4: error: statement must start on a new line",
        ),
        ("module evaluation\nrule r:\n\t score 1;\n", "3:2: error: indentation must use tabs only"),
        ("module evaluation\nrule r:\n \tscore 1;\n", "3:1: error: indentation must use tabs only"),
        (
            "module evaluation\n\trule r:\n\t\tscore 1;\n",
            "2:2: error: unexpected indentation (expected 0 tab(s), found 1)",
        ),
        (
            "module evaluation\nrule r:\n\tscore 1;\n\t\tscore 2;\n",
            "4:3: error: unexpected indentation (expected 1 tab(s), found 2)",
        ),
        (
            "module evaluation\nrule r:\n\tscore $i;\n",
            "3:8: error: invalid row or column literal '$i' (use $1..$8 or $a..$h)",
        ),
        (
            "module evaluation\nrule r:\n\tscore $;\n",
            "3:8: error: invalid row or column literal '$' (use $1..$8 or $a..$h)",
        ),
        (
            "module evaluation\nrule r:\n\tscore $10;\n",
            "3:8: error: invalid row or column literal '$10' (use $1..$8 or $a..$h)",
        ),
        (
            'module evaluation\nrule r:\n\tscore 1 "é";\n\tscore é;\n',
            "4:8: error: unexpected character 'é'",
        ),
        ("module evaluation\nrule r:\n\tscore 1 'abc\";\n", "3:10: error: unterminated string"),
        (
            "module evaluation\nrule r:\n\tif (true):\n",
            "3:11: error: expected an indented block after ':'",
        ),
    ],
)
def test_layout_and_lexical_errors(source: str, message: str) -> None:
    from esochess.fen import SourceError

    with pytest.raises(SourceError) as info:
        parse("F", prepare_source(source))
    assert info.value.header() == "F:" + message


def test_non_ascii_is_fine_in_comments_and_strings() -> None:
    program = parse("t.chp", '// é\nmodule evaluation\nrule r:\n\tscore 1 "ü"; /* ß */\n')
    assert program.modules[0].kind == "evaluation"
