"""CQL 6.2 notations and the later filters of issue 19, end to end through `cql`:
arrows, Unicode symbols, xray, type/colortype/typename, sqrt, tree navigation,
reversecolor and rotate45."""

from __future__ import annotations

from pathlib import Path

import chess
import pytest
from cql_helpers import F, position, run_cql

# White: Ke1, Qd1, Ra1; Black: Ke8, Nd5, Rd8. The queen x-rays the knight to the rook.
XRAY = position("3rk3/8/8/3n4/8/8/8/R2QK3 w - - 0 1")


def _message(tmp_path: Path, expr: str, pgn: str, guard: str = "") -> str:
    run = run_cql(tmp_path, f"cql() {guard} message ({expr}) false", pgn, args=("--variations",))
    assert run.code == 0, run.err
    return run.out.splitlines()[0]


@pytest.mark.parametrize(("query", "matched"), [
    ("cql() e2--e4", 1),                # the move played from here
    ("cql() P--e4", 1),
    ("cql() N--.", 0),
    ("cql() [Aa][x]a", 1),              # 3. Qxg6+ and 3... hxg6 capture
    ("cql() Q[x]p", 1),
    ("cql() Q[x]r", 0),
    ("cql() Q->k", 1),                  # Qh5+ and Qxg6+ give check
    ("cql() k<-Q", 1),
    ("cql() ♕→♚", 1),
    ("cql() ♙――e4", 1),
    ("cql() ♕×♟", 1),
    ("cql() ✵ {♕h5 ∪ ♕g6}", 1),
    ("cql() ⬓ ♛h4", 1),                # flipcolor: mirrored, a White queen on h5
    ("cql() ply ≤ 1 ply ≥ 1 ply ≠ 0", 1),
    ("cql() ∙ : ply == 3", 1),
    ("cql() #(◭ ∩ ▦) == 32 initial", 1),
])  # fmt: skip
def test_arrows_and_unicode(tmp_path: Path, query: str, matched: int) -> None:
    run = run_cql(tmp_path, query, F["F2"].split("\n\n")[0] + "\n")
    assert run.code == 0, run.err
    assert run.stats[1] == matched


def test_arrow_values_and_errors(tmp_path: Path) -> None:
    assert _message(tmp_path, "e2--e4", "1. e4 *\n") == "e4"  # the destination squares
    assert _message(tmp_path, "A[x]a", "1. e4 d5 2. exd5 *\n", "A[x]a") == "d5"  # the captured
    bad = run_cql(tmp_path, 'cql() P--"e4"', "1. e4 *\n")
    assert bad.code == 2 and "requires set" in bad.err
    path = run_cql(tmp_path, "cql() ⊢ check", "1. e4 *\n")  # a path of no move never matches
    assert path.code == 0 and path.stats[1] == 0, path.err


@pytest.mark.parametrize(("query", "plies"), [
    ("Q--g6", ["4"]),            # the queen moves to g6 (3. Qxg6+)
    ("Q-- g6", ["2", "4"]),      # the queen moves (and the square g6 exists)
    ("Q --g6", ["3", "4", "5"]),  # there is a queen; some move goes to g6
    ("Q -- g6", ["0", "1", "2", "3", "4", "5"]),  # a queen, and any move
    ("Q ―― g6", ["0", "1", "2", "3", "4", "5"]),  # the Unicode dash: the same rule
    ("Q--", ["2", "4"]),         # any move of the queen
    ("--g6", ["3", "4", "5"]),
    ("[x]", ["4", "5"]),         # any capture
    ("Q×", ["4"]),
    ("--", ["0", "1", "2", "3", "4", "5"]),
])  # fmt: skip
def test_a_set_is_the_dash_s_own_only_when_written_against_it(
        tmp_path: Path, query: str, plies: list[str]) -> None:
    # CQL 6.2: no space may separate the dash from the set where the move starts (or,
    # as in a path, ends); either one left out is any square.
    run = run_cql(tmp_path, f"cql() {query} message(ply) false", F["F2"].split("\n\n")[0])
    assert run.code == 0, run.err
    assert run.out.splitlines()[:-1] == plies  # then the summary line


