"""`path` and `focus` (CQL 6.2, issue 19) end to end through `cql`: the documented
examples, every parameter, the status filters, transforms, comments and the errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from cql_helpers import F, run_cql

GREEK = ('[Event "greek"]\n\n1. e4 e6 2. d4 d5 3. Nc3 Nf6 4. e5 Nfd7 5. Nf3 Be7 6. Bd3 O-O '
         "7. Bxh7+ Kxh7 8. Ng5+ Kg8 9. Qh5 *\n")
FIANCHETTO = '[Event "fianchetto"]\n\n1. d4 d5 2. Nf3 Nf6 3. g3 g6 4. Bg2 Bg7 *\n'
#: A main line with a variation at move 2 (2. Nc3 instead of 2. Nf3).
TREE = "1. e4 e5 2. Nf3 (2. Nc3 Nc6 3. Nd5) 2... Nc6 3. Bb5 *\n"


def _lines(tmp_path: Path, query: str, pgn: str, *args: str) -> list[str]:
    run = run_cql(tmp_path, query, pgn, args=args)
    assert run.code == 0, run.err
    return run.out.splitlines()[:-1]


@pytest.mark.parametrize("query", [
    "cql() ⊢ ♗×♟h7 check ♚×h7 ♘――g5 check",
    "cql() path B[x]ph7 check k[x]h7 N--g5 check",
    "cql() path B[x]h7 k[x] N--g5",
    "cql() flipcolor path b[x]Ph2 check K[x]h2",        # the colour-reversed image
    "cql() flip path B[x]ph7 check k[x]h7",
])  # fmt: skip
def test_the_greek_gift(tmp_path: Path, query: str) -> None:
    run = run_cql(tmp_path, query, GREEK + "\n" + FIANCHETTO)
    assert run.code == 0, run.err
    assert run.events == ["greek"]


def test_value_is_the_number_of_moves(tmp_path: Path) -> None:
    query = 'cql() v = {path B[x]ph7 check k[x]h7 N--g5 check} message(ply " " v) false'
    assert _lines(tmp_path, query, GREEK) == ["12 3"]
    # Repetitions: the longest run of moves from each position of the fixture F2.
    assert _lines(tmp_path, 'cql() initial message({path --{2,}})', F["F13"]) == ["2"]
    assert _lines(tmp_path, 'cql() v = {path (-- check)+} message(ply " " v) false',
                  F["F2"]) == ["2 1", "4 1"]  # 2. Qh5+ and 3. Qxg6+: g6 is no check
    assert _lines(tmp_path, 'cql() v = {path (--)? [x]} message(ply " " v) false',
                  F["F4"]) == ["1 2", "2 1", "4 2", "5 2", "6 2", "7 1"]


def test_focus_skips_the_other_pieces(tmp_path: Path) -> None:
    """The documented fianchetto: the white pawns' moves d4 and g3, Black's skipped."""
    run = run_cql(tmp_path, 'cql() initial v = {⊢◎♙ ―― ―― comment("fianchetto")} message(v)',
                  FIANCHETTO)
    assert run.out.splitlines()[0] == "2"
    assert "3. g3 { fianchetto End path of length 2" in run.pgn.replace("\n", " ")
    # The first move must be played from the start by a focused piece.
    assert _lines(tmp_path, "cql() initial message({path focus N -- --})", FIANCHETTO) == []
    assert _lines(tmp_path, "cql() initial message({path focus [Nn] -- --})", FIANCHETTO) == []
    assert _lines(tmp_path, "cql() ply == 2 message({path focus N --+})", FIANCHETTO) == ["1"]
    # `focus capture`: a capture of a focused piece is in focus too.
    assert _lines(tmp_path, "cql() initial message({path focus P --+})", F["F4"]) == ["2"]
    assert _lines(tmp_path, "cql() initial message({path focus capture P --+})", F["F4"]) == ["3"]


def test_singlecolor_and_primary(tmp_path: Path) -> None:
    assert _lines(tmp_path, "cql() initial message({path singlecolor --+})", F["F3"]) == ["5"]
    tree = "cql(variations) initial message({path --+}) message({path primary --+})"
    assert _lines(tmp_path, tree, TREE) == ["5", "5"]
    branch = "cql(variations) ply == 2 message({path --+}) message({path primary --+})"
    assert _lines(tmp_path, branch, TREE) == ["3", "3"]  # 2. Nf3 Nc6 3. Bb5 either way


def test_status_filters(tmp_path: Path) -> None:
    inside = ('cql() initial path focus P -- -- '
              'message(pathcount " " pathcountunfocused " " pathstart:ply " " ply) false')
    assert _lines(tmp_path, inside, GREEK) == ["2 3 0 3"]
    after = ("cql() initial {path quiet focus P -- --} message(pathstart:ply "
             '" " pathlastposition:ply " " pathcount " " pathcountunfocused " " pathdebug) false')
    assert _lines(tmp_path, after, FIANCHETTO) == [
        "0 5 2 5 pathstart 0 pathcount 2 pathcountunfocused 5 pathlastposition 5"]
    # Before any path matched there is no status.
    assert _lines(tmp_path, "cql() initial message(pathcount) false", GREEK) == []


@pytest.mark.parametrize(("params", "value"), [
    ("", "10"), ("firstmatch", "2"), ("10", "10"), ("3 4", None), ("5 12", "10"),
    ("lastposition", "move 6 (wtm)"), ("max ply", "10"), ("max 20 - ply", "18"),
    ("19 20 max 20 - ply", None),
])  # fmt: skip
def test_range_firstmatch_lastposition_max(tmp_path: Path, params: str, value: str | None) -> None:
    query = f"cql() initial message({{path {params} (-- --)+}}) false"
    assert _lines(tmp_path, query, F["F3"]) == ([value] if value else [])


def test_nestban_counts_each_run_once(tmp_path: Path) -> None:
    plain = run_cql(tmp_path, "cql() path [x]{2}", F["F7"])
    banned = run_cql(tmp_path, "cql() path nestban [x]{2}", F["F7"])
    assert "{ CQL Start path" in plain.pgn
    # exd4 Nxd4, Nxd4 Nxd4 and Nxd4 Qxd4; with nestban only the first: it used the others.
    assert plain.pgn.count("Start path") == 3 and banned.pgn.count("Start path") == 1


def test_comments(tmp_path: Path) -> None:
    run = run_cql(tmp_path, 'cql() initial path title "T" verbose piecepath focus P -- --',
                  FIANCHETTO)
    text = run.pgn.replace("\n", " ")
    assert "{ CQL T Focus path: d4 g3 Start path that ends at move 3 (btm) } 1. d4" in text
    assert "1. d4 { T: move 1 of 2 }" in text
    assert "3. g3 { T: move 2 of 2 End path of length 2 that starts at move 1 (wtm) }" in text
    quiet = run_cql(tmp_path, "cql() initial path quiet --", FIANCHETTO)
    assert "path" not in quiet.pgn.split("\n\n", 1)[1]
    alternatives = run_cql(tmp_path, "cql(variations) ply == 2 path keepallbest -- --", TREE)
    assert "alternative" in alternatives.pgn
    # A comment made while trying a branch that is not the chosen path is dropped.
    branch = run_cql(tmp_path, 'cql(variations) initial path -- -- -- comment("x") --', TREE)
    assert branch.pgn.count("{ x") == 1


def test_promotion(tmp_path: Path) -> None:
    assert run_cql(tmp_path, "cql() path --a8=N", F["F5"]).stats[1] == 1
    assert run_cql(tmp_path, "cql() path --=N", F["F5"]).stats[1] == 1
    assert run_cql(tmp_path, "cql() path P--=Q", F["F5"]).stats[1] == 0


@pytest.mark.parametrize(("query", "message"), [
    ("cql() path Q-- check {2} {3}", "1:26: error: two repetitions in a row"),
    ("cql() path *", "1:12: error: a repetition applies to a path move"),
    ("cql() path check +", "1:18: error: a repetition applies to a path move"),
    ("cql() path --=e4", "1:14: error: expected the promoted piece after '='"),
    ("cql() path piecepath --", "'piecepath' comments the moves of the focused pieces"),
    ("cql() path secondary --", "'path' does not take 'secondary'"),
    ("cql() path 5 3 --", "'path' takes a range: LO or LO HI, ascending"),
    ("cql() path focus 3 --", "1:18: error: 'path focus' requires set"),
    ("cql() path singlecolor focus A --", "'path' takes 'singlecolor' or 'focus', not both"),
    ("cql() path -- sort ply", "'sort' may not appear inside a path constituent"),
    ("cql() path check--", "1:12: error: 'path move left' requires set"),
    ("cql() path max \"x\" --", "'path max' requires number"),
    ("cql() x = 1 atomic x = 2", "1:20: error: variable 'x' was used before its atomic declaration"),
    ("cql() persistent pp += 1 atomic pp = 2", "'pp' is persistent; it cannot also be atomic"),
    ("cql() atomic w = K piece w = Q", "1:26: error: piece variables cannot be atomic"),
])  # fmt: skip
def test_errors(tmp_path: Path, query: str, message: str) -> None:
    run = run_cql(tmp_path, query, F["F13"])
    assert run.code == 2 and message in run.err, run.err


def test_an_unbounded_repetition_before_a_bounded_one(tmp_path: Path) -> None:
    """`X+` then `X{2}`: a position reached after k repetitions is reached after k+1 too;
    both line and path must keep it (both once dropped every state seen before)."""
    game = "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *\n"
    assert _lines(tmp_path, "cql() initial message({line --> true+ --> true{2}})", game) == ["7"]
    assert _lines(tmp_path, "cql() initial message({path --+ --{2}})", game) == ["6"]
    assert _lines(tmp_path, "cql() initial message({path (-- --)+ -- {2}})", game) == ["6"]


def test_atomic_variables_follow_the_chosen_path(tmp_path: Path) -> None:
    """CQL's documented example: with `atomic`, Count is the length of the longest line;
    without, every position the path visited counted."""
    plain = "cql(variations) initial Count = 0 {path -- Count += 1 *} message(Count)"
    atomic = ("cql(variations) initial atomic Count = 0 {path -- Count += 1 *} "
              "message(Count)")
    assert _lines(tmp_path, plain, TREE) == ["8"]   # the 8 positions after the start
    assert _lines(tmp_path, atomic, TREE) == ["5"]  # 1. e4 e5 2. Nf3 Nc6 3. Bb5
    # A path that fails leaves the atomic variable as it was.
    failed = ('cql(variations) initial atomic S = "-" {path (-- S += "x")+ mate} '
              'message(S) false')
    assert _lines(tmp_path, failed, TREE) == []
    kept = ('cql(variations) initial atomic S = "-" not {path (-- S += "x")+ mate} '
            'message(S) false')
    assert _lines(tmp_path, kept, TREE) == ["-"]
    # Outside a path an atomic variable is an ordinary one.
    assert _lines(tmp_path, "cql() initial atomic Num = 2 Num += 1 message(Num) false",
                  TREE) == ["3"]


def test_local_dictionary_is_reset_for_each_game(tmp_path: Path) -> None:
    query = 'cql() local dictionary D  initial D[str(gamenumber)] = 1  message(#D) false'
    assert _lines(tmp_path, query, F["F9"]) == ["1", "1", "1"]
    persistent = 'cql() persistent dictionary D  initial D[str(gamenumber)] = 1  message(#D) false'
    assert _lines(tmp_path, persistent, F["F9"]) == ["1", "2", "3", 'D: {"1": 1, "2": 1, "3": 1}']


def test_a_plain_dictionary_keeps_its_entries_for_the_whole_run(tmp_path: Path) -> None:
    # CQL 6.2: only `local dictionary` is emptied for each game; a plain one is shared
    # between games but, unlike a persistent one, not printed at the end.
    plain = 'cql() dictionary D  initial D[str(gamenumber)] = 1  message(#D) false'
    assert _lines(tmp_path, plain, F["F9"]) == ["1", "2", "3"]
    # the same with several worker processes: the run-long dictionary keeps it in one
    assert _lines(tmp_path, plain, F["F9"], "--jobs", "2") == ["1", "2", "3"]
    # declared plain first and persistent later: kept, and printed
    both = ('cql() dictionary D  initial D[str(gamenumber)] = 1  persistent dictionary D '
            'message(#D) false')
    assert _lines(tmp_path, both, F["F9"]) == ["1", "2", "3", 'D: {"1": 1, "2": 1, "3": 1}']


@pytest.mark.parametrize(("query", "message"), [
    ("cql() dictionary D  local dictionary D", "cannot also be declared 'local'"),
    ("cql() local dictionary D  persistent dictionary D", "cannot also be declared 'persistent'"),
    ('cql() dictionary D["a"] = 1  unbind D', 'unbind D[KEY]'),
    ('cql() dictionary D["a"] = 1  D = 3', "is a dictionary"),
])  # fmt: skip
def test_dictionary_lifetimes_do_not_mix(tmp_path: Path, query: str, message: str) -> None:
    run = run_cql(tmp_path, query, F["F9"])
    assert run.code == 2 and message in run.err, run.err


@pytest.mark.parametrize(("query", "instead"), [
    ("cql() hhdb sound", 'tag "Black" ~~'),
    ('cql() writefile ("x.txt" "hello")', "message (...)"),
])  # fmt: skip
def test_refused_words_say_what_to_write_instead(tmp_path: Path, query: str, instead: str) -> None:
    run = run_cql(tmp_path, query, F["F13"])
    assert run.code == 2 and "q.cql:1:7: error: filter '" in run.err and instead in run.err
