"""Diagnostics conformance: spec §7.2-§7.4 and checks K12, K18, K22, K23 of §13."""

from __future__ import annotations

import pytest

from esochess.chespel.frontend import compile_source, format_report

HEADER = "module evaluation\n"


def report(source: str, path: str = "F") -> list[str]:
    """The lines `chespel check` prints on standard error for `source`."""
    text = format_report(compile_source(path, source))
    return text.splitlines()


def first_line(body: str, path: str = "F") -> str:
    """First diagnostic line; `body` gets `module evaluation` unless it has a module."""
    source = body if body.lstrip().startswith(("module", "/", "rule", "sym")) else HEADER + body
    lines = report(source, path)
    assert lines, f"no diagnostic for {source!r}"
    return lines[0]


# K22: `module evaluation`, `rule r:` and one line 3 (plus line 4 where given).
K22 = [
    ("    score 1;", "", "F:3:1: error: indentation must use tabs only"),
    ("\t\tscore 1;", "", "F:3:3: error: unexpected indentation (expected 1 tab(s), found 2)"),
    (
        "\tcell c with c.cells.length == 8:",
        "\t\tscore 1;\n",
        "F:3:16: error: method 'cells' is ambiguous for class Cell "
        "(inherited from Row and from Col)",
    ),
    (
        "\tscore [1, true].length;",
        "",
        "F:3:12: error: list elements must have the same class (found Num and Bool)",
    ),
    (
        "\tif ($9 == $1) score 1;",
        "",
        "F:3:6: error: invalid row or column literal '$9' (use $1..$8 or $a..$h)",
    ),
    ("\tscore q.value;", "", "F:3:8: error: unknown name 'q'"),
    ("\tscore me;", "", "F:3:8: error: score value must be Num, found Player"),
    ("\tscore 1 3;", "", "F:3:10: error: justification must be String, found Num"),
]


@pytest.mark.parametrize(("line3", "line4", "expected"), K22)
def test_k22_first_and_last_line(line3: str, line4: str, expected: str) -> None:
    lines = report(f"module evaluation\nrule r:\n{line3}\n{line4}")
    assert lines[0] == expected
    assert lines[-1] == "compilation failed: 1 error(s), 0 warning(s)"


def test_k22_bad_chp_exact_output() -> None:
    source = "module evaluation\n\nrule r:\n\tif (me.castledSide(3)) score 1;\n"
    assert report(source, "bad.chp") == [
        "bad.chp:4:21: error: argument 1 of 'castledSide' must be Type, found Num",
        "\tif (me.castledSide(3)) score 1;",
        "\t" + " " * 19 + "^",
        "compilation failed: 1 error(s), 0 warning(s)",
    ]


EVAL = "module evaluation\nrule r:\n\tscore 1;\n"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("module search\nmaxTime = 2\n", "F:1:1: error: missing mandatory module 'evaluation'"),
        (
            EVAL + "module evaluation\n",
            "F:4:1: error: module 'evaluation' is defined twice (first at line 1)",
        ),
        (
            "module evalution\n",
            "F:1:8: error: unknown module 'evalution' "
            "(expected search, evaluation, opening or endgame)",
        ),
        (
            "module search\nmaxtime = 3\n" + EVAL,
            "F:2:1: error: unknown parameter 'maxtime' for module search",
        ),
        (
            "module search\nmaxTime = 0\n" + EVAL,
            "F:2:11: error: parameter 'maxTime' must be a number between 0.01 and 3600",
        ),
    ],
)
def test_k23(source: str, expected: str) -> None:
    assert report(source)[0] == expected


def test_k12_unreachable_opening_is_a_warning() -> None:
    source = (
        "module opening\n"
        "'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1' ->\n"
        "\t'rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2';\n"
        "module evaluation\nrule r:\n\tscore 0;\n"
    )
    result = compile_source("o.chp", source)
    assert result.ok
    lines = format_report(result).splitlines()
    assert lines[0] == (
        "o.chp:3:2: warning: opening rule: the destination is not reachable "
        "from the origin by one legal move"
    )
    assert lines[2] == "\t^"
    assert len(lines) == 3


def test_k18_truncation_warning() -> None:
    source = "module evaluation\n\nrule a:\n\tscore 0.0004;\nrule b:\n\tscore 900 * 9;\n"
    result = compile_source("n.chp", source)
    assert result.ok
    assert report(source, "n.chp")[0] == (
        "n.chp:4:8: warning: number 0.0004 has more than 3 decimals; truncated to 0"
    )


