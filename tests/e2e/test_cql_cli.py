"""The `cql` command line (spec §1): options, defaults, usage errors, the real console script."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from pathlib import Path

import chess
from click.testing import CliRunner
from cql_helpers import F, run_cql
from pgn_data import STUDIES

from esochess.cqlvars.cli import main

BIN = Path(sys.executable).parent


def invoke(tmp: Path, args: list[str]) -> tuple[int, str, str]:
    with contextlib.chdir(tmp):
        result = CliRunner().invoke(main, args)
    return result.exit_code, result.stdout, result.stderr


def test_version() -> None:
    code, out, _ = invoke(Path.cwd(), ["--version"])
    assert code == 0 and out.strip().startswith("cql ")
    assert out.strip().endswith(f"(python-chess {chess.__version__})")


def test_default_output_name_and_header_input(tmp_path: Path) -> None:
    (tmp_path / "g.pgn").write_text(F["F1"])
    (tmp_path / "mates.cql").write_text("cql(input g.pgn) mate")
    code, out, _ = invoke(tmp_path, ["mates.cql"])
    assert code == 0 and "1 matched" in out
    assert "Qh4# { CQL }" in (tmp_path / "mates-out.pgn").read_text()


def test_header_output_and_no_match_still_creates_the_file(tmp_path: Path) -> None:
    (tmp_path / "g.pgn").write_text(F["F13"])
    (tmp_path / "q.cql").write_text("cql(output found.pgn) mate")
    code, _, _ = invoke(tmp_path, ["q.cql", "g.pgn"])
    assert code == 0 and (tmp_path / "found.pgn").read_text() == ""


def test_usage_errors(tmp_path: Path) -> None:
    (tmp_path / "q.cql").write_text("cql() check")
    (tmp_path / "g.pgn").write_text(F["S"])
    for args, words in [
        (["q.cql"], "no PGN input"),
        (["q.cql", "missing.pgn"], "missing.pgn"),
        (["--gamenumber", "5-2", "q.cql", "g.pgn"], "--gamenumber"),
        (["--matchcount", "0", "q.cql", "g.pgn"], "--matchcount"),
        (["--limit", "0", "q.cql", "g.pgn"], "--limit"),
        (["-a", "mate=3", "q.cql", "g.pgn"], "keyword"),
        (["-a", "novalue", "q.cql", "g.pgn"], "NAME=VALUE"),
        (["nothere.cql", "g.pgn"], "nothere.cql"),
    ]:
        code, _, err = invoke(tmp_path, args)
        assert code == 2, args
        assert err.startswith("cql: error: ") and words in err, (args, err)
        assert "usage: cql [OPTIONS] QUERY.cql [PGN ...]" in err
    assert not (tmp_path / "q-out.pgn").exists()


def test_query_error_leaves_no_output_and_shows_the_token(tmp_path: Path) -> None:
    r = run_cql(tmp_path, "cql() x = 1000000001", F["S"], query_name="err.cql")
    assert r.code == 2 and r.pgn is None
    assert r.err.splitlines()[2] == " " * 10 + "^" + "~" * 9


def test_warning_does_not_change_the_exit_code(tmp_path: Path) -> None:
    r = run_cql(tmp_path, "cql() initial isunbound Nowhere", F["S"], query_name="w.cql")
    assert r.code == 0 and len(r.games) == 1
    assert r.err.startswith("w.cql:1:25: warning: variable 'Nowhere' is never assigned")


def test_messages_then_persistent_then_statistics(tmp_path: Path) -> None:
    q = 'cql() initial message("game " gamenumber) persistent Games += 1'
    r = run_cql(tmp_path, q, F["F9"])
    lines = r.out.splitlines()
    assert lines[:4] == ["game 1", "game 2", "game 3", "Games: 3"]
    assert lines[4].startswith("cql: 3 games read, 3 matched, 0 with errors")


def test_console_scripts(tmp_path: Path) -> None:
    (tmp_path / "g.pgn").write_text(F["F1"])
    (tmp_path / "q.cql").write_text("cql() wtm mate")
    for argv in ([str(BIN / "cql")], [str(BIN / "esochess"), "cql"]):
        done = subprocess.run(
            [*argv, "-j", "1", "-o", "-", "q.cql", "g.pgn"],
            cwd=tmp_path, capture_output=True, text=True, check=False,
        )
        assert done.returncode == 0, done.stderr
        assert "2. g4 Qh4# { CQL } 0-1" in done.stdout
        assert "cql: 1 games read, 1 matched, 0 with errors" in done.stderr


def test_a_misspelt_move_parameter_names_the_typo(tmp_path: Path) -> None:
    (tmp_path / "q.cql").write_text("cql() move previus from N\n")
    result = CliRunner().invoke(main, [str(tmp_path / "q.cql"), str(STUDIES)])
    assert result.exit_code == 2
    assert "q.cql:1:12: error: unknown word 'previus'; did you mean 'previous'?" in result.stderr


def test_a_misspelt_filter_gets_a_suggestion(tmp_path: Path) -> None:
    (tmp_path / "q.cql").write_text("cql() mat\n")
    result = CliRunner().invoke(main, [str(tmp_path / "q.cql"), str(STUDIES)])
    assert result.exit_code == 2
    assert "variable 'mat' used before assignment; did you mean 'mate'" in result.stderr


def test_without_o_the_summary_names_the_file_written(tmp_path: Path) -> None:
    (tmp_path / "mates.cql").write_text("cql() mate\n")
    with contextlib.chdir(tmp_path):
        result = CliRunner().invoke(main, ["mates.cql", str(STUDIES)])
        named = CliRunner().invoke(main, ["-o", "x.pgn", "mates.cql", str(STUDIES)])
    assert result.exit_code == 0 and (tmp_path / "mates-out.pgn").exists()
    assert "27 matched (written to mates-out.pgn), 0 with errors" in result.stdout
    assert "27 matched, 0 with errors" in named.stdout