@pytest.mark.parametrize("query", [
    'cql() check ///"mate"\n',
    'cql() check // "mate"\n',
    'cql() check //"mate" mate\n',
    'cql() check /// mate\n',
])  # fmt: skip
def test_a_line_comment_swallows_a_third_slash_and_a_string(tmp_path: Path, query: str) -> None:
    # `//` runs to the end of the line whatever follows it: each query is `cql() check`.
    run = run_cql(tmp_path, query, F["F2"])
    assert run.code == 0, run.err
    assert run.stats[1] == 1 and run.movetexts == [
        "1. e4 f6 2. Qh5+ { CQL } 2... g6 3. Qxg6+ { CQL } 3... hxg6 *"]


def test_xray(tmp_path: Path) -> None:
    assert _message(tmp_path, "xray (Q n r)", XRAY) == "d1"
    assert _message(tmp_path, "xray (A n k)", XRAY) == "[]"   # the king is not behind the knight
    assert _message(tmp_path, "xray (R a)", XRAY) == "[]"     # the rook's first piece is the queen
    assert _message(tmp_path, "xray (R Q K)", XRAY) == "a1"
    bad = run_cql(tmp_path, "cql() xray (Q)", XRAY)
    assert bad.code == 2 and "'xray' takes 2 or more arguments, not 1" in bad.err


def test_piece_types(tmp_path: Path) -> None:
    assert _message(tmp_path, 'str(type d1 " " colortype d8 " " colortype e4 " " typename d5)',
                    XRAY) == "5 -4 0 knight"
    assert run_cql(tmp_path, "cql() type e4", XRAY).stats[1] == 0  # empty: no value
    assert run_cql(tmp_path, "cql() type A", XRAY).stats[1] == 0   # not one square
    assert _message(tmp_path, "str(sqrt 17 \" \" sqrt 16)", XRAY) == "4 4"


def test_tree_navigation(tmp_path: Path) -> None:
    # Position ids: 0 start, 1 f3, 2 e5, 3 g4, 4 Qh4# | variation: 5 Nc3, 6 Qh4+, 7 g3.
    args = ("--variations",)
    run = run_cql(tmp_path, 'cql() depth > 0 message (positionid " " depth) false', F["F8"],
                  args=args)
    assert run.out.splitlines()[:3] == ["5 1", "6 1", "7 1"]
    assert _message(tmp_path, 'child : positionid " " child (1) : positionid', F["F8"],
                    "positionid == 2") == "3 5"
    run = run_cql(tmp_path, "cql() positionid == 0 child (1)", F["F8"], args=args)
    assert run.stats[1] == 0  # only one continuation: no value
    query = (
        "cql() if positionid == 4 then X = currentposition else true\n"
        "positionid == 7\n"
        'message ("d " distance (X currentposition) " a " lca (X currentposition) : positionid)'
        "\nfalse"
    )
    run = run_cql(tmp_path, query, F["F8"], args=args)
    assert run.out.splitlines()[0] == "d 5 a 2"
    run = run_cql(
        tmp_path,
        "cql() terminal ancestor (initialposition currentposition) "
        "not descendant (initialposition currentposition) "
        "descendant (currentposition parent) not ancestor (currentposition parent)",
        F["F8"], args=args,
    )
    assert run.stats[1] == 1


def test_reversecolor_and_rotate45(tmp_path: Path) -> None:
    kf1 = position("8/8/8/8/8/8/8/4kK2 w - - 0 1")
    assert run_cql(tmp_path, "cql() reversecolor wtm", kf1).stats[1] == 0  # only the reversed
    assert run_cql(tmp_path, "cql() reversecolor btm", kf1).stats[1] == 1
    assert run_cql(tmp_path, "cql() reversecolor k[f8]", kf1).stats[1] == 1
    # Directions turn by 45 degrees: a king on f1 has squares up, left, right, northeast
    # and northwest of it on the board, so 5 of the 8 turns of `up 1 K` are non-empty.
    assert _message(tmp_path, "rotate45 count up 1 K", kf1) == "5"
    bad = run_cql(tmp_path, "cql() rotate45 Kf1", kf1)
    assert bad.code == 2 and "may not name squares" in bad.err