# One case per error of the §7.3 table (its "example that triggers it" column) and per
# warning of §7.4: (id, source body, exact first diagnostic line).
TABLE = [
    ("E01", "rule r:\n    score 1;\n", "F:3:1: error: indentation must use tabs only"),
    (
        "E02",
        "rule r:\n\tif (true):\n\t\t\tscore 1;\n",
        "F:4:4: error: unexpected indentation (expected 2 tab(s), found 3)",
    ),
    ("E03", "rule r:\nrule s:\n\tscore 1;\n", "F:2:7: error: expected an indented block after ':'"),
    ("E04", "rule r:\n\tscore 1; score 2;\n", "F:3:11: error: statement must start on a new line"),
    (
        "E04b",
        "rule r:\n\tif (true): score 1;\n",
        "F:3:13: error: statement must start on a new line",
    ),
    ("E06", "rule r:\n\tscore 1 @;\n", "F:3:10: error: unexpected character '@'"),
    ("E07", 'rule r:\n\tscore 1 "abc;\n', "F:3:10: error: unterminated string"),
    ("E08", "rule r:\n\tscore 1;\n/* open\n", "F:4:1: error: unterminated comment"),
    (
        "E09",
        "rule r:\n\tif ($a1 == $1) score 1;\n",
        "F:3:6: error: invalid row or column literal '$a1' (use $1..$8 or $a..$h)",
    ),
    ("E10", "rule r:\n\tscore 5.;\n", "F:3:8: error: malformed number '5.'"),
    ("E10b", "rule r:\n\tscore .5;\n", "F:3:8: error: malformed number '.5'"),
    (
        "E11",
        "rule r:\n\tscore 20000;\n",
        "F:3:8: error: number out of range (-10000..10000): 20000",
    ),
    (
        "E12",
        "rule r:\n\tlet x = 3\n\tscore x;\n",
        "F:3:11: error: expected ';' at the end of the statement, found 'score' on line 4",
    ),
    ("E12b", "rule r:\n\tscore 1;\n", "F:1:1: error: expected 'module', found 'rule'"),
    (
        "E17",
        "module endgame\nlimit = 3\n" + EVAL,
        "F:2:1: error: unknown parameter 'limit' for module endgame",
    ),
    (
        "E18",
        "module search\nmaxDepth = 3\nmaxDepth = 4;\n" + EVAL,
        "F:3:1: error: parameter 'maxDepth' is set twice (first at line 2)",
    ),
    (
        "E19",
        "module search\nmaxDepth = 2.5\n" + EVAL,
        "F:2:12: error: parameter 'maxDepth' must be an integer between 1 and 64",
    ),
    (
        "E19b",
        "module search\nhashSize = 5000\n" + EVAL,
        "F:2:12: error: parameter 'hashSize' must be an integer between 1 and 4096",
    ),
    (
        "E19c",
        "module search\nquiescence = 1\n" + EVAL,
        "F:2:14: error: parameter 'quiescence' must be true or false",
    ),
    (
        "E19d",
        "module endgame\nthreshold = -1\n" + EVAL,
        "F:2:13: error: parameter 'threshold' must be a number between 0 and 10000",
    ),
    (
        "E20",
        "module endgame\nrule e:\n\tscore 1;\nthreshold = 10\n" + EVAL,
        "F:4:1: error: parameters must come before the first rule",
    ),
    (
        "E21",
        "module opening\n'8/8/8 w - - 0 1' -> '8/8/8/8/8/8/8/8 w - - 0 1';\n" + EVAL,
        "F:2:1: error: invalid FEN: placement field: 3 ranks, expected 8",
    ),
    (
        "E22",
        "module opening\n"
        "'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1' ->\n"
        "\t'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1';\n"
        "'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 5 9' ->\n"
        "\t'rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1';\n" + EVAL,
        "F:4:1: error: duplicate opening rule for this position (first at line 2)",
    ),
    (
        "E23",
        "rule r:\n\tscore 1;\nrule r:\n\tscore 2;\n",
        "F:4:6: error: rule 'r' is defined twice (first at line 2)",
    ),
    ("E24", "rule r:\n\tscore q.value;\n", "F:3:8: error: unknown name 'q'"),
    ("E25", "rule r:\n\tscore me.value;\n",
     "F:3:11: error: class Player has no method 'value'; did you mean 'totalValue'?"),
    ("E25b", "rule r:\n\tscore [true].sum;\n", "F:3:15: error: class [Bool] has no method 'sum'"),
    (
        "E26",
        "rule r:\n\tpiece p:\n\t\tscore p.pieces.length;\n",
        "F:4:11: error: method 'pieces' is ambiguous for class Piece "
        "(inherited from Player, from Type and from Cell)",
    ),
    (
        "E27",
        "rule r:\n\tif (me.castledSide) score 1;\n",
        "F:3:9: error: 'castledSide' expects 1 argument(s), 0 given",
    ),
    (
        "E27b",
        "rule r:\n\tscore min(1, 2, 3);\n",
        "F:3:8: error: 'min' expects 2 argument(s), 3 given",
    ),
    (
        "E28",
        "rule r:\n\tif (me.castledSide(3)) score 1;\n",
        "F:3:21: error: argument 1 of 'castledSide' must be Type, found Num",
    ),
    (
        "E29",
        "rule r:\n\tscore me + 1;\n",
        "F:3:11: error: operator '+' cannot be applied to Player and Num",
    ),
    (
        "E29b",
        'rule r:\n\tif ("a" == "a") score 1;\n',
        "F:3:10: error: operator '==' cannot be applied to String and String",
    ),
    (
        "E29c",
        "rule r:\n\tif (not 3) score 1;\n",
        "F:3:6: error: operator 'not' cannot be applied to Num",
    ),
    (
        "E29d",
        "rule r:\n\tif (e4 *> e5) score 1;\n",
        "F:3:9: error: operator '*>' cannot be applied to Cell and Cell",
    ),
    (
        "E29e",
        "rule r:\n\tif (3 in [$3]) score 1;\n",
        "F:3:8: error: operator 'in' cannot be applied to Num and [Row]",
    ),
    (
        "E29f",
        "rule r:\n\tscore ([1] ++ 2).length;\n",
        "F:3:13: error: operator '++' cannot be applied to [Num] and Num",
    ),
    (
        "E30",
        "rule r:\n\tpiece p:\n\t\tif (p.value):\n\t\t\tscore 1;\n",
        "F:4:6: error: condition must be Bool, found Num",
    ),
    ("E31", "rule r:\n\tscore me;\n", "F:3:8: error: score value must be Num, found Player"),
    ("E32", "rule r:\n\tscore 1 3;\n", "F:3:10: error: justification must be String, found Num"),
    (
        "E33",
        "rule r:\n\tscore [$4, 5].length;\n",
        "F:3:13: error: list elements must have the same class (found Row and Num)",
    ),
    (
        "E34",
        'rule r:\n\tscore ["a"].length;\n',
        "F:3:9: error: a list cannot contain String values",
    ),
    (
        "E34b",
        "rule r:\n\tscore [[1]].length;\n",
        "F:3:9: error: a list cannot contain [Num] values",
    ),
    (
        "E34c",
        "rule r:\n\tscore [me.pieces].length;\n",
        "F:3:9: error: a list cannot contain [Piece] values",
    ),
    (
        "E35",
        "rule r:\n\tif ([].head == 1) score 1;\n",
        "F:3:9: error: method 'head' cannot be used on the empty list '[]'",
    ),
    (
        "E35b",
        "rule r:\n\tlet l = [];\n\tscore l.sum;\n",
        "F:4:10: error: method 'sum' cannot be used on the empty list '[]'",
    ),
    (
        "E36",
        "rule r:\n\tlet x = 1;\n\tlet x = 1;\n\tscore x;\n",
        "F:4:6: error: 'x' is already defined (line 3)",
    ),
    (
        "E36b",
        "rule r:\n\tpiece p, p:\n\t\tscore p.value;\n",
        "F:3:11: error: 'p' is already defined (line 3)",
    ),
    ("E37", "rule r:\n\tlet queen = 1;\n\tscore 1;\n", "F:3:6: error: 'queen' is a reserved word"),
    ("E38", "rule r:\n\tscore 1 / 0;\n", "F:3:10: error: division by zero"),
    ("E38b", "rule r:\n\tscore 2 / (1 - 1);\n", "F:3:10: error: division by zero"),
    (
        "E39",
        "rule r:\n\tif 1 < 2 < 3 score 1;\n",
        "F:3:11: error: comparisons cannot be chained; use parentheses",
    ),
    (
        "E40",
        "rule r:\n\tif (true) let x = 1;\n",
        "F:3:12: error: an inline if may only contain a score statement",
    ),
    ("E41", "rule r:\n\tscore row(9);\n", "F:3:12: error: argument out of range for 'row': 9"),
    (
        "E41b",
        "rule r:\n\tscore me.rank(0);\n",
        "F:3:16: error: argument out of range for 'rank': 0",
    ),
    (
        "E41c",
        "rule r:\n\tscore [1].elem(-1);\n",
        "F:3:17: error: argument out of range for 'elem': -1",
    ),
    (
        "W1",
        "rule r:\n\tscore 1.23456;\n",
        "F:3:8: warning: number 1.23456 has more than 3 decimals; truncated to 1.234",
    ),
    ("W2", "rule r:\n\tlet x = 1;\n\tscore 1;\n", "F:3:6: warning: unused variable 'x'"),
    (
        "W3",
        "rule r:\n\tif (true):\n\t\tlet y = 1;\n",
        "F:2:6: warning: rule 'r' has no score statement",
    ),
    ("W5", "", "F:1:8: warning: module 'evaluation' has no rules"),
]


