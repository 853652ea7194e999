"""`chespel match` end to end (K31, and the 6-game check of issue 5 as a slow test)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from child_processes import finish

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
    assert len(lines) == games + 2 + ("SPRT" in stdout), stdout
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
    assert re.match(r"Elo difference: ([+-]inf|[+-]\d+\.\d \+/- (\d+\.\d|inf)), "
                    r"LOS: \d+\.\d %\Z", lines[games + 1])
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
    assert "[%emt " in text and "[Termination " in text


def test_jobs_give_the_same_games_as_a_serial_run(tmp_path: Path) -> None:
    (tmp_path / "openings.pgn").write_text(
        '[Event "a"]\n\n1. d4 d5 2. c4 *\n\n'
        '[Event "b"]\n[FEN "4k3/pppp1ppp/8/8/8/8/PPPP1PPP/4K2R w K - 0 1"]\n[SetUp "1"]\n\n'
        '1. Kf1 *\n')
    runs = []
    for jobs in ("1", "2"):
        pgn = tmp_path / f"games{jobs}.pgn"
        done = match("examples/chespel/material.chp", "examples/chespel/positional.chp",
                     "--games", "4", "--depth", "2", "--max-plies", "24", "--jobs", jobs,
                     "--openings", str(tmp_path / "openings.pgn"), "--pgn", str(pgn))
        assert done.returncode == 0, done.stderr
        check_output(done.stdout, 4, "material", "positional")
        games = [re.sub(r"\{[^}]*\}", "", game) for game in pgn.read_text().split("[Event")[1:]]
        runs.append((done.stdout, games))
    assert runs[0] == runs[1]
    assert "1. d4 d5 2. c4" in runs[0][1][0]
    assert '[FEN "4k3/pppp1ppp/8/8/8/8/PPPP1PPP/5K1R b - - 1 1"]' in runs[0][1][2]


def test_fixed_nodes_give_the_same_games_every_time(tmp_path: Path) -> None:
    # A node-limited search does not look at the clock: two runs, at whatever load, and a
    # run with --jobs 2 play the same moves.
    runs = []
    for run, jobs in enumerate(("1", "1", "2")):
        pgn = tmp_path / f"games{run}.pgn"
        done = match("examples/chespel/material.chp", "examples/chespel/positional.chp",
                     "--games", "2", "--nodes", "300", "--max-plies", "16", "--jobs", jobs,
                     "--pgn", str(pgn))
        assert done.returncode == 0, done.stderr
        check_output(done.stdout, 2, "material", "positional")
        assert "forfeit" not in done.stdout
        runs.append((done.stdout, re.sub(r"\{[^}]*\}", "", pgn.read_text())))
    assert runs[0] == runs[1] == runs[2]


def test_nodes_must_be_positive() -> None:
    material = str(EXAMPLES / "material.chp")
    done = match(material, material, "--nodes", "0")
    assert done.returncode == 2 and "--nodes" in done.stderr and "Traceback" not in done.stderr


def test_sprt_and_jobs_usage_errors() -> None:
    material = str(EXAMPLES / "material.chp")
    done = match(material, material, "--sprt", "5,0")
    assert done.returncode == 2 and "ELO0 must be below ELO1" in done.stderr
    done = match(material, material, "--jobs", "0")
    assert done.returncode == 2 and "Traceback" not in done.stderr


@pytest.mark.slow
def test_sprt_stops_a_lopsided_match_early(tmp_path: Path) -> None:
    (tmp_path / "noqueen.chp").write_text(
        "module evaluation\n\n// material that ignores queens\nsym rule material:\n"
        "\tpiece p with player == me, type != queen:\n\t\tscore p.value;\n")
    done = match(str(EXAMPLES / "material.chp"), str(tmp_path / "noqueen.chp"),
                 "--games", "200", "--depth", "3", "--max-plies", "150", "--jobs", "2",
                 "--sprt", "0,150")
    assert done.returncode == 0, done.stderr
    played = int(re.findall(r"\] (\d+)$", done.stdout, re.M)[0])
    assert played <= 30, done.stdout
    assert done.stdout.rstrip().endswith("H1 was accepted")


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


def test_interrupted_parallel_match_stops_its_engines_and_leaves_no_pgn(tmp_path: Path) -> None:
    import signal
    import time

    pgn = tmp_path / "games.pgn"
    command = [sys.executable, "-m", "esochess.chespel", "match",
               str(EXAMPLES / "material.chp"), str(EXAMPLES / "positional.chp"), "--games", "40",
               "--movetime", "0.5", "--jobs", "2", "--pgn", str(pgn)]
    # Started through exec so that SIGINT is not inherited as ignored.
    launcher = ("import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
                "os.execv(sys.executable, sys.argv[1:])")
    process = subprocess.Popen([sys.executable, "-c", launcher, *command], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(6)
    process.send_signal(signal.SIGINT)
    # Without stopping the engines first, the games in play would run to their end.
    out, err = finish(process, 60)
    assert process.returncode == 130
    assert err.endswith("chespel: interrupted\n") and "Traceback" not in err
    assert not pgn.exists() and list(tmp_path.iterdir()) == []