def test_alwayscomment_keeps_comments_of_failed_filters(tmp_path: Path) -> None:
    query = 'cql() { comment ("seen") check } mate'
    plain = run_cql(tmp_path, query, F["F1"])
    assert plain.movetexts[0].count("seen") == 1  # only at the mate, where all matched
    always = run_cql(tmp_path, query, F["F1"], args=("--alwayscomment",))
    assert always.movetexts[0].count("seen") == 5  # every position, the game still matched
    assert run_cql(tmp_path, "cql() comment (\"x\") false", F["F1"],
                   args=("--alwayscomment",)).stats[1] == 0


def test_move_primary_and_secondary(tmp_path: Path) -> None:
    # F8: 1. f3 e5 2. g4 (2. Nc3 Qh4+ 3. g3) 2... Qh4#; the variation starts with 2. Nc3.
    args = ("--variations",)
    assert run_cql(tmp_path, "cql() move primary from N", F["F8"], args=args).stats[1] == 0
    assert run_cql(tmp_path, "cql() move secondary from N", F["F8"], args=args).stats[1] == 1
    run = run_cql(tmp_path, "cql() move previous secondary message (positionid) false", F["F8"],
                  args=args)
    assert run.out.splitlines()[0] == "5"
    bad = run_cql(tmp_path, "cql() move legal primary", F["F8"])
    assert bad.code == 2 and "'move primary' applies to the moves of the game" in bad.err


def _white(game: str) -> str:
    return next(line[8:-2] for line in game.splitlines() if line.startswith("[White "))


def test_string_sort(tmp_path: Path) -> None:
    games = '[White "Zed"]\n\n1. e4 *\n\n[White "Abe"]\n\n1. d4 *\n\n[White "Max"]\n\n1. c4 *\n'
    up = run_cql(tmp_path, 'cql() initial sort min "name" player white', games)
    assert [_white(g) for g in up.games] == ["Abe", "Max", "Zed"]
    assert "{ name: Abe CQL }" in up.movetexts[0]
    down = run_cql(tmp_path, 'cql() initial sort "name" player white', games)
    assert [_white(g) for g in down.games] == ["Zed", "Max", "Abe"]


@pytest.mark.parametrize(("expr", "pgn", "expected"), [
    ("(line lastposition --> true{3}) : ply", "F3", "2"),      # the last position consumed
    ("(line singlecolor lastposition --> true{3}) : ply", "F3", "4"),  # every other ply
    ("line 3 --> true*", "F3", "3"),                            # only matches of length 3
    ("line 2 4 --> true*", "F3", "4"),
    ("line firstmatch --> true+", "F3", "1"),                   # the shortest match
    ("line --> true+", "F8", "6"),                              # through the variation
    ("line primary --> true+", "F8", "5"),                      # main continuations only
    ("line secondary --> true+", "F8", "6"),                    # must enter a variation
])  # fmt: skip
def test_line_parameters(tmp_path: Path, expr: str, pgn: str, expected: str) -> None:
    assert _message(tmp_path, expr, F[pgn], "initial") == expected


def test_line_nestban_and_errors(tmp_path: Path) -> None:
    run = run_cql(tmp_path, "cql() line nestban --> true{2} message (positionid) false",
                  F["F3"])
    assert run.out.splitlines()[:5] == ["0", "2", "4", "6", "8"]
    plain = run_cql(tmp_path, "cql() line --> true{2} message (positionid) false", F["F3"])
    assert plain.out.splitlines()[:3] == ["0", "1", "2"]
    secondary = run_cql(tmp_path, "cql() initial line secondary --> true+", F["F3"])
    assert secondary.stats[1] == 0  # no variation to enter
    bad = run_cql(tmp_path, "cql() line 4 2 --> check", F["F3"])
    assert bad.code == 2 and "ascending" in bad.err
    both = run_cql(tmp_path, "cql() line primary secondary --> check", F["F3"])
    assert both.code == 2 and "not both" in both.err


ECO_GAMES = '[ECO "B01"]\n\n1. e4 d5 *\n\n[ECO "C20"]\n\n1. e4 e5 *\n\n[ECO "B01"]\n\n1. e4 d5 *\n'


