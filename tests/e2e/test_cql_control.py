"""CQL 6.1/6.2 filters for control, strings, files and tags (issue 19), end to end:
`sidetomove`, `eventdate`, `hascomment`, `ascii`, `readfile`, `loop`, `assert`, and the
refusal of `writefile`."""

from __future__ import annotations

from pathlib import Path

from cql_helpers import F, position, run_cql

KF1 = position("8/8/8/8/8/8/8/4kK2 w - - 0 1")
KF1_BTM = position("8/8/8/8/8/8/8/4kK2 b - - 0 1")
DATED = (
    '[Event "A"]\n[EventDate "1994.06.01"]\n\n1. e4 *\n\n'
    '[Event "B"]\n[EventDate "2001.01.02"]\n\n1. d4 *\n\n'
    '[Event "C"]\n\n1. c4 *\n'
)


def test_sidetomove_is_one_for_white_and_minus_one_for_black(tmp_path: Path) -> None:
    assert run_cql(tmp_path, "cql() sidetomove == 1", KF1).stats == (1, 1, 0)
    assert run_cql(tmp_path, "cql() sidetomove == -1", KF1).stats == (1, 0, 0)
    assert run_cql(tmp_path, "cql() sidetomove == -1", KF1_BTM).stats == (1, 1, 0)
    run = run_cql(tmp_path, "cql() initial message (sidetomove) false", F["F1"])
    assert run.out.splitlines()[0] == "1"
    # On the moves of a game it alternates, like wtm/btm.
    run = run_cql(tmp_path, 'cql() message (str(sidetomove)) false', F["F13"])
    assert run.out.splitlines()[:3] == ["1", "-1", "1"]


def test_eventdate_reads_the_tag(tmp_path: Path) -> None:
    assert run_cql(tmp_path, 'cql() eventdate ~~ "^199[4-7]"', DATED).events == ["A"]
    assert run_cql(tmp_path, "cql() eventdate", DATED).events == ["A", "B"]
    assert run_cql(tmp_path, 'cql() eventdate > "2000"', DATED).events == ["B"]


def test_hascomment_is_a_substring_test_on_the_pgn_comment(tmp_path: Path) -> None:
    assert run_cql(tmp_path, 'cql() hascomment "best"', F["F14"]).stats == (1, 1, 0)
    assert run_cql(tmp_path, 'cql() hascomment "worst"', F["F14"]).stats == (1, 0, 0)
    # Any string expression: here built from two pieces.
    assert run_cql(tmp_path, 'cql() hascomment ("by" + " test")', F["F14"]).stats == (1, 1, 0)
    bad = run_cql(tmp_path, "cql() hascomment 3", F["F14"])
    assert bad.code == 2 and "'hascomment' requires string" in bad.err


def test_ascii_converts_both_ways(tmp_path: Path) -> None:
    run = run_cql(tmp_path, 'cql() initial message (ascii "A" " " ascii 98) false', F["F13"])
    assert run.out.splitlines()[0] == "65 b"
    assert run_cql(tmp_path, 'cql() ascii "AB"', F["F13"]).stats == (1, 0, 0)
    assert run_cql(tmp_path, "cql() ascii -1", F["F13"]).stats == (1, 0, 0)
    # The result type follows the argument: a number from a string, a string from a number.
    assert run_cql(tmp_path, 'cql() ascii "a" == 97', F["F13"]).stats == (1, 1, 0)
    assert run_cql(tmp_path, 'cql() ascii 97 == "a"', F["F13"]).stats == (1, 1, 0)
    bad = run_cql(tmp_path, "cql() ascii 97 == 97", F["F13"])
    assert bad.code == 2 and "error" in bad.err
    bad = run_cql(tmp_path, "cql() ascii e4", F["F13"])
    assert bad.code == 2 and "'ascii' requires string or number" in bad.err


def test_readfile_reads_once_and_reports_a_missing_file(tmp_path: Path) -> None:
    (tmp_path / "names.txt").write_text("Carlsen\nSmith\n", encoding="utf-8")
    query = 'cql() initial player black in readfile "names.txt"'
    games = '[Black "Carlsen"]\n\n1. e4 *\n\n[Black "Nobody"]\n\n1. d4 *\n'
    assert run_cql(tmp_path, query, games).stats == (2, 1, 0)
    missing = run_cql(tmp_path, 'cql() #readfile "nope.txt" > 0', games)
    assert missing.code == 1
    assert "q.cql:1:8: runtime error: cannot read nope.txt" in missing.err
    assert missing.pgn is None  # a run-time error leaves no output file
    (tmp_path / "latin1.txt").write_bytes(b"caf\xe9\n")
    bad = run_cql(tmp_path, 'cql() #readfile "latin1.txt" > 0', games)
    assert bad.code == 1 and "cannot read latin1.txt" in bad.err and "UTF-8" in bad.err