@pytest.mark.parametrize(("ident", "body", "expected"), TABLE, ids=[t[0] for t in TABLE])
def test_every_error_and_warning(ident: str, body: str, expected: str) -> None:
    source = body if body.startswith("module") else HEADER + body
    if ident == "E12b":
        source = body
    assert report(source)[0] == expected


def test_errors_only_counted_once_and_sorted() -> None:
    source = HEADER + "rule r:\n\tscore q;\n\tscore me;\n\tscore 1 / 0;\n"
    lines = report(source)
    heads = [line for line in lines if line.startswith("F:")]
    assert heads == [
        "F:3:8: error: unknown name 'q'",
        "F:4:8: error: score value must be Num, found Player",
        "F:5:10: error: division by zero",
    ]
    assert lines[-1] == "compilation failed: 3 error(s), 0 warning(s)"


def test_no_cascade_from_an_erroneous_expression() -> None:
    source = HEADER + "rule r:\n\tlet v = q.value + me;\n\tif (v > 1 and v.foo) score v;\n"
    heads = [line for line in report(source) if line.startswith("F:")]
    assert heads == ["F:3:10: error: unknown name 'q'"]


def test_at_most_fifty_errors() -> None:
    body = "".join(f"\tscore q{i};\n" for i in range(80))
    result = compile_source("F", HEADER + "rule r:\n" + body)
    assert len(result.errors) == 50
    assert format_report(result).splitlines()[-1] == "compilation failed: 50 error(s), 0 warning(s)"


