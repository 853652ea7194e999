"""CQL 6.1/6.2 features beyond the first tier (issue 19), end to end through `cql`."""

from __future__ import annotations

from pathlib import Path

from cql_helpers import position, run_cql

GAMES = (
    '[Event "Open"]\n[Result "1/2-1/2"]\n[Annotator "Me"]\n\n1. e4 e5 1/2-1/2\n\n'
    '[Event "Blitz"]\n[Result "*"]\n\n1. d4 *\n\n'
    '[Event "Rapid"]\n[Result "0-1"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n\n'
)


def test_light_and_dark(tmp_path: Path) -> None:
    kf1 = position("8/8/8/8/8/8/8/4kK2 w - - 0 1")  # f1 is a light square
    assert run_cql(tmp_path, "cql() light K", kf1).stats == (1, 1, 0)
    assert run_cql(tmp_path, "cql() dark K", kf1).stats == (1, 0, 0)
    assert run_cql(tmp_path, "cql() #dark k == 1", kf1).stats == (1, 1, 0)  # e1 is dark
    bad = run_cql(tmp_path, "cql() dark 3", kf1)
    assert bad.code == 2 and "'dark' requires set" in bad.err


def test_result_as_a_string_and_star(tmp_path: Path) -> None:
    assert run_cql(tmp_path, 'cql() result "1/2-1/2"', GAMES).events == ["Open"]
    assert run_cql(tmp_path, "cql() result *", GAMES).events == ["Blitz"]
    assert run_cql(tmp_path, 'cql() result "*"', GAMES).events == ["Blitz"]
    # Under flipcolor a decisive result is read from the other side.
    assert run_cql(tmp_path, 'cql() flipcolor result "1-0"', GAMES).events == ["Rapid"]


def test_tag_reads_any_tag(tmp_path: Path) -> None:
    assert run_cql(tmp_path, 'cql() tag "Annotator" == "Me"', GAMES).events == ["Open"]
    assert run_cql(tmp_path, 'cql() tag "Event" ~~ "^B"', GAMES).events == ["Blitz"]
    # A missing tag has no value: the filter does not match.
    assert run_cql(tmp_path, 'cql() tag "Nope"', GAMES).stats == (3, 0, 0)
    run = run_cql(tmp_path, 'cql() initial message ("E=" tag "Event") false', GAMES)
    assert run.out.splitlines()[:3] == ["E=Open", "E=Blitz", "E=Rapid"]


def test_pawn_structure_filters(tmp_path: Path) -> None:
    # White pawns a2 a3 b5 e3, Black pawns a7 c7 h7.
    board = position("4k3/p1p4p/8/1P6/8/P3P3/P7/4K3 w - - 0 1")
    for name, white in [("passedpawns", "e3"), ("isolatedpawns", "e3"),
                        ("doubledpawns", "[a2,a3]"), ("connectedpawns", "[a2,a3,b5]")]:  # fmt: skip
        run = run_cql(tmp_path, f"cql() message ({name} & A) false", board)
        assert run.out.splitlines()[0] == white, name
    assert run_cql(tmp_path, "cql() #passedpawns == 2", board).stats == (1, 1, 0)


def test_direction_filters_on_their_own(tmp_path: Path) -> None:
    kf1 = position("8/8/8/8/8/8/8/4kK2 w - - 0 1")
    for query, squares in [("up 2 K", "f3"), ("horizontal 1 k", "[d1,f1]"),
                           ("up K", "[f2,f3,f4,f5,f6,f7,f8]"),
                           ("diagonal 1 2 K", "[e2,g2,d3,h3]")]:  # fmt: skip
        run = run_cql(tmp_path, f"cql() message ({query}) false", kf1)
        assert run.out.splitlines()[0] == squares, query
    # `horizontal 1 k` holds the White king: the king is beside the Black king.
    assert run_cql(tmp_path, "cql() horizontal 1 k & K", kf1).stats == (1, 1, 0)
    # Under a transform the directions turn with the board.
    assert run_cql(tmp_path, "cql() down 2 K", kf1).stats == (1, 0, 0)
    assert run_cql(tmp_path, "cql() flipvertical { down 2 K }", kf1).stats == (1, 1, 0)
    bad = run_cql(tmp_path, "cql() up 9 K", kf1)
    assert bad.code == 2 and "q.cql:1:7: error: 'up' distances must satisfy" in bad.err


def test_file_rank_and_makesquare(tmp_path: Path) -> None:
    kf1 = position("8/8/8/8/8/8/8/4kK2 w - - 0 1")
    run = run_cql(tmp_path, 'cql() message (file K " " rank K " " file k) false', kf1)
    assert run.out.splitlines()[0] == "6 1 5"
    run = run_cql(tmp_path, "cql() message (makesquare (file K rank k + 2)) false", kf1)
    assert run.out.splitlines()[0] == "f3"
    # A set of several squares has no file; a square off the board is no square.
    assert run_cql(tmp_path, "cql() file [Kk]", kf1).stats == (1, 0, 0)
    assert run_cql(tmp_path, "cql() makesquare (9 1)", kf1).stats == (1, 0, 0)
    bad = run_cql(tmp_path, "cql() rank 3", kf1)
    assert bad.code == 2 and "'rank' requires set" in bad.err
