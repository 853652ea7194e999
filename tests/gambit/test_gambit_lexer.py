"""Unit tests of the lexer and post-lexer (§1, Appendix C)."""

from __future__ import annotations

import pytest

from esochess.fen import SourceError
from esochess.gambit.lexer import tokenize


def kinds(src: str) -> list[str]:
    """Token kinds of a source text."""
    return [t.kind for t in tokenize(src, "t.gmb")]


def pairs(src: str) -> list[tuple[str, str]]:
    """(kind, text) of each token."""
    return [(t.kind, t.text) for t in tokenize(src, "t.gmb")]


def test_method_colon_versus_block_colon() -> None:
    assert ("METHOD_COLON", ":") in pairs("main() {\n    deck:shuffle()\n}\n")
    toks = pairs("main() {\n    if full: draw\n}\n")
    assert ("COLON", ":") in toks and ("DRAW", "draw") in toks
    # `if done:print(x)` is a method call (§1.8 table).
    assert ("METHOD_COLON", ":") in pairs("main() {\n    if done:print(x)\n}\n")
    # Space after the colon: never a method colon.
    assert ("METHOD_COLON", ":") not in pairs("main() {\n    if done: print(x)\n}\n")
    assert ("METHOD_COLON", ":") in pairs("main() { print(5:is_ok()) }\n")


def test_selector_brackets_and_nesting() -> None:
    src = "entity Card\nmain() { x = Card<owner: Player<coins >= 3>> }\n"
    ks = kinds(src)
    assert ks.count("SEL_OPEN") == 2 and ks.count("SEL_CLOSE") == 2
    assert "GE" in ks
    # `<` after a non-entity name is a comparison.
    assert "LT" in kinds("main() { x = a < b }\n")


def test_strict_greater_in_selector_is_reported() -> None:
    with pytest.raises(SourceError) as exc:
        tokenize("state int [Player coins]\nmain() { x = Player<coins > 10> }\n", "t.gmb")
    assert ">=" in exc.value.message and (exc.value.line, exc.value.column) == (2, 27)


def test_nested_block_comments_keep_positions() -> None:
    toks = tokenize("/* a /* b */\n c */ main() { }\n", "t.gmb")
    assert (toks[0].text, toks[0].line, toks[0].col) == ("main", 2, 7)


@pytest.mark.parametrize(
    ("src", "phrase", "pos"),
    [
        ("main() { x = 1 @ 2 }", "unexpected character", (1, 16)),
        ('main() { print("abc) }', "unterminated string literal", (1, 16)),
        ("main() { x = 'abc }", "unterminated notation literal", (1, 14)),
        ("/* open\nmain() { }", "unterminated comment", (1, 1)),
        ('main() { print("a\\q") }', "unknown escape", (1, 18)),
        ("main() { x = 1; }", "end statements with a newline", (1, 15)),
        ("entity C\nstatic int [C n]", "use 'fixed'", (2, 1)),
    ],
)
def test_lexical_errors(src: str, phrase: str, pos: tuple[int, int]) -> None:
    with pytest.raises(SourceError) as exc:
        tokenize(src, "t.gmb")
    assert phrase in exc.value.message
    assert (exc.value.line, exc.value.column) == pos


def test_newlines_inside_brackets_and_after_operators_are_dropped() -> None:
    src = "main() {\n    x = f(1,\n      2) +\n      3\n    y = 4\n}\n"
    ks = kinds(src)
    # One NEWLINE between the two statements, none inside the expression.
    assert ks.count("_NL") == 2  # after `3` and after the closing brace
    assert ks.index("_NL") > ks.index("INT")


def test_else_on_next_line_joins_the_if() -> None:
    src = "main() {\n    if a {\n        x = 1\n    }\n    else {\n        x = 2\n    }\n}\n"
    ks = kinds(src)
    i = ks.index("ELSE")
    assert ks[i - 1] == "RBRACE"


def test_else_arm_in_match_keeps_its_newline() -> None:
    src = "main() {\n    match x {\n        1: y = 2\n        else: y = 3\n    }\n}\n"
    ks = kinds(src)
    i = ks.index("ELSE")
    assert ks[i - 1] == "_NL"
    assert "MATCH_STMT" in ks


def test_contextual_words() -> None:
    ks = kinds("players 2\nmain() {\n    p choose secret (\"x\") bool\n    p wins\n    draw\n}\n")
    assert ks[0] == "PLAYERS"
    assert {"CHOOSE", "SECRET", "PROMPT_LPAR", "WINS", "DRAW"} <= set(ks)
    # Outside their positions they are ordinary names.
    ks2 = kinds("state int [Player wins]\nmain() {\n    draw(p)\n    x = choose\n}\n")
    assert "WINS" not in ks2 and "DRAW" not in ks2 and "CHOOSE" not in ks2


def test_choose_k_needs_no_space() -> None:
    assert "CHOOSE_LSQB" in kinds("main() { x = p choose[2] [1, 2, 3] }\n")
    assert "CHOOSE_LSQB" not in kinds("main() { x = p choose [1, 2, 3] }\n")


def test_notation_regex_is_raw_text() -> None:
    toks = pairs("struct M { int r = 0 }\nnotation M ([RBGUW]*)(%d*) => match, c, n { }\n")
    assert ("REGEX", "([RBGUW]*)(%d*)") in toks
    with pytest.raises(SourceError) as exc:
        tokenize("notation M [0-9]+\n", "t.gmb")
    assert "expected '=>' after the notation's regular expression" in exc.value.message


def test_typed_declarations_get_a_marker() -> None:
    src = "entity Card\nmain() {\n    [Card] hand = []\n    Card? c = none\n    x = 1\n}\n"
    assert kinds(src).count("DECL") == 2


def test_crlf_and_bom() -> None:
    toks = tokenize("\ufeffmain() {\r\n    x = 1\r\n}\r\n", "t.gmb")
    assert [t.line for t in toks if t.text == "x"] == [2]