def test_syntax_error_is_the_only_error_but_earlier_warnings_stay() -> None:
    source = HEADER + "rule r:\n\tscore 1.00001;\n\tscore q;\n\tscore 1 @;\n"
    heads = [line for line in report(source) if line.startswith("F:")]
    assert heads == [
        "F:3:8: warning: number 1.00001 has more than 3 decimals; truncated to 1",
        "F:5:10: error: unexpected character '@'",
    ]


def test_warnings_alone_do_not_fail() -> None:
    result = compile_source("F", HEADER + "rule r:\n\tlet x = 1;\n\tscore 1;\n")
    assert result.ok
    assert not format_report(result).endswith("warning(s)")


@pytest.mark.parametrize(
    ("fen", "reason"),
    [
        ("8/8/8/8/8/8/8/8 w - - 0 1", "placement field: there is no white king"),
        (
            "4k3/8/8/8/8/8/8/4K2P w - - 0 1",
            "placement field: a pawn stands on the first or last rank",
        ),
        ("4k3/8/8/8/8/8/4Q3/4K3 w - - 0 1", "side field: the side not to move is in check"),
        ("4k3/8/8/8/8/8/8/4K3 x - - 0 1", "side field: expected 'w' or 'b', found 'x'"),
    ],
)
def test_e21_invalid_fens_at_either_end(fen: str, reason: str) -> None:
    start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    as_origin = f"module opening\n'{fen}' -> '{start}';\n" + EVAL
    assert report(as_origin)[0] == f"F:2:1: error: invalid FEN: {reason}"
    as_destination = f"module opening\n'{start}' ->\n\t'{fen}';\n" + EVAL
    assert report(as_destination)[0] == f"F:3:2: error: invalid FEN: {reason}"


def test_impossible_castling_rights_are_dropped_not_reported() -> None:
    source = (
        "module opening\n'4k3/8/8/8/8/8/8/4K3 w KQkq - 0 1' -> '4k3/8/8/8/8/8/4K3/8 b - - 1 1';\n"
        + EVAL
    )
    result = compile_source("F", source)
    assert result.ok and result.diagnostics == []
    assert result.openings[0].origin_key == "4k3/8/8/8/8/8/8/4K3 w - -"


def test_k24_comments_compile_without_diagnostics() -> None:
    source = (
        "module evaluation /* the only module */\n/* a block comment\n   on two lines */\n"
        'rule r:\n\tscore 0 " /* not a comment */ // nor this"; // a real comment\n// last line'
    )
    assert compile_source("F", source).diagnostics == []


def test_parameter_literals_are_truncated_like_any_number() -> None:
    result = compile_source("F", "module search\nmaxTime = 0.0105\n" + EVAL)
    assert result.ok
    assert result.search["maxTime"] == 10
    assert [d.header() for d in result.diagnostics] == [
        "F:2:11: warning: number 0.0105 has more than 3 decimals; truncated to 0.01"
    ]
    low = compile_source("F", "module search\nmaxTime = 0.0099\n" + EVAL)
    assert [d.message for d in low.errors] == [
        "parameter 'maxTime' must be a number between 0.01 and 3600"
    ]