def test_writefile_is_refused_with_the_reason(tmp_path: Path) -> None:
    run = run_cql(tmp_path, 'cql() writefile ("x.txt" "hello")', F["F13"])
    assert run.code == 2 and "q.cql:1:7: error: filter 'writefile' is not supported" in run.err
    assert not (tmp_path / "x.txt").exists()


def test_loop_runs_its_body_until_it_fails(tmp_path: Path) -> None:
    # F8: the position after 1. f3 e5 has two continuations (2. g4 and 2. Nc3).
    query = ("cql(variations) Count = 0 loop { child(Count) Count += 1 } Count == 2 "
             "message (\"ply \" ply) false")  # fmt: skip
    run = run_cql(tmp_path, query, F["F8"])
    assert run.out.splitlines()[:-1] == ["ply 2"]
    # A body that fails at once: the loop does not match.
    assert run_cql(tmp_path, "cql() loop false", F["F13"]).stats == (1, 0, 0)
    # A body that never fails is stopped with a located run-time error.
    forever = run_cql(tmp_path, "cql() x = 0 loop { x += 0 }", F["F13"])
    assert forever.code == 1 and "q.cql:1:13: runtime error: 'loop' body still matched" in forever.err


def test_assert_stops_the_run_where_it_fails(tmp_path: Path) -> None:
    assert run_cql(tmp_path, "cql() assert #K == 1", F["F13"]).stats == (1, 1, 0)
    holds = run_cql(tmp_path, "cql() assert #P == 8", F["F1"])  # no capture in the game
    assert holds.code == 0 and holds.stats == (1, 1, 0)
    broken = run_cql(tmp_path, "cql() assert ply < 2", F["F1"])
    assert broken.code == 1
    assert "q.cql:1:7: runtime error: assertion failed (in0.pgn game 1, ply 2)" in broken.err
    # An empty set does not satisfy an assertion.
    empty = run_cql(tmp_path, "cql() assert Q", position("8/8/8/8/8/8/8/4kK2 w - - 0 1"))
    assert empty.code == 1 and "assertion failed" in empty.err


# Main line 2. Nf3 Nc6 3. Nc3 Nf6 4. Bb5 and the variation 2. Nc3 Nc6 3. Nf3 Nf6 4. Bb5:
# after the common ancestor (after 1... e5) the longest common run is Nf6 Bb5.
LOGICAL_STUDY = "1. e4 e5 2. Nf3 (2. Nc3 Nc6 3. Nf3 Nf6 4. Bb5) 2... Nc6 3. Nc3 Nf6 4. Bb5 *\n"


def test_consecutivemoves_is_the_longest_common_run(tmp_path: Path) -> None:
    query = ("cql(variations quiet) echo (s t) { s:terminal t:terminal "
             "positionid < s:positionid message (\"run \" consecutivemoves (s t)) }")  # fmt: skip
    run = run_cql(tmp_path, query, LOGICAL_STUDY)
    assert run.out.splitlines()[0] == "run 2"
    # A position against itself or its ancestor: no moves on one side, so 0.
    same = "cql() initial message (consecutivemoves (currentposition currentposition)) false"
    assert run_cql(tmp_path, same, LOGICAL_STUDY).out.splitlines()[0] == "0"
    refused = run_cql(tmp_path, "cql() consecutivemoves 5 100 (parent parent)", LOGICAL_STUDY)
    assert refused.code == 2
    assert "q.cql:1:24: error: the range and 'quiet' of 'consecutivemoves' are not supported" in refused.err
    bad = run_cql(tmp_path, "cql() consecutivemoves (1 2)", LOGICAL_STUDY)
    assert bad.code == 2 and "'consecutivemoves' requires position" in bad.err


def test_currenttransform_names_the_variant(tmp_path: Path) -> None:
    def names(query: str) -> list[str]:
        return run_cql(tmp_path, query, KF1).out.splitlines()[:-1]

    assert names("cql() message (currenttransform) false") == ["<>"]
    assert names("cql() flipcolor { message (currenttransform) false }") == ["<>", "<reversecolor>"]
    assert names("cql() flip { message (currenttransform) false }") == [
        "<>", "<rotate270>", "<rotate180>", "<rotate90>",
        "<reflect_h>", "<reflect_diagonal>", "<reflect_v>", "<reflect_antidiagonal>",
    ]  # fmt: skip
    # Nested transforms: outermost first; only the variants where Kf1 holds print.
    assert names("cql() shift flipvertical { Kf1 message (currenttransform) false }") == [
        "<>", "<shift[+0,-7] reflect_v>",
    ]  # fmt: skip
    assert names("cql() fliphorizontal flipcolor { message (currenttransform) false }") == [
        "<>", "<reflect_h>", "<reversecolor>", "<reflect_h reversecolor>",
    ]  # fmt: skip
