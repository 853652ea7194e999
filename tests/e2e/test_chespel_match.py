"""`chespel match` end to end (K31, and the 6-game check of issue 5 as a slow test)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "chespel"
LINE = re.compile(r"game (\d+)/(\d+): (\w+) vs (\w+): (1-0|0-1|1/2-1/2) \(([a-z :-]+)\)\Z")
REASONS = {"checkmate", "stalemate", "insufficient material", "fifty-move rule",
           "threefold repetition", "max plies", "forfeit: crash", "forfeit: illegal move",
           "forfeit: time"}


def match(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "esochess.chespel", "match", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=900)


def check_output(stdout: str, games: int, first: str, second: str) -> list[str]:
    lines = stdout.splitlines()
    assert len(lines) == games + 2, stdout
    reasons = []
    for number, line in enumerate(lines[:games], 1):
        found = LINE.match(line)
        assert found, line
        white, black = (first, second) if number % 2 else (second, first)
        assert found.groups()[:4] == (str(number), str(games), white, black)
        assert found.group(6) in REASONS
        reasons.append(found.group(6))
    score = re.match(rf"Score of {first} vs {second}: (\d+) - (\d+) - (\d+) \[(\d\.\d\d\d)\] "
                     rf"{games}\Z", lines[games])
    assert score, lines[games]
    assert sum(int(x) for x in score.groups()[:3]) == games
    assert re.match(r"Elo difference: ([+-]inf|[+-]\d+\.\d \+/- (\d+\.\d|inf))\Z", lines[-1])
    return reasons


def test_k31_short_match_with_pgn(tmp_path: Path) -> None:
    pgn = tmp_path / "games.pgn"
    done = match("examples/chespel/material.chp", "examples/chespel/positional.chp",
                 "--games", "2", "--movetime", "0.1", "--max-plies", "16", "--pgn", str(pgn))
    assert done.returncode == 0, done.stderr
    check_output(done.stdout, 2, "material", "positional")
    text = pgn.read_text()
    assert text.count("[Event \"chespel match\"]") == 2
    assert "1. e4 e5" in text  # the first built-in opening


def test_match_rejects_bad_programs_and_engines(tmp_path: Path) -> None:
    (tmp_path / "bad.chp").write_text("module evaluation\nrule r:\n\tscore q.value;\n")
    done = match("bad.chp", "bad.chp", cwd=tmp_path)
    assert done.returncode == 2 and "unknown name 'q'" in done.stderr
    missing = match("uci:/nonexistent/engine", str(EXAMPLES / "material.chp"), "--games", "1")
    assert missing.returncode == 2 and "cannot start engine" in missing.stderr
    engine = f"uci:{sys.executable} -m esochess.chespel uci {EXAMPLES / 'material.chp'}"
    unknown = match(f"{engine};Colour=red", str(EXAMPLES / "material.chp"), "--games", "1")
    assert unknown.returncode == 2 and "option Colour=red" in unknown.stderr
    assert "Traceback" not in unknown.stderr


@pytest.mark.slow
def test_issue5_six_games_without_forfeit() -> None:
    done = match("examples/chespel/positional.chp", "examples/chespel/material.chp",
                 "--games", "6", "--movetime", "0.2")
    assert done.returncode == 0, done.stderr
    reasons = check_output(done.stdout, 6, "positional", "material")
    assert not any(reason.startswith("forfeit") for reason in reasons)


@pytest.mark.slow
def test_k31_exact_command() -> None:
    done = match("examples/chespel/material.chp", "examples/chespel/positional.chp",
                 "--games", "2", "--movetime", "0.2")
    assert done.returncode == 0, done.stderr
    check_output(done.stdout, 2, "material", "positional")


def test_unclosed_quote_in_an_engine_command_is_a_usage_error() -> None:
    done = match(str(EXAMPLES / "material.chp"), 'uci:foo "bar')
    assert done.returncode == 2
    assert done.stderr == ("chespel: error: bad engine command in 'uci:foo \"bar': "
                           "No closing quotation\n")
    assert "Traceback" not in done.stderr


def test_openings_file_that_is_not_utf8_is_a_located_usage_error(tmp_path: Path) -> None:
    openings = tmp_path / "openings.txt"
    openings.write_bytes(b"e4 e5\nd4 \xff\n")
    done = match(str(EXAMPLES / "material.chp"), str(EXAMPLES / "material.chp"),
                 "--openings", str(openings))
    assert done.returncode == 2
    assert done.stderr == (f"chespel: error: {openings}:2:4: the file is not UTF-8 text "
                           "(byte 0xff)\n")


def test_an_unwritable_pgn_is_reported_before_any_game(tmp_path: Path) -> None:
    target = tmp_path / "missing" / "games.pgn"
    done = match("examples/chespel/material.chp", "examples/chespel/positional.chp",
                 "--games", "2", "--depth", "1", "--pgn", str(target))
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == f"chespel: error: cannot write {target}: no such directory\n"
