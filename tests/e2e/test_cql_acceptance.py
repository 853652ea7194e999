"""Spec §9 acceptance checks A01-A33 (A34/A35 need the parallel/Dask drivers of issue 9)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cql_helpers import F, position, run_cql


def test_a01_designators(tmp_path: Path) -> None:
    q = ("cql() #P == 8  #[Aa] == 32  #_ == 32  #a-h1 == 8  #_c-f3-6 == 16  K[e1,g1]  "
         "#[Qq][d1,d8] == 2  #[] == 0")
    r = run_cql(tmp_path, q, F["S"])
    assert r.code == 0
    assert r.movetexts == ["{ CQL } *"]


def test_a02_precedence(tmp_path: Path) -> None:
    q = ("cql() initial  #A + 1 == 17  1 < #A < 17  not #A == 15 or mate  power A - power a == 0"
         "  power A == 39  K == e1  not K == [e1,e2]")
    assert len(run_cql(tmp_path, q, F["S"]).games) == 1


def test_a03_whole_output(tmp_path: Path) -> None:
    r = run_cql(tmp_path, "cql() wtm mate", F["F1"])
    tags = F["F1"].split("\n\n")[0]
    assert r.pgn == tags + "\n\n1. f3 e5 2. g4 Qh4# { CQL } 0-1\n\n"
    assert r.stats == (1, 1, 0)
    assert r.code == 0


def test_a04_stalemate(tmp_path: Path) -> None:
    r = run_cql(tmp_path, "cql() stalemate btm", F["A04"])
    assert r.movetexts[0].count("{ CQL }") == 1
    assert "10. Qe6 { CQL }" in r.movetexts[0]


def test_a05_matchcount(tmp_path: Path) -> None:
    a = run_cql(tmp_path, "cql(matchcount 2 2) check", F["F2"])
    assert len(a.games) == 1
    assert "2. Qh5+ { CQL }" in a.movetexts[0] and "3. Qxg6+ { CQL }" in a.movetexts[0]
    b = run_cql(tmp_path, "cql(matchcount 3 3) check", F["F2"])
    assert b.games == [] and b.stats[:2] == (2, 0)


def test_a06_castling(tmp_path: Path) -> None:
    a = run_cql(tmp_path, "cql() btm move o-o", F["F3"])
    assert a.movetexts[0].endswith("5. d3 { CQL } 5... O-O *")
    b = run_cql(tmp_path, "cql() move castle from K to g1", F["F3"])
    assert b.movetexts[0].count("{ CQL }") == 1 and "Bc5 { CQL }" in b.movetexts[0]


def test_a07_move_previous(tmp_path: Path) -> None:
    a = run_cql(tmp_path, "cql() move previous from n capture P", F["F4"])
    assert a.movetexts[0].count("{ CQL }") == 1 and "Nxd5 { CQL }" in a.movetexts[0]
    # Spec A07(b) says `matchcount 4 4` with markers after exd5, Nxd5, Nxd5, Qxd5; but
    # 1... d5 also moves to d5, so there are five matched positions (reported to the lead).
    b = run_cql(tmp_path, "cql(matchcount 5 5) move previous to d5", F["F4"])
    text = b.movetexts[0]
    for move in ("d5 { CQL }", "2. exd5 { CQL }", "Nxd5 { CQL } 4. Nxd5 { CQL }", "Qxd5 { CQL }"):
        assert move in text
    assert text.count("{ CQL }") == 5


def test_a08_promotion(tmp_path: Path) -> None:
    a = run_cql(tmp_path, "cql() move promote N", F["F5"])
    assert a.movetexts == ["{ CQL } 1. a8=N Kg6 2. Nb6 *"]
    assert '[FEN "8/P6k/8/8/8/8/8/K7 w - - 0 1"]' in a.games[0] and '[SetUp "1"]' in a.games[0]
    assert run_cql(tmp_path, "cql() move promote [QRB]", F["F5"]).games == []
    assert run_cql(tmp_path, "cql() move promote n", F["F5"]).games == []


def test_a09_piece_ids(tmp_path: Path) -> None:
    q = "cql() initial piece Pawn in Pa7 find { N & Pawn  Pawn == b6 }"
    assert len(run_cql(tmp_path, q, F["F5"]).games) == 1
    assert run_cql(tmp_path, "cql() initial square Sq in Pa7 find { N & Sq }", F["F5"]).games == []
    q = "cql() initial piece Rook in Rh1 find { Rook == f1 }"
    assert len(run_cql(tmp_path, q, F["F3"]).games) == 1


def test_a10_en_passant(tmp_path: Path) -> None:
    a = run_cql(tmp_path, "cql() move enpassant capture d5", F["F6"])
    assert "e5 d5 { CQL }" in a.movetexts[0] and a.movetexts[0].count("CQL") == 1
    assert run_cql(tmp_path, "cql() move enpassant capture d6", F["F6"]).games == []
    q = "cql() initial piece Victim in pd7 find { terminal  #Victim == 0 }"
    assert len(run_cql(tmp_path, q, F["F6"]).games) == 1


def test_a11_attacks(tmp_path: Path) -> None:
    q = "cql() btm check  N attacks k  N attacks q  Att =? . attackedby N  #Att == 6"
    assert len(run_cql(tmp_path, q, position("q3k3/2N5/8/8/8/8/8/4K3 b - - 0 1")).games) == 1


def test_a12_king_blocks(tmp_path: Path) -> None:
    q = "cql() mate  #(e8 attackedby R) == 0  #(d8 attackedby R) == 1"
    assert len(run_cql(tmp_path, q, position("R2k4/8/3K4/8/8/8/8/8 b - - 0 1")).games) == 1


def test_a13_pin(tmp_path: Path) -> None:
    q = ("cql() (pin through Q) == e2  (pin from r through Q) == e8  (pin through Q to K) == e2"
         "  not pin through Q to q")
    assert len(run_cql(tmp_path, q, position("4r1k1/8/8/8/8/8/4Q3/4K3 w - - 0 1")).games) == 1


def test_a14_ray_between(tmp_path: Path) -> None:
    q = "cql() ray (B k r)  (ray diagonal (B k r)) == b2  not ray orthogonal (B k r)"
    assert len(run_cql(tmp_path, q, position("8/8/5r2/8/3k4/8/1B6/7K b - - 0 1")).games) == 1
    q = "cql() #between([a1,h1] a8) == 12  #between(a1 b3) == 0  #between(a1 a8) == 6"
    assert len(run_cql(tmp_path, q, F["S"]).games) == 1


def test_a15_flipcolor(tmp_path: Path) -> None:
    p = position("8/8/8/8/8/8/5p2/4K2k w - - 0 1")
    assert len(run_cql(tmp_path, "cql() flipcolor { btm check  P attacks k }", p).games) == 1
    assert run_cql(tmp_path, "cql() btm check  P attacks k", p).games == []


def test_a16_flip_rotate(tmp_path: Path) -> None:
    q = "cql() (flip count Ka1) == 2  flip Ka1  not Ka1  rotate90 Ka8"
    assert len(run_cql(tmp_path, q, position("7K/8/8/8/8/8/8/k7 w - - 0 1")).games) == 1


def test_a17_shift(tmp_path: Path) -> None:
    a = run_cql(tmp_path, "cql() shift { Pe4 pe5 }", F["F13"])
    assert a.movetexts == ["1. d4 d5 { CQL } *"]
    assert run_cql(tmp_path, "cql() shiftvertical { Pe4 pe5 }", F["F13"]).games == []
    p = position("8/8/8/8/8/8/1P6/K6k w - - 0 1")
    assert run_cql(tmp_path, "cql() shifthorizontal { Pa2 Ph2 }", p).games == []
    assert len(run_cql(tmp_path, "cql() shifthorizontal Pa2", p).games) == 1


def test_a18_line(tmp_path: Path) -> None:
    for q in ("cql() (line --> {move capture .}{2,}) == 4", "cql() line --> {move capture .}{4 4}"):
        r = run_cql(tmp_path, q, F["F7"])
        assert r.movetexts[0].count("CQL") == 1 and "3. d4 { CQL }" in r.movetexts[0], q
    c = run_cql(tmp_path, 'cql() sort "captures" line --> {move capture .}{2,}', F["F7"])
    assert c.movetexts == [
        "{ captures: 4 } 1. e4 e5 2. Nf3 Nc6 3. d4 { CQL } 3... exd4 { CQL } 4. Nxd4\n"
        "{ CQL } 4... Nxd4 5. Qxd4 *"
    ]
    d = run_cql(tmp_path, "cql() line <-- mate <-- not check <-- not check", F["F1"])
    assert "Qh4# { CQL }" in d.movetexts[0]
    assert run_cql(tmp_path, "cql() line <-- mate <-- check", F["F1"]).games == []


def test_a19_find_position(tmp_path: Path) -> None:
    q = "cql() initial  Spot = find mate  Spot : wtm  (find all check) == 1"
    r = run_cql(tmp_path, q, F["F1"])
    # `find` marks the position it found (twice here: the mate is also the one check).
    assert r.movetexts == ["{ CQL } 1. f3 e5 2. g4 Qh4# { found } 0-1"]
    quiet = q.replace("find", "find quiet")
    assert run_cql(tmp_path, quiet, F["F1"]).movetexts == ["{ CQL } 1. f3 e5 2. g4 Qh4# 0-1"]


def test_a20_echo(tmp_path: Path) -> None:
    assert len(run_cql(tmp_path, "cql(matchcount 4 4) (echo (s t) ply) == 4", F["F1"]).games) == 1
    r = run_cql(tmp_path, "cql() terminal echo (s t) { s & t == .  initial }", F["F10"])
    # `echo` marks each target where its filter matched.
    assert r.movetexts == ["{ echo target } 1. Nf3 Nf6 2. Ng1 Ng8 { CQL } *"]
    r = run_cql(tmp_path, "cql() terminal echo quiet (s t) { s & t == .  initial }", F["F10"])
    assert r.movetexts == ["1. Nf3 Nf6 2. Ng1 Ng8 { CQL } *"]


def test_a21_variables_carry_and_reset(tmp_path: Path) -> None:
    q = "cql() if initial then Checks = 0  if check then Checks += 1  terminal  Checks == 2"
    a = run_cql(tmp_path, q, F["F2"])
    assert len(a.games) == 1 and "hxg6 { CQL }" in a.movetexts[0]
    b = run_cql(tmp_path, "cql() if check then Seen = 1  terminal  isbound Seen", F["F2"])
    assert len(b.games) == 1 and "Qxg6+" in b.movetexts[0]
    c = run_cql(tmp_path, "cql() if check then Seen = 1  Seen == 1", F["F1"])
    assert c.code == 0 and c.movetexts == ["1. f3 e5 2. g4 Qh4# { CQL } 0-1"]


@pytest.mark.parametrize("jobs", [(), ("--jobs", "4")])
def test_a22_persistent(tmp_path: Path, jobs: tuple[str, ...]) -> None:
    q = "cql(quiet) persistent Positions += 1  persistent quiet Hidden += 1  false"
    r = run_cql(tmp_path, q, F["F1"], F["F2"], args=jobs)
    assert r.games == []
    lines = r.out.splitlines()
    assert lines[0] == "Positions: 15" and "Hidden" not in r.out
    assert lines[1].startswith("cql: 3 games read, 0 matched")
    if jobs:
        assert "cql: note: running in a single process (persistent variables)" in r.err


def test_a23_strings(tmp_path: Path) -> None:
    q = ('cql() initial  X = "zug"  X += "zwang"  X[1:3] = "Z"  X == "zZzwang"  #X == 7  '
         '"wan" in X  uppercase X[0:2] == "ZZ"')
    assert len(run_cql(tmp_path, q, F["S"]).games) == 1


def test_a24_game_information(tmp_path: Path) -> None:
    q = 'cql() initial  event ~~ "(\\d+)th"  int \\1 >= 10  player black "Carlsen"'
    a = run_cql(tmp_path, q, F["F11"])
    assert len(a.games) == 1 and "12th Open" in a.games[0]
    b = run_cql(tmp_path, "cql() initial elo black >= 2800", F["F11"])
    assert len(b.games) == 1 and "12th Open" in b.games[0]
    c = run_cql(tmp_path, "cql() initial year < 2000", F["F11"])
    assert len(c.games) == 1 and "Blitz" in c.games[0]


def test_a25_functions(tmp_path: Path) -> None:
    q = ("cql() function Hit(S) { S attackedby a }  function Bump(V) { V += 1 }  initial  "
         "Hit(f6)  not Hit(e4)  Cnt = 0  Bump(Cnt)  Bump(Cnt)  Cnt == 2")
    assert len(run_cql(tmp_path, q, F["S"]).games) == 1


def test_a26_comments(tmp_path: Path) -> None:
    a = run_cql(tmp_path, 'cql() comment("seen " ply) check', F["F2"])
    assert a.movetexts == [
        "1. e4 f6 2. Qh5+ { CQL seen 3 } 2... g6 3. Qxg6+ { CQL seen 5 } 3... hxg6 *"
    ]
    b = run_cql(tmp_path, 'cql(quiet) comment("seen " ply) check', F["F2"])
    assert "{ seen 3 }" in b.movetexts[0] and "{ seen 5 }" in b.movetexts[0]
    c = run_cql(tmp_path, 'cql(silent) comment("seen " ply) check', F["F2"])
    assert "{" not in c.movetexts[0]
    d = run_cql(tmp_path, 'cql() originalcomment "best"', F["F14"])
    assert d.movetexts == ["1. e4 { best by test CQL } 1... e5 *"]
    e = run_cql(tmp_path, 'cql() initial piece King = Ke1  Sq = Ke1  comment("king " King " on " Sq)',
                F["S"])
    assert e.movetexts == ["{ CQL king Ke1 on e1 } *"]


def test_a27_sort(tmp_path: Path) -> None:
    r = run_cql(tmp_path, 'cql() terminal sort min "length" ply', F["F9"])
    assert [m.split(" ", 4)[:4] for m in r.movetexts] == [
        ["{", "length:", "2", "}"], ["{", "length:", "4", "}"], ["{", "length:", "6", "}"]
    ]
    assert "1. d4" in r.movetexts[0] and "1. e4" in r.movetexts[1] and "1. c4" in r.movetexts[2]


@pytest.mark.parametrize(
    ("args", "expected"), [((), "{ CQL depth 3 }"), (("-a", "Depth=5"), "{ CQL depth 5 }")]
)
def test_a28_assign(tmp_path: Path, args: tuple[str, ...], expected: str) -> None:
    q = 'cql() if isunbound Depth then Depth = 3  initial  comment("depth " Depth)'
    r = run_cql(tmp_path, q, F["S"], args=args)
    assert r.movetexts == [expected + " *"]


def test_a28c_assign_conflict(tmp_path: Path) -> None:
    q = 'cql() if isunbound Depth then Depth = 3  initial  comment("depth " Depth)'
    r = run_cql(tmp_path, q, F["S"], args=("-a", "Depth=abc"))
    assert r.code == 2 and "Depth" in r.err and "string" in r.err and r.pgn is None


def test_a29_bad_game(tmp_path: Path) -> None:
    r = run_cql(tmp_path, "cql() initial", F["F12"], pgn_names=("bad.pgn",))
    assert r.code == 1
    bad = [line for line in r.err.splitlines() if "game 2" in line]
    assert len(bad) == 1
    assert bad[0].endswith("bad.pgn:5: game 2: error: illegal san: 'Ke3' in "
                           "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2 "
                           "(game skipped)")
    assert "Traceback" not in r.err
    assert r.stats == (3, 2, 1)
    assert [g.split("\n")[0] for g in r.games] == ['[Event "one"]', '[Event "three"]']


def test_a30_ranges_and_limit(tmp_path: Path) -> None:
    a = run_cql(tmp_path, "cql() initial", F["F9"], args=("--gamenumber", "2-3"))
    assert len(a.games) == 2 and "1. d4" in a.games[0] and a.stats[0] == 2
    b = run_cql(tmp_path, "cql() initial", F["F9"], args=("--limit", "1"))
    assert len(b.games) == 1 and "1. e4" in b.games[0]
    c = run_cql(tmp_path, "cql() initial", F["F9"], args=("--gamenumber", "2-3", "--limit", "1"))
    assert len(c.games) == 1 and "1. d4" in c.games[0]
    d = run_cql(tmp_path, "cql() initial", F["F9"], args=("-o", "-"))
    assert d.out.count("[Event") == 3 and "cql: 3 games read" in d.err
    assert "games read" not in d.out


def test_a31_variations(tmp_path: Path) -> None:
    a = run_cql(tmp_path, "cql(variations) check", F["F8"])
    assert a.movetexts == ["1. f3 e5 2. g4 ( 2. Nc3 Qh4+ { CQL } 3. g3 ) 2... Qh4# { CQL } 0-1"]
    b = run_cql(tmp_path, "cql() check", F["F8"])
    assert b.movetexts == ["1. f3 e5 2. g4 ( 2. Nc3 Qh4+ 3. g3 ) 2... Qh4# { CQL } 0-1"]
    assert len(run_cql(tmp_path, "cql(variations matchcount 2 2) check", F["F8"]).games) == 1
    assert run_cql(tmp_path, "cql(matchcount 2 2) check", F["F8"]).games == []


@pytest.mark.parametrize(
    ("query", "where"),
    [
        ("cql() x = 3 if x then check", "err.cql:1:16: error:"),
        ("cql() a = 1", "err.cql:1:7: error:"),
        ("cql() square Sq in A { Sq attacks k } Sq attacks q", "err.cql:1:39: error:"),
        ("cql() x = 1000000001", "err.cql:1:11: error:"),
        ("cql() mate or", "err.cql:1:14: error:"),
        ("cql() Q < K", "err.cql:1:9: error:"),
        ("cql() chek", "err.cql:1:7: error:"),
        ("cql() hhdb sound", "err.cql:1:7: error:"),  # a CQL word not implemented (path now is)
    ],
)
def test_a32_query_errors(tmp_path: Path, query: str, where: str) -> None:
    r = run_cql(tmp_path, query, F["S"], query_name="err.cql")
    assert r.code == 2
    assert r.err.startswith(where)
    lines = r.err.splitlines()
    assert lines[1] == query
    col = int(where.split(":")[2])
    assert lines[2].startswith(" " * (col - 1) + "^")
    assert r.pgn is None


def test_a32_end_of_input_in_a_file_with_a_final_newline(tmp_path: Path) -> None:
    r = run_cql(tmp_path, "cql() mate or\n", F["S"], query_name="err.cql")
    assert r.code == 2 and r.err.startswith("err.cql:1:14: error: unexpected end of input")


def test_a33_overflow(tmp_path: Path) -> None:
    r = run_cql(tmp_path, "cql() x = 1000000000 x += 1", F["S"], query_name="err.cql")
    assert r.code == 1
    assert r.err.startswith("err.cql:1:24: runtime error:")
    assert r.pgn is None and not list(tmp_path.glob("out.pgn*"))