def test_dictionaries(tmp_path: Path) -> None:
    query = (
        "cql() persistent dictionary Openings\n"
        "initial\n"
        "if eco in Openings then Openings[eco] += 1 else Openings[eco] = 1\n"
        "dictionary Moves[\"e4\"] = 0\n"
        "Moves[\"e4\"] += 1  #Moves == 1  message (Openings[eco] \" \" Moves)\n"
    )
    run = run_cql(tmp_path, query, ECO_GAMES)
    assert run.code == 0, run.err
    # Both carry over from game to game; `Moves["e4"] = 0` sets its entry back in each.
    assert run.out.splitlines()[:4] == [
        '1 {"e4": 1}', '1 {"e4": 1}', '2 {"e4": 1}', 'Openings: {"B01": 2, "C20": 1}',
    ]
    missing = run_cql(tmp_path, 'cql() dictionary D["a"] = 1  D["b"]', ECO_GAMES)
    assert missing.stats[1] == 0  # a key never set has no value


@pytest.mark.parametrize(("query", "message"), [
    ('cql() D["a"] = 1', "declare a dictionary with 'dictionary D'"),
    ('cql() dictionary D  D["a"]', "read before any value is assigned"),
    ('cql() dictionary D["a"] = 1  D["b"] = "x"', "holds numbers, not strings"),
    ('cql() dictionary D["a"] = "x"  D["a"] -= "y"', "cannot update a string"),
    ("cql() x = 1  dictionary x", "'x' is already numeric"),
    ('cql() dictionary D["a"] = 1  D[Key]', "used before assignment"),
    ('cql() dictionary D["a"] = 1  D[1:2]', "one key"),
])  # fmt: skip
def test_dictionary_errors(tmp_path: Path, query: str, message: str) -> None:
    run = run_cql(tmp_path, query, ECO_GAMES)
    assert run.code == 2 and message in run.err, run.err


def test_find_and_echo_comment_what_they_found(tmp_path: Path) -> None:
    run = run_cql(tmp_path, "cql() initial find mate", F["F1"])
    assert run.movetexts == ["{ CQL } 1. f3 e5 2. g4 Qh4# { found } 0-1"]
    quiet = run_cql(tmp_path, "cql() initial find quiet mate", F["F1"])
    assert quiet.movetexts == ["{ CQL } 1. f3 e5 2. g4 Qh4# 0-1"]
    silent = run_cql(tmp_path, "cql() initial find mate", F["F1"], args=("--silent",))
    assert silent.movetexts == ["1. f3 e5 2. g4 Qh4# 0-1"]
    # A find that fails where the body is evaluated leaves no comment (smart comments).
    failed = run_cql(tmp_path, "cql() initial find mate false", F["F1"])
    assert failed.games == []
    echo = run_cql(tmp_path, "cql() initial echo (s t) { t : mate }", F["F1"])
    assert echo.movetexts == ["{ CQL } 1. f3 e5 2. g4 Qh4# { echo target } 0-1"]


def test_unbind(tmp_path: Path) -> None:
    query = ("cql() initial X = 3  unbind X  not isbound X  dictionary D[\"a\"] = 1  D[\"b\"] = 2\n"
             "unbind D[\"a\"]  not \"a\" in D  message (#D)")
    run = run_cql(tmp_path, query, F["F1"])
    assert run.code == 0, run.err
    assert run.out.splitlines()[0] == "1"
    for bad, message in [("cql() persistent Total = 1  unbind Total", "always bound"),
                         ("cql() square S in A unbind S", "iteration variable"),
                         ("cql() unbind 3", "'unbind' takes a variable"),
                         ('cql() s = "ab"  unbind s[0]', "entries of dictionaries only")]:
        result = run_cql(tmp_path, bad, F["F1"])
        assert result.code == 2 and message in result.err, (bad, result.err)


def test_fen_and_variation(tmp_path: Path) -> None:
    assert _message(tmp_path, "fen", F["F13"], "initial") == chess.STARTING_FEN
    assert run_cql(tmp_path, 'cql() fen ~~ "^rnbqkbnr/pppp1ppp"', F["F13"]).stats[1] == 0
    assert run_cql(tmp_path, 'cql() fen ~~ "^rnbqkbnr/ppp1pppp"', F["F13"]).stats[1] == 1
    main = run_cql(tmp_path, "cql() mainline message (positionid) false", F["F8"],
                   args=("--variations",))
    assert main.out.splitlines()[:5] == ["0", "1", "2", "3", "4"]
    run = run_cql(tmp_path, "cql() variation message (positionid) false", F["F8"],
                  args=("--variations",))
    assert run.out.splitlines()[:3] == ["5", "6", "7"]
