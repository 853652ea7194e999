"""The four adapters give what the command lines give: the same output, diagnostics,
records and matched games (each compared with the real command run on the same input)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from esochess.studio import chazz_adapter, chespel_adapter, cql_adapter, gambit_adapter
from esochess.studio.jobs import UserError

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
EXAMPLES = REPO / "examples"


def report(_value: object) -> None:
    """Progress goes nowhere in these tests."""


def command(
    name: str, *args: str, stdin: bytes = b"", cwd: Path | None = None
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [str(BIN / name), *args], input=stdin, capture_output=True, timeout=120, cwd=cwd
    )


# ---------------------------------------------------------------------------- CHAZZ

CHAZZ_PROGRAMS = sorted(p.name for p in (EXAMPLES / "chazz").glob("*.fen"))


@pytest.mark.parametrize("name", CHAZZ_PROGRAMS)
def test_chazz_run_to_end_prints_what_the_command_prints(name: str) -> None:
    path = EXAMPLES / "chazz" / name
    fen = path.read_bytes().split(b"\n")[0].decode("latin-1")
    snap = chazz_adapter.snapshot(report, fen, b"hi", chazz_adapter.MAX_STEPS, True)
    cli = command("chazz", str(path), "--engine", "interpreter", "--trace", stdin=b"hi")
    assert snap.finished
    assert snap.output.encode("latin-1") == cli.stdout
    assert snap.step == cli.stderr.count(b"step=")


def test_chazz_step_shows_the_next_square_and_the_tape() -> None:
    fen = (EXAMPLES / "chazz" / "hello.fen").read_text().split("\n")[0]
    trace = command(
        "chazz", str(EXAMPLES / "chazz" / "hello.fen"), "--engine", "interpreter", "--trace"
    )
    lines = trace.stderr.decode().splitlines()
    for k in (0, 1, 5, 20):
        snap = chazz_adapter.snapshot(report, fen, b"", k, True)
        fields = dict(part.split("=") for part in lines[k].split())
        assert snap.step == k and not snap.finished
        assert snap.square == tuple(int(x) for x in fields["sq"].split(","))
        assert snap.piece == fields["piece"] and snap.pointer == int(fields["ptr"])
        assert dict(snap.tape)[snap.pointer] == int(fields["cell"])


@given(st.integers(min_value=0, max_value=60))
def test_chazz_output_so_far_grows_into_the_whole_output(step: int) -> None:
    fen = (EXAMPLES / "chazz" / "hello.fen").read_text().split("\n")[0]
    whole = chazz_adapter.snapshot(report, fen, b"", chazz_adapter.MAX_STEPS, True)
    snap = chazz_adapter.snapshot(report, fen, b"", step, True)
    assert whole.output.startswith(snap.output)
    assert snap.finished == (step >= whole.step)


def test_chazz_bad_board_gives_the_command_line_message() -> None:
    with pytest.raises(UserError, match="^Error: Invalid FEN format$"):
        chazz_adapter.board("8/8/x7 w")
    with pytest.raises(UserError, match=r"MEMORY_SIZE \(30001\) exceeds"):
        chazz_adapter.board("30001/ w")


def test_chazz_edit_and_resize_keep_a_valid_program() -> None:
    board = chazz_adapter.edit("8/8 w", 1, 2, "R")
    assert board.fen == "8/2R5 w"
    assert chazz_adapter.edit(board.fen, 1, 2, "").fen == "8/8 w"
    assert chazz_adapter.resize(board.fen, 3, 4).fen == "4/2R1/4 w"
    with pytest.raises(UserError):
        chazz_adapter.edit(board.fen, 5, 0, "R")
    with pytest.raises(UserError):
        chazz_adapter.edit(board.fen, 0, 0, "x")
    with pytest.raises(UserError):
        chazz_adapter.resize(board.fen, 200, 200)


def test_chazz_loop_error_ends_like_the_command_line() -> None:
    snap = chazz_adapter.snapshot(report, "b w", b"", 10, True)
    assert snap.finished and snap.status == "Error: Loop stack underflow"
    assert snap.output == "Error: Loop stack underflow\n"


# ---------------------------------------------------------------------------- Chespel

BAD_CHESPEL = "module evaluation\nsym rule material:\n\tscore me.totalValu;\n"


def test_chespel_check_reports_what_chespel_check_prints(tmp_path: Path) -> None:
    (tmp_path / "bad.chp").write_text(BAD_CHESPEL)
    checked = chespel_adapter.check(report, "bad.chp", BAD_CHESPEL)
    cli = command("chespel", "check", "bad.chp", cwd=tmp_path)
    assert not checked.ok
    assert checked.report + "\n" == cli.stderr.decode()
    assert [(d.line, d.column) for d in checked.diagnostics] == [(3, 11)]


def test_chespel_eval_prints_what_chespel_eval_v_prints() -> None:
    path = EXAMPLES / "chespel" / "material.chp"
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    output = chespel_adapter.evaluate(report, str(path), path.read_text(), fen)
    assert output.encode() == command("chespel", "eval", "-v", str(path), fen).stdout


def test_chespel_engine_answers_with_a_legal_move_depth_and_score() -> None:
    text = (EXAMPLES / "chespel" / "material.chp").read_text()
    reply = chespel_adapter.engine_move(report, "material.chp", text, "startpos", ["e2e4"], 100)
    assert reply.move is not None
    board = chespel_adapter.replay("startpos", ["e2e4"])
    assert chespel_adapter.human_move(board, reply.move[:2], reply.move[2:4]) == reply.move
    assert reply.depth is not None and reply.depth >= 1 and reply.score is not None


def test_chespel_positions_refuse_illegal_moves_and_promote_to_a_queen() -> None:
    with pytest.raises(UserError, match="illegal move: e2e5"):
        chespel_adapter.replay("startpos", ["e2e5"])
    board = chespel_adapter.start_board("8/P6k/8/8/8/8/8/K7 w - - 0 1")
    assert chespel_adapter.human_move(board, "a7", "a8") == "a7a8q"
    with pytest.raises(UserError, match="<fen>:1:"):
        chespel_adapter.start_board("8/8/9 w - - 0 1")
    position = chespel_adapter.position("startpos", ["f2f3", "e7e5", "g2g4", "d8h4"], "e1")
    assert position.result == "0-1" and position.san[-1] == "Qh4#"


# ---------------------------------------------------------------------------- Gambit

NIM = EXAMPLES / "gambit" / "nim.gmb"


def test_gambit_game_of_random_players_is_gambit_run(tmp_path: Path) -> None:
    played = gambit_adapter.play(report, "nim.gmb", NIM.read_text(), "random,random", 7, [])
    cli = command("gambit", "run", str(NIM), "--players", "random,random", "--seed", "7",
                  "--record", str(tmp_path / "r.json"))  # fmt: skip
    assert played.log.encode() == cli.stdout
    assert played.pending is None and played.result == "Player 2 wins"
    assert played.record is not None
    assert played.record.replace("nim.gmb", "") == (tmp_path / "r.json").read_text().replace(
        str(NIM), ""
    )


def test_gambit_human_answers_are_replayed_and_the_next_decision_returned() -> None:
    first = gambit_adapter.play(report, "nim.gmb", NIM.read_text(), "human,random", 3, [])
    assert first.pending is not None and first.pending.header == "[Player 1] Take from which heap?"
    assert [i for i, _ in first.pending.options] == [1, 2, 3]
    second = gambit_adapter.play(report, "nim.gmb", NIM.read_text(), "human,random", 3, ["2"])
    assert second.log.startswith(first.log) and "> 2\n" in second.log
    assert second.pending is not None and second.pending.header == "[Player 1] How many stones?"


def test_gambit_replay_steps_grow_into_gambit_run_replay(tmp_path: Path) -> None:
    played = gambit_adapter.play(report, "nim.gmb", NIM.read_text(), "random,random", 11, [])
    assert played.record is not None
    (tmp_path / "r.json").write_text(played.record)
    total, full = gambit_adapter.replay_steps(
        report, "nim.gmb", NIM.read_text(), played.record, 10_000
    )
    assert (
        full.encode()
        == command("gambit", "run", str(NIM), "--replay", str(tmp_path / "r.json")).stdout
    )
    logs = [
        gambit_adapter.replay_steps(report, "nim.gmb", NIM.read_text(), played.record, k)[1]
        for k in range(total)
    ]
    assert all(full.startswith(log) for log in logs)
    assert [log.count(" -> ") for log in logs] == list(range(total))


def test_gambit_mistakes_give_gambit_messages() -> None:
    checked = gambit_adapter.check(report, "x.gmb", "players 2\nmain() { foo }\n")
    assert not checked.ok and checked.report.startswith("x.gmb:2:10: error: 'foo' is not defined")
    with pytest.raises(UserError, match="unknown player 'robot'"):
        gambit_adapter.play(report, "nim.gmb", NIM.read_text(), "robot", 1, [])
    with pytest.raises(UserError, match="3 controllers, but the game has 2 seats"):
        gambit_adapter.play(report, "nim.gmb", NIM.read_text(), "random,random,random", 1, [])
    with pytest.raises(UserError, match="record"):
        gambit_adapter.replay_steps(report, "nim.gmb", NIM.read_text(), "{}", 1)


# ---------------------------------------------------------------------------- CQL

STUDIES = EXAMPLES / "pgn" / "studies-lichess-thijscom.pgn"


def test_cql_run_matches_the_games_cql_writes(tmp_path: Path) -> None:
    query = EXAMPLES / "cql" / "mate.cql"
    progress: list[object] = []
    result = cql_adapter.run(progress.append, "mate.cql", query.read_text(), str(STUDIES), "", None)
    cli = command("cql", str(query), str(STUDIES), "-o", str(tmp_path / "out.pgn"))
    assert "".join(m.pgn for m in result.matches) == (tmp_path / "out.pgn").read_text()
    assert result.summary.split(",")[:3] == cli.stdout.decode().split(",")[:3]
    assert progress[0] == (0, 103) and progress[-1] == (103, 103)
    first = result.matches[0]
    marked = [p for p in first.plies if p.cql]
    assert [p.san for p in marked] == ["Qh4#"] and marked[0].cql == "CQL"
    assert marked[0].comment.startswith("As a sidenote")  # the game's own comment, kept apart


def test_cql_uploaded_text_and_mistakes() -> None:
    pgn = '[Event "x"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n'
    result = cql_adapter.run(report, "q.cql", "cql() mate", None, "up.pgn", pgn)
    assert [m.plies[-1].cql for m in result.matches] == ["CQL"]
    ok, text = cql_adapter.check(report, "q.cql", "cql() matte")
    assert not ok and text.startswith("q.cql:1:7: error:")
    with pytest.raises(UserError, match=r"^q\.cql:1:"):
        cql_adapter.run(report, "q.cql", "cql() matte", None, "up.pgn", pgn)


def test_chespel_setup_places_and_removes_pieces_then_evaluation_checks_the_position() -> None:
    placed = chespel_adapter.place("8/8/8/8/8/8/8/8 w - - 0 1", "e1", "K", "black")
    assert placed.fen == "8/8/8/8/8/8/8/4K3 b - - 0 1"
    assert chespel_adapter.place(placed.fen, "e1", "", "white").fen == "8/8/8/8/8/8/8/8 w - - 0 1"
    # Castling rights that the placement no longer allows are dropped.
    assert chespel_adapter.place("startpos", "h1", "", "white").fen.split()[2] == "Qkq"
    with pytest.raises(UserError, match="<fen>:1:"):  # one king only: not a position yet
        chespel_adapter.start_board(placed.fen)
    with pytest.raises(UserError):
        chespel_adapter.place(placed.fen, "e9", "K", "white")
    with pytest.raises(UserError):
        chespel_adapter.place(placed.fen, "e1", "X", "white")
